"""`irqlab demo pto --board ulx3s|arty --port DEV`: the PTO demo on a board,
the same sweep and bisection as in simulation (irqlab/demos/pto/sim.py), at the
bitstream's clock.

The boot code takes one load per reset, so one load runs every train: the
firmware is built with `from_host` (fw/pto/main.c) and the host sends each
train's specification over the link while it captures (boardrun, capture's
`respond`), waiting for a train's report before it sends the next.

The link bounds what the trace can hold. A UART carries baud / 180 records
a second (16,667 at 3 Mbaud: one per 3,000 cycles at 50 MHz), while a
train at 100 kHz makes an edge every 250 cycles; the trace unit's FIFO
(1,024 records) takes up the difference, and past it the unit drops edges
(counted, OVERFLOW). So:
  * sweep trains are traced, as long as they are in simulation where their
    edges fit the FIFO (trace/pto.py fifo_peak) and shorter where not (at
    least MIN_PULSES): jitter, late edges and the response from the trace,
    checked against the timer's counts, as in simulation;
  * the long trains of the bisection (LONG_TRAIN pulses) are not traced: a
    train is sustained when the timer made every edge and counted none late
    (CH_DONE, CH_MISSES);
  * a traced train whose trace still lost edges is never used as a trace:
    its figures fall back to the timer's counts, its dropped edges are
    recorded (`trace_dropped`) and the run reports it.
Each row's `figures_from` in pto.json says where its figures came from.
"""

import os
import queue
import struct
import threading
import time

from irqlab.drivers import board as boardrun
from irqlab.suites.latency import new_results
from irqlab.demos.pto import sim as sim_demo
from irqlab.errors import BenchError
from irqlab.host import pto, record as rec
from irqlab.host.decode import check as check_trace

PROTO = pto.PROTO
MIN_PULSES = 100
FIFO_MARGIN = 64          # records of the FIFO left free: the train's start event, TIME_HI, timing slack
TRAIN_TIMEOUT_S = 30      # of a silent link, beyond the train's own length
READY = "pto: ready"      # fw/pto/main.c: from here the firmware reads commands


def command(spec, traced):
    """The from_host command of one train (trace/protocol.py PTO_CMD_*)."""
    words = (spec.pulses, spec.start_interval, spec.cruise_interval, spec.delta_q8, int(traced))
    assert len(words) == PROTO.PTO_CMD_WORDS
    return bytes([PROTO.PTO_CMD_TRAIN]) + struct.pack("<5I", *words)


def traced_pulses(interval, pulses, clock_hz, baudrate):
    """The most pulses up to `pulses` of a square train at `interval` whose
    edges fit the trace unit's FIFO on the link, or 0 if not even MIN_PULSES do."""
    room = pto.TRACE_FIFO_RECORDS - FIFO_MARGIN

    def fits(n):
        return pto.fifo_peak(pto.Spec(n, interval, interval), clock_hz, baudrate, records_before=1) <= room

    if not fits(MIN_PULSES):
        return 0
    lo, hi = MIN_PULSES, pulses
    while lo < hi:                       # the largest n that fits
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
    return lo


class BoardRunner:
    """Runs trains on the board one after another, in one load: the same
    interface as the simulation's Runner (square, train, finish)."""

    def __init__(self, t, port, out_dir, progress=None, baudrate=None, background=1,
                 max_seconds=3600):
        self.t, self.port, self.progress = t, port, progress
        self.row, self.clock_hz = t.core, t.clock_hz
        self.baudrate = baudrate or t.board.link.baudrate
        self.runs = 0
        self.trace_path = os.path.join(out_dir, f"trace-pto-{t.core}.bin")
        self.image, self.config = boardrun.build_image(t, sim_demo.APP, {"from_host": 1, "background": background},
                                                       progress)
        self.records = []                 # every record so far (the capture thread appends)
        self._outbox = queue.Queue()
        self._reports = queue.Queue()     # (train records) per finished train
        self._train = None                # records of the train under way
        self._ready = boardrun.ConsoleWatch(READY)   # seen: the firmware reads commands
        self._last_data = time.monotonic()  # when the link last carried a record
        self._result = {}
        self.max_seconds = max_seconds
        self.dropped = 0                  # edges the trace unit dropped in traced trains
        self._thread = threading.Thread(target=self._capture, daemon=True)
        self._thread.start()
        self.figures_from = {
            "max_khz": f"timer: a long train ({sim_demo.LONG_TRAIN} pulses) is traced only where its edges "
                       f"fit the trace unit's FIFO (the {self.baudrate} baud link carries "
                       f"{self.baudrate // pto.LINK_BITS_PER_RECORD:,} records/s), else sustained = every "
                       f"edge made and none late by the PTO timer's counts (each point's `source`)",
            "jitter": "trace: sweep trains sized so their edges fit the trace unit's FIFO on the link",
        }

    # ---- the capture thread
    def _capture(self):
        try:
            self._result["capture"] = boardrun.load_and_capture(
                self.t, self.port, self.image, self.trace_path, self.baudrate, self.max_seconds,
                None, respond=self._respond, what="the PTO demo")
        except BaseException as e:          # raised in the caller's thread
            self._result["error"] = e
        self._reports.put(None)

    def _respond(self, decoded):
        self.records.extend(decoded)
        if decoded:
            self._last_data = time.monotonic()
        self._ready(decoded)
        for r in decoded:
            if r.type != rec.TYPE_SW and self._train is None:
                continue
            ch = r.payload >> 32 & 0xFF if r.type == rec.TYPE_SW else None
            if ch == PROTO.CH_TRAIN:
                self._train = []
            if self._train is not None:
                self._train.append(r)
            if ch == PROTO.CH_WORK:       # the train's last report
                self._reports.put(self._train)
                self._train = None
        if not self._ready.seen.is_set():
            return None
        try:
            return self._outbox.get_nowait()
        except queue.Empty:
            return None

    # ---- the Runner interface
    def square(self, interval, long=False):
        pulses = sim_demo.pulses_for(interval, long)
        if long:
            return pto.Spec(pulses, interval, interval)
        return pto.Spec(traced_pulses(interval, pulses, self.clock_hz, self.baudrate) or MIN_PULSES,
                        interval, interval)

    def fits(self, spec):
        """The train's edges fit the trace unit's FIFO on this link."""
        return pto.fifo_peak(spec, self.clock_hz, self.baudrate, records_before=1) <= \
            pto.TRACE_FIFO_RECORDS - FIFO_MARGIN

    def train(self, spec, label=""):
        traced = self.fits(spec)
        if self.progress:
            self.progress.step(f"{self.t.name}: {label}half-period {spec.start_interval} cycles, "
                               f"{spec.pulses} pulses{'' if traced else ' (timer counts only)'}")
        self._outbox.put(command(spec, traced))
        self._sent = time.monotonic()
        got = self._report(TRAIN_TIMEOUT_S + 2 * spec.pulses * spec.start_interval / self.clock_hz)
        if got is None:
            self._raise_capture_error()
            raise BenchError(f"{self.t.name}: the PTO demo ended before its train")
        self.runs += 1
        (train,) = pto.trains(got)
        dropped = sum(r.payload & 0xFFFFFFFF for r in got if r.type == rec.TYPE_OVERFLOW)
        if traced and not dropped:
            f = pto.figures(train, spec, self.clock_hz)
            f["source"] = "trace"
        else:
            f = pto.timer_figures(train, spec, self.clock_hz)
            f["source"] = "timer"
            if traced:
                f["trace_dropped"] = dropped
                self.dropped += dropped
                if self.progress:
                    self.progress.step(f"{self.t.name}: the trace unit dropped {dropped} events of this "
                                       f"train: its figures are the timer's")
        return f

    def _report(self, quiet_s):
        """The next train's records, or None if the run ended. The clock runs
        from the firmware's "ready" (the load before it takes seconds on a
        board, minutes on the board twin) and restarts with every record
        the link carries: only `quiet_s` seconds of silence are a failure."""
        while not self._ready.seen.wait(0.2):
            if not self._thread.is_alive():
                return None
        while True:
            try:
                return self._reports.get(timeout=0.5)
            except queue.Empty:
                if time.monotonic() - max(self._last_data, self._sent) > quiet_s:
                    raise BenchError(f"{self.t.name}: no report of the train from the board, "
                                     f"its link silent for {quiet_s:.0f} s") from None

    def finish(self):
        """End the run (PTO_CMD_END) and check the whole trace."""
        if self._thread.is_alive():
            self._outbox.put(bytes([PROTO.PTO_CMD_END]))
            self._thread.join()
        self._raise_capture_error()
        records, stats = self._result["capture"]
        check_trace(records, stats, self.trace_path)    # link corruption fails; drops were handled per train

    def _raise_capture_error(self):
        if "error" in self._result:
            raise self._result["error"]


def demo(board, core, port, out_dir, progress=None, baudrate=None, sweep_khz=sim_demo.SWEEP_KHZ):
    """The demo on the row whose bitstream is on the board; writes pto.json,
    pto.md and report.html into out_dir, as in simulation."""
    from irqlab.rows import row as row_info
    if not row_info(core).soc_config.pto:
        raise BenchError(f"row '{core}' has no PTO (its SoC '{row_info(core).soc}' has no free interrupt input)")
    t = boardrun.target(board, core)
    os.makedirs(out_dir, exist_ok=True)
    runner = BoardRunner(t, port, out_dir, progress, baudrate)
    entry = sim_demo.run_row(core, out_dir, progress, sweep_khz, runner=runner)
    entry["pto"]["trace_dropped"] = runner.dropped
    results = new_results(board, t.clock_hz)
    results.update({"demo": sim_demo.APP, "definitions": pto.__doc__.strip(), "link_baud": runner.baudrate})
    results["cores"][core] = entry
    results["config"] = entry.pop("firmware_config", runner.config)
    sim_demo.write_outputs(results, out_dir)
    return results
