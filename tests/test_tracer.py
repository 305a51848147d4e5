"""Cycle-exact tests of the trace unit (soc/tracer.py) and its latency
statistics (soc/latstats.py) in Migen simulation, with the byte stream decoded
by the host decoder (trace/decode.py).

Timing convention (see `Bench.run`): cycle c is the interval after the c-th
clock edge. Inputs written for cycle c are visible in cycle c, and row c of
the recording holds every probe's value in that same cycle, including the
free-running timestamp `tracer.ts`. The timestamp of an event is defined as
the value of `tracer.ts` in the cycle in which the event is visible on the
trace unit's inputs (for a line: the first cycle in which `hw_lines` shows the
new value; for a store: the first cycle of the bus request), and the tests
require exactly that value, zero cycles of error.
"""

from migen.sim import run_simulation

from irqlab.host import record as rec
from irqlab.host.decode import Decoder
from irqlab.soc.tracer import TraceUnit
from irqlab.soc.latstats import N_BINS

class Bench:
    """Drives a TraceUnit cycle by cycle and records what it sees.

    Stimulus is scheduled per cycle: `at(c, sig, value)` writes a value that
    holds from cycle c on, `pulse(c, sig)` raises a 1-bit signal for cycle c
    only, `store(c, channel, data)` starts a Wishbone store in cycle c and
    holds the request until the trace unit acknowledges it."""

    def __init__(self, **kw):
        self.beat_bytes = kw.get("beat_bytes", 1)
        kw.setdefault("fifo_depth", 16)
        kw.setdefault("class_fifo_depth", 4)
        kw.setdefault("n_stats", 0)
        self.dut = TraceUnit(**kw)
        self.writes = {}
        self.pulses = {}
        self.stores = {}
        self.ready = lambda c: 1
        self.extra = {}

    def at(self, c, sig, value):
        self.writes.setdefault(c, []).append((sig, value))

    def pulse(self, c, sig):
        self.pulses.setdefault(c, []).append(sig)

    def store(self, c, channel, data):
        self.stores.setdefault(c, []).append((channel, data))

    def probe(self, name, sig):
        self.extra[name] = sig

    def run(self, n):
        t = self.dut
        bus = t.bus
        probes = {"ts": t.ts, "hw": t.hw_lines, "valid": t.source.valid, "ready": t.source.ready,
                  "data": t.source.data, "ack": bus.ack, "cyc": bus.cyc, "stb": bus.stb,
                  "we": bus.we, "adr": bus.adr, "dat_w": bus.dat_w, "drops": t._drops.status}
        probes.update(self.extra)
        self.rows = rows = []
        queue = []          # pending stores

        def gen():
            high = []
            busy = False     # a store is on the bus
            for c in range(n):
                for sig in high:
                    yield sig.eq(0)
                high = list(self.pulses.get(c, []))
                for sig in high:
                    yield sig.eq(1)
                for sig, val in self.writes.get(c, []):
                    yield sig.eq(val)
                yield t.source.ready.eq(self.ready(c))
                queue.extend(self.stores.get(c, []))
                # Wishbone master: one store at a time, held until ack.
                if busy and rows[-1]["ack"]:
                    busy = False
                if not busy and queue:
                    ch, data = queue.pop(0)
                    yield bus.adr.eq(ch)
                    yield bus.dat_w.eq(data)
                    busy = True
                for s in (bus.cyc, bus.stb, bus.we):
                    yield s.eq(int(busy))
                yield                           # now in cycle c
                row = {}
                for k, s in probes.items():
                    row[k] = yield s
                rows.append(row)

        run_simulation(t, gen())
        assert not queue, "stores left unsent: run longer"
        return rows

    # ---- analysis of the recording

    def stream(self):
        n = self.beat_bytes
        return b"".join(r["data"].to_bytes(n, "little") for r in self.rows if r["valid"] and r["ready"])

    def decode(self):
        d = Decoder()
        records = d.feed(self.stream())
        d.finish()
        return records, d.stats

    def store_cycles(self):
        """[(cycle, channel, data)] of the cycles in which a store was presented
        (first cycle of each bus request)."""
        out = []
        for c, r in enumerate(self.rows):
            if r["cyc"] and r["stb"] and r["we"] and not r["ack"]:
                out.append((c, r["adr"] & 0xFF, r["dat_w"]))
        return out

    def hw_events(self):
        """[(cycle, rise mask, fall mask)] from the recorded hw_lines."""
        out, prev = [], 0
        for c, r in enumerate(self.rows):
            v = r["hw"]
            if v != prev:
                out.append((c, v & ~prev, prev & ~v))
            prev = v
        return out


def hw_payload(rise, fall):
    return rise | fall << 32


def sw_payload(channel, data):
    return data | channel << 32


def core_payload(pc, kind, arg, delay=0, exec_age=0):
    return pc | kind << 32 | arg << 40 | delay << 48 | exec_age << rec.EXEC_AGE_SHIFT


def events_only(records):
    return [r for r in records if r.type not in (rec.TYPE_TIME_HI, rec.TYPE_OVERFLOW)]


def assert_clean(stats, records):
    assert stats.skipped_bytes == 0 and stats.truncated_bytes == 0
    assert stats.seq_gaps == 0 and stats.seq_lost == 0
    seqs = [r.seq for r in records]
    assert seqs == [(seqs[0] + i) & 0xFF for i in range(len(seqs))]


# --------------------------------------------------------------------------- timestamps

def test_hw_edges_exact_timestamp():
    b = Bench()
    t = b.dut
    b.at(1, t._enable.storage, 1)
    sched = [(10, 0x8), (11, 0x0), (15, 0x1), (30, 0x3), (31, 0x2), (47, 0x80000001), (60, 0)]
    for c, v in sched:
        b.at(c, t.hw_lines, v)
    rows = b.run(60 + 9 * 19 + 20)
    # The recording itself: ts counts cycles, hw_lines changes where scheduled.
    assert [r["ts"] for r in rows[:100]] == list(range(1, 101))
    hw = b.hw_events()
    assert [c for c, _, _ in hw] == [c for c, _ in sched]

    records, stats = b.decode()
    assert_clean(stats, records)
    assert records[0].type == rec.TYPE_TIME_HI and records[0].payload == 0
    assert records[0].seq == 0
    got = [(r.type, r.ts, r.payload) for r in records[1:]]
    want = [(rec.TYPE_HW, rows[c]["ts"], hw_payload(rise, fall)) for c, rise, fall in hw]
    assert got == want
    # Spelled out for two of them: rise of line 3 at ts of cycle 10, and the
    # rise of lines 0 and 31 with the fall of line 1 in one record.
    assert got[0] == (rec.TYPE_HW, rows[10]["ts"], 1 << 3)
    assert got[5] == (rec.TYPE_HW, rows[47]["ts"], hw_payload(1 << 31 | 1 << 0, 1 << 1))


def test_wide_stream_same_records():
    """With beat_bytes=6 (the simulation's trace stream) the records are the
    same bytes, 6 a beat, first byte lowest: a record takes 18/6 = 3 beats
    plus the load cycle, against 18 + 1 at one byte a beat."""
    out = {}
    for beat in (1, 6):
        b = Bench(n_hw=4, beat_bytes=beat)
        b.at(2, b.dut._enable.storage, 1)
        for c in (10, 11, 12, 13):
            b.at(c, b.dut.hw_lines, c & 0xF)
        b.store(12, 3, 0xDEADBEEF)
        rows = b.run(140)
        records, stats = b.decode()
        assert_clean(stats, records)
        busy = [c for c, r in enumerate(rows) if r["valid"]]
        out[beat] = ([(r.type, r.ts, r.payload) for r in records], len(busy), b.stream())
    assert out[6][0] == out[1][0] and out[6][2] == out[1][2]
    n = len(out[1][0])
    assert out[1][1] == n * rec.RECORD_BYTES and out[6][1] == n * rec.RECORD_BYTES // 6


def test_simultaneous_lines_one_record():
    b = Bench()
    t = b.dut
    b.at(0, t._enable.storage, 1)
    b.at(5, t.hw_lines, 0x0F0F0F0F)
    b.at(20, t.hw_lines, 0xF0F0F0F0)      # 16 rise and 16 fall in one cycle
    b.at(40, t.hw_lines, 0)
    rows = b.run(40 + 4 * 19 + 10)
    records, stats = b.decode()
    assert_clean(stats, records)
    ev = events_only(records)
    assert [(r.ts, r.payload) for r in ev] == [
        (rows[5]["ts"], hw_payload(0x0F0F0F0F, 0)),
        (rows[20]["ts"], hw_payload(0xF0F0F0F0, 0x0F0F0F0F)),
        (rows[40]["ts"], hw_payload(0, 0xF0F0F0F0)),
    ]


def test_edge_enables_mask_lines():
    b = Bench()
    t = b.dut
    b.at(0, t._enable.storage, 1)
    b.at(0, t._rise_en.storage, 0x1)      # line 0: rises only; line 1: falls only
    b.at(0, t._fall_en.storage, 0x2)
    for c, v in [(5, 0x3), (10, 0x0), (15, 0x4), (20, 0x0)]:
        b.at(c, t.hw_lines, v)
    rows = b.run(20 + 4 * 19 + 10)
    records, stats = b.decode()
    assert_clean(stats, records)
    assert [(r.ts, r.payload) for r in events_only(records)] == [
        (rows[5]["ts"], hw_payload(0x1, 0)),
        (rows[10]["ts"], hw_payload(0, 0x2)),
    ]


def test_hw_sw_core_same_cycle():
    """A line edge, a store and a PC match in one cycle: three records (one per
    class, in the fixed merge order hw, sw, core), all with that cycle's ts."""
    b = Bench()
    t = b.dut
    b.at(0, t._enable.storage, 1)
    b.at(0, t._match2.storage, 0x4000_0100 | 1)
    b.at(12, t.hw_lines, 0x10)
    b.store(12, 7, 0xDEADBEEF)
    b.at(12, t.retire.valid, 1)
    b.at(12, t.retire.pc, 0x4000_0100)
    b.at(13, t.retire.valid, 0)
    # A second store later on its own, and a store on another channel in the
    # same cycle as a falling edge.
    b.store(30, 0x42, 0x12345678)
    b.at(30, t.hw_lines, 0)
    rows = b.run(30 + 6 * 19 + 20)
    assert b.store_cycles() == [(12, 7, 0xDEADBEEF), (30, 0x42, 0x12345678)]
    assert rows[13]["ack"] == 1 and rows[31]["ack"] == 1     # acked in one cycle
    records, stats = b.decode()
    assert_clean(stats, records)
    ts12, ts30 = rows[12]["ts"], rows[30]["ts"]
    assert [(r.type, r.ts, r.payload) for r in events_only(records)] == [
        (rec.TYPE_HW, ts12, hw_payload(0x10, 0)),
        (rec.TYPE_SW, ts12, sw_payload(7, 0xDEADBEEF)),
        (rec.TYPE_CORE, ts12, core_payload(0x4000_0100, rec.CORE_PC_MATCH, 2)),
        (rec.TYPE_HW, ts30, hw_payload(0, 0x10)),
        (rec.TYPE_SW, ts30, sw_payload(0x42, 0x12345678)),
    ]


def test_disabled_records_nothing():
    b = Bench()
    t = b.dut
    b.at(5, t.hw_lines, 1)
    b.store(8, 1, 5)
    b.at(20, t.hw_lines, 0)
    b.run(60)
    assert b.stream() == b""


# --------------------------------------------------------------------------- core events

def test_pc_match_comparators():
    b = Bench()
    t = b.dut
    pcs = [0x100, 0x2004, 0x8000_0040, 0x100]          # comparators 0 and 3 watch the same PC
    for k, pc in enumerate(pcs):
        b.at(0, getattr(t, f"_match{k}").storage, pc | 1)
    b.at(0, t._enable.storage, 1)
    retire = [  # (cycle, valid, pc)
        (10, 1, 0x2004),          # comparator 1
        (11, 1, 0x2008),          # no comparator
        (12, 1, 0x8000_0040),     # comparator 2
        (13, 0, 0x100),           # not retired: nothing
        (20, 1, 0x100),           # comparators 0 and 3: one record, arg = lowest index
        (21, 1, 0x2004),          # comparator 1 again, back to back
        (22, 0, 0),
    ]
    for c, v, pc in retire:
        b.at(c, t.retire.valid, v)
        b.at(c, t.retire.pc, pc)
    # Disable comparator 1 (bit 0 = enable) for a later retirement of its PC.
    b.at(30, t._match1.storage, 0x2004)
    b.at(35, t.retire.valid, 1)
    b.at(35, t.retire.pc, 0x2004)
    b.at(36, t.retire.valid, 0)
    rows = b.run(40 + 6 * 19)
    records, stats = b.decode()
    assert_clean(stats, records)
    assert [(r.type, r.ts, r.payload) for r in events_only(records)] == [
        (rec.TYPE_CORE, rows[10]["ts"], core_payload(0x2004, rec.CORE_PC_MATCH, 1)),
        (rec.TYPE_CORE, rows[12]["ts"], core_payload(0x8000_0040, rec.CORE_PC_MATCH, 2)),
        (rec.TYPE_CORE, rows[20]["ts"], core_payload(0x100, rec.CORE_PC_MATCH, 0)),
        (rec.TYPE_CORE, rows[21]["ts"], core_payload(0x2004, rec.CORE_PC_MATCH, 1)),
    ]


def test_pc_match_execute_age():
    """A PC match carries its comparator's execute age: the cycles since an
    instruction with that pc last entered execute (the core's exec_valid
    pulse), counted at the match; 0 before any entry and after the
    comparator is written. Cycle by cycle: the
    record's stamp minus the age is the cycle of the last entry."""
    b = Bench()
    t = b.dut
    b.at(0, t._enable.storage, 1)
    b.at(0, t._match0.storage, 0x100 | 1)
    b.at(0, t._match1.storage, 0x200 | 1)
    b.at(0, t._match2.storage, 0x300)                  # disabled

    def enter(c, pc):
        b.pulse(c, t.retire.exec_valid)
        b.at(c, t.retire.exec_pc, pc)

    def retire(c, pc):
        b.pulse(c, t.retire.valid)
        b.at(c, t.retire.pc, pc)

    enter(10, 0x100); retire(12, 0x100)                # 2
    enter(20, 0x100)                                    # dropped from execute ...
    enter(30, 0x100); retire(35, 0x100)                # ... fetched again: the last entry, 5
    enter(33, 0x104)                                    # another pc: no comparator
    retire(40, 0x200)                                   # never entered: 0
    enter(50, 0x200); retire(50, 0x100)                # an entry and another comparator's match
    retire(53, 0x200)                                   # 3
    enter(55, 0x300); retire(58, 0x300)                # disabled comparator: nothing
    enter(60, 0x100); b.pulse(61, t._match0.re); retire(63, 0x100)   # written since: 0
    rows = b.run(65 + 6 * 19)
    records, stats = b.decode()
    assert_clean(stats, records)
    got = [(r.ts, r.payload) for r in events_only(records)]
    ts = [rows[c]["ts"] for c in (12, 35, 40, 50, 53, 63)]
    assert got == [
        (ts[0], core_payload(0x100, rec.CORE_PC_MATCH, 0, exec_age=2)),
        (ts[1], core_payload(0x100, rec.CORE_PC_MATCH, 0, exec_age=5)),
        (ts[2], core_payload(0x200, rec.CORE_PC_MATCH, 1)),
        (ts[3], core_payload(0x100, rec.CORE_PC_MATCH, 0, exec_age=20)),
        (ts[4], core_payload(0x200, rec.CORE_PC_MATCH, 1, exec_age=3)),
        (ts[5], core_payload(0x100, rec.CORE_PC_MATCH, 0)),
    ]
    assert [rec.core_exec_age(p) for _, p in got] == [2, 5, None, 20, 3, None]
    # The entries' own stamps: the record's stamp minus the age.
    assert [s - rec.core_exec_age(p) for s, p in got if rec.core_exec_age(p)] == \
        [rows[c]["ts"] for c in (10, 30, 30, 50)]
    assert rec.core_exec_age(core_payload(0x100, 0, 0, exec_age=rec.EXEC_AGE_MAX)) is None


def test_core_trap_and_mret():
    """Trap and mret records; a trap's delay (the core took it that many
    cycles before showing it) goes into trap records only."""
    b = Bench()
    t = b.dut
    b.at(0, t._enable.storage, 1)
    b.at(0, t._core_en.storage, 0b11)
    b.at(10, t.retire.valid, 1)
    b.at(10, t.retire.trap, 1)
    b.at(10, t.retire.cause, 0x88)
    b.at(10, t.retire.pc, 0x1000)
    b.at(10, t.retire.trap_delay, 2)       # held on: the mret record must not take it
    b.at(11, t.retire.trap, 0)
    b.at(11, t.retire.pc, 0x1004)          # ordinary retirement: nothing
    b.at(12, t.retire.mret, 1)
    b.at(12, t.retire.pc, 0x1008)
    b.at(13, t.retire.mret, 0)
    b.at(13, t.retire.valid, 0)
    b.at(20, t._core_en.storage, 0)        # disabled: no record
    b.at(25, t.retire.valid, 1)
    b.at(25, t.retire.trap, 1)
    b.at(26, t.retire.valid, 0)
    rows = b.run(30 + 3 * 19)
    records, stats = b.decode()
    assert_clean(stats, records)
    assert [(r.type, r.ts, r.payload) for r in events_only(records)] == [
        (rec.TYPE_CORE, rows[10]["ts"], core_payload(0x1000, rec.CORE_TRAP, 0x88, delay=2)),
        (rec.TYPE_CORE, rows[12]["ts"], core_payload(0x1008, rec.CORE_MRET, 0)),
    ]
    assert rec.core_trap_delay(events_only(records)[0].payload) == 2


# --------------------------------------------------------------------------- FIFO full

def test_fifo_full_drops_and_overflow_record():
    """source.ready held low: the serializer holds the first record (TIME_HI),
    the record FIFO takes fifo_depth + 1 records (SyncFIFOBuffered's output
    register), the HW class FIFO class_fifo_depth more; every further event is
    dropped and counted. When ready rises, one OVERFLOW record reports exactly
    the number lost, and the drop counter CSR holds the same number."""
    fifo_depth, class_depth = 16, 4
    b = Bench(fifo_depth=fifo_depth, class_fifo_depth=class_depth)
    t = b.dut
    b.at(0, t._enable.storage, 1)
    n_events = 40
    first = 5
    for i in range(n_events):                    # an edge of line 2 every cycle
        b.at(first + i, t.hw_lines, (i + 1) % 2 << 2)
    release = 60
    b.ready = lambda c: int(c >= release)
    rows = b.run(release + 24 * 19 + 10)

    hw = b.hw_events()
    assert len(hw) == n_events
    kept = fifo_depth + 1 + class_depth
    lost = n_events - kept
    # The drop counter counts while the events arrive, and then holds.
    assert rows[release]["drops"] == lost
    assert rows[-1]["drops"] == lost
    # Nothing leaves while ready is low.
    assert not any(r["valid"] and r["ready"] for r in rows[:release])

    records, stats = b.decode()
    assert_clean(stats, records)
    overflow = [r for r in records if r.type == rec.TYPE_OVERFLOW]
    assert len(overflow) == 1 and overflow[0].payload == lost
    assert stats.hw_dropped == lost
    # The kept events are the oldest ones, with their exact timestamps.
    ev = [r for r in records if r.type == rec.TYPE_HW]
    assert [(r.ts, r.payload) for r in ev] == \
        [(rows[c]["ts"], hw_payload(rise, fall)) for c, rise, fall in hw[:kept]]
    assert len(records) == 1 + kept + 1


def test_sustained_overload_accounting():
    """Events on two classes every cycle while the stream runs at full speed
    (one record per 19 cycles): drops happen before, during and after each
    OVERFLOW report. Nothing is lost silently: the OVERFLOW records add up to
    the drop counter, and received + dropped = generated, for every class.
    The records that do arrive are real events with their exact timestamps."""
    b = Bench()
    t = b.dut
    b.at(0, t._enable.storage, 1)
    n = 150
    for i in range(n):
        b.at(5 + i, t.hw_lines, (i + 1) % 2 << 9)
    for i in range(n // 2):
        b.store(5 + 2 * i, 4, i)             # back-to-back stores: one every other cycle
    rows = b.run(36 * 19)                     # the stream is busy all the time: 34 records
    hw = b.hw_events()
    sw = b.store_cycles()
    assert len(hw) == n and len(sw) == n // 2
    assert not rows[-1]["valid"]              # drained

    records, stats = b.decode()
    assert_clean(stats, records)
    overflow = [r.payload for r in records if r.type == rec.TYPE_OVERFLOW]
    dropped = rows[-1]["drops"]
    assert len(overflow) > 1 and sum(overflow) == dropped == stats.hw_dropped
    got_hw = [(r.ts, r.payload) for r in records if r.type == rec.TYPE_HW]
    got_sw = [(r.ts, r.payload) for r in records if r.type == rec.TYPE_SW]
    assert len(got_hw) + len(got_sw) + dropped == n + n // 2
    # Received events: an in-order subsequence of the generated ones.
    all_hw = [(rows[c]["ts"], hw_payload(rise, fall)) for c, rise, fall in hw]
    all_sw = [(rows[c]["ts"], sw_payload(ch, d)) for c, ch, d in sw]
    for got, gen in ((got_hw, all_hw), (got_sw, all_sw)):
        it = iter(gen)
        assert all(g in it for g in got)
        assert got[0] == gen[0]               # the oldest event of a class is never the one dropped


def test_sequence_numbers_without_drops():
    """A long, lossless stream of mixed records: consecutive seq numbers (also
    across the 8-bit wrap: the serializer's counter is started near 255),
    nothing dropped, every event present with its timestamp. Events arrive a
    little faster than the serializer sends (2 per 25 cycles, 19 cycles per
    record), so a backlog builds up in the record FIFO, but it never fills."""
    b = Bench()
    t = b.dut
    b.at(0, t.serializer.seq, 0xF0)
    b.at(1, t._enable.storage, 1)
    c = 4
    for i in range(14):
        b.at(c, t.hw_lines, (i + 1) % 2 << (i % 5))   # alternating edges on varying lines
        b.store(c + 3, i & 3, i)
        c += 25
    b.at(c, t.hw_lines, 0)
    rows = b.run(30 * 19 + 10)
    records, stats = b.decode()
    assert_clean(stats, records)
    assert records[0].seq == 0xF0 and records[-1].seq == (0xF0 + len(records) - 1) & 0xFF
    assert len(records) > 16                      # crossed the wrap
    assert rows[-1]["drops"] == 0 and stats.hw_dropped == 0
    assert all(r.type != rec.TYPE_OVERFLOW for r in records)
    want = [(rec.TYPE_HW, rows[cc]["ts"], hw_payload(rise, fall)) for cc, rise, fall in b.hw_events()]
    want += [(rec.TYPE_SW, rows[cc]["ts"], sw_payload(ch, d)) for cc, ch, d in b.store_cycles()]
    got = [(r.type, r.ts, r.payload) for r in events_only(records)]
    assert got == sorted(want, key=lambda x: (x[1], x[0]))


# --------------------------------------------------------------------------- timestamp wrap

def check_timeline(records, want):
    """The decoded events are exactly `want` [(type, full ts, payload)], and
    the stream is as the merge makes it: in time order within each class
    (the merge serves the class FIFOs in fixed priority, so a class can
    overtake an older event of another class; host analysis sorts by ts), and
    no record comes before the TIME_HI that announces its upper 16 bits (an
    older record may follow a TIME_HI: the decoder places it by its low bits)."""
    ev = events_only(records)
    got = [(r.type, r.ts, r.payload) for r in ev]
    assert sorted(got, key=lambda x: (x[1], x[0])) == sorted(want, key=lambda x: (x[1], x[0]))
    for cls in (rec.TYPE_HW, rec.TYPE_SW, rec.TYPE_CORE):
        ts = [r.ts for r in ev if r.type == cls]
        assert ts == sorted(ts) and len(set(ts)) == len(ts)
    hi = None
    for r in records:
        if r.type == rec.TYPE_TIME_HI:
            hi = r.payload
        assert r.ts >> 48 <= hi


def test_timestamp_wrap_48_bits():
    """Load the counter just below 2**48 (preset + a one-cycle ts_load pulse)
    before tracing starts, then events before, at and after the wrap of the
    low 48 bits. The decoder rebuilds full 64-bit timestamps that equal the
    counter's value in each event's cycle, and a TIME_HI record with the new
    upper bits appears."""
    b = Bench()
    t = b.dut
    preset = 2**48 - 30
    b.at(0, t._ts_preset.storage, preset)
    b.pulse(2, t._ts_load.re)
    b.at(4, t._enable.storage, 1)
    load_cycle = 3                        # the first cycle with the loaded value
    events = [10, 20, 32, 33, 34, 40, 60]  # ts(c) = preset + c - 3: 33 is at 2**48 exactly
    for i, c in enumerate(events):
        b.at(c, t.hw_lines, (i + 1) % 2)
    b.store(32, 3, 0xAA)                  # last cycle before the wrap
    b.pulse(45, t._ts_latch.re)
    b.probe("ts_status", t._ts.status)
    rows = b.run(60 + 11 * 19)
    assert rows[load_cycle - 1]["ts"] == load_cycle      # ts(c) = c + 1 until the load
    assert [r["ts"] for r in rows[load_cycle:]] == list(range(preset, preset + len(rows) - load_cycle))
    assert rows[32]["ts"] == 2**48 - 1 and rows[33]["ts"] == 2**48
    assert rows[46]["ts_status"] == rows[45]["ts"]      # ts_latch: the value in the write cycle

    records, stats = b.decode()
    assert_clean(stats, records)
    time_hi = [r for r in records if r.type == rec.TYPE_TIME_HI]
    assert [r.payload for r in time_hi] == [0, 1]
    assert records[0] is time_hi[0]
    want = [(rec.TYPE_HW, rows[c]["ts"], hw_payload(rise, fall)) for c, rise, fall in b.hw_events()]
    want.append((rec.TYPE_SW, rows[32]["ts"], sw_payload(3, 0xAA)))
    check_timeline(records, want)
    hw_ts = [r.ts for r in records if r.type == rec.TYPE_HW]
    assert hw_ts == [preset + c - load_cycle for c in events]
    assert hw_ts[2] == 2**48 - 1 and hw_ts[3] == 2**48


def test_timestamp_load_while_tracing():
    """ts_load while tracing is enabled: the counter jumps (here to new upper
    bits, just below another wrap). The records after the jump must still
    decode to the counter's value, so the trace unit announces the new upper
    bits (TIME_HI) after a load as it does after a wrap."""
    b = Bench()
    t = b.dut
    preset = 7 * 2**48 - 25
    b.at(0, t._enable.storage, 1)
    b.at(0, t._ts_preset.storage, preset)
    load = 30                              # ts_load written in this cycle
    events = [10, load, load + 1, load + 5, load + 25, load + 26, load + 40]
    for i, c in enumerate(events):
        b.at(c, t.hw_lines, (i + 1) % 2 << 4)
    b.pulse(load, t._ts_load.re)
    b.store(load - 1, 2, 1)
    b.store(load + 3, 2, 2)
    rows = b.run(load + 40 + 12 * 19)
    assert rows[load]["ts"] == load + 1 and rows[load + 1]["ts"] == preset
    assert rows[load + 26]["ts"] == 7 * 2**48 and rows[load + 25]["ts"] == 7 * 2**48 - 1

    records, stats = b.decode()
    assert_clean(stats, records)
    assert [r.payload for r in records if r.type == rec.TYPE_TIME_HI] == [0, 6, 7]
    want = [(rec.TYPE_HW, rows[c]["ts"], hw_payload(rise, fall)) for c, rise, fall in b.hw_events()]
    want += [(rec.TYPE_SW, rows[c]["ts"], sw_payload(ch, d)) for c, ch, d in b.store_cycles()]
    check_timeline(records, want)


# --------------------------------------------------------------------------- latency stats

def read_histogram(b, stats, first_cycle):
    """Schedule reads of all bins from first_cycle on: index in cycle c, data in cycle c + 1."""
    for i in range(N_BINS):
        b.at(first_cycle + 2 * i, stats._hist_index.storage, i)
    b.probe(f"hist_{id(stats)}", stats._hist_data.status)
    return lambda rows: [rows[first_cycle + 2 * i + 1][f"hist_{id(stats)}"] for i in range(N_BINS)]


def test_latency_stats():
    b = Bench(n_stats=2)
    t = b.dut
    s0, s1 = t.stats
    # stats0: A = rise of line 0, B = store on channel 1.
    b.at(0, s0._start_sel.storage, rec.selector(rec.SEL_HW_RISE, 0))
    b.at(0, s0._stop_sel.storage, rec.selector(rec.SEL_SW, 1))
    b.at(0, s0._hist_shift.storage, 1)
    b.at(0, s0._hist_offset.storage, 4)
    # stats1: A = fall of line 0, B = PC match of comparator 1.
    b.at(0, s1._start_sel.storage, rec.selector(rec.SEL_HW_FALL, 0))
    b.at(0, s1._stop_sel.storage, rec.selector(rec.SEL_PC_MATCH, 1))
    b.at(0, t._match1.storage, 0x500 | 1)
    b.probe("count", s0._count.status)
    b.probe("sum", s0._sum.status)
    b.probe("min", s0._min.status)
    b.probe("max", s0._max.status)
    b.probe("count1", s1._count.status)
    b.probe("sum1", s1._sum.status)
    b.probe("min1", s1._min.status)
    b.probe("max1", s1._max.status)

    line = {}                 # cycle -> value of line 0 (line 1 toggles as noise)
    def rise(c, width=2):
        line[c] = 1
        line[c + width] = 0

    # (A cycle, B cycle) pairs, plus events that must not count.
    rise(10); b.store(13, 1, 0)                 # 3
    b.store(20, 2, 0)                           # other channel: ignored
    b.store(24, 1, 0)                           # stop while not armed: ignored
    rise(30); rise(34); b.store(40, 1, 0)       # second rise while armed: 40 - 30 = 10
    rise(50); b.store(61, 1, 0)                 # 11, same bin as 10
    rise(70); b.store(110, 1, 0)                # 40
    rise(120); b.store(420, 1, 0)               # 300: beyond the last bin (clamped), > 8 bits
    # Back-to-back stops two cycles apart in the same bin (read-modify-write).
    line[430] = 1; line[431] = 0; line[432] = 1; line[433] = 0
    b.store(431, 1, 0); b.store(433, 1, 0)      # 1 and 1
    for c, v in line.items():
        b.at(c, t.hw_lines, v | (c & 1) << 1)
    # stats1: falls of line 0 at 12, 32, ... ; PC 0x500 retired at chosen cycles.
    for c in (25, 60, 100):
        b.at(c, t.retire.valid, 1)
        b.at(c, t.retire.pc, 0x500)
        b.at(c + 1, t.retire.valid, 0)
    hist0 = read_histogram(b, s0, 440)
    rows = b.run(440 + 2 * N_BINS + 2)

    # Derive the pairs from the recording (ts of the rise, ts of the store).
    rises = [c for c, rr, _ in b.hw_events() if rr & 1]
    stores = [c for c, ch, _ in b.store_cycles() if ch == 1]
    assert rises == [10, 30, 34, 50, 70, 120, 430, 432]
    assert stores == [13, 24, 40, 61, 110, 420, 431, 433]
    pairs = [(10, 13), (30, 40), (50, 61), (70, 110), (120, 420), (430, 431), (432, 433)]
    lat = [rows[bb]["ts"] - rows[a]["ts"] for a, bb in pairs]
    assert lat == [3, 10, 11, 40, 300, 1, 1]
    end = rows[-1]
    assert end["count"] == len(lat)
    assert end["sum"] == sum(lat)
    assert end["min"] == 1 and end["max"] == 300

    bins = [0] * N_BINS
    for d in lat:
        bins[min(max(d - 4, 0) >> 1, N_BINS - 1)] += 1
    assert bins[0] == 3 and bins[3] == 2 and bins[18] == 1 and bins[63] == 1
    assert hist0(rows) == bins

    # stats1: falls of line 0 at 12, 32, 36, 52, 72, ...; stops at 25, 60, 100.
    # Each stop ends the measurement armed by the first fall after the previous stop.
    falls = [c for c, _, f in b.hw_events() if f & 1]
    assert falls[:5] == [12, 32, 36, 52, 72]
    lat1 = [25 - 12, 60 - 32, 100 - 72]
    assert (end["count1"], end["sum1"], end["min1"], end["max1"]) == (3, sum(lat1), 13, 28)


def test_latency_stats_clear():
    """A clear pulse resets count/sum/min/max, disarms a pending start and
    zeroes every histogram bin, the last one included (N_BINS cycles)."""
    b = Bench(n_stats=1)
    t = b.dut
    s = t.stats[0]
    b.at(0, s._start_sel.storage, rec.selector(rec.SEL_HW_RISE, 3))
    b.at(0, s._stop_sel.storage, rec.selector(rec.SEL_SW, 9))
    for c in (5, 20):
        b.at(c, t.hw_lines, 1 << 3)
        b.at(c + 1, t.hw_lines, 0)
    b.store(9, 9, 0)          # 4 -> bin 4 (shift 0, offset 0)
    b.store(90, 9, 0)         # 70 -> clamped into bin 63
    b.at(100, s._hist_index.storage, 4)
    b.at(102, s._hist_index.storage, 63)
    b.at(104, s._hist_index.storage, 5)
    b.at(110, t.hw_lines, 1 << 3)       # armed ...
    clear = 115
    b.pulse(clear, s._clear.re)         # ... then cleared: disarmed
    b.store(120, 9, 0)                  # so the stop here is ignored
    b.at(125, t.hw_lines, 0)
    for name in ("count", "sum", "min", "max", "hist_data"):
        b.probe(name, getattr(s, f"_{name}").status)
    hist_after = read_histogram(b, s, clear + 1 + N_BINS)
    rows = b.run(clear + 1 + N_BINS + 2 * N_BINS + 2)
    before = rows[clear - 1]
    assert (before["count"], before["sum"], before["min"], before["max"]) == (2, 74, 4, 70)
    # One cycle of read latency: index written for cycle c, data in cycle c + 1.
    assert [rows[c]["hist_data"] for c in (100, 101, 103, 105)] == [0, 1, 1, 0]
    assert rows[clear + 1]["count"] == 0
    end = rows[-1]
    assert (end["count"], end["sum"], end["min"], end["max"]) == (0, 0, 2**32 - 1, 0)
    assert hist_after(rows) == [0] * N_BINS
