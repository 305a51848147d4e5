"""Cycle-exact tests of the tightly coupled memories and their bus splits
(soc/tcm.py) in Migen simulation, against the contracts of its docstring.

Convention (as tests/test_irqgen.py): cycle c is the interval after the c-th
clock edge. Inputs written for cycle c are visible in cycle c; row c of a
recording holds every probe's value in that same cycle. A command fires in
cycle t when cmd_valid and cmd_ready are both 1 in row t.
"""

from migen.sim import run_simulation

from irqlab.soc.tcm import TcmRegion, TightlyCoupled, window_clashes

ITCM = TcmRegion("itcm", 0x2000_0000, 0x100)
DTCM = TcmRegion("dtcm", 0x3000_0000, 0x100)
OUTSIDE = 0x4000_0000
CODE = [0x1000_0000 + 17 * i for i in range(ITCM.words)]
DATA = [0x5000_0000 + 3 * i for i in range(DTCM.words)]


def dut():
    return TightlyCoupled([ITCM, DTCM], {"itcm": CODE, "dtcm": DATA})


def simulate(d, n, inputs, probes):
    """inputs: {cycle: {signal: value}} (values stay until written again);
    returns {name: [value in cycle 0, 1, ...]}."""
    rows = {name: [] for name in probes}

    def gen():
        for c in range(n):
            for sig, val in inputs.get(c, {}).items():
                yield sig.eq(val)
            yield
            for name, sig in probes.items():
                rows[name].append((yield sig))

    run_simulation(d, gen())
    return rows


def ibus_probes(d):
    i = d.ibus
    return {"ready": i.cmd_ready, "rsp": i.rsp_valid, "inst": i.rsp_inst, "cyc": i.wb.cyc, "adr": i.wb.adr}


def dbus_probes(d):
    b = d.dbus
    return {"ready": b.cmd_ready, "rsp": b.rsp_ready, "data": b.rsp_data, "cyc": b.wb.cyc, "we": b.wb.we,
            "adr": b.wb.adr, "sel": b.wb.sel, "dat_w": b.wb.dat_w}


def test_straight_line_fetch_one_word_per_cycle():
    """Fetches issued in cycles 0..7 (ITCM) and 8..11 (DTCM, through its
    instruction port) answer in cycles 1..12, one word each, never stalled."""
    d = dut()
    i = d.ibus
    inputs = {c: {i.cmd_valid: 1, i.cmd_pc: ITCM.origin + 4 * c} for c in range(8)}
    inputs.update({8 + c: {i.cmd_valid: 1, i.cmd_pc: DTCM.origin + 4 * c} for c in range(4)})
    inputs[12] = {i.cmd_valid: 0}
    r = simulate(d, 14, inputs, ibus_probes(d))
    assert r["ready"][:12] == [1] * 12
    assert r["rsp"] == [0] + [1] * 12 + [0]
    assert r["inst"][1:13] == CODE[:8] + DATA[:4]
    assert r["cyc"] == [0] * 14


def test_fetch_outside_goes_to_wishbone_in_order():
    """A fetch outside the TCMs fires in cycle 0: CYC from cycle 1 to the ACK
    in cycle 3, the response in cycle 3, cmd_ready 0 in cycles 1..3; a TCM
    fetch waiting meanwhile fires in cycle 4 and answers in cycle 5."""
    d = dut()
    i = d.ibus
    inputs = {0: {i.cmd_valid: 1, i.cmd_pc: OUTSIDE + 8},
              1: {i.cmd_pc: ITCM.origin + 12},
              3: {i.wb.ack: 1, i.wb.dat_r: 0xCAFE0001},
              4: {i.wb.ack: 0},
              5: {i.cmd_valid: 0}}
    r = simulate(d, 7, inputs, ibus_probes(d))
    assert r["ready"] == [1, 0, 0, 0, 1, 1, 1]
    assert r["cyc"] == [0, 1, 1, 1, 0, 0, 0]
    assert r["adr"][1] == (OUTSIDE + 8) >> 2
    assert r["rsp"] == [0, 0, 0, 1, 0, 1, 0]
    assert r["inst"][3] == 0xCAFE0001 and r["inst"][5] == CODE[3]


def test_loads_and_stores_never_stall():
    """Back-to-back DTCM stores (word, half, byte) and loads, and a load of
    the ITCM through its data port: cmd_ready is 1 in every cycle, each load
    answers in the next cycle, and sees the stores before it."""
    d = dut()
    b = d.dbus
    seq = [  # (wr, address, data, size)
        (1, DTCM.origin + 0x10, 0x11223344, 2),
        (1, DTCM.origin + 0x12, 0xAABBAABB, 1),     # half at bytes 2..3
        (1, DTCM.origin + 0x11, 0x55555555, 0),     # byte 1
        (0, DTCM.origin + 0x10, 0, 2),
        (0, ITCM.origin + 0x20, 0, 2),
        (0, DTCM.origin + 0x04, 0, 2),
    ]
    inputs = {c: {b.cmd_valid: 1, b.cmd_wr: wr, b.cmd_address: a, b.cmd_data: v, b.cmd_size: s}
              for c, (wr, a, v, s) in enumerate(seq)}
    inputs[len(seq)] = {b.cmd_valid: 0}
    r = simulate(d, len(seq) + 3, inputs, dbus_probes(d))
    assert r["ready"][:len(seq)] == [1] * len(seq)
    assert r["rsp"][:4] == [0, 0, 0, 0]
    assert r["rsp"][4:7] == [1, 1, 1]
    assert r["data"][4:7] == [0xAABB5544, CODE[8], DATA[1]]
    # held until the next command fires
    assert r["rsp"][7:] == [1, 1] and r["data"][7:] == [DATA[1]] * 2
    assert r["cyc"] == [0] * len(r["cyc"])


def test_store_to_itcm_is_fetched():
    """The data side writes the ITCM (a loader); the instruction port fetches
    the new word (store in cycle 0, fetch in cycle 1, answer in cycle 2)."""
    d = dut()
    b, i = d.dbus, d.ibus
    inputs = {0: {b.cmd_valid: 1, b.cmd_wr: 1, b.cmd_address: ITCM.origin + 0x40, b.cmd_data: 0x00100073,
                  b.cmd_size: 2},
              1: {b.cmd_valid: 0, i.cmd_valid: 1, i.cmd_pc: ITCM.origin + 0x40},
              2: {i.cmd_valid: 0}}
    r = simulate(d, 3, inputs, ibus_probes(d))
    assert r["rsp"] == [0, 0, 1] and r["inst"][2] == 0x00100073


def test_wishbone_store_then_tcm_load_runs_alongside():
    """A store outside fires in cycle 0 (CYC from cycle 1, ACK in cycle 4): a
    DTCM load fires in cycle 1 anyway and answers in cycle 2; a load outside
    waits (cmd_ready 0) until cycle 5, when the bridge is free again, and
    answers with the ACK in cycle 7 (held in the data register meanwhile)."""
    d = dut()
    b = d.dbus
    inputs = {0: {b.cmd_valid: 1, b.cmd_wr: 1, b.cmd_address: OUTSIDE + 0x22, b.cmd_data: 0x7777, b.cmd_size: 1},
              1: {b.cmd_wr: 0, b.cmd_address: DTCM.origin + 8, b.cmd_size: 2},
              2: {b.cmd_address: OUTSIDE + 4},
              4: {b.wb.ack: 1},
              5: {b.wb.ack: 0},
              6: {b.cmd_valid: 0},
              7: {b.wb.ack: 1, b.wb.dat_r: 0x12345678},
              8: {b.wb.ack: 0}}
    r = simulate(d, 9, inputs, dbus_probes(d))
    assert r["ready"][:6] == [1, 1, 0, 0, 0, 1]
    assert r["cyc"] == [0, 1, 1, 1, 1, 0, 1, 1, 0]
    assert r["we"][1] == 1 and r["adr"][1] == (OUTSIDE + 0x20) >> 2 and r["sel"][1] == 0b1100
    assert r["we"][6] == 0 and r["adr"][6] == (OUTSIDE + 4) >> 2 and r["sel"][6] == 0xf
    assert r["rsp"][2] == 1 and r["data"][2] == DATA[2]
    # the outside load fired in cycle 5: the DTCM answer no longer counts
    assert r["rsp"][6:9] == [0, 1, 0] and r["data"][7] == 0x12345678


def vector_probes(d):
    v = d.vector
    return {"valid": v.valid, "data": v.data, "rsp": d.dbus.rsp_ready, "ldata": d.dbus.rsp_data}


def test_vector_prefetch_reads_free_port_cycles():
    """VectorPrefetch: an entry address set in cycle 0 (port free) is read in
    0, arrives in 1 and is registered: valid with its word from cycle 2 on.
    `valid` names the previous cycle's address, so in the cycle a new
    address appears (3) it still holds for the old one, and the new one is
    valid two cycles after its read; while the data bus uses the port, or
    holds a load's answer at its output, no read is issued (the load's
    answer is unharmed); a store to the same TCM invalidates the word until
    it is read again."""
    d = dut()
    v, b = d.vector, d.dbus
    a0, a1 = ITCM.origin + 4 * 5, ITCM.origin + 4 * 9
    inputs = {
        0: {v.address: a0},
        3: {v.address: a1},                                        # read in 3, valid in 5
        6: {b.cmd_valid: 1, b.cmd_wr: 0, b.cmd_address: ITCM.origin + 4 * 2, b.cmd_size: 2},
        7: {b.cmd_valid: 0, v.address: a0},                        # answer held: no read in 7..9
        10: {b.cmd_valid: 1, b.cmd_wr: 0, b.cmd_address: DTCM.origin, b.cmd_size: 2},
        11: {b.cmd_valid: 0},
        13: {b.cmd_valid: 1, b.cmd_wr: 1, b.cmd_address: ITCM.origin + 4 * 40, b.cmd_data: 7},
        14: {b.cmd_valid: 0},
    }
    r = simulate(d, 18, inputs, vector_probes(d))
    assert r["valid"][0:2] == [0, 0]
    assert r["valid"][2:4] == [1, 1] and r["data"][2:4] == [CODE[5]] * 2
    assert r["valid"][4] == 0
    assert r["valid"][5:7] == [1, 1] and r["data"][5] == CODE[9]
    # The ITCM load of cycle 6 answers in 7 and stays at the output until the
    # next command (10): the prefetcher does not read a0 meanwhile. In 7 the
    # word of 6's address (a1) is still valid; the address is a0 from 7.
    assert r["rsp"][7:10] == [1, 1, 1] and r["ldata"][7:10] == [CODE[2]] * 3
    assert r["valid"][7] == 1 and r["data"][7] == CODE[9]
    assert r["valid"][8:13] == [0] * 5
    # The DTCM load of cycle 10 frees the ITCM port from 11: a0 read in 11,
    # valid in 13. The ITCM store of cycle 13 (the word still holds in 13)
    # invalidates it from 14; read again in 14, valid in 16.
    assert r["valid"][13] == 1 and r["data"][13] == CODE[5]
    assert r["valid"][14:16] == [0, 0]
    assert r["valid"][16:18] == [1, 1] and r["data"][16] == CODE[5]


def test_vector_prefetch_never_names_a_stale_word():
    """Cycle by cycle, against a model of the memory: whenever `valid` is 1,
    `data` is the word the memory holds now at the previous cycle's address,
    through address changes back and forth (A, B, A in consecutive cycles),
    loads and stores to the table's TCM, and stores to the very entry."""
    d = dut()
    v, b = d.vector, d.dbus
    mem = list(CODE)
    A, B = 3, 7
    script = {   # cycle: (vector address word, data-bus command or None)
        0: (A, None), 2: (B, None), 3: (A, None), 4: (B, None), 5: (B, ("st", A, 0x111)),
        6: (A, ("st", A, 0x222)), 7: (A, None), 8: (A, ("ld", B, None)), 9: (B, None),
        10: (A, ("st", B, 0x333)), 11: (B, ("st", B, 0x444)), 12: (B, None), 13: (B, ("ld", A, None)),
        14: (A, None), 15: (A, ("st", 20, 5)), 16: (A, None), 18: (B, None),
    }
    n = 21
    seen = []

    def gen():
        word = None
        for c in range(n):
            if c in script:
                word, cmd = script[c]
                yield v.address.eq(ITCM.origin + 4 * word)
                if cmd is None:
                    yield b.cmd_valid.eq(0)
                else:
                    kind, w, val = cmd
                    yield b.cmd_valid.eq(1)
                    yield b.cmd_wr.eq(kind == "st")
                    yield b.cmd_address.eq(ITCM.origin + 4 * w)
                    yield b.cmd_size.eq(2)
                    yield b.cmd_data.eq(val or 0)
            elif c - 1 in script and script[c - 1][1] is not None:
                yield b.cmd_valid.eq(0)
            yield
            seen.append(((yield v.valid), (yield v.data), word, [m for m in mem]))
            cmd = script.get(c, (None, None))[1] if c in script else None
            if cmd is not None and cmd[0] == "st":
                mem[cmd[1]] = cmd[2]    # written at the edge ending cycle c

    run_simulation(d, gen())
    valid_cycles = 0
    for c in range(1, n):
        valid, data, _, held = seen[c]
        prev_word = seen[c - 1][2]
        if valid:
            valid_cycles += 1
            assert data == held[prev_word], f"cycle {c}: stale word"
    assert valid_cycles >= 4    # the check saw words


def test_tcm_answers_its_window_and_the_soc_keeps_others_out():
    """A TCM is decoded from the address's top four bits: a fetch past its
    end (still in its 256 MiB window) reads its image again, not Wishbone;
    window_clashes names the bus regions that would fall in a window."""
    d = dut()
    i = d.ibus
    inputs = {0: {i.cmd_valid: 1, i.cmd_pc: ITCM.origin + ITCM.size + 4 * 3}, 1: {i.cmd_valid: 0}}
    r = simulate(d, 3, inputs, ibus_probes(d))
    assert r["rsp"][1] == 1 and r["inst"][1] == CODE[3] and r["cyc"] == [0, 0, 0]
    regions = {"itcm": (ITCM.origin, ITCM.size), "sram": (0x1000_0000, 0x2000),
               "main_ram": (0x4000_0000, 0x1000), "late": (0x2ff0_0000, 0x100)}
    assert window_clashes([ITCM, DTCM], regions) == ["late"]
