"""FreeRTOS's trace hooks as a timeline (trace/rtos.py): tasks from TASK_IN ..
TASK_OUT, named by TASK_CREATE/TASK_NAME; ISRs from ISR_ENTER .. ISR_EXIT
and trap handlers from the retire port, nested; input that does not pair and
OVERFLOW records; the Perfetto tracks, the plot and `irqlab timeline`. Then
one run of the FreeRTOS application on `clic`: its tasks, one at a time, and
figures that add up."""

import json
import re

import pytest

from irqlab.host import protocol, record as rec, rtos
from irqlab.host.decode import decode_bytes
from irqlab.host.export_perfetto import trace_events

from clitool import assert_one_line_error, irqlab
from test_export import check_trace_event_format
from tracegen import MEI, TraceBuilder, handler_trace, latency_trace

RTOS = protocol.APP_PROTOCOLS["freertos"]
A, B, C = 0x30000100, 0x30000200, 0x30000300
PNG = b"\x89PNG\r\n\x1a\n"


def name_words(name):
    """TASK_NAME payloads as the hook sends them: 4 characters each, up to the zero."""
    raw = name.encode() + b"\0"
    raw += b"\0" * (-len(raw) % 4)
    return [int.from_bytes(raw[i:i + 4], "little") for i in range(0, len(raw), 4)]


class RtosTrace(TraceBuilder):
    def ev(self, ts, name, data=0):
        return self.sw(ts, getattr(RTOS, f"CH_{name}"), data)

    def create(self, ts, tcb, name):
        self.ev(ts, "TASK_CREATE", tcb)
        for k, w in enumerate(name_words(name)):
            self.ev(ts + 1 + k, "TASK_NAME", w)
        return self

    def switch(self, ts, out, into):
        return self.ev(ts, "TASK_OUT", out).ev(ts + 10, "TASK_IN", into)

    def records(self):
        records, stats = decode_bytes(self.bytes())
        assert stats.intact
        return records


def two_tasks():
    """A (created first) and B: A runs 100..200, B 210..400 with a tick ISR
    inside, A yields to itself at 500, A runs to the end (600)."""
    tb = RtosTrace().time_hi(0).create(10, A, "alpha").create(20, B, "beta-task")
    tb.ev(100, "TASK_IN", A)
    tb.switch(200, A, B)
    tb.ev(300, "ISR_ENTER").ev(305, "TICK", 7).ev(310, "TASK_READY", A).ev(320, "ISR_EXIT")
    tb.switch(400, B, A)
    tb.switch(500, A, A)                  # a yield that keeps A: no switch
    tb.ev(600, "QUEUE_SEND", 0x1234)
    return tb


def test_tasks_are_named_and_their_segments_pair():
    tl = rtos.timeline(two_tasks().records())
    assert [t.label for t in tl.tasks] == ["alpha", "beta-task"]
    a, b = tl.tasks
    assert (a.tcb, a.created, b.created) == (A, 10, 20)
    assert [(s.start, s.end) for s in a.segments] == [(100, 200), (410, 500), (510, 600)]
    assert [(s.start, s.end) for s in b.segments] == [(210, 400)]
    assert (a.switches_in, b.switches_in) == (2, 1)           # the yield to itself is no switch
    assert a.segments[-1].seen_end is False and all(s.seen_start for s in a.segments)
    assert [(s.start, s.end, s.depth) for s in tl.isrs] == [(300, 320, 0)]
    assert tl.scheduler_start == 100 and not tl.notes and not tl.overflows
    tick, ready, send = tl.instants
    assert (tick.name, tick.data, tick.task) == ("TICK", 7, b)
    assert (ready.name, ready.subject) == ("TASK_READY", a)
    assert (send.name, send.task) == ("QUEUE_SEND", a)
    s = rtos.summary(tl)
    assert s["window"] == [100, 600] and s["cycles"] == 500
    got = {t["task"]: (t["cycles"], t["switches_in"], t["in_interrupts"]) for t in s["tasks"]}
    assert got == {"alpha": (280, 2, 0), "beta-task": (190, 1, 20)}     # the ISR ran inside beta-task
    assert s["no_task"]["cycles"] == 500 - 280 - 190
    assert s["isrs"] == {"count": 1, "nested": 0, "cycles": 20} and s["ticks"] == 1
    # A window clips the segments and counts only the switches in it.
    w = rtos.summary(tl, 150, 450)
    assert {t["task"]: (t["cycles"], t["switches_in"]) for t in w["tasks"]} == {
        "alpha": (50 + 40, 1), "beta-task": (190, 1)}


def test_a_reused_tcb_is_a_new_task():
    tb = RtosTrace().time_hi(0).create(10, A, "one").ev(20, "TASK_IN", A).ev(30, "TASK_DELETE", A)
    tb.ev(40, "TASK_OUT", A).create(50, A, "two").ev(60, "TASK_IN", A).ev(70, "TASK_OUT", A)
    tl = rtos.timeline(tb.records())
    assert [(t.label, t.deleted, [(s.start, s.end) for s in t.segments]) for t in tl.tasks] == [
        ("one", 30, [(20, 40)]), ("two", None, [(60, 70)])]
    # A name that fills its 4-character words ends with a word of zeros.
    tl = rtos.timeline(RtosTrace().time_hi(0).create(10, A, "IDLE").ev(20, "TASK_IN", A).records())
    assert tl.tasks[0].label == "IDLE"


def test_isrs_and_handlers_nest():
    tb = RtosTrace().time_hi(0).ev(10, "TASK_IN", A)
    tb.core(100, rec.CORE_TRAP, 0x2000, MEI).ev(105, "ISR_ENTER")
    tb.core(120, rec.CORE_TRAP, 0x3000, 0x80 | 20).ev(125, "ISR_ENTER").ev(140, "ISR_EXIT")
    tb.core(150, rec.CORE_MRET, 0x3100)
    tb.ev(160, "ISR_EXIT").core(170, rec.CORE_MRET, 0x2100)
    tl = rtos.timeline(tb.records())
    assert [(s.start, s.end, s.depth) for s in tl.isrs] == [(105, 160, 0), (125, 140, 1)]
    assert [(s.start, s.end, s.depth, s.cause, s.pc) for s in tl.handlers] == [
        (100, 170, 0, MEI, 0x2000), (120, 150, 1, 0x80 | 20, 0x3000)]
    s = rtos.summary(tl)
    assert s["isrs"] == {"count": 2, "nested": 1, "cycles": 55}
    assert s["handlers"]["cycles"] == 70 and s["tasks"][0]["in_interrupts"] == 70
    assert not tl.notes
    # Handlers named by the ELF's symbols, else by their cause.
    sym = rtos.Symbols({"outer_isr": 0x2000, "inner_isr": 0x3000, "_start": 0})
    assert [rtos.handler_name(h, sym) for h in tl.handlers] == ["outer_isr", "inner_isr"]
    assert sym(0x3008) == "inner_isr+0x8"
    assert "machine external" in rtos.handler_name(tl.handlers[0])


def test_an_mret_older_than_the_trap_before_it_ends_the_frame_below():
    """An mret in flight when a trap is taken retires after the trap's record
    (the retire port): it ends the handler that was running, not the new one."""
    tb = RtosTrace().time_hi(0).ev(10, "TASK_IN", A)
    tb.core(100, rec.CORE_TRAP, 0x2000, MEI)
    tb.core(200, rec.CORE_TRAP, 0x2000, MEI)       # taken at 200 ...
    tb.core(201, rec.CORE_MRET, 0x2100)            # ... after this mret acted (at 199)
    tb.core(300, rec.CORE_MRET, 0x2100)
    tl = rtos.timeline(tb.records())
    assert [(s.start, s.end, s.depth) for s in tl.handlers] == [(100, 201, 0), (200, 300, 0)]
    assert not tl.notes


def test_the_first_tasks_mret_is_no_handler():
    """The CLIC port starts the first task with an mret that has no trap."""
    tb = RtosTrace().time_hi(0).create(10, A, "a").ev(20, "TASK_IN", A).core(30, rec.CORE_MRET, 0x2000)
    tb.core(100, rec.CORE_TRAP, 0x2000, MEI).core(150, rec.CORE_MRET, 0x2100)
    tl = rtos.timeline(tb.records())
    assert tl.first_task_mret == 30
    assert [(s.start, s.end) for s in tl.handlers] == [(100, 150)] and not tl.notes


def test_a_trace_that_starts_inside_a_task_and_isrs():
    """The first events close what began before the trace: segments from
    the trace's first record, their start marked as not seen; what is open
    at the end closes at the last record."""
    tb = RtosTrace().time_hi(0).ev(50, "QUEUE_SEND", 0x99)
    tb.ev(60, "ISR_EXIT").ev(70, "ISR_EXIT").core(75, rec.CORE_MRET, 0x2100)
    tb.ev(80, "TASK_OUT", A).ev(90, "TASK_IN", B).ev(100, "ISR_ENTER").ev(130, "TICK", 1)
    tl = rtos.timeline(tb.records())
    a, b = tl.tasks
    assert a.label == f"task 0x{A:08x}"                       # never announced
    assert [(s.start, s.end, s.seen_start, s.seen_end) for s in a.segments] == [(50, 80, False, True)]
    assert [(s.start, s.end, s.seen_start, s.seen_end) for s in b.segments] == [(90, 130, True, False)]
    assert a.switches_in == 0 and b.switches_in == 1
    # Two exits: the trace began inside a nested ISR; the one still open at the end is cut there.
    assert [(s.start, s.end, s.depth, s.seen_start, s.seen_end) for s in tl.isrs] == [
        (50, 70, 0, False, True), (50, 60, 1, False, True), (100, 130, 0, True, False)]
    assert [(s.start, s.end, s.seen_start) for s in tl.handlers] == [(50, 75, False)]
    assert not tl.notes
    assert rtos.summary(tl, 50, 130)["tasks"][0]["cut"] == 1


def test_events_that_contradict_the_state_are_noted_not_raised():
    tb = RtosTrace().time_hi(0).ev(5, "TASK_NAME", 0x41414141)
    tb.ev(10, "TASK_IN", A).ev(20, "TASK_IN", A)            # twice
    tb.ev(30, "TASK_OUT", B)                                 # not the running task
    tb.ev(40, "TASK_OUT", A)                                 # nothing runs
    tb.ev(50, "TASK_IN", B).ev(60, "TASK_IN", C)             # B's TASK_OUT missing
    tb.ev(70, "ISR_ENTER").ev(80, "ISR_EXIT").ev(90, "ISR_EXIT")
    tl = rtos.timeline(tb.records())
    notes = [t for t, _ in tl.notes]
    assert notes == [5, 20, 30, 40, 60, 90], tl.notes
    assert "without its TASK_CREATE" in tl.notes[0][1] and "already runs" in tl.notes[1][1]
    assert "TASK_OUT is missing" in tl.notes[4][1]
    a, b, c = tl.tasks
    assert [(s.start, s.end, s.seen_end) for s in a.segments] == [(10, 30, False)]
    assert [(s.start, s.end, s.seen_end) for s in b.segments] == [(50, 60, False)]
    segs = tl.segments()
    assert all(x[1].end <= y[1].start for x, y in zip(segs, segs[1:]))
    assert "note at cycle 30" in rtos.table(rtos.summary(tl, 0, 100))


def test_an_overflow_is_listed_and_cuts_the_timeline():
    """Events may be missing before an OVERFLOW record: what runs is cut
    there, and the next events start afresh (a TASK_OUT closes a segment
    from the overflow, its start not seen)."""
    tb = RtosTrace().time_hi(0).create(1, A, "a").create(5, B, "b").ev(10, "TASK_IN", A).ev(20, "ISR_ENTER")
    tb.core(15, rec.CORE_TRAP, 0x2000, MEI)
    tb.add(rec.TYPE_OVERFLOW, 50, 3)
    tb.ev(60, "ISR_EXIT").core(65, rec.CORE_MRET, 0x2100)
    tb.switch(70, A, B).ev(100, "TASK_OUT", B)
    tl = rtos.timeline(tb.records())
    assert tl.overflows == [(50, 3)]
    a, b = tl.tasks
    assert [(s.start, s.end, s.seen_start, s.seen_end) for s in a.segments] == [
        (10, 50, True, False), (50, 70, False, True)]
    assert [(s.start, s.end, s.seen_start, s.seen_end) for s in b.segments] == [(80, 100, True, True)]
    assert [(s.start, s.end, s.seen_start, s.seen_end) for s in tl.isrs] == [
        (20, 50, True, False), (50, 60, False, True)]
    assert [(s.start, s.end, s.seen_start, s.seen_end) for s in tl.handlers] == [
        (15, 50, True, False), (50, 65, False, True)]
    s = rtos.summary(tl, 0, 100)
    assert s["overflows"] == [{"cycle": 50, "events_dropped": 3}]
    assert "overflow at cycle 50: 3 events dropped" in rtos.table(s)
    # The export shows it, and the cut segments say so.
    doc = trace_events(tb.records(), 100e6)
    check_trace_event_format(doc)
    ev = doc["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    cut = [e for e in ev if e["ph"] == "i" and names[e["tid"]] == "timeline notes"]
    assert [(e["name"], e["args"]) for e in cut] == [("overflow: the timeline is cut", {"events_dropped": 3})]
    a_slices = [e for e in ev if e["ph"] == "X" and names[e["tid"]] == "task a"]
    assert [e["args"].get("end_not_seen") for e in a_slices] == [True, None]


def test_perfetto_has_a_track_per_task_and_one_for_isrs():
    tb = two_tasks()
    tb.ev(440, "ISR_ENTER").ev(445, "ISR_ENTER").ev(450, "ISR_EXIT").ev(460, "ISR_EXIT")
    doc = trace_events(tb.records(), 50e6)
    check_trace_event_format(doc)
    ev = doc["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    first = [names[t] for t in sorted(names)][:3]
    assert first == ["task alpha", "task beta-task", "ISRs (trace hooks)"]   # the timeline comes first
    by_track = {}
    for e in ev:
        if e["ph"] == "X":
            by_track.setdefault(names[e["tid"]], []).append(e)
    assert [(e["args"]["start_cycle"], e["args"]["cycles"]) for e in by_track["task alpha"]] == [
        (100, 100), (410, 90), (510, 90)]
    assert by_track["task alpha"][0]["ts"] == pytest.approx(100 / 50)
    assert [e["args"]["depth"] for e in by_track["ISRs (trace hooks)"]] == [0, 0, 1]
    # A trace without the hooks has no such tracks.
    plain = trace_events(decode_bytes(handler_trace([30, 31]))[0], 50e6)
    assert not any(e["args"]["name"].startswith(("task ", "ISRs")) for e in plain["traceEvents"]
                   if e["ph"] == "M" and e["name"] == "thread_name")


def test_the_generated_header_has_the_creation_channels():
    header = protocol.c_header("freertos", kernel="freertos")
    for name in ("TASK_CREATE", "TASK_NAME", "TASK_DELETE"):
        assert f"#define CH_{name} 0x{getattr(RTOS, 'CH_' + name):02x}u" in header


# ------------------------------------------------------------------ the CLI
def write_trace(tmp_path, tb, name="t.bin"):
    p = tmp_path / name
    p.write_bytes(tb.bytes() if hasattr(tb, "bytes") else tb)
    return p


def test_cli_prints_the_table_and_writes_the_plot(tmp_path):
    trace = write_trace(tmp_path, two_tasks())
    png = tmp_path / "out" / "tl.png"
    r = irqlab("timeline", trace, "--out", png, "--from", 0, "--to", 700)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "cycles 0..700 (700 cycles)"
    alpha = next(ln for ln in lines if ln.startswith("alpha"))
    assert re.search(r"\b2\s+280\s+40\.0%", alpha), alpha
    assert png.read_bytes().startswith(PNG)
    assert [p.name for p in png.parent.iterdir()] == ["tl.png"]      # no temporary left
    r = irqlab("timeline", trace, "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["window"] == [100, 600] and [t["task"] for t in doc["tasks"]] == ["alpha", "beta-task"]


def test_cli_errors_are_one_line_and_write_nothing(tmp_path):
    plain = write_trace(tmp_path, latency_trace([40, 41]), "plain.bin")
    png = tmp_path / "x.png"
    assert_one_line_error(irqlab("timeline", plain, "-o", png), "no FreeRTOS trace-hook event")
    trace = write_trace(tmp_path, two_tasks())
    assert_one_line_error(irqlab("timeline", trace, "-o", png, "--from", 500, "--to", 400), "--to 400")
    assert_one_line_error(irqlab("timeline", trace, "-o", png, "--from", 5000), "--from 5000")
    assert_one_line_error(irqlab("timeline", trace, "-o", png, "--to", 1), "--to 1")
    assert_one_line_error(irqlab("timeline", trace, "-o", tmp_path), "is a folder")
    assert_one_line_error(irqlab("timeline", trace, "--elf", tmp_path / "none.elf"), "none.elf")
    assert_one_line_error(irqlab("timeline", tmp_path / "none.bin"), "none.bin")
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert_one_line_error(irqlab("timeline", trace, "-o", blocker / "x.png"), "cannot write")
    assert not png.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "plain.bin", "t.bin"]


def test_cli_timeline_without_migen(tmp_path):
    from test_host_only import run
    trace = write_trace(tmp_path, two_tasks())
    r = run("timeline", str(trace), "-o", str(tmp_path / "t.png"))
    assert r.returncode == 0, r.stderr
    assert "alpha" in r.stdout and (tmp_path / "t.png").exists()


# ---------------------------------------------------------------- one real run
# The tasks of fw/freertos/main.c and the kernel's own two.
APP_TASKS = {"runner", "reg", "high", "spinA", "spinB", "prod", "giver", "mlow", "mhigh", "btake", "victim"}
KERNEL_TASKS = {"IDLE", "Tmr Svc"}


@pytest.fixture(scope="module", params=["clic", "clint"])
def freertos_run(request, tmp_path_factory):
    """The application on `clic` (the CLIC port) and `clint` (FreeRTOS's own
    RISC-V port, whose portYIELD_FROM_ISR calls the kernel's traceISR_EXIT:
    the hooks' ISR_EXIT must still come once per ISR)."""
    from irqlab.drivers import sim
    model = sim.ensure_model(request.param)
    binary = sim.build_firmware(model, app="freertos")
    image = sim.load_image(model, binary)
    path = tmp_path_factory.mktemp("rtos") / "freertos.bin"
    r = sim.run(model, image, str(path), max_cycles=20_000_000)
    assert r.exit_code == 0, r.console[-2000:]
    records, _ = r.trace()
    return path, binary[:-len(".bin")] + ".elf", records, model.facts


def count_sw(records, name):
    ch = getattr(RTOS, f"CH_{name}")
    return [x for x in records if x.type == rec.TYPE_SW and (x.payload >> 32) & 0xFF == ch]


def test_the_applications_timeline(freertos_run):
    _, _, records, facts = freertos_run
    tl = rtos.timeline(records)
    assert not tl.notes and not tl.overflows
    labels = [t.label for t in tl.tasks]
    assert set(labels) == APP_TASKS | KERNEL_TASKS, labels
    assert all(t.created is not None and t.segments for t in tl.tasks)
    # At any time at most one task runs.
    segs = tl.segments()
    assert all(x[1].end <= y[1].start for x, y in zip(segs, segs[1:]))
    # Every TASK_IN opened a segment, each closed by its TASK_OUT (the last one
    # too: the stack check after the victim's TASK_OUT ends the run).
    ins, outs = count_sw(records, "TASK_IN"), count_sw(records, "TASK_OUT")
    assert len(segs) == len(ins) == len(outs)
    assert all(s.seen_start and s.seen_end for _, s in segs)
    # Switches: a TASK_IN of another task than the TASK_OUT before it.
    seq = sorted(ins + outs, key=lambda x: x.ts)
    real = sum(1 for o, i in zip([None] + seq[1::2], seq[0::2])
               if o is None or (o.payload & 0xFFFFFFFF) != (i.payload & 0xFFFFFFFF))
    assert sum(t.switches_in for t in tl.tasks) == real
    # The figures add up: the tasks' cycles and the cycles between tasks are the window.
    s = rtos.summary(tl)
    assert s["window"] == [tl.scheduler_start, tl.end]
    assert sum(t["cycles"] for t in s["tasks"]) + s["no_task"]["cycles"] == s["cycles"]
    assert sum(t["cycles"] for t in s["tasks"]) == sum(seg.cycles for _, seg in segs)
    assert sum(t["share"] for t in s["tasks"]) + s["no_task"]["share"] == pytest.approx(1, abs=1e-5)
    assert 0 < s["no_task"]["share"] < 0.05          # the kernel between TASK_OUT and TASK_IN
    idle = next(t for t in s["tasks"] if t["task"] == "IDLE")
    assert idle["share"] > 0.2                        # the application mostly waits
    # ISRs: one segment per ISR_ENTER and ISR_EXIT, each inside a trap handler (trap .. mret).
    assert len(tl.isrs) == len(count_sw(records, "ISR_ENTER")) == len(count_sw(records, "ISR_EXIT")) > 0
    traps = [x for x in records if x.type == rec.TYPE_CORE and (x.payload >> 32) & 0xFF == rec.CORE_TRAP]
    assert len(tl.handlers) == len(traps) > 0
    for isr in tl.isrs:
        assert any(h.start <= isr.start and isr.end <= h.end for h in tl.handlers), isr
    assert len(tl.ticks()) == len(count_sw(records, "TICK"))
    if facts["clic"]:
        assert len(tl.isrs) > 50                      # the CLIC port's tick has the hooks
        assert tl.first_task_mret is not None         # it starts the first task by an mret
        assert any(h.depth for h in tl.handlers)      # the non-RTOS ISR nests


def test_the_cli_on_the_applications_trace(freertos_run, tmp_path):
    path, elf, _, _ = freertos_run
    png = tmp_path / "tl.png"
    r = irqlab("timeline", path, "-o", png, "--elf", elf)
    assert r.returncode == 0, r.stderr
    assert png.read_bytes().startswith(PNG)
    for name in APP_TASKS | KERNEL_TASKS:
        assert re.search(rf"^{re.escape(name)}\s", r.stdout, re.M), (name, r.stdout)
    m = re.search(r": cycles (\d+)\.\.(\d+)", r.stderr)
    assert m and int(m.group(2)) - int(m.group(1)) == rtos.PLOT_SPAN
