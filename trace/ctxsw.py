"""The context-switch suite (fw/ctxsw/): one entry per
case, the samples taken from a trace, and their figures.

A sample runs from a start to the first instruction of the task that runs
next, both taken by the trace unit, never by the code under test:
  start  "marker": the running task (or ISR) calls ctxsw_mark_a(case) just
         before the call that switches (the yield, the give, the send, the
         take that blocks); "irq-edge": the rising edge of generator line 0
         (a hardware event of the trace unit), as in the latency benchmark;
         "tick-edge": the rising edge of the machine timer's line (the
         kernel's tick), a hardware event too.
  end    the task that runs next calls ctxsw_mark_b(case) first thing when
         the kernel call it was blocked in returns.
Both marks are small functions (fw/ctxsw/marks.c: one store to a stimulus
port and a return). Where the core drives the retire port, each mark's time
is the PC match on the first instruction of its function (comparator 1: A,
comparator 0: B), exact to the cycle; elsewhere it is the arrival of the
mark's store at the trace unit (the same transport delay at both ends, so it
cancels). What lies between the two ends besides the switch (the rest of
mark A, the call of mark B) is measured by the "overhead" case (mark A then
mark B, back to back, no switch) and its median is subtracted from every
"marker" case. The edge cases are not corrected: on PC-match rows its end
is the first instruction of mark B (after the task's `li` and `call`); on the
others the arrival of mark B's store (an over-estimate by that store, as the
latency benchmark's software-event rows).

Beside each sample of a PC-match row, seed 003's own metric (RTOSUnit,
Sec. 6.2: trigger to `mret`): from the same start to the last mret (an
emret is traced as one) before the end, the return that enters the next
task; where the core switched without one (tswitch, a bound interrupt:
no return between), to the next task's first instruction as above. The
mrets are the trace unit's core events (the retire port), never
corrected by the marks' cost (mark A's store and return are in it).

A sample with a kernel tick inside (an event on the kernel's tick channel
between its start and its end: the tick hook's or the trace hook's freertos.TICK) is
left out and counted ("ticked"), but in the cases a tick starts (their own
tick is inside by design; a second tick's edge would start them again), and so is the next sample of a
time-sliced case (a tick that time-slices the yielding pair leaves one task
stopped between its mark and its yield: the next sample then holds two
switches), and so is one during which a mark's store arrives without
its PC match (a tick switched that task out inside the mark: the sample
holds its switch as well), and so is one whose case started again
before it ended (the interrupt routine on a slow row: a request that came
before the task had taken the previous one; the firmware counts these
overruns), since its end cannot be told apart.
"""

from dataclasses import dataclass

from irqlab.host import record as rec
from irqlab.host.stats import summarize

# The firmware's routines, in the order it runs them; each produces the
# cases that name it. Bit i of the `routines` configuration field runs
# routine i (C: ROUTINE_<NAME>).
ROUTINES = {
    "calib": "mark A then mark B in one task, back to back: the cost of the marks",
    "yield": "two tasks of equal priority yield to each other (taskYIELD)",
    "sem": "a binary semaphore between a low-priority giver and a high-priority taker",
    "mutex": "a mutex held by a low-priority task, taken by a high-priority one (priority inheritance)",
    "queue": "a one-item queue between a low-priority sender and a high-priority receiver",
    "isr": "generator line 0's ISR gives a semaphore a high-priority task waits for (the idle task runs)",
    "bound": "generator line 0's interrupt is bound to a high-priority task: with task contexts the core "
             "switches into it (vPortBoundWait), elsewhere its ISR gives a semaphore it waits for",
    "delay": "a high-priority task delays itself one tick, again and again (the idle task runs): with task "
             "contexts the SoC's tick countdown wakes it (vTaskDelay, the port's kernel patch), elsewhere the "
             "kernel's delayed list; not in the pass with background load",
}


@dataclass(frozen=True)
class Case:
    name: str
    case_id: int             # the payload of its marks (C: CASE_<NAME>)
    routine: str             # a key of ROUTINES
    description: str
    start: str = "marker"    # "marker" (mark A), "irq-edge" (generator line 0 rising), "tick-edge" (the tick line rising)
    end_case: str = None     # the case whose mark B ends it (default: itself)
    time_sliced: bool = False  # its tasks share a priority: a tick may time-slice them (see samples)
    loaded_too: bool = True  # measured again with background load (the case +bg)

    @property
    def c_name(self):
        return self.name.upper().replace("-", "_").replace("+", "_")

    @property
    def loaded(self):
        """Measured with the background tasks running."""
        return self.case_id & BACKGROUND_FLAG != 0

    @property
    def ends_with(self):
        return self.end_case or self.name


CASES = {c.name: c for c in [
    Case("overhead", 1, "calib", "the marks themselves, back to back (subtracted from the marker cases)"),
    Case("yield", 2, "yield", "taskYIELD to a task of equal priority, to its return in that task",
         time_sliced=True),
    Case("sem-signal", 3, "sem", "xSemaphoreGive that wakes a higher-priority taker, to its take's return"),
    Case("sem-wait", 4, "sem", "xSemaphoreTake that blocks, to the lower-priority giver's give returning"),
    Case("mutex-block", 5, "mutex", "xSemaphoreTake of a held mutex (the holder inherits), to the holder's "
                                    "resumption"),
    Case("mutex-release", 6, "mutex", "xSemaphoreGive of the mutex by the inheriting holder, to the waiter's "
                                      "take returning"),
    Case("queue-send", 7, "queue", "xQueueSend that wakes a higher-priority receiver, to its receive's return"),
    Case("queue-receive", 8, "queue", "xQueueReceive on an empty queue (blocks), to the sender's send returning"),
    Case("isr-give", 9, "isr", "xSemaphoreGiveFromISR + portYIELD_FROM_ISR in an ISR, to the woken task's take "
                               "returning"),
    Case("irq-to-task", 10, "isr", "the interrupt edge (generator line 0), to the task its ISR wakes",
         start="irq-edge", end_case="isr-give"),
    Case("irq-bound-task", 11, "bound", "the interrupt edge (generator line 0), to the task it is bound to",
         start="irq-edge"),
    # One sample a tick: 100,000 cycles each at the suite's 1 kHz tick, so
    # not again with background load, whose tasks delay themselves too.
    Case("tick-to-task", 12, "delay", "the tick's edge (the machine timer's line), to the return of the "
                                      "vTaskDelay(1) it ends", start="tick-edge", loaded_too=False),
]}
# Every case again with background load (the configuration's `background`
# tasks running, fw/ctxsw/main.c): the firmware runs the routines a second
# time with them and sets BACKGROUND_FLAG in each routine's start event
# (CH_ROUTINE); the marks between then belong to the cases +bg.
BACKGROUND_FLAG = 0x100
BACKGROUND_SUFFIX = "+bg"
CASES.update({c.name + BACKGROUND_SUFFIX: Case(
    c.name + BACKGROUND_SUFFIX, c.case_id | BACKGROUND_FLAG, c.routine, c.description + ", with background load",
    c.start, (c.end_case + BACKGROUND_SUFFIX) if c.end_case else None, c.time_sliced)
    for c in list(CASES.values()) if c.loaded_too})
assert len({c.case_id for c in CASES.values()}) == len(CASES)
# The flag shares the routine's start event with the routine's bit, and a mark's payload with its case.
assert 1 << (len(ROUTINES) - 1) < BACKGROUND_FLAG and all(c.case_id & ~BACKGROUND_FLAG < BACKGROUND_FLAG
                                                        for c in CASES.values())
assert all(c.routine in ROUTINES and c.ends_with in CASES for c in CASES.values())
CASE_BY_ID = {c.case_id: c for c in CASES.values()}
OVERHEAD = "overhead"
PC_A, PC_B = 1, 0            # the PC-match comparators of mark A and mark B
GEN_LINE = 0                 # the generator line of the interrupt routine


def tick_line(facts):
    """The trace's hardware line of the machine timer's interrupt (the
    kernel's tick) on a SoC with these facts (soc.json), or None where the
    trace unit does not see that input."""
    line = facts["irq"]["claims"]["mtimer"]["first"]
    return rec.HW_CPU_IRQ + line if line < facts["trace"]["cpu_irqs_traced"] else None


def routine_mask(names):
    """The `routines` field that runs the given routines (names of ROUTINES)."""
    order = list(ROUTINES)
    return sum(1 << order.index(n) for n in names)


def samples(records, channels, kernel, spans=False, tick_line=None):
    """The raw samples of each case, in cycles, from a decoded trace:
    {"marker": "pc-match" | "sw-event", "cases": {name: [cycles]}, "ticked": {name: n},
     "to_return": {name: [cycles]} (PC-match rows: to the switch's return, as the
     module's docstring says; in the order of "cases")}; with `spans`, also
    "spans": {name: [(start, end)]}, each sample's ends in trace time, uncorrected.
    `channels`, `kernel`: the protocols of the application and of the kernel's hooks
    (protocol.APP_PROTOCOLS["ctxsw"], ["freertos"]: the tick's channel).
    `tick_line`: the trace's hardware line of the machine timer's interrupt
    (rec.HW_CPU_IRQ + its input), which starts the "tick-edge" cases, only
    in their own routine; None: they get no samples."""
    ch_a, ch_b, ch_tick = channels.CH_MARK_A, channels.CH_MARK_B, kernel.CH_TICK
    ch_routine = channels.CH_ROUTINE
    loaded = 0               # BACKGROUND_FLAG from the last routine start on
    routine = None           # the routine running (its edges start only its own cases)
    pc_rows = any(r.type == rec.TYPE_CORE and (r.payload >> 32) & 0xFF == rec.CORE_PC_MATCH for r in records)
    last_pc = {}
    last_mret = None         # the last mret's time (PC-match rows)
    last_tick = None         # the last tick's time
    open_ = {}               # case name -> start time
    ticked = {}              # case name -> True when a tick fell inside its open sample
    after_tick = set()       # cases whose last sample had a tick: the next one is left out too
    interleaved = set()      # cases whose open sample saw another task's mark without its match
    out = {name: [] for name in CASES}
    to_return = {name: [] for name in CASES}
    span_list = {name: [] for name in CASES}
    dropped = {name: 0 for name in CASES}

    def _start(name, t):
        # A second start before the end (an overrun): the open sample never
        # ends by itself, and the new one's end cannot be told from it: both
        # are left out (every start is a sample or a left-out one).
        if name in open_:
            dropped[name] += 1
        ticked[name] = name in open_
        interleaved.discard(name)
        open_[name] = t

    edge_cases = [c for c in CASES.values() if c.start == "irq-edge"]
    edge_cases = {f: [c for c in edge_cases if (c.case_id & BACKGROUND_FLAG) == f] for f in (0, BACKGROUND_FLAG)}
    tick_cases = [c for c in CASES.values() if c.start == "tick-edge"]
    # A mark's PC match and its store may carry the same timestamp: the match first.
    for r in sorted(records, key=lambda r: (r.ts, r.type != rec.TYPE_CORE)):
        if r.type == rec.TYPE_CORE:
            kind, arg = (r.payload >> 32) & 0xFF, (r.payload >> 40) & 0xFF
            if kind == rec.CORE_PC_MATCH:
                last_pc[arg] = r.ts
            elif kind == rec.CORE_MRET:
                last_mret = r.ts
        elif r.type == rec.TYPE_HW:
            if r.payload >> (rec.HW_GEN_LINE + GEN_LINE) & 1:
                for c in edge_cases[loaded]:
                    if routine in (None, c.routine):
                        _start(c.name, r.ts)
            if tick_line is not None and r.payload >> tick_line & 1:
                for c in tick_cases:
                    if routine == c.routine and loaded == (c.case_id & BACKGROUND_FLAG):
                        _start(c.name, r.ts)
        elif r.type == rec.TYPE_SW:
            ch, data = (r.payload >> 32) & 0xFF, r.payload & 0xFFFFFFFF
            if ch == ch_tick:
                last_tick = r.ts
                for name in open_:
                    if CASES[name].start != "tick-edge":
                        ticked[name] = True
            elif ch == ch_routine:
                loaded = data & BACKGROUND_FLAG
                bits = data & ~BACKGROUND_FLAG
                routine = next((r for i, r in enumerate(ROUTINES) if bits == 1 << i), None)
            elif ch in (ch_a, ch_b):
                case = CASE_BY_ID.get(data | loaded) if not data & BACKGROUND_FLAG else None
                if case is None:
                    continue
                t = r.ts
                if pc_rows:
                    t = last_pc.pop(PC_A if ch == ch_a else PC_B, None)
                    if t is None:
                        # No PC match before it, so it cannot be placed: its
                        # task was switched out between the mark's first
                        # instruction and its store, and another task's mark
                        # took the match. The case's open sample then holds
                        # that task's switch too: left out.
                        if ch == ch_a and case.name in open_:
                            interleaved.add(case.name)
                        continue
                if ch == ch_a:
                    _start(case.name, t)
                    # A tick between the mark's PC match and its store is
                    # inside the sample (its handler ran in the mark).
                    if last_tick is not None and last_tick >= t:
                        ticked[case.name] = True
                    continue
                for c in CASES.values():
                    if c.ends_with == case.name and c.name in open_:
                        start = open_.pop(c.name)
                        mixed = c.name in interleaved or c.name in after_tick
                        interleaved.discard(c.name)
                        if ticked.pop(c.name):
                            dropped[c.name] += 1
                            if c.time_sliced:
                                after_tick.add(c.name)
                        elif mixed:
                            after_tick.discard(c.name)
                            dropped[c.name] += 1
                        elif t >= start:
                            out[c.name].append(t - start)
                            span_list[c.name].append((start, t))
                            if pc_rows:
                                ret = last_mret if last_mret is not None and start <= last_mret <= t else t
                                to_return[c.name].append(ret - start)
    result = {"marker": "pc-match" if pc_rows else "sw-event", "cases": out, "ticked": dropped,
              "to_return": to_return if pc_rows else {}}
    if spans:
        result["spans"] = span_list
    return result


def figures(raw, clock_hz=None):
    """Per case: the statistics of the samples, the marks' cost subtracted
    from the marker cases (see the module's docstring)."""
    corrections = {}          # per pass (without, with background load): the marks' cost
    for loaded, name in ((False, OVERHEAD), (True, OVERHEAD + BACKGROUND_SUFFIX)):
        corrections[loaded] = summarize(raw["cases"].get(name, [])).get("median", 0)
    correction = corrections[False]
    cases = {}
    for name, values in raw["cases"].items():
        c = CASES[name]
        sub = corrections[c.loaded] if c.start == "marker" and c.routine != "calib" else 0
        s = summarize([v - sub for v in values], clock_hz)
        s["corrected_by"] = sub
        returns = raw.get("to_return", {}).get(name)
        if returns:
            r = summarize(returns)
            s.update({"return_mean": r["mean"], "return_max": r["max"]})
        s["ticked"] = raw["ticked"].get(name, 0)
        cases[name] = s
    return {"marker": raw["marker"], "overhead": correction, "overhead_loaded": corrections[True], "cases": cases}


# ------------------------------------------------------------ the table
# The headline: one row per port. Columns: (header, case, statistic); the
# case WORST: the largest of that statistic over every case of the pass.
WORST = "*"
TABLE_COLUMNS = [
    ("yield mean", "yield", "mean"), ("min", "yield", "min"), ("max", "yield", "max"),
    ("jitter", "yield", "jitter"),
    ("sem sig", "sem-signal", "mean"), ("sem wait", "sem-wait", "mean"),
    ("mtx blk", "mutex-block", "mean"), ("mtx rel", "mutex-release", "mean"),
    ("q send", "queue-send", "mean"), ("q recv", "queue-receive", "mean"),
    ("isr give", "isr-give", "mean"), ("irq->task", "irq-to-task", "mean"),
    ("max", "irq-to-task", "max"),
    ("irq->bound", "irq-bound-task", "mean"), ("max", "irq-bound-task", "max"),
    ("tick->task", "tick-to-task", "mean"),
    ("worst", WORST, "max"), ("to mret", WORST, "return_max"),
]
LEGEND = """\
cycles, mean over the samples unless marked; yield = taskYIELD to an equal-priority task; sem/mtx/q =
semaphore, mutex (priority inheritance), queue: sig/send/rel wake a higher-priority task, wait/recv/blk
block and the lower-priority task resumes; isr give = from the ISR's mark before xSemaphoreGiveFromISR;
irq->task = from the interrupt edge to the task its ISR wakes; irq->bound = from the interrupt edge to the
task bound to it (switched into by the core where it has task contexts); tick->task = from the tick's
edge to the return of the vTaskDelay(1) it ends (the SoC's tick countdown where the core has task
contexts); worst = the largest max of
every case; to mret = seed 003's metric: the worst over every case from the same start to the mret that
enters the next task (or to that task, where the core switches with no return); marks' cost
subtracted (not from irq->task, not from to mret); marker: pc-match
(retire port) or sw-event (store arrival); REFERENCE rows are published figures, not measured here."""


def _fmt(v):
    if v is None:
        return "-"
    return f"{v:.1f}" if isinstance(v, float) else str(v)


def cell(cases, case, stat, loaded=False):
    """One figure of a port's cases: `case` in the pass asked for (`loaded`),
    or with WORST the largest over every case of that pass but the marks' own."""
    if case != WORST:
        return cases.get(case + (BACKGROUND_SUFFIX if loaded else ""), {}).get(stat)
    values = [s.get(stat) for name, s in cases.items()
              if CASES[name].loaded == loaded and CASES[name].routine != "calib" and s.get(stat) is not None]
    return max(values, default=None)


def table(results, references=(), loaded=False):
    """The context-switch table of a results dict (irqlab.ctxsw writes it):
    one row per port, then the REFERENCE rows; `loaded`: the cases measured
    with background load instead (no REFERENCE rows: the seeds have none)."""
    suffix = BACKGROUND_SUFFIX if loaded else ""
    head = ["port", "marker", "samples"] + [h for h, _, _ in TABLE_COLUMNS]
    rows = []
    for port, entry in results["cores"].items():
        cases = entry["cases"]
        n = min((cases[c]["count"] for c in cases if CASES[c].routine != "calib" and CASES[c].loaded == loaded),
                default=0)
        rows.append([port, entry["marker"], str(n)] +
                    [_fmt(cell(cases, case, stat, loaded)) for _, case, stat in TABLE_COLUMNS])
    if loaded:
        references = ()
    for ref in references:
        cells = {("yield", "mean"): ref.mean, ("yield", "jitter"): ref.jitter, (WORST, "return_max"): ref.worst}
        rows.append([ref.name, "REFERENCE", "-"] +
                    [cells.get((case, stat)) or "-" for _, case, stat in TABLE_COLUMNS])
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    lines = ["  ".join(h.rjust(w) for h, w in zip(head, widths)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join(lines)


def details(results):
    """Every case of every port: count, mean, min, median, max, jitter, left
    out, and to the mret (mean, max)."""
    head = ["port", "case", "count", "mean", "min", "median", "max", "jitter", "ticked", "to mret", "max"]
    rows = []
    for port, entry in results["cores"].items():
        for name, s in entry["cases"].items():
            rows.append([port, name] + [_fmt(s.get(k)) for k in ("count", "mean", "min", "median", "max",
                                                                  "jitter", "ticked", "return_mean",
                                                                  "return_max")])
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    lines = ["  ".join(h.rjust(w) for h, w in zip(head, widths)), "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join(lines)
