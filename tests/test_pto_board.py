"""The PTO demo on a board (irqlab/demos/pto/board.py) against a stand-in
board on a socket that plays the boot code and fw/pto's from_host mode: the
load frame checked, each train's command answered with the trace the trace
unit would send over a 3 Mbaud link (its FIFO of TRACE_FIFO_RECORDS
emulated: edges that do not fit are dropped and counted in an OVERFLOW
record), the run ended by the host. And the firmware's from_host mode
itself, in simulation, fed a script of commands."""

import json
import struct
import time

import pytest

from irqlab.drivers import board as boardrun
from irqlab.errors import BenchError
from irqlab.flows import build as boardbuild
from irqlab.builders import fwimage
from irqlab.demos.pto import sim as sim_demo
from irqlab.demos.pto import board as pto_board
from irqlab.host import pto, record as rec
from irqlab.host.decode import Record, decode_bytes
from irqlab.rows import row

from clitool import assert_one_line_error, irqlab
from standin import StandInBoard, recv_exact
from tracegen import TraceBuilder, console

CORE = "vexriscv"
CLOCK_HZ = 50e6                       # bitstreams/ulx3s-vexriscv.json
RESPONSE = 300                        # the stand-in handler's cycles from an edge to the next interval
PROTO = pto.PROTO


class PtoBoard(StandInBoard):
    """One load, then trains as the host commands them, until PTO_CMD_END."""

    def __init__(self, fifo=pto.TRACE_FIFO_RECORDS):
        super().__init__()
        self.fifo = fifo
        self.config = None
        self.commands = []            # (spec, traced)
        self.tb = TraceBuilder().time_hi(0)
        self.t = 1000

    def send(self, c):
        c.sendall(self.tb.bytes())
        self.tb.chunks = []

    def say(self, c, text):
        console(self.tb, self.t, text)
        self.t += len(text) + 10
        self.send(c)

    def run(self):
        c, _ = self.srv.accept()
        with c:
            size = row(CORE).soc_config.main_ram_size
            image = self.read_load_frame(c, size)
            self.config = fwimage.read_config(bytearray(image), size)
            self.say(c, f"irqlab boot: loaded {len(image)} bytes\npto: ready\n")
            while True:
                cmd = recv_exact(c, 1)[0]
                if cmd == PROTO.PTO_CMD_END:
                    self.say(c, "pto: ok\nirqlab: exit 0\n")
                    break
                words = struct.unpack("<5I", recv_exact(c, 4 * PROTO.PTO_CMD_WORDS))
                spec, traced = pto.Spec(*words[:4]), bool(words[4])
                self.commands.append((spec, traced))
                self.train(c, spec, traced)
            try:
                c.recv(1)             # until the host closes
            except OSError:
                pass

    def train(self, c, spec, traced):
        """The timer: each edge its programmed interval after the last, or the
        handler's RESPONSE when that is longer (a late edge, counted)."""
        self.tb.sw(self.t, PROTO.CH_TRAIN, spec.pulses)
        t, level, dropped, late, bit = self.t + 50, 1.0, 0, 0, 1 << rec.HW_PTO
        drain = 3e6 / pto.LINK_BITS_PER_RECORD / CLOCK_HZ
        for k, iv in enumerate(pto.programmed_intervals(spec)):
            step = iv if k == 0 else max(iv, RESPONSE)
            late += step > iv
            t += step
            level = max(0.0, level - step * drain)
            if not traced:
                continue
            if level + 1 > self.fifo:
                dropped += 1
                continue
            level += 1
            self.tb.hw(t, rise=0 if k % 2 else bit, fall=bit if k % 2 else 0)
        if dropped:
            self.tb.add(rec.TYPE_OVERFLOW, t + 5, dropped)
        self.tb.sw(t + 10, PROTO.CH_DONE, 2 * spec.pulses).sw(t + 11, PROTO.CH_MISSES, late)
        self.tb.sw(t + 12, PROTO.CH_WORK, 7)
        self.t = t + 20
        self.say(c, f"pto: {spec.pulses} pulses, {2 * spec.pulses} edges, {late} late, background work 7\n")


@pytest.fixture(scope="module")
def headers():
    boardbuild.generate_headers(boardbuild.job("ulx3s", CORE))


SWEEP = (10, 50, 100, 200)


def test_sweep_and_search_on_a_board(headers, tmp_path):
    board = PtoBoard()
    board.start()
    res = pto_board.demo("ulx3s", CORE, board.url(), str(tmp_path), sweep_khz=SWEEP)
    assert board.frame_ok and board.config["from_host"] == 1
    e = res["cores"][CORE]["pto"]
    assert res["clock_hz"] == CLOCK_HZ and res["board"] == "ulx3s"
    # The bisection finds the stand-in handler's bound to the cycle.
    assert e["max_half_period"] == RESPONSE
    assert e["max_khz"] == pytest.approx(CLOCK_HZ / (2 * RESPONSE) / 1e3)
    pts = {round(p["khz"]): p for p in e["points"]}
    assert set(pts) == set(SWEEP)
    for khz in (10, 50):
        assert pts[khz]["source"] == "trace" and pts[khz]["sustained"] and pts[khz]["jitter"] == 0
    late = pts[100]                   # half-period 250 < RESPONSE: every second-half edge late
    assert late["source"] == "trace" and late["late_trace"] == late["late_firmware"] > 0
    assert e["trace_dropped"] == 0
    # Sweep trains sized to the link, long trains above it not traced.
    for spec, traced in board.commands:
        fits = pto.fifo_peak(spec, CLOCK_HZ, 3e6, 1) <= pto.TRACE_FIFO_RECORDS - pto_board.FIFO_MARGIN
        assert traced == fits
    assert any(not traced and spec.pulses == sim_demo.LONG_TRAIN for spec, traced in board.commands)
    assert len(board.commands) == e["runs"]
    saved = json.load(open(tmp_path / "pto.json"))
    assert "timer" in saved["cores"][CORE]["pto"]["figures_from"]["max_khz"]
    assert "from the" in open(tmp_path / "pto.md").read()
    records, stats = decode_bytes(open(tmp_path / f"trace-pto-{CORE}.bin", "rb").read())
    assert stats.intact and not stats.hw_dropped


def test_trace_overflow_is_detected_and_reported(headers, tmp_path):
    """A FIFO smaller than the host assumes: the traced trains lose edges;
    their figures fall back to the timer's counts, and the drops are counted."""
    board = PtoBoard(fifo=150)
    board.start()
    res = pto_board.demo("ulx3s", CORE, board.url(), str(tmp_path), sweep_khz=(50, 100))
    e = res["cores"][CORE]["pto"]
    assert e["trace_dropped"] > 0
    lossy = [p for p in e["points"] if p.get("trace_dropped")]
    assert lossy and all(p["source"] == "timer" and p["jitter"] is None for p in lossy)
    assert e["max_half_period"] == RESPONSE    # the timer's counts still decide


class SilentBoard(PtoBoard):
    """Takes the image, then its firmware never says it is ready."""

    def run(self):
        c, _ = self.srv.accept()
        with c:
            self.read_load_frame(c, row(CORE).soc_config.main_ram_size)
            self.say(c, "irqlab boot: loaded 1024 bytes\n")
            try:
                c.recv(1)             # until the host closes
            except OSError:
                pass


def test_a_firmware_that_never_says_ready_is_one_error(headers, tmp_path, monkeypatch):
    """Negative control of the ready line's wait: the boot code took the
    image and the firmware stays silent; the demo ends with the error in
    READY_WITHIN_S (here 1 s), not at the capture's limit, and writes nothing."""
    monkeypatch.setattr(boardrun, "READY_WITHIN_S", 1.0)
    board = SilentBoard()
    board.start()
    t0 = time.monotonic()
    with pytest.raises(BenchError, match="has not printed 'pto: ready' in 1 s"):
        pto_board.demo("ulx3s", CORE, board.url(), str(tmp_path / "out"), sweep_khz=SWEEP)
    assert time.monotonic() - t0 < 30
    assert not list(tmp_path.rglob("pto.*")) and not list(tmp_path.rglob("*.part"))


def test_the_ready_clock_starts_at_the_boot_line(monkeypatch):
    """Before the boot code took the image (a long load), no deadline runs;
    after it, the ready line in time stops it."""
    clock = [0.0]
    monkeypatch.setattr(boardrun.time, "monotonic", lambda: clock[0])

    def lines(text):
        return [Record(rec.TYPE_CONSOLE, 0, 0, ord(ch)) for ch in text]

    w = boardrun.ConsoleWatch("pto: ready", within_s=5)
    clock[0] = 100.0
    w(lines("irqlab boot: 'g' runs the firmware in ROM, 'L' loads one\n"))   # no deadline yet
    w(lines("irqlab boot: loaded 4 bytes\n"))
    clock[0] = 104.0
    w(lines("pto: ready\n"))
    clock[0] = 200.0
    assert w([]) is None and w.seen.is_set()
    late = boardrun.ConsoleWatch("pto: ready", within_s=5)
    late(lines("irqlab boot: loaded 4 bytes\n"))
    clock[0] = 205.5
    with pytest.raises(BenchError, match="has not printed"):
        late([])


def test_traced_pulses_fit_the_fifo():
    # 10 kHz at 50 MHz: the link keeps up with 2,500-cycle half-periods? No
    # (one record per 3,000 cycles), but 2,000 pulses still fit.
    assert pto_board.traced_pulses(2500, 2000, CLOCK_HZ, 3e6) == 2000
    n = pto_board.traced_pulses(250, 2000, CLOCK_HZ, 3e6)
    assert pto_board.MIN_PULSES <= n < 2000
    room = pto.TRACE_FIFO_RECORDS - pto_board.FIFO_MARGIN
    assert pto.fifo_peak(pto.Spec(n, 250), CLOCK_HZ, 3e6, 1) <= room < pto.fifo_peak(pto.Spec(n + 1, 250),
                                                                                     CLOCK_HZ, 3e6, 1)


def test_fifo_depth_is_the_trace_units():
    import inspect
    from irqlab.soc.tracer import TraceUnit
    assert inspect.signature(TraceUnit).parameters["fifo_depth"].default == pto.TRACE_FIFO_RECORDS


def test_cli_errors(tmp_path):
    out = tmp_path / "out"
    assert_one_line_error(irqlab("demo", "pto", "--board", "nope", "--port", "/dev/null", "--cores", CORE), "nope")
    assert_one_line_error(irqlab("demo", "pto", "--board", "ulx3s", "--cores", CORE), "--port")
    assert_one_line_error(irqlab("demo", "pto", "--board", "ulx3s", "--port", "/dev/null"), "--cores")
    assert_one_line_error(irqlab("demo", "pto", "--board", "arty", "--port", "/dev/null", "--cores", "clic-cache",
                                 "--out", str(out)), "arty build")
    assert not out.exists()


def test_bad_port_is_one_line(headers, tmp_path):
    out = tmp_path / "out"
    r = irqlab("demo", "pto", "--board", "ulx3s", "--port", str(tmp_path / "no-such-tty"), "--cores", CORE,
               "--out", str(out))
    assert_one_line_error(r, "no-such-tty")
    assert not (out / "pto.json").exists() and not list(out.glob("*.part"))


# ------------------------------------------------ the firmware, in simulation

def test_from_host_mode_in_simulation(tmp_path):
    """fw/pto's from_host mode on the simulated SoC, the commands fed to its
    console: a traced train, an untraced one, the end."""
    from irqlab.drivers import sim
    model = sim.ensure_model("clic")
    image = sim.load_image(model, sim.build_firmware(model, "pto"), from_host=1)
    a, b = pto.Spec(50, 600), pto.Spec(40, 800)
    script = pto_board.command(a, True) + pto_board.command(b, False) + bytes([PROTO.PTO_CMD_END])
    r = sim.run(model, image, str(tmp_path / "t.bin"), console_in=script, max_cycles=20_000_000)
    assert r.exit_code == 0 and "pto: ready" in r.console and "pto: ok" in r.console, r.console
    records, _ = r.trace()
    ta, tb = pto.trains(records)
    fa = pto.figures(ta, a)
    assert fa["sustained"] and fa["edges"] == 100 and fa["jitter"] == 0
    assert tb.edges == [] and pto.timer_figures(tb, b)["sustained"]
