"""`irqlab decode` in words: lines and edges by name, channels by their
protocol names, test ids by benchmark, trap causes, PC comparators, overflow
counts and console characters; `--raw` keeps the hex fields."""

import subprocess
import sys

from irqlab.host import describe
from irqlab.host import record as rec
from irqlab.host.decode import decode_bytes
from irqlab.host.protocol import APP_PROTOCOLS, CH_STATS

from tracegen import MEI, TraceBuilder, handler_trace


def words(tb):
    records, _ = decode_bytes(tb.bytes())
    return [describe.describe(r) for r in records]


def test_lines_and_edges_by_name():
    tb = TraceBuilder().hw(5, rise=1 << 0 | 1 << 24, fall=1 << 8).hw(6, fall=1 << 31 | 1 << 30 | 1 << 3)
    assert words(tb) == ["gen0 rise, irq8 rise, phase0 fall", "gen3 fall, irq14 fall, pto fall"]
    assert rec.LINE_NAMES[:9] == ["gen0", "gen1", "gen2", "gen3", "gen4", "gen5", "gen6", "gen7", "phase0"]
    assert rec.LINE_NAMES[16] == "irq0" and len(rec.LINE_NAMES) == 32


def test_channels_by_protocol_name():
    torture = APP_PROTOCOLS["torture"]
    tb = (TraceBuilder().sw(1, 0x10, 1).sw(2, 0x11, 4).sw(3, 0x01, 7).sw(4, CH_STATS + 1, 10000)
          .sw(5, torture.CH_ENTRY, 0x1234).sw(6, 0x77, 0xDEADBEEF))
    assert words(tb) == ["TEST_BEGIN latency (test id 1)", "TEST_END preempt (test id 4)", "HANDLER_ENTRY 7",
                         "STATS.count 10000", "torture.ENTRY 0x00001234", "ch0x77 0xdeadbeef"]


def test_core_events_overflow_console_time_hi():
    tb = (TraceBuilder().time_hi(3 << 48).core(1, rec.CORE_TRAP, 0x100, MEI).core(2, rec.CORE_TRAP, 0x4, 2)
          .core(3, rec.CORE_TRAP, 0x200, 0x80 | 40).core(4, rec.CORE_PC_MATCH, 0xC4, 2, exec_age=3)
          .core(5, rec.CORE_MRET, 0x180).add(rec.TYPE_OVERFLOW, 6, 17).add(rec.TYPE_CONSOLE, 7, ord("A")))
    assert words(tb) == [
        "timestamp bits [63:48] = 0x0003",
        "trap: interrupt, code 11 (machine external), target pc 0x00000100",
        "trap: exception, code 2 (illegal instruction), target pc 0x00000004",
        "trap: interrupt, code 40 (local), target pc 0x00000200",
        "pc match: comparator 2 at pc 0x000000c4, entered execute 3 cycles before",
        "mret at pc 0x00000180",
        "17 events dropped by the trace unit since the previous overflow",
        "'A'",
    ]


def test_decode_command_words_and_raw(tmp_path):
    p = tmp_path / "t.bin"
    p.write_bytes(handler_trace([40, 41]))
    r = subprocess.run([sys.executable, "-m", "irqlab", "decode", str(p)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[1].split() == ["10", "console", "'h'"]
    assert any(ln.split()[1:] == ["sw", "TEST_BEGIN", "latency", "(test", "id", "1)"] for ln in lines)
    assert any("trap: interrupt, code 11 (machine external), target pc 0x00000100" in ln for ln in lines)
    assert any(ln.endswith("hw       gen0 rise, phase0 rise, irq8 rise") for ln in lines)
    assert any("2 events dropped" in ln for ln in lines)
    r = subprocess.run([sys.executable, "-m", "irqlab", "decode", "--raw", "--limit", "2", str(p)],
                       capture_output=True, text=True)
    assert r.stdout.splitlines()[1].split() == ["10", "console", "seq=", "1", "payload=0x0000000000000068"]
