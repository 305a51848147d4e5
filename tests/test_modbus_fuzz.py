"""The Modbus-RTU frame assembler and request handler (fw/common/modbus/)
fuzzed with libFuzzer (clang from Debian, scripts/setup.sh) under ASan and
UBSan, for a bounded time, from a seed corpus this test writes: valid and
invalid requests of test_modbus_host's reference encoder, straight to the
handler and as timed byte streams. The target (host/mb_fuzz.c) checks every
response itself; any sanitizer report or failed check is a failure here."""
import re
import shutil
import subprocess

import pytest

from test_modbus_host import ADDR, EXCEPTIONS, SOURCES, SRC, VALID, adu

FUZZ_SECONDS = 20
TARGET = [s for s in SOURCES if not s.endswith("mb_script.c")] + ["host/mb_fuzz.c"]


def stream(baud_index, *frames):
    """Stream mode: each frame after a silence, its bytes back to back."""
    out = bytearray([0, baud_index])
    for frame in frames:
        ctl = [5] + [0] * (len(frame) - 1)
        out += bytes(x for pair in zip(ctl, frame) for x in pair)
    return bytes(out)


def seeds():
    """Direct mode (byte 0 odd): address + PDU. Stream mode (even): a baud
    index, then (control, byte) pairs: back to back, then a silence."""
    for i, pdu in enumerate(VALID + [p for p, _ in EXCEPTIONS]):
        yield b"\x01" + bytes([ADDR]) + pdu
        yield stream(i % 6, adu(ADDR, pdu))
    # a request while the long answer to the one before still goes out
    for i in range(6):
        yield stream(i, adu(ADDR, VALID[3]), adu(ADDR, VALID[0]))


@pytest.fixture(scope="module")
def fuzzer(tmp_path_factory):
    if shutil.which("clang") is None:
        pytest.skip("clang is not installed (scripts/setup.sh installs clang and libclang-rt-14-dev)")
    exe = tmp_path_factory.mktemp("modbus-fuzz") / "mb_fuzz"
    build = subprocess.run(["clang", "-g", "-O1", "-fsanitize=fuzzer,address,undefined",
                            "-fno-sanitize-recover=all", f"-I{SRC}", f"-I{SRC / 'host'}",
                            *[str(SRC / s) for s in TARGET], "-o", str(exe)],
                           capture_output=True, text=True)
    assert build.returncode == 0, ("libFuzzer build failed (is libclang-rt-14-dev installed?):\n"
                                   + build.stderr[-2000:])
    return exe


def test_fuzz_frame_parser_bounded(fuzzer, tmp_path):
    seed_dir, corpus = tmp_path / "seeds", tmp_path / "corpus"
    seed_dir.mkdir()
    corpus.mkdir()
    for i, s in enumerate(seeds()):
        (seed_dir / f"seed{i:03d}").write_bytes(s)
    run = subprocess.run([str(fuzzer), f"-max_total_time={FUZZ_SECONDS}", "-timeout=5",
                          "-rss_limit_mb=1024", "-max_len=600", "-seed=13",
                          f"-artifact_prefix={tmp_path}/", str(corpus), str(seed_dir)],
                         capture_output=True, text=True, timeout=FUZZ_SECONDS + 120)
    crashes = sorted(tmp_path.glob("crash-*")) + sorted(tmp_path.glob("timeout-*"))
    assert run.returncode == 0 and not crashes, (
        f"fuzzer finding (exit {run.returncode}): {[c.name for c in crashes]}\n{run.stderr[-3000:]}")
    done = re.search(r"Done (\d+) runs", run.stderr)
    assert done and int(done.group(1)) > 10_000, run.stderr[-1000:]
    # it explored beyond the seeds: coverage grew past what they reach
    cov = [int(c) for c in re.findall(r"cov: (\d+)", run.stderr)]
    assert cov and cov[-1] > cov[0], run.stderr[-1000:]
