"""The trace record: one definition shared by the trace unit (soc/tracer.py)
and the host decoder (trace/decode.py).

A record is RECORD_BYTES bytes on the wire, little-endian fields:

    offset size field
    0      1    magic     0xA5, lets the decoder find record starts
    1      1    type      one of the TYPE_* values below
    2      1    seq       increments by one per record sent (mod 256)
    3      6    ts        cycle timestamp, low 48 bits
    9      8    payload   meaning depends on type
    17     1    crc       CRC-8 (poly 0x07, init 0) over bytes 0..16

The upper 16 bits of the 64-bit timestamp travel in TIME_HI records, sent
when tracing starts, whenever the low 48 bits wrap to zero, and after the
counter is loaded (ts_load).
"""

MAGIC = 0xA5
RECORD_BYTES = 18
CRC_POLY = 0x07

TYPE_HW = 0x01        # payload: rise mask [31:0], fall mask [63:32] of hardware lines
TYPE_SW = 0x02        # payload: data [31:0], channel [39:32]
TYPE_CORE = 0x03      # payload: pc [31:0], kind [39:32], arg [47:40], trap delay [49:48], execute age [63:50]
TYPE_OVERFLOW = 0x04  # payload: records dropped since the previous OVERFLOW [31:0]
TYPE_TIME_HI = 0x05   # payload: timestamp bits [63:48] in [15:0]
TYPE_CONSOLE = 0x06   # payload: one console byte in [7:0] (boards: console and trace share the link)

TYPE_NAMES = {
    TYPE_HW: "hw", TYPE_SW: "sw", TYPE_CORE: "core",
    TYPE_OVERFLOW: "overflow", TYPE_TIME_HI: "time_hi", TYPE_CONSOLE: "console",
}

# TYPE_CORE kinds.
CORE_PC_MATCH = 0x00  # arg = comparator index; execute age: see core_exec_age
CORE_TRAP = 0x01      # arg = mcause (interrupt bit in arg[7]); delay: taken that many cycles before the stamp
CORE_MRET = 0x02


def core_trap_delay(payload):
    """A trap record's delay: the core took the trap that many cycles before
    the record's stamp (older instructions still retired; cores/README.md)."""
    return (payload >> 48) & 0x3


# A PC match's execute age: how many cycles before the record's stamp (the
# instruction's retirement) the instruction entered the execute stage, the
# last time an instruction with that pc did (the core's execute-entry output,
# cores/README.md). 0: no entry seen since reset or since the comparator was
# written; EXEC_AGE_MAX: that many cycles or more. Neither is a figure.
EXEC_AGE_SHIFT = 50
EXEC_AGE_BITS = 14
EXEC_AGE_MAX = 2**EXEC_AGE_BITS - 1


def core_exec_age(payload):
    """A PC match's execute age in cycles, or None where it is not known
    (no entry seen, or saturated): the instruction entered execute at the
    record's stamp minus this."""
    age = (payload >> EXEC_AGE_SHIFT) & EXEC_AGE_MAX
    return age if 0 < age < EXEC_AGE_MAX else None


# Hardware line numbering (the bit positions in TYPE_HW masks).
N_GEN_LINES = 8
HW_GEN_LINE = 0       # lines 0..7: interrupt generator outputs
HW_GEN_PHASE = 8      # lines 8..15: generator stimulation-phase envelopes
HW_CPU_IRQ = 16       # lines 16..30: CPU interrupt inputs 0..14
N_CPU_IRQ_TRACED = 15
# Line 31: the pulse-train output's pin (soc/pto.py), both edges. It took the
# place of the core's input 15, which is generator line 7: line 7 holds the
# same signal in the same cycle, so nothing was lost.
HW_PTO = 31
N_HW_LINES = 32


def line_name(line):
    """The name of hardware line `line` (a bit of the TYPE_HW masks): gen0..7
    (generator outputs), phase0..7 (their stimulation-phase envelopes),
    irq0..14 (the CPU's interrupt inputs), pto (the pulse-train output pin)."""
    if not 0 <= line < N_HW_LINES:
        raise ValueError(f"no hardware line {line}")
    if line == HW_PTO:
        return "pto"
    if line >= HW_CPU_IRQ:
        return f"irq{line - HW_CPU_IRQ}"
    if line >= HW_GEN_PHASE:
        return f"phase{line - HW_GEN_PHASE}"
    return f"gen{line - HW_GEN_LINE}"


LINE_NAMES = [line_name(i) for i in range(N_HW_LINES)]

# Event selectors of the on-chip latency statistics: class in bits [7:6], index in [5:0].
SEL_HW_RISE = 0
SEL_HW_FALL = 1
SEL_SW = 2
SEL_PC_MATCH = 3


def selector(cls, index):
    return (cls << 6) | (index & 0x3F)


def crc8(data, crc=0):
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = ((crc << 1) ^ CRC_POLY) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


def pack(rtype, seq, ts, payload):
    """Bytes of one record, as the trace unit sends it (used by tests and tools)."""
    body = bytes([MAGIC, rtype & 0xFF, seq & 0xFF]) + (ts & (2**48 - 1)).to_bytes(6, "little") \
        + (payload & (2**64 - 1)).to_bytes(8, "little")
    return body + bytes([crc8(body)])
