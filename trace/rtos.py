"""FreeRTOS's trace hooks as a timeline: from decoded trace records (the
protocol `freertos` of trace/protocol.py, written by fw/freertos/irqlab_trace.h)
to which task runs when, the ISRs, and the kernel's other events.

- Tasks: a task runs from its TASK_IN to its TASK_OUT (both carry its TCB).
  TASK_CREATE (the TCB) and TASK_NAME (the name, 4 characters a record) name
  it; a TCB the kernel reuses after TASK_DELETE is a new task. A TCB never
  announced (created before tracing started) is named by its address.
- ISRs: ISR_ENTER .. ISR_EXIT of the trace hooks, nested (a segment's depth
  is the number of ISRs it runs inside).
- Handlers: on cores with a retire port, the hardware's trap entry .. mret
  (TYPE_CORE records), nested likewise, with the trap's cause and target pc.
  The mret by which a port starts the first task (after the first TASK_IN,
  before any trap) ends no handler: it is `first_task_mret`.
- Instants: every other event of the protocol (TICK, TASK_READY, QUEUE_*,
  NOTIFY*, ...), with the task that ran at the time.

Input that does not pair never raises: a trace that starts inside a task, an
ISR or a handler gives a segment whose start was not seen (`seen_start`
False, from the trace's first record), one still open at the end is closed at
the last record (`seen_end` False), and every event that contradicts the
state (a TASK_OUT of a task that is not running, a second TASK_IN, an
ISR_EXIT that would need an earlier complete ISR to have nested, ...) is kept
as a note. The trace unit's OVERFLOW records (events dropped) are listed, and
because any event may be missing there, the state is reset: whatever runs is
cut at the overflow (`seen_end` False) and the next events start afresh.
"""

import bisect
from dataclasses import dataclass, field
from typing import Optional

from irqlab.host import record as rec
from irqlab.host.describe import cause_text, core_fields, sw_fields
from irqlab.host.protocol import APP_PROTOCOLS

PROTO = APP_PROTOCOLS["freertos"]
CHANNELS = {v: n for n, (v, _) in PROTO.channels.items()}
PLOT_SPAN = 100_000  # the plot's default window: this many cycles from the scheduler's start
MRET_ACTS = 2        # an mret changes the state this many cycles before its record (it retires)


@dataclass
class Segment:
    """[start, end) in cycles. seen_start/seen_end: the event that begins or
    ends it is in the trace (else it is cut at the trace's edge, an overflow
    or a contradicting event). depth: ISRs and handlers it is nested in."""
    start: int
    end: int
    seen_start: bool = True
    seen_end: bool = True
    depth: int = 0
    switch: bool = False          # tasks: switched in from another task (or the first to run)
    cause: Optional[int] = None   # handlers: the trap's mcause byte
    pc: Optional[int] = None      # handlers: the trap's target pc

    @property
    def cycles(self):
        return self.end - self.start


@dataclass
class Task:
    tcb: int
    index: int                    # in Timeline.tasks: creation order (or first appearance)
    name: str = ""                # empty: never announced by TASK_CREATE/TASK_NAME
    created: Optional[int] = None
    deleted: Optional[int] = None
    segments: list = field(default_factory=list)

    @property
    def label(self):
        return self.name or f"task 0x{self.tcb:08x}"

    @property
    def switches_in(self):
        return sum(1 for s in self.segments if s.switch)

    @property
    def cycles(self):
        return sum(s.cycles for s in self.segments)


@dataclass
class Instant:
    ts: int
    name: str                     # the channel's name in the protocol: TICK, TASK_READY, ...
    data: int
    task: Optional[Task]          # the task running at the time, if any
    subject: Optional[Task] = None    # the task a TCB payload names (TASK_READY, INHERIT, ...)


@dataclass
class Timeline:
    tasks: list = field(default_factory=list)        # Task, in creation order
    isrs: list = field(default_factory=list)         # Segment: ISR_ENTER .. ISR_EXIT
    handlers: list = field(default_factory=list)     # Segment: trap .. mret (retire port)
    instants: list = field(default_factory=list)     # Instant
    overflows: list = field(default_factory=list)    # (ts, events dropped)
    notes: list = field(default_factory=list)        # (ts, text): input that did not pair
    start: int = 0                                   # first and last stamped record
    end: int = 0
    scheduler_start: Optional[int] = None            # the first TASK_IN
    first_task_mret: Optional[int] = None            # the mret that starts the first task (CLIC port)
    events: int = 0                                  # freertos events seen

    @property
    def has_rtos(self):
        return self.events > 0

    def segments(self):
        """Every task segment as (task, segment), in time order."""
        return sorted(((t, s) for t in self.tasks for s in t.segments), key=lambda x: x[1].start)

    def ticks(self):
        return [i for i in self.instants if i.name == "TICK"]


def _name_bytes(word):
    """(text, ended) of a TASK_NAME payload: 4 characters, the first in [7:0]."""
    b = word.to_bytes(4, "little")
    if 0 in b:
        return b[:b.index(0)].decode("latin-1"), True
    return b.decode("latin-1"), False


def _time_ordered(records):
    """Stamped records in time order (stable: one cycle's records keep theirs)."""
    return sorted((r for r in records if r.type != rec.TYPE_TIME_HI), key=lambda r: r.ts)


class _Builder:
    def __init__(self, tl):
        self.tl = tl
        self.by_tcb = {}          # tcb -> its newest Task
        self.running = None       # (task, since, seen_start, switch)
        self.last_out = None      # the task the last TASK_OUT named (a TASK_IN of it is no switch)
        self.naming = None        # the task whose TASK_NAME records are expected
        self.isr_stack = []       # (start, seen_start)
        self.frames = []          # (ts, taken, pc, cause): traps not yet returned from
        self.edge = tl.start      # where the state is unknown: the trace's start, an overflow
        self.task_seen = False    # a TASK_IN or TASK_OUT since the edge
        self.traps = 0            # trap records so far

    def note(self, ts, text):
        self.tl.notes.append((ts, text))

    def task(self, tcb):
        t = self.by_tcb.get(tcb)
        if t is None:
            t = Task(tcb, len(self.tl.tasks))
            self.tl.tasks.append(t)
            self.by_tcb[tcb] = t
        return t

    def stop_task(self, ts, seen_end):
        task, since, seen_start, switch = self.running
        task.segments.append(Segment(since, ts, seen_start, seen_end, switch=switch))
        self.running = None

    def end_without_begin(self, segments, ts, what, **kw):
        """An ISR's or a handler's end with nothing open: it began before the
        edge, and everything of its kind since the edge ran inside it. Where
        that needs an earlier outermost one to have been nested, it is noted."""
        since = [x for x in segments if x.end > self.edge]
        if any(x.depth == 0 and x.seen_start for x in since):
            self.note(ts, f"{what} without its beginning: taken as the end of one open since cycle {self.edge}")
        for x in since:
            x.depth += 1
        segments.append(Segment(self.edge, ts, False, True, **kw))

    # -- software events of the protocol
    def sw(self, ts, name, data):
        tl = self.tl
        tl.events += 1
        if name != "TASK_NAME":
            self.naming = None
        if name == "TASK_CREATE":
            t = Task(data, len(tl.tasks), name="", created=ts)
            tl.tasks.append(t)
            self.by_tcb[data] = t
            self.naming = t
        elif name == "TASK_NAME":
            if self.naming is None:
                self.note(ts, f"TASK_NAME 0x{data:08x} without its TASK_CREATE")
                return
            text, ended = _name_bytes(data)
            self.naming.name += text
            if ended:
                self.naming = None
        elif name == "TASK_DELETE":
            self.task(data).deleted = ts
        elif name == "TASK_IN":
            self.task_in(ts, self.task(data))
        elif name == "TASK_OUT":
            self.task_out(ts, self.task(data))
        elif name == "ISR_ENTER":
            self.isr_stack.append((ts, True))
        elif name == "ISR_EXIT":
            if self.isr_stack:
                start, seen = self.isr_stack.pop()
                tl.isrs.append(Segment(start, ts, seen, True, depth=len(self.isr_stack)))
            else:
                self.end_without_begin(tl.isrs, ts, "ISR_EXIT")
        else:
            running = self.running[0] if self.running else None
            subject = self.by_tcb.get(data) if name in ("TASK_READY", "INHERIT", "DISINHERIT") else None
            tl.instants.append(Instant(ts, name, data, running, subject))

    def task_in(self, ts, t):
        if self.tl.scheduler_start is None:
            self.tl.scheduler_start = ts
        self.task_seen = True
        if self.running is not None:
            if self.running[0] is t:
                self.note(ts, f"TASK_IN of {t.label}, which already runs")
                return
            self.note(ts, f"TASK_IN of {t.label} while {self.running[0].label} runs (its TASK_OUT is missing)")
            self.stop_task(ts, False)
        self.running = (t, ts, True, self.last_out is not t)
        self.last_out = None

    def task_out(self, ts, t):
        self.last_out = t
        if self.running is None:
            if self.task_seen:
                self.note(ts, f"TASK_OUT of {t.label}, which was not switched in")
            else:   # the trace (or what follows an overflow) starts inside this task
                t.segments.append(Segment(self.edge, ts, False, True))
            self.task_seen = True
            return
        self.task_seen = True
        if self.running[0] is not t:
            self.note(ts, f"TASK_OUT of {t.label} while {self.running[0].label} runs")
        self.stop_task(ts, self.running[0] is t)

    # -- core events: trap .. mret
    def core(self, r):
        kind, pc, arg = core_fields(r.payload)
        if kind == rec.CORE_TRAP:
            self.traps += 1
            self.frames.append((r.ts, r.ts - rec.core_trap_delay(r.payload), pc, arg))
        elif kind == rec.CORE_MRET:
            # An mret that acted before the newest trap was taken ends the frame below it.
            below = 1 if self.frames and r.ts - MRET_ACTS < self.frames[-1][1] else 0
            if len(self.frames) > below:
                self.close_frame(len(self.frames) - 1 - below, r.ts, True)
            elif not self.traps and self.edge == self.tl.start and self.tl.scheduler_start is not None \
                    and self.tl.first_task_mret is None:
                self.tl.first_task_mret = r.ts    # the port starts the first task by an mret, no trap
            else:
                self.end_without_begin(self.tl.handlers, r.ts, f"mret at pc 0x{pc:08x}")

    def close_frame(self, i, ts, seen_end):
        start, _, pc, cause = self.frames.pop(i)
        self.tl.handlers.append(Segment(start, ts, True, seen_end, depth=i, cause=cause, pc=pc))

    # -- loss
    def close_all(self, ts):
        if self.running is not None:
            self.stop_task(ts, False)
        while self.isr_stack:
            start, seen = self.isr_stack.pop()
            self.tl.isrs.append(Segment(start, ts, seen, False, depth=len(self.isr_stack)))
        while self.frames:
            self.close_frame(len(self.frames) - 1, ts, False)

    def cut(self, ts):
        """Events may be missing before ts: end everything open there, start afresh."""
        self.close_all(ts)
        self.naming = None
        self.last_out = None
        self.edge = ts
        self.task_seen = False


def timeline(records):
    """The Timeline of decoded records (trace.decode.Record), in any order."""
    ordered = _time_ordered(records)
    tl = Timeline()
    if ordered:
        tl.start, tl.end = ordered[0].ts, ordered[-1].ts
    b = _Builder(tl)
    for r in ordered:
        if r.type == rec.TYPE_SW:
            ch, data = sw_fields(r.payload)
            if ch in CHANNELS:
                b.sw(r.ts, CHANNELS[ch], data)
        elif r.type == rec.TYPE_CORE:
            b.core(r)
        elif r.type == rec.TYPE_OVERFLOW:
            n = r.payload & 0xFFFFFFFF
            tl.overflows.append((r.ts, n))
            if n:
                b.cut(r.ts)
    b.close_all(tl.end)
    tl.isrs.sort(key=lambda s: (s.start, s.depth))
    tl.handlers.sort(key=lambda s: (s.start, s.depth))
    return tl


# ---------------------------------------------------------------- figures
def _clip(segments, lo, hi):
    return [(max(s.start, lo), min(s.end, hi)) for s in segments if s.end > lo and s.start < hi and
            min(s.end, hi) > max(s.start, lo)]


def _union(intervals):
    out = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def _overlap(intervals, union):
    """Cycles of `intervals` (disjoint) covered by `union` (disjoint, sorted)."""
    starts = [c for c, _ in union]
    total = 0
    for a, b in intervals:
        k = max(bisect.bisect_right(starts, a) - 1, 0)
        while k < len(union) and union[k][0] < b:
            total += max(0, min(b, union[k][1]) - max(a, union[k][0]))
            k += 1
    return total


def window(tl, start=None, end=None):
    """The default window: from the scheduler's start (else the trace's) to the trace's end."""
    lo = start if start is not None else (tl.scheduler_start if tl.scheduler_start is not None else tl.start)
    hi = end if end is not None else tl.end
    return lo, hi


def summary(tl, start=None, end=None):
    """Figures over the window [start, end) (default: window()): per task its
    cycles (from TASK_IN to TASK_OUT, ISRs included), share of the window,
    switches in (segments that start in the window and follow another task),
    and cycles in ISRs or trap handlers; the cycles no task ran (the kernel
    between a TASK_OUT and the next TASK_IN, or before the scheduler); ISR
    and handler counts; overflows and notes in the window."""
    lo, hi = window(tl, start, end)
    span = max(hi - lo, 0)
    irq = _union(_clip(tl.isrs, lo, hi) + _clip(tl.handlers, lo, hi))
    tasks, busy = [], 0
    for t in tl.tasks:
        parts = _clip(t.segments, lo, hi)
        cycles = sum(b - a for a, b in parts)
        switches = sum(1 for s in t.segments if s.switch and lo <= s.start < hi)
        if not parts and not switches:
            continue
        busy += cycles
        tasks.append({"task": t.label, "tcb": f"0x{t.tcb:08x}", "index": t.index, "cycles": cycles,
                      "share": round(cycles / span, 6) if span else 0.0, "switches_in": switches,
                      "in_interrupts": _overlap(parts, irq),
                      "cut": sum(1 for s in t.segments if (not s.seen_start or not s.seen_end)
                                 and s.end > lo and s.start < hi)})
    outer_isrs = [s for s in tl.isrs if s.depth == 0 and lo <= s.start < hi]
    return {
        "window": [lo, hi], "cycles": span, "tasks": tasks,
        "no_task": {"cycles": span - busy, "share": round((span - busy) / span, 6) if span else 0.0},
        "isrs": {"count": sum(1 for s in tl.isrs if lo <= s.start < hi), "nested": sum(
            1 for s in tl.isrs if s.depth and lo <= s.start < hi),
            "cycles": sum(b - a for a, b in _union(_clip(outer_isrs, lo, hi)))},
        "handlers": {"count": sum(1 for s in tl.handlers if lo <= s.start < hi),
                     "cycles": sum(b - a for a, b in _union(_clip(tl.handlers, lo, hi)))},
        "ticks": sum(1 for i in tl.ticks() if lo <= i.ts < hi),
        "overflows": [{"cycle": t, "events_dropped": n} for t, n in tl.overflows if lo <= t < hi],
        "notes": [{"cycle": t, "text": x} for t, x in tl.notes if lo <= t < hi],
    }


class Symbols:
    """pc -> 'name' or 'name+0x10', from an ELF's symbols {name: address}."""
    def __init__(self, by_name):
        self.table = sorted((a, n) for n, a in by_name.items())
        self.addrs = [a for a, _ in self.table]

    def __call__(self, pc):
        i = bisect.bisect_right(self.addrs, pc) - 1
        if i < 0:
            return None
        addr, name = self.table[i]
        return name if addr == pc else f"{name}+0x{pc - addr:x}"


def handler_name(seg, symbols=None):
    """A handler segment's name: its target's symbol (a Symbols), else its
    cause in words."""
    name = symbols(seg.pc) if symbols is not None and seg.pc is not None else None
    if name:
        return name
    return cause_text(seg.cause) if seg.cause is not None else "handler (trap before the trace)"


def table(s):
    """summary() as text: one line per task, then ISRs, handlers and loss."""
    lo, hi = s["window"]
    out = [f"cycles {lo}..{hi} ({s['cycles']} cycles)"]
    rows = [(t["task"], t["tcb"], str(t["switches_in"]), str(t["cycles"]), f"{100 * t['share']:.1f}%",
             str(t["in_interrupts"])) for t in s["tasks"]]
    rows.append(("(no task)", "", "", str(s["no_task"]["cycles"]), f"{100 * s['no_task']['share']:.1f}%", ""))
    head = ("task", "TCB", "switches in", "cycles", "share", "in ISRs/handlers")
    w = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    out.append("  ".join(h.rjust(w[i]) if i > 1 else h.ljust(w[i]) for i, h in enumerate(head)).rstrip())
    for r in rows:
        out.append("  ".join(v.rjust(w[i]) if i > 1 else v.ljust(w[i]) for i, v in enumerate(r)).rstrip())
    i, h = s["isrs"], s["handlers"]
    out.append(f"ISRs (trace hooks): {i['count']} ({i['nested']} nested), {i['cycles']} cycles; "
               f"trap handlers (retire port): {h['count']}, {h['cycles']} cycles; ticks: {s['ticks']}")
    for o in s["overflows"]:
        out.append(f"overflow at cycle {o['cycle']}: {o['events_dropped']} events dropped by the trace unit "
                   "(the timeline is cut there)")
    for n in s["notes"]:
        out.append(f"note at cycle {n['cycle']}: {n['text']}")
    return "\n".join(out)
