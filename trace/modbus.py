"""The Modbus-RTU demo's register map (fw/modbus/), once: the firmware gets
it as constants in its generated header (trace/protocol.py, APP_PROTOCOLS
"modbus": MB_IN_*, MB_HOLD_*, MB_N_*), the host master (irqlab/demos/modbus/sim.py)
reads it from here.

Input registers (function 04) hold 32-bit values as two registers, the high
word first. Holding registers (03, 06, 16, 23) and coils (01, 05, 15) below
MB_N_SCRATCH are free for a master to write and read back; discrete inputs
(02) show the low bits of the background count.
"""

# The drop reasons of the frame assembler and the slave, in the order of
# fw/common/modbus/modbus_rtu.h's enum mb_drop (the C library keeps its own
# list: it builds for the host without this map; tests/test_modbus_host.py
# compares the names, fw/modbus/main.c each MB_IN_DROP_* with the enum).
# Every frame the assembler completes lands in exactly one counter:
# FRAMES == REQUESTS + BROADCASTS + the DROP_* together.
DROPS = ("crc", "short", "long", "address", "gap", "overrun", "busy", "broadcast", "char", "refused")

DROP_DOCS = {
    "crc": "CRC mismatch",
    "short": "fewer than 4 bytes",
    "long": "more than 256 bytes",
    "address": "for another slave (silent, by the spec)",
    "gap": "a silence over t1.5 inside the frame",
    "overrun": "the UART's receive FIFO overflowed (characters lost)",
    "busy": "a frame completed while the previous one was still being handled",
    "broadcast": "a broadcast of a function other than a write (05, 06, 15, 16)",
    "char": "a character with a parity or stop-bit error",
    "refused": "a broadcast write that failed its checks (quantity, byte count, address, a value the map "
               "refuses): not executed",
}

# name -> (first input register, doc); each a 32-bit value in two registers
_INPUTS = [
    ("FRAMES", "frames the assembler completed (good or not): each in one of REQUESTS, BROADCASTS, DROP_*"),
    ("REQUESTS", "requests for this slave with a good length, CRC and address"),
    ("RESPONSES", "normal responses sent"),
    ("EXCEPTIONS", "exception responses sent"),
    ("BROADCASTS", "broadcast writes executed"),
    ("NOISE", "characters before the first t3.5 silence"),
] + [(f"DROP_{d.upper()}", f"frames dropped: {DROP_DOCS[d]}") for d in DROPS] + [
    ("CHARS", "characters the receive interrupt took"),
    ("BG_COUNT", "background inferences done (the digits network, fw/common/digits)"),
    ("BG_RESULT", "of those, the ones whose class was the image's label"),
    ("BAUD", "the baud rate the UART is set to"),
    ("CYCLES", "the UART's cycle counter (the stamps' clock)"),
]
INPUTS = {name: (2 * i, doc) for i, (name, doc) in enumerate(_INPUTS)}
N_INPUT = 2 * len(_INPUTS)

N_SCRATCH = 32              # holding registers and coils 0..31: the master's to use
HOLDING = {
    "STOP": (N_SCRATCH, "write STOP_VALUE: the firmware ends the run (simulation) after the response"),
}
N_HOLDING = N_SCRATCH + len(HOLDING)
STOP_VALUE = 0x5707
N_COILS = N_SCRATCH
N_DISCRETE = 16             # the low 16 bits of BG_COUNT


def protocol_values():
    """The constants for the firmware's header (trace/protocol.py AppProtocol values)."""
    return {
        "MB_IN": ("input registers (04): the first of each value's two (high word first)",
                  {n: (a, doc) for n, (a, doc) in INPUTS.items()}),
        "MB_HOLD": ("holding registers (03, 06, 16, 23)", {n: (a, doc) for n, (a, doc) in HOLDING.items()}),
        "MB_N": ("table sizes", {
            "INPUT": (N_INPUT, "input registers"), "HOLDING": (N_HOLDING, "holding registers"),
            "COILS": (N_COILS, "coils"), "DISCRETE": (N_DISCRETE, "discrete inputs"),
            "SCRATCH": (N_SCRATCH, "holding registers and coils free for the master"),
            "DROPS": (len(DROPS), "drop reasons (enum mb_drop)"),
        }),
        "MB": ("other constants", {"STOP_VALUE": (STOP_VALUE, "written to MB_HOLD_STOP: end the run")}),
    }


def value32(registers, name):
    """A 32-bit input value from a read of all input registers from 0."""
    a = INPUTS[name][0]
    return (registers[a] << 16) | registers[a + 1]


def counters(registers):
    """Every input value by name (lower case) from a read of all input registers."""
    return {name.lower(): value32(registers, name) for name in INPUTS}


# ---- framing: the host side of fw/common/modbus/mb_crc.c ----

def crc16(data):
    """Modbus CRC-16 (poly 0xA001 reflected, init 0xFFFF)."""
    crc = 0xFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc


def adu(address, pdu):
    """An RTU frame: address, PDU, CRC low byte first."""
    body = bytes([address]) + bytes(pdu)
    c = crc16(body)
    return body + bytes([c & 0xFF, c >> 8])


# ---- the demo's results (irqlab/demos/modbus/sim.py writes modbus.json) ----

RESULTS_FILE = "modbus.json"
PLOT_FILE = "modbus.png"
TABLE_HEADERS = ["row", "baud", "answered", "lost", "wrong", "background /s", "background loss"]


def table_rows(results):
    """The demo's table: per row its run without traffic, then one line per baud rate."""
    out = []
    for row, r in results["rows"].items():
        out.append([row, "no traffic", "", "", "", f"{r['baseline']['bg_rate']:.0f}", ""])
        for e in r["bauds"]:
            out.append([row, str(e["baud"]), f"{e['answered']}/{e['sent']}", str(e["lost"]), str(e["wrong"]),
                        f"{e['bg_rate']:.0f}", f"{100 * e['bg_loss']:.1f} %"])
    return out


def sustained(results):
    """row -> the highest baud rate it answered every request at (None: none)."""
    return {row: r["sustained_baud"] for row, r in results["rows"].items()}
