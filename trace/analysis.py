"""From trace records to the benchmark figures.

Latency (per interrupt): B - A, A = rising edge of the generator line,
B = the handler-entry event. Which event B is follows from the trace, not from
what the core is said to support: PC matches of comparator 0 (core events,
kind 0, arg 0; the firmware points it at the first handler instruction after
the caller-saved context is stored, on cores with a retire port) if the test
holds any, else the software event on CH_HANDLER_ENTRY (the first statement of
the C handler). A PC match gives B at two points: B-retire (the record's
stamp, the instruction leaving writeBack: "latency") and B-execute (its first
cycle in execute, the stamp minus the record's execute age:
"latency_b_execute", the point the seeds count to). Throughput (per stimulation phase): handler runs (software
events on CH_HANDLER_ENTRY, sent once per C handler call on every core, also
when a loop serves several interrupts per entry, as the CLIC's mnxti
trampoline does) between the rising and falling edge of the line's phase
envelope, divided by the phase length. Where one entry serves several
interrupts (a service loop), only the first rising edge before each B event
pairs with it and the rest count as merged edges: the test's latency is then
no interrupt's latency, and serves_per_entry() says so. The preemption test is a latency test
whose arrivals all meet a running lower-level handler. The firmware's dump of the on-chip statistics is decoded too, so the
two measurements of the same latency can be compared.
"""

from dataclasses import dataclass, field

from irqlab.host import record as rec
from irqlab.host.benchmarks import BENCHMARKS, test_name
from irqlab.host.protocol import (CH_HANDLER_ENTRY, CH_STATS, CH_STRESS_ENTRY, CH_TEST_BEGIN, CH_TEST_END,
                                  STATS_WORDS)
from irqlab.host.stats import summarize


@dataclass
class Event:
    ts: int
    kind: str      # "rise", "fall", "sw", "core"
    index: int     # line, sw channel, or core-event kind
    data: int = 0


def events(records):
    """Flatten records into time-ordered single events."""
    out = []
    for r in records:
        if r.type == rec.TYPE_HW:
            rise, fall = r.payload & 0xFFFFFFFF, r.payload >> 32
            for line in range(rec.N_HW_LINES):
                if rise >> line & 1:
                    out.append(Event(r.ts, "rise", line))
                if fall >> line & 1:
                    out.append(Event(r.ts, "fall", line))
        elif r.type == rec.TYPE_SW:
            out.append(Event(r.ts, "sw", (r.payload >> 32) & 0xFF, r.payload & 0xFFFFFFFF))
        elif r.type == rec.TYPE_CORE:
            out.append(Event(r.ts, "core", (r.payload >> 32) & 0xFF, r.payload))
    out.sort(key=lambda e: e.ts)   # stable: one cycle's events keep their order
    return out


@dataclass
class TestWindow:
    test: int
    begin: int
    end: int
    events: list = field(default_factory=list)
    onchip: dict = field(default_factory=dict)


def split_tests(evs):
    """Cut the event list at the firmware's TEST_BEGIN/TEST_END markers."""
    tests, current = [], None
    for e in evs:
        if e.kind == "sw" and e.index == CH_TEST_BEGIN:
            current = TestWindow(e.data, e.ts, None)
            continue
        if current is None:
            continue
        if e.kind == "sw" and e.index == CH_TEST_END:
            current.end = e.ts
            tests.append(current)
            continue
        if current.end is None:
            current.events.append(e)
    # The on-chip dump follows each TEST_END.
    _attach_onchip(evs, tests)
    return tests


def _attach_onchip(evs, tests):
    by_test = {}
    current, pending_bin = None, None
    for e in evs:
        if e.kind != "sw" or not CH_STATS <= e.index < CH_STATS + len(STATS_WORDS):
            continue
        word = STATS_WORDS[e.index - CH_STATS]
        if word == "test":
            current = by_test.setdefault(e.data, {"hist": {}})
        elif current is None:
            continue
        elif word == "sum_lo":
            current["sum"] = e.data
        elif word == "sum_hi":
            current["sum"] |= e.data << 32
        elif word == "bin":
            pending_bin = e.data
        elif word == "bin_count":
            if pending_bin is not None:
                current["hist"][pending_bin] = e.data
        else:
            current[word] = e.data
    for t in tests:
        t.onchip = by_test.get(t.test, {})


# B markers: the short names the report uses.
B_PC_MATCH = "pc-match"
B_SW_EVENT = "sw-event"
B_DESCRIPTIONS = {
    B_PC_MATCH: "PC match on the first handler instruction after the context is saved",
    B_SW_EVENT: "software event: stimulus-port store, first statement of the C handler",
}
PC_MATCH_COMPARATOR = 0


def is_pc_match(e, comparator=PC_MATCH_COMPARATOR):
    return (e.kind == "core" and e.index == rec.CORE_PC_MATCH
            and (e.data >> 40) & 0xFF == comparator)


def is_handler_event(e, channel=CH_HANDLER_ENTRY):
    return e.kind == "sw" and e.index == channel


def b_marker(window):
    """Which B the window's trace supports: PC matches if it holds any."""
    return B_PC_MATCH if any(is_pc_match(e) for e in window.events) else B_SW_EVENT


def _stop(marker, stop_channel):
    if marker == B_PC_MATCH:
        return is_pc_match
    return lambda e: is_handler_event(e, stop_channel)


def b_execute(e):
    """A PC match's B-execute: the cycle its instruction entered the execute
    stage (the record's execute age; the stamp is B-retire), None where the
    age is not known. The seeds count latency to this point."""
    age = rec.core_exec_age(e.data)
    return None if age is None else e.ts - age


def _event_pairs(window, line, stop):
    """(A, the B event) of every interrupt, and the merged edges."""
    out, start, merged = [], None, 0
    gen = rec.HW_GEN_LINE + line
    for e in window.events:
        if e.kind == "rise" and e.index == gen:
            if start is None:
                start = e.ts
            else:
                merged += 1
        elif start is not None and stop(e):
            out.append((start, e))
            start = None
    return out, merged


def latency_pairs(window, line=0, stop_channel=CH_HANDLER_ENTRY, marker=B_SW_EVENT):
    """(A, B) timestamps of every interrupt: each rising edge of the line
    pairs with the next B event (`marker`); an edge that arrives while one is
    unserved is counted as merged (it cannot have its own handler run)."""
    pairs, merged = _event_pairs(window, line, _stop(marker, stop_channel))
    return [(a, e.ts) for a, e in pairs], merged


# An entry that serves this many requests or more on average is a service
# loop (the CLIC's mnxti trampoline), not one handler call per interrupt.
SEVERAL_PER_ENTRY = 2.0


def serves_per_entry(test):
    """Requests served per entry into the handler code in a test's results
    entry (analyze()): the line's rising edges per B event, (paired + merged)
    / paired (the test's last edge, if still unserved when it ends, is in
    neither). 1.0 where every interrupt has its own entry; a service loop that
    takes the next request without leaving (mnxti) serves hundreds per entry
    in the back-to-back test. None without figures."""
    n = (test.get("latency") or {}).get("count")
    merged = test.get("merged_edges")
    if not n or merged is None:
        return None
    return (n + merged) / n


def serves_several_per_entry(test):
    """Whether most of the test's requests met no B of their own (one entry
    served several): its A-B pairs then span whole service loops, so its
    latency figures measure no interrupt and are not to be shown as one."""
    s = serves_per_entry(test)
    return s is not None and s >= SEVERAL_PER_ENTRY


def latencies(window, line=0, stop_channel=CH_HANDLER_ENTRY, marker=B_SW_EVENT):
    """B - A for every interrupt (latency_pairs), and the merged edges."""
    pairs, merged = latency_pairs(window, line, stop_channel, marker)
    return [b - a for a, b in pairs], merged


def execute_latencies(window, line=0):
    """B-execute - A for every interrupt whose B is a PC match (the same
    pairs as latencies() with marker B_PC_MATCH), and how many of them had
    no known execute age (left out, never guessed)."""
    pairs, _ = _event_pairs(window, line, is_pc_match)
    b_exec = [(a, b_execute(e)) for a, e in pairs]
    return [b - a for a, b in b_exec if b is not None], sum(b is None for _, b in b_exec)


@dataclass
class Interrupt:
    test: str        # the benchmark's name (trace/benchmarks.py)
    index: int       # 0, 1, ... within its test
    a: int           # A: rising edge of the generator line (cycle)
    b: int           # B: handler entry (cycle); a PC match: B-retire
    marker: str      # which event B is (B_PC_MATCH, B_SW_EVENT)
    b_execute: int = None   # a PC match: the cycle B's instruction entered execute (None: unknown, or no PC match)

    @property
    def latency(self):
        return self.b - self.a

    @property
    def latency_execute(self):
        return None if self.b_execute is None else self.b_execute - self.a


def interrupts(records):
    """Every interrupt of every test in the trace, paired as analyze() pairs them."""
    out = []
    for w in split_tests(events(records)):
        marker = b_marker(w)
        pairs, _ = _event_pairs(w, 0, _stop(marker, CH_HANDLER_ENTRY))
        out += [Interrupt(test_name(w.test), i, a, e.ts, marker,
                          b_execute(e) if marker == B_PC_MATCH else None) for i, (a, e) in enumerate(pairs)]
    return out


def throughput(window, line=0, stop_channel=CH_HANDLER_ENTRY, marker=B_SW_EVENT, all_lines=False):
    """Per stimulation phase: (phase length in cycles, B events in it); with
    `all_lines` the stress lines' handler entries count too (T6: lines held
    together, served one after another)."""
    line_b = _stop(marker, stop_channel)
    stop = (lambda e: line_b(e) or (e.kind == "sw" and e.index == CH_STRESS_ENTRY)) if all_lines else line_b
    phase_line = rec.HW_GEN_PHASE + line
    phases, begin, count = [], None, 0
    for e in window.events:
        if e.kind == "rise" and e.index == phase_line:
            begin, count = e.ts, 0
        elif e.kind == "fall" and e.index == phase_line and begin is not None:
            phases.append((e.ts - begin, count))
            begin = None
        elif begin is not None and stop(e):
            count += 1
    return phases


RET_COMPARATOR = 1    # the row's ret_symbol (fw/bench: the handler's return instruction)


def handoffs(window, line=0):
    """Back to back: cycles from the retirement of a handler's return
    instruction (mret, emret: PC comparator 1) to B of the next handler,
    for each return inside a stimulation phase followed by B in the same
    phase (the line is held, so the next request is already pending)."""
    phase_line = rec.HW_GEN_PHASE + line
    out, in_phase, ret = [], False, None
    for e in window.events:
        if e.kind == "rise" and e.index == phase_line:
            in_phase, ret = True, None
        elif e.kind == "fall" and e.index == phase_line:
            in_phase, ret = False, None
        elif in_phase and is_pc_match(e, RET_COMPARATOR):
            ret = e.ts
        elif ret is not None and is_pc_match(e):
            out.append(e.ts - ret)
            ret = None
    return out


def analyze(records, clock_hz, hist_shift=1):
    """Everything the bench reports for one run, as a JSON-ready dict."""
    evs = events(records)
    result = {"tests": {}}
    markers = set()
    for w in split_tests(evs):
        name = test_name(w.test)
        marker = b_marker(w)
        markers.add(marker)
        lat, merged = latencies(w, marker=marker)
        entry = {"b_marker": marker, "latency": summarize(lat, clock_hz), "merged_edges": merged,
                 "onchip": w.onchip}
        if marker == B_PC_MATCH:
            # B's two points: "latency" is to its retirement, this to its
            # entry into execute (the seeds' point).
            lat_exec, unknown = execute_latencies(w)
            entry["latency_b_execute"] = summarize(lat_exec, clock_hz)
            entry["b_execute_unknown"] = unknown
        if marker != B_SW_EVENT:
            # The software event is still sent by the handler: its latency, for comparison.
            sw_lat, _ = latencies(w, marker=B_SW_EVENT)
            entry["latency_sw_event"] = summarize(sw_lat, clock_hz)
        oc = w.onchip
        if lat and oc.get("count"):
            entry["onchip_agrees"] = (oc["count"] == len(lat) and oc["min"] == min(lat)
                                      and oc["max"] == max(lat) and oc["sum"] == sum(lat))
        if name in BENCHMARKS and BENCHMARKS[name].kind == "throughput":
            phases = throughput(w, marker=B_SW_EVENT,
                                all_lines="parallel" in BENCHMARKS[name].stressors)
            rates = [n * clock_hz / cycles for cycles, n in phases if cycles]
            per_irq = [cycles / n for cycles, n in phases if n]
            entry["phases"] = [{"cycles": c, "handled": n} for c, n in phases]
            entry["throughput_hz"] = summarize(rates) if rates else {"count": 0}
            entry["cycles_per_irq"] = summarize(per_irq) if per_irq else {"count": 0}
            hand = handoffs(w)
            if hand:
                entry["handoff"] = summarize(hand)
        result["tests"][name] = entry
        result["tests"][name]["_values"] = lat
    # What B was, for the whole run: the headline latency test's, else the
    # tests' one marker ("mixed" if they differ; none without tests). (Matrix
    # cases with several lines take the software event on rows whose entry is
    # shared by every line: fw/bench/matrix.c.)
    if "latency" in result["tests"]:
        result["b_marker"] = result["tests"]["latency"]["b_marker"]
    else:
        result["b_marker"] = markers.pop() if len(markers) == 1 else ("mixed" if markers else None)
    return result
