"""`irqlab demo modbus`: the Modbus-RTU demo in simulation.

For each row and baud rate one simulation of fw/modbus/ (the slave, with
the background task) with the harness's Modbus bridge on a TCP port; a
real master, pymodbus's RTU client on `socket://127.0.0.1:PORT`, talks to it
at that rate (the SoC's UART runs at bit level, so characters and their
interrupts come at the real rate, in cycles of the sim clock). A run:

    sync      requests until one is answered (the slave listens only after
              a t3.5 silence from its start, as the spec says)
    window    `frames` requests of every function code, each checked
              (answered correctly / lost: no answer / wrong answer)
    counters  the slave's counters and drop counts (trace/modbus.py)
    stop      MB_HOLD_STOP: the firmware ends the run

The background rate is the trace unit's: the background task marks each unit
of work (CH_MB_BG); the rate is the units between the window's first and
last frame (CH_MB_FRAME) over that many cycles of the sim clock, against a
run of the same row with no traffic (its window: an idle wait between two
frames). The robustness run (`robustness()`) sends the malformed frames of
item 8 as raw bytes, then valid frames, and checks the drop counters.
"""

import json
import os
import random
import socket
import threading
import time
from dataclasses import asdict, dataclass, field

from irqlab.errors import UserError
from irqlab.host import modbus as regs
from irqlab.host.modbus import adu
from irqlab.host import record as rec
from irqlab.host import protocol

BAUDS = (115200, 230400, 500000, 1_000_000, 2_000_000)
ADDRESS = 1
TIMEOUT_S = 20            # real seconds for an answer (the simulation runs ~100x slower than real time)
CONNECT_S = 120           # real seconds for the simulator to open its bridge (a model build comes first)
IDLE_S = 4                # the baseline's idle window, real seconds
MAX_CYCLES = 2_000_000_000


class DemoError(UserError):
    """A demo run could not be made or its master failed."""


# ------------------------------------------------------------ the master

def wait_for_port(port, deadline_s=CONNECT_S):
    t0 = time.monotonic()
    while time.monotonic() - t0 < deadline_s:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise DemoError(f"the simulator's Modbus bridge on port {port} did not open in {deadline_s} s")


@dataclass
class Tally:
    sent: int = 0
    answered: int = 0         # answered correctly
    lost: int = 0             # no answer
    wrong: int = 0            # an answer, but not the right one
    by_function: dict = field(default_factory=dict)


def _requests(rnd):
    """An endless cycle of requests over the nine function codes, each a
    (function code, call(client) -> response, check(response) -> bool)."""
    n = regs.N_SCRATCH
    while True:
        a, q = rnd.randrange(n - 8), rnd.randrange(1, 9)
        vals = [rnd.randrange(65536) for _ in range(q)]
        bits = [rnd.random() < 0.5 for _ in range(q)]
        yield 16, lambda c, a=a, v=vals: c.write_registers(a, v, device_id=ADDRESS), lambda r: not r.isError()
        yield 3, (lambda c, a=a, q=q: c.read_holding_registers(a, count=q, device_id=ADDRESS)), \
            (lambda r, v=vals: not r.isError() and r.registers == v)
        yield 15, lambda c, a=a, b=bits: c.write_coils(a, b, device_id=ADDRESS), lambda r: not r.isError()
        yield 1, (lambda c, a=a, q=q: c.read_coils(a, count=q, device_id=ADDRESS)), \
            (lambda r, b=bits: not r.isError() and list(r.bits[:len(b)]) == b)
        v = rnd.randrange(65536)
        yield 6, lambda c, a=a, v=v: c.write_register(a, v, device_id=ADDRESS), lambda r: not r.isError()
        on = rnd.random() < 0.5
        yield 5, lambda c, a=a, on=on: c.write_coil(a, on, device_id=ADDRESS), lambda r: not r.isError()
        w = [rnd.randrange(65536) for _ in range(2)]
        yield 23, (lambda c, a=a, w=w: c.readwrite_registers(read_address=a, read_count=2, write_address=a,
                                                            values=w, device_id=ADDRESS)), \
            (lambda r, w=w: not r.isError() and r.registers == w)
        yield 2, (lambda c: c.read_discrete_inputs(0, count=regs.N_DISCRETE, device_id=ADDRESS)), \
            (lambda r: not r.isError() and len(r.bits) >= regs.N_DISCRETE)
        yield 4, (lambda c: c.read_input_registers(regs.INPUTS["BAUD"][0], count=2, device_id=ADDRESS)), \
            (lambda r: not r.isError() and len(r.registers) == 2)


class Master:
    """pymodbus's RTU client on `url`: the simulator's bridge
    (socket://127.0.0.1:PORT) or a serial device wired to a board's Modbus
    UART (a pyserial URL or device)."""

    def __init__(self, url, baud, timeout=TIMEOUT_S):
        import logging
        from pymodbus import FramerType
        from pymodbus.client import ModbusSerialClient
        logging.getLogger("pymodbus").setLevel(logging.CRITICAL)   # a lost frame is counted, not logged
        self.client = ModbusSerialClient(port=url, framer=FramerType.RTU,
                                         baudrate=baud, parity="E", stopbits=1, timeout=timeout, retries=0)
        if not self.client.connect():
            raise DemoError(f"pymodbus could not connect to {url}")

    def call(self, fn):
        from pymodbus.exceptions import ModbusException
        try:
            return fn(self.client)
        except ModbusException:
            return None

    def sync(self, tries=20):
        """Requests until one is answered: the slave ignores characters until
        t3.5 of silence after its start."""
        for _ in range(tries):
            r = self.call(lambda c: c.read_input_registers(0, count=2, device_id=ADDRESS))
            if r is not None and not r.isError():
                return
            time.sleep(0.5)
        raise DemoError("the slave never answered (sync)")

    def exchange(self, frames, seed=13):
        tally = Tally()
        reqs = _requests(random.Random(seed))
        for _ in range(frames):
            fc, call, check = next(reqs)
            r = self.call(call)
            tally.sent += 1
            f = tally.by_function.setdefault(str(fc), {"sent": 0, "answered": 0})
            f["sent"] += 1
            if r is None:
                tally.lost += 1
            elif check(r):
                tally.answered += 1
                f["answered"] += 1
            else:
                tally.wrong += 1
        return tally

    def counters(self):
        r = self.call(lambda c: c.read_input_registers(0, count=regs.N_INPUT, device_id=ADDRESS))
        if r is None or r.isError():
            raise DemoError("the slave did not answer the counters' read")
        return regs.counters(r.registers)

    def stop(self):
        self.call(lambda c: c.write_register(regs.HOLDING["STOP"][0], regs.STOP_VALUE, device_id=ADDRESS))
        self.client.close()


# ------------------------------------------------------------ one run

def _events(records, channel):
    ch = protocol.APP_PROTOCOLS["modbus"].names()[f"CH_{channel}"]
    return [(r.ts, r.payload & 0xFFFFFFFF) for r in records
            if r.type == rec.TYPE_SW and (r.payload >> 32) & 0xFF == ch]


def background_rate(records, clock_hz, window):
    """Units of background work a second inside a window between two frame
    events (CH_MB_FRAME, by index): from the window's first unit mark to its
    last, (marks - 1) units over their cycles (the window's edges cut no
    unit in part). Returns (rate, the window's cycles)."""
    frames = _events(records, "MB_FRAME")
    if len(frames) < 3 or len(frames) < max(-window[0], -window[1]):
        raise DemoError("the trace holds too few frame events for the window")
    t0, t1 = frames[window[0]][0], frames[window[1]][0]
    bg = [ts for ts, _ in _events(records, "MB_BG") if t0 <= ts <= t1]
    if len(bg) < 3:
        raise DemoError("too few background units in the measurement window")
    return (len(bg) - 1) * clock_hz / (bg[-1] - bg[0]), t1 - t0


def model_and_firmware(row, progress=None):
    """The row's simulation model and the demo's firmware for it, built if
    missing; a row whose SoC has no Modbus UART is an error."""
    from irqlab.drivers import sim
    model = sim.ensure_model(row, progress=progress)
    if not model.facts.get("modbus"):
        raise DemoError(f"row '{row}': its SoC has no Modbus UART (soc/configs.py modbus_uart)")
    return model, sim.build_firmware(model, app="modbus", progress=progress)


def simulate(row, baud, session, trace_path, progress=None, label=None):
    """One simulation of the demo on `row` at `baud`; `session(master)` is
    the master's part (run in a thread while the simulation runs). Returns
    (session's result, the run's records, the SoC's facts)."""
    from irqlab.drivers import sim
    model, fw = model_and_firmware(row, progress)
    image = sim.load_image(model, fw, baud=baud, address=ADDRESS, background=1)
    port = sim.free_port()
    out = {}

    def master():
        m = None
        try:
            wait_for_port(port)
            m = Master(f"socket://127.0.0.1:{port}", baud)
            out["result"] = session(m)
        except BaseException as e:       # reported after the simulation ends
            out["error"] = e
        finally:
            if m is not None:
                m.stop()

    t = threading.Thread(target=master, daemon=True)
    t.start()
    res = sim.run(model, image, trace_path, max_cycles=MAX_CYCLES, progress=progress,
                  label=label or f"{row} {baud} baud", harness_args=["--modbus-tcp", str(port)])
    t.join(timeout=TIMEOUT_S + 5)
    # The firmware's own end first: a master that lost its line is its consequence.
    console = " | ".join(res.console.strip().splitlines()[-3:])
    if res.finished and res.exit_code not in (0, None):
        raise DemoError(f"{row} at {baud} baud: the firmware ended with code {res.exit_code}: {console}")
    if "error" in out:
        raise out["error"] if isinstance(out["error"], UserError) else \
            DemoError(f"{row} at {baud} baud: the master failed: {out['error']} (console: {console})")
    if not res.finished or res.exit_code != 0:
        raise DemoError(f"{row} at {baud} baud: the simulation ended with code {res.exit_code}: {console}")
    return out["result"], res.records, model.facts


def measure(row, baud, frames, work_dir, progress=None):
    """One row at one baud rate: the tally, the counters and the background rate."""
    def session(m):
        m.sync()
        tally = m.exchange(frames)
        return tally, m.counters()

    (tally, counters), records, facts = simulate(
        row, baud, session, os.path.join(work_dir, f"{row}-{baud}.trace"), progress)
    # The frame events end: the sync's answer, the window's requests, the
    # counters' read, the stop. The window: from the sync's answer to the
    # last request (a request the slave dropped before its handler has no
    # event: with losses the window starts that many frames earlier).
    rate, cycles = background_rate(records, facts["modbus"]["sys_clk_freq"], (-(frames + 3), -3))
    drops = {d: counters[f"drop_{d}"] for d in regs.DROPS}
    return {"row": row, "baud": baud, **asdict(tally), "bg_rate": rate, "window_cycles": cycles,
            "drops": drops, "counters": counters}


def baseline(row, work_dir, idle_s=IDLE_S, progress=None):
    """The background rate with no Modbus traffic: between two frames an idle wait."""
    def session(m):
        m.sync()
        time.sleep(idle_s)
        return m.counters()

    _, records, facts = simulate(row, BAUDS[0], session, os.path.join(work_dir, f"{row}-idle.trace"),
                                 progress, label=f"{row} no traffic")
    rate, cycles = background_rate(records, facts["modbus"]["sys_clk_freq"], (-3, -2))   # sync ... counters
    return {"bg_rate": rate, "window_cycles": cycles}


# ------------------------------------------------------------ robustness

def malformed_frames():
    """Item 8's cases as (name, raw bytes, drop counter it must raise or None)."""
    good = adu(ADDRESS, bytes([3, 0, 0, 0, 2]))
    bad_crc = bytearray(good)
    bad_crc[-1] ^= 0x5A
    return [
        ("bad CRC", bytes(bad_crc), "crc"),
        ("truncated", good[:5], "crc"),
        ("too short", good[:3], "short"),
        ("oversized", bytes(300), "long"),
        ("wrong address", adu(ADDRESS + 1, bytes([3, 0, 0, 0, 2])), "address"),
        ("garbage", bytes(random.Random(8).randrange(256) for _ in range(40)), None),
        ("illegal function", adu(ADDRESS, bytes([0x2B, 0x0E, 1, 0])), None),
    ]


def _read_until_quiet(port, first_s=3.0, quiet_s=1.5):
    """What the slave sends back: bytes until `quiet_s` real seconds pass
    without one (at least `first_s`: its t3.5 and the answer, if any)."""
    got = bytearray()
    t0 = last = time.monotonic()
    while True:
        time.sleep(0.1)
        n = port.in_waiting
        now = time.monotonic()
        if n:
            got += port.read(n)
            last = now
        elif now - t0 >= first_s and now - last >= quiet_s:
            return bytes(got)


def robustness(row, work_dir, baud=BAUDS[-1], progress=None):
    """Malformed frames, then valid ones; every drop counted, the slave still
    answering. Garbage may land in any drop counter; the illegal function
    must come back as exception 01."""
    def session(m):
        m.sync()
        return robustness_session(m)

    outcome, _, _ = simulate(row, baud, session, os.path.join(work_dir, f"{row}-robustness.trace"), progress,
                             label=f"{row} robustness")
    return robustness_checks(row, baud, *outcome)


def robustness_session(m):
    """The master's part of the robustness run, after its sync: (counters
    before, the replies to the malformed frames, the valid frames' tally
    after them, counters after)."""
    before = m.counters()
    sock = m.client.socket      # pyserial's port: raw bytes through the same line
    results = []
    for name, raw, _ in malformed_frames():
        sock.reset_input_buffer()
        sock.write(raw)
        results.append((name, _read_until_quiet(sock).hex()))
    tally = m.exchange(9, seed=99)
    return before, results, tally, m.counters()


def robustness_checks(row, baud, before, results, tally, after):
    delta = {d: after[f"drop_{d}"] - before[f"drop_{d}"] for d in regs.DROPS}
    expect = {}
    for _, _, d in malformed_frames():
        if d:
            expect[d] = expect.get(d, 0) + 1
    replies = dict(results)
    checks = {
        "drops counted": all(delta[d] >= n for d, n in expect.items()),
        "no answer to a malformed frame": all(not replies[n] for n, _, d in malformed_frames() if d),
        "illegal function answered with exception 01":
            replies["illegal function"] == adu(ADDRESS, bytes([0x2B | 0x80, 1])).hex(),
        "valid frames answered afterwards": tally.answered == tally.sent,
    }
    return {"row": row, "baud": baud, "replies": replies, "drops": delta, "expected_drops": expect,
            "after": asdict(tally), "checks": checks, "ok": all(checks.values())}


# ------------------------------------------------------------ the demo

def run_demo(rows, bauds, frames, out_dir, progress=None, with_robustness=True):
    from irqlab.host.atomic import atomic_open
    work = os.path.join(out_dir, "modbus-traces")
    os.makedirs(work, exist_ok=True)
    results = {"frames": frames, "bauds": list(bauds), "rows": {}, "robustness": {}}
    # Every row's model and firmware first: a row that cannot run fails the
    # demo before the simulations, not after the other rows' half hour.
    for row in rows:
        model_and_firmware(row, progress)
    for row in rows:
        if progress:
            progress.step(f"modbus: {row}: the background rate without traffic")
        base = baseline(row, work, progress=progress)
        entries = []
        for baud in bauds:
            if progress:
                progress.step(f"modbus: {row}: {frames} frames at {baud} baud")
            e = measure(row, baud, frames, work, progress)
            e["bg_loss"] = 1 - e["bg_rate"] / base["bg_rate"]
            e["no_loss"] = e["lost"] == 0 and e["wrong"] == 0 and e["answered"] == e["sent"]
            entries.append(e)
            if progress:
                progress.step(f"modbus: {row} {baud}: {e['answered']}/{e['sent']} answered, {e['lost']} lost, "
                              f"background {e['bg_rate']:.0f}/s ({100 * e['bg_loss']:+.1f} % loss)")
        ok = [e["baud"] for e in entries if e["no_loss"]]
        results["rows"][row] = {"baseline": base, "bauds": entries,
                                "sustained_baud": max(ok) if ok else None}
        if with_robustness:
            if progress:
                progress.step(f"modbus: {row}: robustness (malformed frames)")
            results["robustness"][row] = robustness(row, work, progress=progress)
    plot(results, os.path.join(out_dir, regs.PLOT_FILE))
    with atomic_open(os.path.join(out_dir, regs.RESULTS_FILE)) as f:
        json.dump(results, f, indent=1)
    _update_report(out_dir)
    return results


def _update_report(out_dir):
    """The benchmarks' HTML report in the same folder, written again with the
    demo's section (trace/htmlreport.py adds it when modbus.json is there)."""
    from irqlab.host import htmlreport, results as resultsfile
    bench = os.path.join(out_dir, "bench.json")
    if os.path.exists(bench):
        htmlreport.write(resultsfile.runs_of(resultsfile.read(bench), bench), out_dir)


def plot(results, path):
    """Background rate against baud rate, one curve per row (its no-traffic
    rate dashed), written whole or not at all."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from irqlab.host.atomic import atomic_open
    fig, ax = plt.subplots(figsize=(7, 4))
    for row, r in results["rows"].items():
        xs = [e["baud"] for e in r["bauds"]]
        line, = ax.plot(xs, [e["bg_rate"] for e in r["bauds"]], marker="o", label=row)
        ax.axhline(r["baseline"]["bg_rate"], color=line.get_color(), linestyle="--", linewidth=0.8)
        for e in r["bauds"]:
            if not e["no_loss"]:
                ax.plot([e["baud"]], [e["bg_rate"]], marker="x", color="red", markersize=10)
    ax.set_xscale("log")
    ax.set_xlabel("Modbus baud rate")
    ax.set_ylabel("background units / s (trace unit)")
    ax.set_title("Background throughput under Modbus-RTU traffic\n(dashed: the row without traffic; x: frames lost)",
                 fontsize=10)
    ax.legend()
    fig.tight_layout()
    with atomic_open(path, binary=True) as f:
        fig.savefig(f, format="png", dpi=100)
    plt.close(fig)


def summary(results):
    rows = [regs.TABLE_HEADERS] + regs.table_rows(results)
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in rows]
    for row, baud in regs.sustained(results).items():
        lines.append(f"{row}: sustained without loss up to {baud or 'no rate'}")
    for row, r in results["robustness"].items():
        lines.append(f"{row}: robustness {'ok' if r['ok'] else 'FAILED'}: "
                     + ", ".join(f"{k}: {'yes' if v else 'NO'}" for k, v in r["checks"].items()))
    return "\n".join(lines)
