"""The PTO demo's trace, in figures (fw/pto/, soc/pto.py): the pin's edges
(hardware line HW_PTO) per train, each interval against the one the
firmware's motion profile programmed, late edges, and the period jitter.

Definitions (seed 002 Sec. 5.4 names the metrics, "maximum sustainable PTO
frequency" and "normalized pulse waveform jitter", without formulas; these
are ours):
  * frequency  f = clock / (2 * half-period): one pulse is two edges, each
    one compare of the timer and one interrupt.
  * period     the time from an edge to the next edge of the same kind
    (rise to rise, fall to fall): every full period of the train.
  * jitter     normalized peak-to-peak period jitter: (max(d) - min(d)) / P,
    d = measured period - programmed period over every period of the train,
    P the programmed (nominal) period; for a square wave (max - min) / P.
  * late edge  an edge later than the last edge + its programmed interval
    (the handler wrote the interval after the edge was due); in time, the
    timer makes every interval exact to the cycle.
  * sustained  a train with no late edge and exactly the edges programmed.
  * response   the median interval of the late edges of a train too fast
    for the handler (at least half of its edges late): edge -> interrupt
    entry -> next interval written -> edge; what the handler alone would
    sustain, the kernel's masked windows (the tick, a task switch) aside.
"""

from dataclasses import dataclass, field

from irqlab.host import record as rec
from irqlab.host.protocol import APP_PROTOCOLS

PROTO = APP_PROTOCOLS["pto"]
RESULTS_FILE = "pto.json"    # irqlab demo pto's results (irqlab/demos/pto/sim.py)
ASSUMED_CLOCK_HZ = 50e6      # figures in kHz are at the ULX3S build's clock


@dataclass(frozen=True)
class Spec:
    """A pulse-train specification (the configuration block "pto")."""
    pulses: int
    start_interval: int
    cruise_interval: int = 0
    delta_q8: int = 0

    @classmethod
    def of_config(cls, cfg):
        return cls(cfg["pulses"], cfg["start_interval"], cfg["cruise_interval"], cfg["delta_q8"])


def profile(spec):
    """The half-period of every pulse, in cycles, as the firmware's handler
    computes them (fw/pto/pto.h pto_profile_next): a trapezoidal profile."""
    q8 = spec.start_interval << 8
    cruise = spec.cruise_interval << 8 if spec.delta_q8 else q8
    left, accel, out = spec.pulses - 1, 0, [q8 >> 8]
    for _ in range(spec.pulses - 1):
        left -= 1
        if left < accel:
            q8 += spec.delta_q8
        elif q8 > cruise and left > accel:
            q8 = q8 - spec.delta_q8 if q8 - cruise > spec.delta_q8 else cruise
            accel += 1
        out.append(q8 >> 8)
    return out


def programmed_intervals(spec):
    """The interval before each edge 1..2N (edge 1's counts from the start)."""
    return [h for h in profile(spec) for _ in (0, 1)]


@dataclass
class Train:
    start: int                                   # ts of CH_TRAIN
    end: int                                     # ts of CH_DONE
    edges: list = field(default_factory=list)    # ts of every pin edge in between
    hw_edges: int = None                         # the timer's count (CH_DONE)
    fw_misses: int = None                        # late edges as the firmware read them (CH_MISSES)
    work: int = None                             # background work steps (CH_WORK)


def pin_edges(records):
    """Timestamps of the PTO pin's edges (both kinds), in time order."""
    rise, fall = 1 << rec.HW_PTO, 1 << (32 + rec.HW_PTO)
    return sorted(r.ts for r in records if r.type == rec.TYPE_HW and r.payload & (rise | fall))


def trains(records):
    """The trains of a trace, with their edges and the firmware's reports."""
    sw = sorted((r.ts, r.payload >> 32 & 0xFF, r.payload & 0xFFFFFFFF) for r in records if r.type == rec.TYPE_SW)
    edges = pin_edges(records)
    out, cur = [], None
    for ts, ch, data in sw:
        if ch == PROTO.CH_TRAIN:
            cur = Train(ts, None)
            out.append(cur)
        elif cur is None:
            continue
        elif ch == PROTO.CH_DONE:
            cur.end, cur.hw_edges = ts, data
            cur.edges = [t for t in edges if cur.start <= t <= ts]
        elif ch == PROTO.CH_MISSES:
            cur.fw_misses = data
        elif ch == PROTO.CH_WORK:
            cur.work = data
    return out


def _median(values):
    return sorted(values)[len(values) // 2] if values else None


def response(points):
    """The handler's response in cycles: the median interval of the late
    edges in the fastest train at least half of whose edges came late (the
    slower of the handler's two paths, a pulse's first and second edge, is
    the one that limits); None if no train was that fast."""
    fast = [p for p in points if p["edges"] > 2 and 2 * p["late_trace"] >= p["edges"] - 1]
    if not fast:
        return None
    return min(fast, key=lambda p: p["half_period"]).get("late_interval_median")


def figures(train, spec, clock_hz=ASSUMED_CLOCK_HZ):
    """One train against its specification: edges, late edges (from the
    trace), the firmware's count, the jitter and the period statistics."""
    want = programmed_intervals(spec)
    got = [b - a for a, b in zip(train.edges, train.edges[1:])]
    late = sum(g > w for g, w in zip(got, want[1:]))
    early = sum(g < w for g, w in zip(got, want[1:]))      # never, if the timer keeps its contract
    periods = [(got[i] + got[i + 1], want[i + 1] + want[i + 2]) for i in range(len(got) - 1)]
    dev = [p - w for p, w in periods]
    nominal = 2 * spec.start_interval if not spec.delta_q8 else 2 * max(spec.cruise_interval, 1)
    jitter = (max(dev) - min(dev)) / nominal if dev else None
    complete = len(train.edges) == 2 * spec.pulses and train.hw_edges == 2 * spec.pulses
    return {
        "pulses": spec.pulses,
        "half_period": spec.start_interval,
        "khz": clock_hz / (2 * spec.start_interval) / 1e3,
        "edges": len(train.edges),
        "late_trace": late,
        "early_trace": early,
        "late_firmware": train.fw_misses,
        "complete": complete,
        "sustained": complete and late == 0 and not train.fw_misses,
        "jitter": jitter,
        "period_min": min(p for p, _ in periods) if periods else None,
        "period_max": max(p for p, _ in periods) if periods else None,
        "max_delay": max(dev) if dev else None,
        # With every edge late, an interval is the handler's whole response:
        # edge, entry, the next interval computed and written (the timer
        # fires 2 cycles after the write is seen: soc/pto.py).
        "interval_median": sorted(got)[len(got) // 2] if got else None,
        "late_interval_median": _median([g for g, w in zip(got, want[1:]) if g > w]),
        "background_work": train.work,
    }


def timer_figures(train, spec, clock_hz=ASSUMED_CLOCK_HZ):
    """A train whose edges are not in the trace (not traced, or the trace
    unit dropped some), from the timer's counts alone as the firmware read
    them: its edges (CH_DONE) and late edges (CH_MISSES). No jitter: that
    needs every edge's time."""
    complete = train.hw_edges == 2 * spec.pulses
    return {
        "pulses": spec.pulses,
        "half_period": spec.start_interval,
        "khz": clock_hz / (2 * spec.start_interval) / 1e3,
        "edges": train.hw_edges,
        "late_trace": None,
        "early_trace": None,
        "late_firmware": train.fw_misses,
        "complete": complete,
        "sustained": complete and train.fw_misses == 0,
        "jitter": None,
        "period_min": None, "period_max": None, "max_delay": None,
        "interval_median": None, "late_interval_median": None,
        "background_work": train.work,
    }


# The trace unit's record FIFO (soc/tracer.py TraceUnit fifo_depth) and what
# one record takes on a serial link (8N1: 10 bits a byte).
TRACE_FIFO_RECORDS = 1024
LINK_BITS_PER_RECORD = 10 * rec.RECORD_BYTES


def fifo_peak(spec, clock_hz, baudrate, records_before=0):
    """The most records the trace unit's FIFO holds during a traced train on
    a serial link of `baudrate`: one record per edge in, the link draining
    baudrate / LINK_BITS_PER_RECORD records a second, starting with
    `records_before` waiting (the train's start event)."""
    drain = baudrate / LINK_BITS_PER_RECORD / clock_hz      # records a cycle
    level = peak = records_before
    for iv in programmed_intervals(spec):
        level = max(0.0, level - iv * drain) + 1
        peak = max(peak, level)
    return peak


LEGEND = """max kHz: the highest PTO frequency with no late edge over a train of the long length (bisection
on the half-period in cycles); jitter: normalized peak-to-peak period jitter (max - min period) /
nominal period over one train, the background task running; late: edges the trace shows late,
(firmware: the timer's count as the firmware read it); response: cycles from an edge to the next
when the handler is too slow (its whole path), handler-bound kHz what that alone would sustain.
Frequencies at 50 MHz. The seed-002 bars at
50 MHz: about 200 kHz peak, < 5 % jitter at 100 kHz, < 0.5 % at 10 kHz; 10 % at 100 kHz is the
demanding-application limit; actuation needs at least 20 kHz."""


def point_at(entry, khz):
    """The sweep point of a row's results at `khz` (within 1 %), or None."""
    for p in entry.get("pto", {}).get("points", []):
        if abs(p["khz"] - khz) <= khz / 100:
            return p
    return None


def _pct(p):
    return "-" if p is None or p["jitter"] is None else f"{100 * p['jitter']:.2f} %"


def _late(p):
    if p is None:
        return "-"
    return f"{'-' if p['late_trace'] is None else p['late_trace']} ({p['late_firmware']})"


HEADERS = ["core", "memory", "max kHz", "half-period", "jitter 10 kHz", "jitter 100 kHz",
           "jitter 250 kHz", "late 100 kHz", "late 250 kHz", "response", "handler-bound kHz"]


def table_rows(results):
    out = []
    for core, e in results["cores"].items():
        t = e.get("pto")
        if not t:
            continue
        out.append([core, e.get("memory", "-"), f"{t['max_khz']:.1f}", str(t["max_half_period"]),
                    _pct(point_at(e, 10)), _pct(point_at(e, 100)), _pct(point_at(e, 250)),
                    _late(point_at(e, 100)), _late(point_at(e, 250)),
                    "-" if not t.get("response") else str(t["response"]),
                    "-" if not t.get("response") else f"{results.get('clock_hz', ASSUMED_CLOCK_HZ) / (2 * t['response']) / 1e3:.0f}"])
    return out


def table(results):
    rows = [HEADERS] + table_rows(results)
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADERS))]
    return "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
                     for r in rows)
