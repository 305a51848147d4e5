"""A trace as Chrome JSON trace events, which ui.perfetto.dev (and
chrome://tracing) open: timestamps in microseconds at the given clock, one
process for the trace, one track (thread) per thing that happens:

  line <name>          the hardware line's high phases, as slices
  <gen line> → B       one slice per interrupt from A (the rising edge) to B
                       (handler entry); args: latency in cycles and ns, test, index
  handler <cause>      trap entry to its mret (cores with a retire port), per mcause
  software events      an instant per stimulus-port store (channel name, payload)
  pc match             an instant per PC-comparator hit
  console, trace unit  console lines; OVERFLOW reports
  interrupt rate       a counter: rising edges per line, in kIRQ/s per time bin

With FreeRTOS's trace hooks in the trace (trace/rtos.py), first:

  task <name>          one track per task: a slice from each TASK_IN to its TASK_OUT
  ISRs (trace hooks)   ISR_ENTER .. ISR_EXIT, nested slices
  timeline notes       events that did not pair, and where an overflow cut the timeline
"""

import json

from irqlab.host import record as rec
from irqlab.host import rtos
from irqlab.host.analysis import interrupts
from irqlab.host.describe import cause_text, channel_name, sw_text
from irqlab.host.signals import signals

PID = 1
RATE_BINS = 500          # about this many counter samples over the trace


class _Tracks:
    """Thread ids by track name, in the order tracks are first used."""
    def __init__(self):
        self.tids = {}

    def __call__(self, name):
        return self.tids.setdefault(name, len(self.tids) + 1)

    def metadata(self):
        out = []
        for name, tid in self.tids.items():
            out.append({"ph": "M", "name": "thread_name", "pid": PID, "tid": tid, "args": {"name": name}})
            out.append({"ph": "M", "name": "thread_sort_index", "pid": PID, "tid": tid,
                        "args": {"sort_index": tid}})
        return out


def _nice(n):
    """The smallest 1, 2 or 5 times a power of ten that is at least n."""
    p = 1
    while True:
        for m in (1, 2, 5):
            if m * p >= n:
                return m * p
        p *= 10


def trace_events(records, clock_hz, source="trace"):
    """The JSON document (a dict) for `records`."""
    us = 1e6 / clock_hz
    ns = 1e9 / clock_hz

    def ts(cycle):
        return round(cycle * us, 6)

    s = signals(records)
    track = _Tracks()
    ev = []

    def slice_(tid, name, begin, end, args):
        ev.append({"ph": "X", "name": name, "pid": PID, "tid": tid, "ts": ts(begin),
                   "dur": round((end - begin) * us, 6), "args": args})

    def instant(tid, name, cycle, args):
        ev.append({"ph": "i", "s": "t", "name": name, "pid": PID, "tid": tid, "ts": ts(cycle), "args": args})

    # FreeRTOS: a track per task, one for the ISRs of the trace hooks.
    tl = rtos.timeline(records)
    if tl.has_rtos:
        _rtos_tracks(tl, track, slice_, instant)

    # Interrupt lines: their high phases.
    for line in s.lines.values():
        tid = track(f"line {line.name}")
        high = s.start if line.initial else None
        for t, level in line.edges:
            if level and high is None:
                high = t
            elif not level and high is not None:
                slice_(tid, f"{line.name} high", high, t, {"rise_cycle": high, "fall_cycle": t})
                high = None
        if high is not None:
            slice_(tid, f"{line.name} high", high, s.end, {"rise_cycle": high, "fall_cycle": None})

    # A -> B per interrupt, on the track of its generator line (analysis pairs line 0).
    gen = rec.line_name(rec.HW_GEN_LINE)
    for i in interrupts(records):
        slice_(track(f"{gen} → handler entry (latency)"), i.test, i.a, i.b,
               {"latency_cycles": i.latency, "latency_ns": round(i.latency * ns, 3), "test": i.test,
                "index": i.index, "a_cycle": i.a, "b_cycle": i.b, "b_marker": i.marker})

    # Core events: handlers (trap .. mret) per cause, PC matches.
    frames = []
    for t, kind, pc, arg in s.core:
        if kind == rec.CORE_TRAP:
            frames.append((t, pc, arg))
        elif kind == rec.CORE_MRET:
            if frames:
                t0, target, cause = frames.pop()
                slice_(track(f"handler: {cause_text(cause)}"), f"handler 0x{target:08x}", t0, t,
                       {"mcause": cause, "target_pc": f"0x{target:08x}", "mret_pc": f"0x{pc:08x}",
                        "cycles": t - t0, "depth": len(frames)})
            else:
                instant(track("core events"), "mret", t, {"pc": f"0x{pc:08x}"})
        elif kind == rec.CORE_PC_MATCH:
            instant(track("pc match"), f"pc match {arg}", t, {"comparator": arg, "pc": f"0x{pc:08x}"})
    for t0, target, cause in frames:   # handlers still running when the trace ends
        slice_(track(f"handler: {cause_text(cause)}"), f"handler 0x{target:08x}", t0, s.end,
               {"mcause": cause, "target_pc": f"0x{target:08x}", "unfinished": True})

    for t, ch, data in s.sw:
        instant(track("software events"), channel_name(ch), t,
                {"channel": ch, "data": data, "text": sw_text(ch, data)})
    for t, n in s.overflow:
        instant(track("trace unit"), "overflow", t, {"events_dropped": n})
    text, since = "", None
    for t, b in s.console:
        since = t if since is None else since
        if b == 0x0A:
            instant(track("console"), text, since, {"text": text})
            text, since = "", None
        else:
            text += chr(b)
    if text:
        instant(track("console"), text, since, {"text": text})

    # Interrupt rate per line: rising edges per bin, as kIRQ/s.
    irq_lines = [ln for ln in s.lines.values() if ln.index < rec.HW_GEN_PHASE or ln.index >= rec.HW_CPU_IRQ]
    if irq_lines and s.end > s.start:
        width = _nice(max(1000, (s.end - s.start) // RATE_BINS))
        first = s.start // width
        nbins = s.end // width - first + 1
        counts = {ln.name: [0] * nbins for ln in irq_lines}
        for ln in irq_lines:
            for t, level in ln.edges:
                if level:
                    counts[ln.name][t // width - first] += 1
        scale = clock_hz / width / 1e3
        for k in range(nbins):
            ev.append({"ph": "C", "name": "interrupt rate [kIRQ/s]", "pid": PID, "tid": 0,
                       "ts": ts((first + k) * width),
                       "args": {name: round(c[k] * scale, 3) for name, c in counts.items()}})

    ev.sort(key=lambda e: e["ts"])
    meta = [{"ph": "M", "name": "process_name", "pid": PID, "tid": 0, "args": {"name": f"irqlab {source}"}}]
    return {"traceEvents": meta + track.metadata() + ev, "displayTimeUnit": "ns",
            "otherData": {"source": source, "clock_hz": clock_hz, "timestamps": "microseconds"}}


def _cut_args(seg):
    out = {}
    if not seg.seen_start:
        out["start_not_seen"] = True
    if not seg.seen_end:
        out["end_not_seen"] = True
    return out


def _rtos_tracks(tl, track, slice_, instant):
    labels = [t.label for t in tl.tasks]
    for t in tl.tasks:
        if not t.segments:
            continue
        name = t.label if labels.count(t.label) == 1 else f"{t.label} ({t.index})"
        tid = track(f"task {name}")
        for seg in t.segments:
            slice_(tid, t.label, seg.start, seg.end,
                   {"tcb": f"0x{t.tcb:08x}", "cycles": seg.cycles, "start_cycle": seg.start, "end_cycle": seg.end,
                    "switched_in": seg.switch, **_cut_args(seg)})
    if tl.isrs:
        tid = track("ISRs (trace hooks)")
        for seg in tl.isrs:
            slice_(tid, "ISR" if not seg.depth else f"ISR (nested, depth {seg.depth})", seg.start, seg.end,
                   {"cycles": seg.cycles, "depth": seg.depth, "start_cycle": seg.start, "end_cycle": seg.end,
                    **_cut_args(seg)})
    for t, n in tl.overflows:
        instant(track("timeline notes"), "overflow: the timeline is cut", t, {"events_dropped": n})
    for t, text in tl.notes:
        instant(track("timeline notes"), text, t, {"text": text})


def write(records, f, clock_hz, source="trace"):
    doc = trace_events(records, clock_hz, source)
    # One event per line: a large trace stays readable by line-oriented tools.
    f.write('{"displayTimeUnit":"ns","otherData":' + json.dumps(doc["otherData"]) + ',"traceEvents":[\n')
    f.write(",\n".join(json.dumps(e, separators=(",", ":"), ensure_ascii=False) for e in doc["traceEvents"]))
    f.write("\n]}\n")
    n = sum(1 for e in doc["traceEvents"] if e["ph"] == "X")
    return f"{len(doc['traceEvents'])} trace events, {n} slices"
