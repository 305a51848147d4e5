"""The host decoder and analysis on synthetic traces: exact figures, resync
after corruption, and every loss accounted for."""

from irqlab.host import record as rec
from irqlab.host.analysis import analyze
from irqlab.host.decode import Decoder, decode_bytes
from irqlab.host.stats import summarize

from irqlab.host.protocol import CH_TEST_BEGIN, CH_TEST_END

from tracegen import EXEC_AGE, TEST_LATENCY, TraceBuilder, handler_trace, latency_trace


def test_crc_and_pack_roundtrip():
    b = rec.pack(rec.TYPE_SW, 7, 0x123456789ABC, 0x01_DEADBEEF)
    assert len(b) == rec.RECORD_BYTES and b[0] == rec.MAGIC
    assert rec.crc8(b[:-1]) == b[-1]
    (r,), st = decode_bytes(b)
    assert (r.type, r.seq, r.ts, r.payload) == (rec.TYPE_SW, 7, 0x123456789ABC, 0x01_DEADBEEF)
    assert st.intact


def test_latency_figures_are_exact():
    lats = [30, 31, 35, 30, 90]
    records, st = decode_bytes(latency_trace(lats))
    res = analyze(records, 100e6)
    s = res["tests"]["latency"]["latency"]
    assert st.intact and s["count"] == 5
    assert (s["min"], s["median"], s["max"], s["jitter"]) == (30, 31, 90, 60)
    assert s["ns"]["min"] == 300.0


def test_pc_match_gives_b_retire_and_b_execute():
    """A PC-match B has two points: B-retire (the record's stamp) in
    "latency", B-execute (stamp minus its execute age) in "latency_b_execute";
    an unknown age is counted, never guessed. A software-event B has neither."""
    lats = [26, 27, 26, 40]
    t = analyze(decode_bytes(handler_trace(lats))[0], 100e6)["tests"]["latency"]
    assert (t["latency"]["min"], t["latency"]["max"]) == (26, 40)
    e = t["latency_b_execute"]
    assert (e["count"], e["min"], e["median"], e["max"], e["jitter"]) == (4, 26 - EXEC_AGE, 26 - EXEC_AGE,
                                                                         40 - EXEC_AGE, 14)
    assert t["b_execute_unknown"] == 0
    # An age of 0 (no execute entry seen) or saturated: left out.
    tb = TraceBuilder().time_hi(0).sw(10, CH_TEST_BEGIN, TEST_LATENCY)
    for k, age in enumerate((0, rec.EXEC_AGE_MAX, 3)):
        tb.hw(100 + 100 * k, rise=1).core(130 + 100 * k, rec.CORE_PC_MATCH, 0x40, 0, exec_age=age)
    tb.sw(500, CH_TEST_END, TEST_LATENCY)
    t = analyze(decode_bytes(tb.bytes())[0], 100e6)["tests"]["latency"]
    assert t["latency"]["count"] == 3 and t["b_execute_unknown"] == 2
    assert t["latency_b_execute"]["count"] == 1 and t["latency_b_execute"]["min"] == 30 - 3
    sw = analyze(decode_bytes(latency_trace([30]))[0], 100e6)["tests"]["latency"]
    assert "latency_b_execute" not in sw


def test_summary_percentiles():
    s = summarize(list(range(1, 101)))
    assert (s["min"], s["median"], s["p99"], s["max"], s["jitter"]) == (1, 50, 99, 100, 99)


def test_resync_after_garbage_counts_every_byte():
    good = latency_trace([40] * 10)
    cut = 5 * rec.RECORD_BYTES + 3          # inside the sixth record
    garbage = bytes([0xA5, 0x01, 0x00, 0x42, 0xA5]) * 3
    data = good[:cut] + garbage + good[cut:]
    records, st = decode_bytes(data)
    # The damaged record is lost: its first 3 bytes, the garbage and its rest are skipped.
    assert st.skipped_bytes == len(garbage) + rec.RECORD_BYTES
    assert st.resyncs >= 1
    assert st.seq_lost == 1 and st.seq_gaps == 1
    assert len(records) == len(good) // rec.RECORD_BYTES - 1
    assert not st.intact


def test_truncated_tail_is_reported():
    data = latency_trace([40] * 3)
    records, st = decode_bytes(data[:-5])
    assert st.truncated_bytes == rec.RECORD_BYTES - 5
    assert not st.intact


def test_overflow_records_are_counted():
    tb = TraceBuilder().time_hi(0).hw(10, rise=1).add(rec.TYPE_OVERFLOW, 20, 17).hw(30, fall=1)
    _, st = decode_bytes(tb.bytes())
    assert st.hw_dropped == 17
    assert "17 events dropped" in "; ".join(st.problems())
    assert st.intact     # drops are reported, the bytes themselves are whole


def test_timestamp_extends_across_48_bit_wrap():
    wrap = 2**48
    tb = TraceBuilder().time_hi(5 * wrap + wrap - 100)
    tb.hw(wrap - 10, rise=1)                  # before the wrap
    tb.time_hi(6 * wrap + 0)                  # sent as the low bits wrap
    tb.hw(wrap - 5, fall=1)                   # stamped before the wrap, sent after TIME_HI
    tb.hw(20, rise=1)                         # after the wrap
    records, _ = decode_bytes(tb.bytes())
    ts = [r.ts for r in records if r.type == rec.TYPE_HW]
    assert ts == [6 * wrap - 10, 6 * wrap - 5, 6 * wrap + 20]


def test_incremental_feed_matches_whole():
    data = latency_trace([33, 34, 35] * 20)
    d = Decoder()
    out = []
    for i in range(0, len(data), 7):
        out += d.feed(data[i:i + 7])
    d.finish()
    whole, _ = decode_bytes(data)
    assert [(r.type, r.ts, r.payload) for r in out] == [(r.type, r.ts, r.payload) for r in whole]
