"""Bad input to the irqlab command: one line on stderr, exit status 2, nothing half-written."""

import os
import socket
import time

import pytest

from irqlab.errors import CaptureError
from irqlab.host import capture, record as rec
from clitool import assert_one_line_error, irqlab
from tracegen import latency_trace


def test_unknown_core():
    assert_one_line_error(irqlab("bench", "--cores", "z80"), "unknown row 'z80'")
    assert_one_line_error(irqlab("build", "--core", "z80"), "unknown row")


def test_unknown_board():
    assert_one_line_error(irqlab("bench", "--board", "de0nano"), "unknown board 'de0nano'")


def test_a_peer_that_has_ended_is_not_waited_for(tmp_path):
    """The capture stops trying at once when the simulator it waits for has
    ended (say, it could not listen), and says why, not after its timeout."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    with pytest.raises(CaptureError, match="the simulator exited with 2"):
        capture.capture(f"socket://127.0.0.1:{port}", str(tmp_path / "t.bin"), connect_timeout=30,
                        peer_gone=lambda: "the simulator exited with 2 (cannot listen)")
    assert time.monotonic() - t0 < 5
    assert not os.path.exists(tmp_path / "t.bin") and not os.path.exists(tmp_path / "t.bin.part")


def test_port_that_does_not_answer(tmp_path):
    with socket.socket() as s:          # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = tmp_path / "t.bin"
    r = irqlab("capture", f"socket://127.0.0.1:{port}", "-o", str(out), "--connect-timeout", "0.5")
    assert_one_line_error(r, "cannot connect")
    assert not out.exists() and not list(tmp_path.iterdir())


def test_serial_port_that_does_not_exist(tmp_path):
    out = tmp_path / "t.bin"
    assert_one_line_error(irqlab("capture", "/dev/ttyIRQLAB-NONE", "-o", str(out)), "cannot open")
    assert not out.exists()


def test_bad_socket_url(tmp_path):
    assert_one_line_error(irqlab("capture", "socket://nohostport", "-o", str(tmp_path / "t")), "bad socket URL")


def test_corrupt_trace(tmp_path):
    data = bytearray(latency_trace([40] * 10))
    data[rec.RECORD_BYTES * 4 + 9] ^= 0xFF
    p = tmp_path / "bad.bin"
    p.write_bytes(bytes(data))
    assert_one_line_error(irqlab("analyze", str(p)), "corrupt bytes")
    r = irqlab("analyze", "--allow-gaps", str(p))
    assert r.returncode == 0 and "corrupt bytes" in r.stderr


def test_truncated_empty_and_missing_trace(tmp_path):
    data = latency_trace([40] * 10)
    p = tmp_path / "short.bin"
    p.write_bytes(data[:-4])
    assert_one_line_error(irqlab("analyze", str(p)), "ends inside a record")
    e = tmp_path / "empty.bin"
    e.write_bytes(b"")
    assert_one_line_error(irqlab("decode", str(e)), "empty")
    assert_one_line_error(irqlab("analyze", str(tmp_path / "nope.bin")), "cannot read")


def test_analyze_good_trace(tmp_path):
    p = tmp_path / "good.bin"
    p.write_bytes(latency_trace([30, 40, 50]))
    r = irqlab("analyze", str(p))
    assert r.returncode == 0, r.stderr
    assert "latency: 3 interrupts, latency min 30 median 40" in r.stdout


def test_bad_board_options():
    assert_one_line_error(irqlab("build", "--board", "ulx3s", "--core", "vexriscv", "--device", "LFE5U-99F"),
                          "unknown ULX3S device")
    assert_one_line_error(irqlab("build", "--board", "arty", "--core", "vexriscv", "--variant", "a7-50"),
                          "unknown Arty variant")
    assert_one_line_error(irqlab("build", "--board", "ulx3s", "--core", "cv32e40p"), "open ECP5 flow")


def test_bad_firmware_options(tmp_path):
    assert_one_line_error(irqlab("bench", "--suite", "ctxsw", "--fw-option", "turbo", "--out", str(tmp_path)),
                          "unknown firmware option 'turbo'")
    assert_one_line_error(irqlab("bench", "--fw-option", "opt-select"), "the context-switch suite's")
    assert_one_line_error(irqlab("run", "--core", "clic", "--fw-option", "opt-select"),
                          "applies to applications on freertos only")
    assert not list(tmp_path.iterdir())
