"""Trace records in words: the names a person reads in `irqlab decode` and in
the exports. Lines are named by the record's line map (trace/record.py),
software channels by the protocol (trace/protocol.py), test ids by the
benchmark registry (trace/benchmarks.py), trap causes by the RISC-V
privileged spec's mcause codes."""

from irqlab.host import record as rec
from irqlab.host.benchmarks import test_name
from irqlab.host.protocol import (APP_PROTOCOLS, CHANNELS, CH_HANDLER_ENTRY, CH_STATS, CH_TEST_BEGIN,
                                  CH_TEST_END, STATS_WORDS)

# mcause codes (RISC-V privileged spec): interrupts, then exceptions.
INTERRUPT_CAUSES = {1: "supervisor software", 3: "machine software", 5: "supervisor timer",
                    7: "machine timer", 9: "supervisor external", 11: "machine external"}
EXCEPTION_CAUSES = {0: "instruction address misaligned", 1: "instruction access fault",
                    2: "illegal instruction", 3: "breakpoint", 4: "load address misaligned",
                    5: "load access fault", 6: "store address misaligned", 7: "store access fault",
                    8: "ecall from U-mode", 9: "ecall from S-mode", 11: "ecall from M-mode",
                    12: "instruction page fault", 13: "load page fault", 15: "store page fault"}
CORE_KIND_NAMES = {rec.CORE_PC_MATCH: "pc-match", rec.CORE_TRAP: "trap", rec.CORE_MRET: "mret"}


def _channel_names():
    names = {v: n for n, (v, _) in CHANNELS.items()}
    names.update({CH_STATS + k: f"STATS.{w}" for k, w in enumerate(STATS_WORDS)})
    for app, proto in APP_PROTOCOLS.items():
        names.update({v: f"{app}.{n}" for n, (v, _) in proto.channels.items()})
    return names


CHANNEL_NAMES = _channel_names()
COUNT_CHANNELS = {CH_HANDLER_ENTRY}   # payload is a count: shown in decimal
TEXT_CHANNELS = {APP_PROTOCOLS["freertos"].CH_TASK_NAME}   # payload: 4 characters, the first in [7:0]


def channel_name(channel):
    """TEST_BEGIN, HANDLER_ENTRY, STATS.count, torture.ENTRY, or ch0x42."""
    return CHANNEL_NAMES.get(channel, f"ch0x{channel:02x}")


def sw_text(channel, data):
    """A software event: its channel's name and its payload, the test's name for TEST_BEGIN/END."""
    if channel in (CH_TEST_BEGIN, CH_TEST_END):
        return f"{channel_name(channel)} {test_name(data)} (test id {data})"
    if channel in TEXT_CHANNELS:
        text = "".join(chr(b) if 32 <= b < 127 else f"\\x{b:02x}" for b in data.to_bytes(4, "little"))
        return f'{channel_name(channel)} 0x{data:08x} "{text}"'
    if channel in COUNT_CHANNELS or CH_STATS <= channel < CH_STATS + len(STATS_WORDS):
        return f"{channel_name(channel)} {data}"
    return f"{channel_name(channel)} 0x{data:08x}"


def cause_text(mcause):
    """The 8-bit cause of a TRAP record: interrupt bit in [7], code in [6:0]."""
    code = mcause & 0x7F
    if mcause & 0x80:
        what = INTERRUPT_CAUSES.get(code, "local" if code >= 16 else "reserved")
        return f"interrupt, code {code} ({what})"
    return f"exception, code {code} ({EXCEPTION_CAUSES.get(code, 'reserved')})"


def hw_fields(payload):
    """(rise mask, fall mask) of a TYPE_HW payload."""
    return payload & 0xFFFFFFFF, (payload >> 32) & 0xFFFFFFFF


def sw_fields(payload):
    """(channel, data) of a TYPE_SW payload."""
    return (payload >> 32) & 0xFF, payload & 0xFFFFFFFF


def core_fields(payload):
    """(kind, pc, arg) of a TYPE_CORE payload."""
    return (payload >> 32) & 0xFF, payload & 0xFFFFFFFF, (payload >> 40) & 0xFF


def edges_text(rise, fall):
    parts = [f"{rec.line_name(i)} rise" for i in range(rec.N_HW_LINES) if rise >> i & 1]
    parts += [f"{rec.line_name(i)} fall" for i in range(rec.N_HW_LINES) if fall >> i & 1]
    return ", ".join(parts) or "no edge"


def core_text(kind, pc, arg):
    if kind == rec.CORE_TRAP:
        return f"trap: {cause_text(arg)}, target pc 0x{pc:08x}"
    if kind == rec.CORE_PC_MATCH:
        return f"pc match: comparator {arg} at pc 0x{pc:08x}"
    if kind == rec.CORE_MRET:
        return f"mret at pc 0x{pc:08x}"
    return f"core event kind {kind}, arg {arg}, pc 0x{pc:08x}"


def describe(r):
    """One record (trace.decode.Record) in words."""
    if r.type == rec.TYPE_HW:
        return edges_text(*hw_fields(r.payload))
    if r.type == rec.TYPE_SW:
        return sw_text(*sw_fields(r.payload))
    if r.type == rec.TYPE_CORE:
        text = core_text(*core_fields(r.payload))
        kind = core_fields(r.payload)[0]
        if kind == rec.CORE_PC_MATCH and rec.core_exec_age(r.payload) is not None:
            text += f", entered execute {rec.core_exec_age(r.payload)} cycles before"
        return text
    if r.type == rec.TYPE_OVERFLOW:
        return f"{r.payload & 0xFFFFFFFF} events dropped by the trace unit since the previous overflow"
    if r.type == rec.TYPE_TIME_HI:
        return f"timestamp bits [63:48] = 0x{r.payload & 0xFFFF:04x}"
    if r.type == rec.TYPE_CONSOLE:
        return repr(chr(r.payload & 0xFF))
    return f"payload 0x{r.payload:016x}"


def line(r):
    """The `irqlab decode` line of a record: timestamp, type, words."""
    return f"{r.ts:>14} {rec.TYPE_NAMES.get(r.type, '?'):8} {describe(r)}"


def raw_line(r):
    """The `irqlab decode --raw` line: the record's fields in hex."""
    return f"{r.ts:>14} {rec.TYPE_NAMES[r.type]:8} seq={r.seq:3} payload=0x{r.payload:016x}"
