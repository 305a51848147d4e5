"""`irqlab demo modbus --board ulx3s|arty --port DEV --modbus-port DEV2`:
the Modbus-RTU demo on a board.

fw/modbus is loaded through the board path (irqlab/drivers/board.py); the trace
and the console come back over --port. The master, pymodbus, talks to the
board's Modbus UART through a second serial device wired to its header pins
(README "Modbus-RTU demo", Wiring), at the baud rate of the run. The boot
code takes one load per reset, so a board run is one baud rate, and its one
session does what the simulation spreads over three runs:

    sync        requests until one is answered
    robustness  (unless left out) the malformed frames, then valid ones
    idle        IDLE_S seconds without traffic: the background rate alone
    window      `frames` requests, each checked
    stop        MB_HOLD_STOP: the firmware ends the run

Frame events from the end of the trace: stop -1, the counters' read -2, the
window's requests -3 .. -(frames + 2), the counters' read before them
-(frames + 3), the last frame before the idle wait -(frames + 4). The
background rate (trace unit, CH_MB_BG) is taken over the window and over
the idle wait, at the bitstream's clock. A trace in which the trace unit
dropped events would undercount the background: it is an error.
"""

import json
import os
import threading
import time
from dataclasses import asdict

from irqlab.drivers import board as boardrun
from irqlab.demos.modbus import sim as md
from irqlab.host import modbus as regs
from irqlab.host.atomic import atomic_open
from irqlab.host.decode import check as check_trace

DemoError = md.DemoError
MAX_SECONDS = 900
BOARD_TIMEOUT_S = 2        # real seconds for an answer: the board runs in real time
READY = "modbus: slave"    # fw/modbus/main.c: the slave's UART is set up


def demo(board, core, port, modbus_port, baud, frames, out_dir, progress=None, with_robustness=True,
         baudrate=None, idle_s=md.IDLE_S):
    from irqlab.rows import row as row_info
    if not row_info(core).soc_config.modbus_uart:
        raise DemoError(f"row '{core}': its SoC has no Modbus UART (soc/configs.py modbus_uart)")
    t = boardrun.target(board, core)
    image, _ = boardrun.build_image(t, "modbus", {"baud": baud, "address": md.ADDRESS, "background": 1}, progress)
    os.makedirs(out_dir, exist_ok=True)
    trace_path = os.path.join(out_dir, f"trace-modbus-{core}-{baud}.bin")
    got = {}
    ready = boardrun.ConsoleWatch(READY)

    def capture():
        try:
            got["capture"] = boardrun.load_and_capture(t, port, image, trace_path, baudrate, MAX_SECONDS,
                                                       progress, respond=ready, what="the Modbus demo")
        except BaseException as e:           # raised in the caller's thread
            got["error"] = e

    th = threading.Thread(target=capture, daemon=True)
    th.start()
    m = None
    try:
        while not ready.seen.wait(0.2) and th.is_alive():
            pass                             # the load, then the firmware's start
        if not ready.seen.is_set():
            th.join()
            raise got.get("error") or DemoError(f"{t.name}: the Modbus demo ended before its slave started")
        m = md.Master(modbus_port, baud, timeout=BOARD_TIMEOUT_S)
        if progress:
            progress.step(f"{t.name}: master on {modbus_port} at {baud} baud: sync")
        m.sync()
        robust = md.robustness_session(m) if with_robustness else None
        if progress:
            progress.step(f"{t.name}: {idle_s} s without traffic, then {frames} frames")
        time.sleep(idle_s)
        m.counters()
        tally = m.exchange(frames)
        counters = m.counters()
    except BaseException:
        if "error" in got:                   # the board side failed first: say that
            th.join(timeout=1)
            raise got["error"] from None
        raise
    finally:
        if m is not None:
            m.stop()
    th.join(timeout=60)
    if "error" in got:
        raise got["error"]
    if "capture" not in got:
        raise DemoError(f"{t.name}: the firmware did not end after the master's stop")
    records, stats = got["capture"]
    check_trace(records, stats, trace_path)
    if stats.hw_dropped:
        raise DemoError(f"{t.name}: the trace unit dropped {stats.hw_dropped} events: the background rate "
                        f"would be undercounted")
    rate, cycles = md.background_rate(records, t.clock_hz, (-(frames + 3), -3))
    base_rate, base_cycles = md.background_rate(records, t.clock_hz, (-(frames + 4), -(frames + 3)))
    entry = {"row": core, "baud": baud, **asdict(tally), "bg_rate": rate, "window_cycles": cycles,
             "drops": {d: counters[f"drop_{d}"] for d in regs.DROPS}, "counters": counters,
             "bg_loss": 1 - rate / base_rate}
    entry["no_loss"] = entry["lost"] == 0 and entry["wrong"] == 0 and entry["answered"] == entry["sent"]
    results = {"board": board, "clock_hz": t.clock_hz, "frames": frames, "bauds": [baud],
               "figures_from": "background rate: the trace unit's CH_MB_BG marks over the bitstream's clock; "
                               "frames: the master's checks; drops: the slave's counters",
               "rows": {core: {"baseline": {"bg_rate": base_rate, "window_cycles": base_cycles},
                               "bauds": [entry], "sustained_baud": baud if entry["no_loss"] else None}},
               "robustness": {}}
    if robust:
        results["robustness"][core] = md.robustness_checks(core, baud, *robust)
    md.plot(results, os.path.join(out_dir, regs.PLOT_FILE))
    with atomic_open(os.path.join(out_dir, regs.RESULTS_FILE)) as f:
        json.dump(results, f, indent=1)
    return results
