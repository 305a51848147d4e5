"""Cycle-exact tests of the CLIC (soc/clic.py) in Migen simulation.

Timing convention (as in test_irqgen.py): cycle c is the interval after the
c-th clock edge. Inside a generator, values written before a `yield` are
visible in the cycle that `yield` enters, and reads after it return that
cycle's values. A register fed by a value seen in cycle c shows it in c+1.

Bus accesses go through `wb_write`/`wb_read`: the request is on the bus in
cycle c, the slave acks in c+1 and the helper returns in c+1, after which the
request is dropped. A write takes effect in c+1.

The last tests run the module beside the reference model of the host package
(irqlab.host.clicmodel) on random stimulus and require the same outputs in
every cycle.
"""

import collections
import random

import pytest
from migen.fhdl import verilog
from migen.sim import run_simulation

from irqlab.host import clicmodel
from irqlab.soc.clic import CLIC

CLICCFG, CLICINFO = 0x0000, 0x0004
EDGE, NEG, SHV = 0b010, 0b100, 0b001     # clicintattr trig/shv bits
MODE_M = 0b11 << 6                      # clicintattr.mode, read-only


def src_addr(i):
    return 0x1000 + 4 * i


def run(dut, body):
    run_simulation(dut, body())


# --------------------------------------------------------------------------- bus master

def wb_write(dut, addr, data, sel=0xF):
    bus = dut.bus
    yield bus.adr.eq(addr >> 2)
    yield bus.dat_w.eq(data)
    yield bus.sel.eq(sel)
    for s in (bus.cyc, bus.stb, bus.we):
        yield s.eq(1)
    yield
    while not (yield bus.ack):
        yield
    for s in (bus.cyc, bus.stb, bus.we):
        yield s.eq(0)


def wb_read(dut, addr):
    bus = dut.bus
    yield bus.adr.eq(addr >> 2)
    yield bus.we.eq(0)
    yield bus.cyc.eq(1)
    yield bus.stb.eq(1)
    yield
    while not (yield bus.ack):
        yield
    value = yield bus.dat_r
    yield bus.cyc.eq(0)
    yield bus.stb.eq(0)
    return value


def configure(dut, i, ie=1, attr=0, ctl=0):
    """Write clicintie/attr/ctl of source i in one access, leaving clicintip alone."""
    yield from wb_write(dut, src_addr(i), (ctl << 24) | (attr << 16) | (ie << 8), sel=0b1110)


def write_ip(dut, i, value):
    yield from wb_write(dut, src_addr(i), value, sel=0b0001)


def set_nlbits(dut, n):
    yield from wb_write(dut, CLICCFG, n << 1, sel=0b0001)


def settle(n=3):
    for _ in range(n):
        yield


def outputs(dut):
    return ((yield dut.irq_valid), (yield dut.irq_id), (yield dut.irq_level), (yield dut.irq_shv))


def ip(dut, i):
    return (yield dut.regs.ip[i])


def ips(dut, ids):
    out = []
    for i in ids:
        out.append((yield dut.regs.ip[i]))
    return out


def claim(dut, i):
    """Pulse claim for one cycle (the cycle the next `yield` enters)."""
    yield dut.claim.eq(1)
    yield dut.claim_id.eq(i)
    yield
    yield dut.claim.eq(0)


# --------------------------------------------------------------------------- arbitration

def test_idle_id_names_most_urgent_enabled_source():
    """While nothing is pending, irq_id names the enabled source with the
    largest (clicintctl, id) (the core reads its pointer-table entry ahead);
    a pending source wins."""
    dut = CLIC(n_sources=8)

    def body():
        yield from settle()
        assert (yield from outputs(dut))[:2] == (0, 0)          # nothing enabled: 0
        yield from configure(dut, 2, ie=1, attr=EDGE, ctl=0x80)
        yield from configure(dut, 5, ie=1, attr=EDGE, ctl=0x40)
        yield from configure(dut, 6, ie=0, attr=EDGE, ctl=0xFF)
        yield from settle()
        assert (yield from outputs(dut))[:2] == (0, 2)          # level 0x80 beats ID 5 at 0x40
        yield from configure(dut, 3, ie=1, attr=EDGE, ctl=0x80)
        yield from settle()
        assert (yield from outputs(dut))[:2] == (0, 3)          # equal levels: the higher ID
        yield from write_ip(dut, 5, 1)
        yield from settle()
        assert (yield from outputs(dut))[:2] == (1, 5)          # pending beats enabled
        yield from write_ip(dut, 5, 0)
        yield from settle()
        assert (yield from outputs(dut))[:2] == (0, 3)

    run_simulation(dut, body())


def test_arbitration_order():
    dut = CLIC(n_sources=8)

    def body():
        for i, ctl in [(1, 0x40), (2, 0x80), (3, 0x80), (5, 0x80), (6, 0xC0), (7, 0xFF)]:
            yield from configure(dut, i, ie=int(i != 6), attr=EDGE, ctl=ctl)
        for i in (1, 2, 3, 5, 6):              # 7 enabled but never pending, 6 disabled
            yield from write_ip(dut, i, 1)
        yield from settle()
        # Highest ctl among pending & enabled is 0x80; among 2, 3, 5 the highest ID wins.
        assert (yield from outputs(dut)) == (1, 5, 0xFF, 0)
        yield from write_ip(dut, 5, 0)
        yield from settle()
        assert (yield dut.irq_id) == 3
        yield from write_ip(dut, 3, 0)
        yield from settle()
        assert (yield dut.irq_id) == 2
        yield from write_ip(dut, 2, 0)
        yield from settle()
        assert (yield from outputs(dut))[:2] == (1, 1)
        # Enabling 6 makes it the winner; a higher ctl beats a higher ID.
        yield from configure(dut, 6, ie=1, attr=EDGE, ctl=0xC0)
        yield from settle()
        assert (yield dut.irq_id) == 6
        # A lower ID with a higher ctl beats higher IDs.
        yield from configure(dut, 1, ie=1, attr=EDGE, ctl=0xC1)
        yield from settle()
        assert (yield dut.irq_id) == 1
        yield from write_ip(dut, 1, 0)
        yield from write_ip(dut, 6, 0)
        yield from settle()
        assert (yield dut.irq_valid) == 0

    run(dut, body)


def test_arbitration_compares_whole_ctl_not_level():
    """With nlbits = 1, ctl 0x80 and 0xC0 are both level 255; the priority bits
    still order them (the full ctl is compared), whatever the IDs."""
    dut = CLIC(n_sources=4)

    def body():
        yield from set_nlbits(dut, 1)
        yield from configure(dut, 0, attr=EDGE, ctl=0xC0)
        yield from configure(dut, 3, attr=EDGE, ctl=0x80)
        yield from write_ip(dut, 0, 1)
        yield from write_ip(dut, 3, 1)
        yield from settle()
        assert (yield from outputs(dut))[:3] == (1, 0, 0xFF)

    run(dut, body)


def test_arbitration_tie_across_tree():
    """Equal ctl everywhere: the highest pending-and-enabled ID wins, for every
    subset of a 5-source (non power of two) tree."""
    dut = CLIC(n_sources=5)

    def body():
        for i in range(5):
            yield from configure(dut, i, attr=EDGE, ctl=0x20)
        for mask in range(1, 32):
            yield dut.regs.ip.eq(mask)                          # pending bits set directly
            yield from settle(2)
            assert (yield from outputs(dut))[:2] == (1, mask.bit_length() - 1), mask

    run(dut, body)


def test_shv_follows_winner():
    dut = CLIC(n_sources=4)

    def body():
        yield from configure(dut, 1, attr=EDGE | SHV, ctl=0x10)
        yield from configure(dut, 2, attr=EDGE, ctl=0x20)
        yield from write_ip(dut, 1, 1)
        yield from settle()
        assert (yield from outputs(dut)) == (1, 1, 0xFF, 1)
        yield from write_ip(dut, 2, 1)
        yield from settle()
        assert (yield from outputs(dut)) == (1, 2, 0xFF, 0)

    run(dut, body)


# --------------------------------------------------------------------------- levels

# clicintctl written 0x5A = 0101_1010.
LEVELS = {
    # ctl_bits: (ctl as read, {nlbits: irq_level})
    8: (0x5A, {0: 0xFF, 1: 0x7F, 4: 0x5F, 8: 0x5A}),
    4: (0x5F, {0: 0xFF, 1: 0x7F, 4: 0x5F, 8: 0x5F}),
    0: (0xFF, {0: 0xFF, 1: 0xFF, 4: 0xFF, 8: 0xFF}),
}


@pytest.mark.parametrize("ctl_bits", [8, 4, 0])
def test_irq_level(ctl_bits):
    dut = CLIC(n_sources=2, ctl_bits=ctl_bits)
    ctl_read, by_nlbits = LEVELS[ctl_bits]

    def body():
        yield from configure(dut, 1, attr=EDGE, ctl=0x5A)
        yield from write_ip(dut, 1, 1)
        assert ((yield from wb_read(dut, src_addr(1))) >> 24) == ctl_read
        for nl, level in by_nlbits.items():
            yield from set_nlbits(dut, nl)
            yield from settle()
            assert (yield from outputs(dut)) == (1, 1, level, 0), nl

    run(dut, body)


# --------------------------------------------------------------------------- register reads

@pytest.mark.parametrize("n,ctl_bits", [(64, 8), (256, 4), (1, 0)])
def test_read_only_fields(n, ctl_bits):
    dut = CLIC(n_sources=n, ctl_bits=ctl_bits)

    def body():
        assert (yield from wb_read(dut, CLICINFO)) == n | (ctl_bits << 21)
        assert (yield from wb_read(dut, CLICINFO)) & (0xFF << 13) == 0        # version 0
        yield from wb_write(dut, CLICINFO, 0xFFFFFFFF)
        assert (yield from wb_read(dut, CLICINFO)) == n | (ctl_bits << 21)
        # cliccfg: nvbits = 1, nlbits = 0 at reset.
        assert (yield from wb_read(dut, CLICCFG)) == 0x01
        yield from wb_write(dut, CLICCFG, 0xFFFFFFFF)       # nlbits 15 -> 8 (WARL), nmbits stay 0
        assert (yield from wb_read(dut, CLICCFG)) == 0x01 | (8 << 1)
        yield from wb_write(dut, CLICCFG, 0x07)
        assert (yield from wb_read(dut, CLICCFG)) == 0x07
        # Source word at reset: mode = M, ctl low bits read as 1.
        low1 = (1 << (8 - ctl_bits)) - 1
        assert (yield from wb_read(dut, src_addr(n - 1))) == (MODE_M << 16) | (low1 << 24)
        # attr bits 5:3 read 0; ctl keeps only the top ctl_bits bits.
        yield from wb_write(dut, src_addr(n - 1), 0x00FF01FE)
        assert (yield from wb_read(dut, src_addr(n - 1))) == ((MODE_M | 0b111) << 16) | (low1 << 24) | 0x100
        yield from wb_write(dut, src_addr(n - 1), 0x00 << 24, sel=0b1000)
        assert (yield from wb_read(dut, src_addr(n - 1))) >> 24 == low1

    run(dut, body)


def test_unimplemented_addresses():
    dut = CLIC(n_sources=16)
    holes = [0x0008, 0x003C, 0x0040, 0x00BC, 0x00C0, 0x0800, 0x0FFC, src_addr(16), dut.size - 4]

    def body():
        for a in holes:
            yield from wb_write(dut, a, 0xFFFFFFFF)
        for a in holes:
            assert (yield from wb_read(dut, a)) == 0, hex(a)
        # Nothing else changed.
        assert (yield from wb_read(dut, CLICCFG)) == 0x01
        for i in range(16):
            assert (yield from wb_read(dut, src_addr(i))) == (MODE_M << 16), i
        # Only the low address bits are decoded: the block repeats every `size` bytes.
        assert (yield from wb_read(dut, dut.size + CLICINFO)) == 16 | (8 << 21)

    run(dut, body)


def test_byte_lanes():
    dut = CLIC(n_sources=4)
    a = src_addr(2)

    def body():
        yield from wb_write(dut, a, 0xA0_03_01_00, sel=0b1110)
        assert (yield from wb_read(dut, a)) == 0xA0_C3_01_00
        yield from wb_write(dut, a, 0, sel=0b0010)                 # ie only
        assert (yield from wb_read(dut, a)) == 0xA0_C3_00_00
        yield from wb_write(dut, a, 0xFFFFFFFF, sel=0b1000)        # ctl only
        assert (yield from wb_read(dut, a)) == 0xFF_C3_00_00
        yield from wb_write(dut, a, 0x00_00_00_01, sel=0b0001)     # ip only (edge source)
        assert (yield from wb_read(dut, a)) == 0xFF_C3_00_01
        yield from wb_write(dut, a, 0, sel=0)                      # no lane: no change
        assert (yield from wb_read(dut, a)) == 0xFF_C3_00_01
        yield from wb_write(dut, a, 0, sel=0b0100)                 # attr only; now level:
        assert (yield from wb_read(dut, a)) == 0xFF_C0_00_00       # ip shows the idle line
        yield from wb_write(dut, CLICCFG, 0xFF, sel=0b1110)        # cliccfg is byte 0
        assert (yield from wb_read(dut, CLICCFG)) == 0x01
        for i in (1, 3):                                            # neighbours untouched
            assert (yield from wb_read(dut, src_addr(i))) == MODE_M << 16

    run(dut, body)


def test_single_ack_per_access():
    """ack comes one cycle after cyc & stb, for one cycle, even if the master is slow
    to drop the request; a write held for two cycles takes effect once."""
    dut = CLIC(n_sources=2)
    bus = dut.bus
    acks = []

    def body():
        yield from configure(dut, 0, attr=EDGE)
        yield bus.adr.eq(src_addr(0) >> 2)
        yield bus.dat_w.eq(1)
        yield bus.sel.eq(1)
        for s in (bus.cyc, bus.stb, bus.we):
            yield s.eq(1)
        for c in range(2):
            yield
            acks.append((yield bus.ack))
            if c == 0:
                assert (yield from ip(dut, 0)) == 0
        for s in (bus.cyc, bus.stb, bus.we):
            yield s.eq(0)
        for _ in range(3):
            yield
            acks.append((yield bus.ack))
        assert (yield from ip(dut, 0)) == 1

    run(dut, body)
    assert acks == [0, 1, 0, 0, 0]


# --------------------------------------------------------------------------- triggers

@pytest.mark.parametrize("neg", [0, 1])
def test_edge_trigger(neg):
    dut = CLIC(n_sources=2)
    active, idle = (0, 1) if neg else (1, 0)

    def body():
        yield dut.sources[1].eq(idle)
        yield from configure(dut, 1, attr=EDGE | (NEG if neg else 0))
        # ip is undefined after leaving level mode (it held the level: 1 if neg).
        yield from write_ip(dut, 1, 0)
        yield from settle()
        assert (yield from ip(dut, 1)) == 0
        yield dut.sources[1].eq(active)            # the active edge
        yield
        assert (yield from ip(dut, 1)) == 0
        yield
        assert (yield from ip(dut, 1)) == 1
        yield from write_ip(dut, 1, 0)
        assert (yield from ip(dut, 1)) == 0
        yield from settle()
        assert (yield from ip(dut, 1)) == 0        # held active: no new edge
        yield dut.sources[1].eq(idle)              # the inactive edge sets nothing
        yield from settle()
        assert (yield from ip(dut, 1)) == 0
        yield dut.sources[1].eq(active)
        yield from settle(2)
        assert (yield from ip(dut, 1)) == 1
        yield dut.sources[1].eq(idle)              # pending stays after the line returns
        yield from settle()
        assert (yield from ip(dut, 1)) == 1
        assert (yield from wb_read(dut, src_addr(1))) & 0xFF == 1

    run(dut, body)


@pytest.mark.parametrize("neg", [0, 1])
def test_level_trigger(neg):
    dut = CLIC(n_sources=2)
    active, idle = (0, 1) if neg else (1, 0)

    def body():
        yield dut.sources[0].eq(idle)
        yield from configure(dut, 0, attr=NEG if neg else 0)
        yield from settle()
        assert (yield from wb_read(dut, src_addr(0))) & 0xFF == 0
        assert (yield dut.irq_valid) == 0
        yield from write_ip(dut, 0, 1)                  # ignored
        yield from settle()
        assert (yield from wb_read(dut, src_addr(0))) & 0xFF == 0
        assert (yield dut.irq_valid) == 0
        yield dut.sources[0].eq(active)
        yield from settle()
        assert (yield from wb_read(dut, src_addr(0))) & 0xFF == 1
        assert (yield from outputs(dut))[:2] == (1, 0)
        yield from write_ip(dut, 0, 0)                  # ignored
        yield from settle()
        assert (yield from wb_read(dut, src_addr(0))) & 0xFF == 1
        assert (yield dut.irq_valid) == 1
        yield dut.sources[0].eq(idle)                   # the source itself clears it
        yield from settle()
        assert (yield from wb_read(dut, src_addr(0))) & 0xFF == 0
        assert (yield dut.irq_valid) == 0

    run(dut, body)


def test_software_set_clear_edge():
    dut = CLIC(n_sources=4)

    def body():
        yield from configure(dut, 3, attr=EDGE, ctl=0x33)
        yield from settle()
        assert (yield dut.irq_valid) == 0
        yield from write_ip(dut, 3, 1)
        assert (yield from ip(dut, 3)) == 1           # in the ack cycle already
        yield
        assert (yield from outputs(dut)) == (1, 3, 0xFF, 0)
        assert (yield from wb_read(dut, src_addr(3))) & 0xFF == 1
        yield from write_ip(dut, 3, 0)
        yield
        assert (yield dut.irq_valid) == 0
        assert (yield from wb_read(dut, src_addr(3))) & 0xFF == 0

    run(dut, body)


# --------------------------------------------------------------------------- latency

@pytest.mark.parametrize("attr", [EDGE, 0], ids=["edge", "level"])
def test_latency_one_cycle(attr):
    """A source change in cycle t shows on irq_valid/irq_id in t+1 (the tree
    sees it before the pending bit holds it)."""
    dut = CLIC(n_sources=8)
    rows = []

    def body():
        yield from configure(dut, 6, attr=attr, ctl=0x70)
        yield from set_nlbits(dut, 8)
        yield from settle()
        for c in range(6):
            yield dut.sources[6].eq(int(c >= 2))
            yield                                   # cycle c
            rows.append((yield from outputs(dut)))

    run(dut, body)
    assert [r[0] for r in rows] == [0, 0, 0, 1, 1, 1]
    assert rows[3] == (1, 6, 0x70, 0)


# --------------------------------------------------------------------------- claim

def test_claim_clears_only_its_edge_source():
    dut = CLIC(n_sources=8)

    def body():
        yield from configure(dut, 2, attr=EDGE, ctl=0x10)
        yield from configure(dut, 5, attr=EDGE, ctl=0x20)
        yield from configure(dut, 3, attr=0, ctl=0x30)      # level
        yield dut.sources[3].eq(1)
        yield from write_ip(dut, 2, 1)
        yield from write_ip(dut, 5, 1)
        yield from settle()
        assert (yield dut.irq_id) == 3
        yield from claim(dut, 3)                            # level source: nothing happens
        yield from settle()
        assert (yield from ips(dut, (2, 3, 5))) == [1, 1, 1]
        assert (yield from outputs(dut))[:2] == (1, 3)
        yield from claim(dut, 2)                            # not the winner: still cleared
        yield from settle()
        assert (yield from ips(dut, (2, 3, 5))) == [0, 1, 1]
        yield dut.sources[3].eq(0)
        yield from settle()
        assert (yield from outputs(dut))[:2] == (1, 5)
        yield from claim(dut, 5)
        yield from settle()
        assert (yield from ips(dut, (2, 3, 5))) == [0, 0, 0]
        assert (yield dut.irq_valid) == 0

    run(dut, body)


def test_new_edge_wins_over_claim_and_clear():
    dut = CLIC(n_sources=4)
    bus = dut.bus

    def body():
        yield from configure(dut, 1, attr=EDGE)
        yield from write_ip(dut, 1, 1)
        yield from settle()
        # Rising edge in the claim cycle: the pending bit stays set.
        yield dut.sources[1].eq(1)
        yield from claim(dut, 1)
        yield from settle()
        assert (yield from ip(dut, 1)) == 1
        # Control: a claim alone clears it.
        yield from claim(dut, 1)
        yield
        assert (yield from ip(dut, 1)) == 0
        # Rising edge in the cycle a software clear takes effect (the request cycle).
        yield dut.sources[1].eq(0)
        yield from write_ip(dut, 1, 1)
        yield from settle()
        yield bus.adr.eq(src_addr(1) >> 2)
        yield bus.dat_w.eq(0)
        yield bus.sel.eq(1)
        for s in (bus.cyc, bus.stb, bus.we):
            yield s.eq(1)
        yield dut.sources[1].eq(1)
        yield                                            # request cycle, edge seen
        yield
        assert (yield bus.ack) == 1
        for s in (bus.cyc, bus.stb, bus.we):
            yield s.eq(0)
        yield from settle()
        assert (yield from ip(dut, 1)) == 1

    run(dut, body)


def test_irq_valid_held_low_after_claim():
    """Claim in cycle c: irq_valid is 0 in c+1 (the outputs there were computed
    before the claim), and from c+2 on the outputs show the next interrupt. The
    claimed one never shows again."""
    dut = CLIC(n_sources=8)
    rows = []

    def body():
        yield from configure(dut, 4, attr=EDGE, ctl=0x90)
        yield from configure(dut, 1, attr=EDGE, ctl=0x10)
        yield from write_ip(dut, 4, 1)
        yield from write_ip(dut, 1, 1)
        yield from settle()
        for c in range(6):
            yield dut.claim.eq(int(c == 1))
            yield dut.claim_id.eq(4 if c == 1 else 1)   # claim_id ignored without claim
            yield                                       # cycle c
            rows.append((yield from outputs(dut))[:2])
        yield from write_ip(dut, 1, 0)
        yield from write_ip(dut, 4, 1)
        yield from settle()
        assert (yield from outputs(dut))[:2] == (1, 4)
        # Last one: nothing else pending, irq_valid stays low.
        rows2 = []
        for c in range(5):
            yield dut.claim.eq(int(c == 0))
            yield dut.claim_id.eq(4)
            yield
            rows2.append((yield dut.irq_valid))
        assert rows2 == [1, 0, 0, 0, 0]

    run(dut, body)
    assert rows == [(1, 4), (1, 4), (0, 4), (1, 1), (1, 1), (1, 1)]


def test_claim_hold_applies_to_level_sources():
    """A claim of a level source changes nothing but the one-cycle hold."""
    dut = CLIC(n_sources=2)
    rows = []

    def body():
        yield from configure(dut, 1)
        yield dut.sources[1].eq(1)
        yield from settle()
        for c in range(4):
            yield dut.claim.eq(int(c == 0))
            yield dut.claim_id.eq(1)
            yield
            rows.append((yield from outputs(dut))[:2])

    run(dut, body)
    assert rows == [(1, 1), (0, 1), (1, 1), (1, 1)]


def test_claim_id_out_of_range():
    """claim_id 7 on a 5-source CLIC clears nothing."""
    dut = CLIC(n_sources=5)

    def body():
        yield from configure(dut, 4, attr=EDGE)
        yield from write_ip(dut, 4, 1)
        yield from settle()
        yield from claim(dut, 7)
        yield from settle()
        assert (yield from ip(dut, 4)) == 1
        assert (yield from outputs(dut))[:2] == (1, 4)

    run(dut, body)


# --------------------------------------------------------------------------- sizes

def test_256_sources_high_ids():
    dut = CLIC(n_sources=256)
    assert len(dut.irq_id) == 8 and len(dut.claim_id) == 8
    assert dut.size == 0x2000

    def body():
        for i, ctl in [(128, 0x40), (200, 0x40), (254, 0x40), (255, 0x40)]:
            yield from configure(dut, i, attr=EDGE, ctl=ctl)
            yield from write_ip(dut, i, 1)
        yield from settle()
        assert (yield from outputs(dut))[:2] == (1, 255)
        yield from claim(dut, 255)
        yield from settle(2)
        assert (yield from outputs(dut))[:2] == (1, 254)
        assert (yield from ip(dut, 255)) == 0
        yield from configure(dut, 200, attr=EDGE, ctl=0x41)
        yield from settle()
        assert (yield from outputs(dut))[:2] == (1, 200)
        assert (yield from wb_read(dut, src_addr(255))) == 0x40 << 24 | (MODE_M | EDGE) << 16 | 0x100
        assert (yield from wb_read(dut, CLICINFO)) & 0x1FFF == 256

    run(dut, body)


def test_one_source():
    dut = CLIC(n_sources=1)
    assert len(dut.irq_id) == 1 and dut.size == 0x2000

    def body():
        yield from configure(dut, 0, attr=EDGE | SHV, ctl=0x80)
        yield dut.sources[0].eq(1)
        yield from settle()
        assert (yield from outputs(dut)) == (1, 0, 0xFF, 1)
        yield from claim(dut, 0)
        yield from settle()
        assert (yield dut.irq_valid) == 0
        assert (yield from wb_read(dut, src_addr(1))) == 0

    run(dut, body)


@pytest.mark.parametrize("n,ctl_bits", [(1, 0), (5, 3)])
def test_converts_to_verilog(n, ctl_bits):
    dut = CLIC(n_sources=n, ctl_bits=ctl_bits)
    ios = {dut.sources, dut.irq_valid, dut.irq_id, dut.irq_level, dut.irq_shv, dut.claim, dut.claim_id}
    ios |= {getattr(dut.bus, name) for name, _, _ in dut.bus.layout}
    v = str(verilog.convert(dut, ios=ios, name="clic"))
    assert "module clic" in v


@pytest.mark.parametrize("n,size,id_bits", [(1, 0x2000, 1), (64, 0x2000, 6), (65, 0x2000, 7),
                                            (1024, 0x2000, 10), (1025, 0x4000, 11)])
def test_region_size(n, size, id_bits):
    dut = CLIC(n_sources=n)
    assert dut.size == size and size >= 0x1000 + 4 * n
    assert len(dut.irq_id) == len(dut.claim_id) == id_bits


# --------------------------------------------------------------------------- pipelined tree

def test_register_inside_tree_adds_one_cycle_and_one_hold_cycle():
    """register_after=k (the SoC's setting): a source change in cycle t shows
    in t+2, and after a claim irq_valid stays low for two cycles, then shows
    the next interrupt; the claimed one never shows again."""
    dut = CLIC(n_sources=64, register_after=3)
    lat, rows = [], []

    def body():
        yield from configure(dut, 40, attr=EDGE, ctl=0x90)
        yield from configure(dut, 3, attr=EDGE, ctl=0x10)
        yield from set_nlbits(dut, 8)
        yield from settle(4)
        for c in range(7):
            yield dut.sources[40].eq(int(c >= 2))
            yield
            lat.append((yield dut.irq_valid))
        yield from write_ip(dut, 3, 1)
        yield from settle(4)
        for c in range(7):
            yield dut.claim.eq(int(c == 1))
            yield dut.claim_id.eq(40)
            yield
            rows.append((yield from outputs(dut))[:2])

    run(dut, body)
    assert lat == [0, 0, 0, 0, 1, 1, 1]
    assert rows == [(1, 40), (1, 40), (0, 40), (0, 40), (1, 3), (1, 3), (1, 3)]


# --------------------------------------------------------------------------- reference model

def random_write(rng, dut):
    """A random bus write: (byte address, data, sel) and the same write for the model."""
    n = dut.n_sources
    sel = rng.choice([0b0001, 0b0001, 0b1110, 0b1111, rng.randrange(16)])
    data = rng.getrandbits(32)
    if rng.random() < 0.15:
        return CLICCFG, data, sel, clicmodel.Write(cliccfg=data & 0xFF if sel & 1 else None)
    # Now and then a word past the last source (reads 0, ignores writes) while the region has one.
    i = rng.randrange(n + 2) if src_addr(n + 1) < dut.size else rng.randrange(n)
    lane = [(data >> 8 * k) & 0xFF if sel >> k & 1 else None for k in range(4)]
    return src_addr(i), data, sel, clicmodel.Write(source=i, ip=lane[0], ie=lane[1], attr=lane[2], ctl=lane[3])


def cosimulate(dut, cycles, seed):
    """Drive the CLIC and the reference model with the same random stimulus,
    cycle by cycle: line toggles, register writes (one bus access every other
    cycle at most), claims (mostly of the current winner, sometimes of any id,
    in range or not); the model is told the module's output delay. Requires
    equal irq_valid, and equal irq_id/irq_level/irq_shv while valid, irq_id
    also while not (the model's shown id), and equal pending bits, in every
    cycle. With random thresholds, the
    registered verdicts must be those of the outputs against the thresholds
    of the cycle before (irq_above/irq_above_alt), and irq_id_kept whether
    irq_id equals the cycle before's. Returns counts of what happened."""
    model = clicmodel.Clic(dut.n_sources, ctl_bits=dut.ctl_bits, output_delay=dut.output_delay)
    rng = random.Random(seed)
    bus = dut.bus
    seen = collections.Counter()

    def body():
        model.tick()        # cycle 0: reset, no inputs (the first yield enters cycle 1)
        lines, requested = 0, False
        last = (0, 0, 0)    # the cycle before's irq_id, threshold, threshold_alt
        for c in range(1, cycles + 1):
            writes = ()
            if requested:       # the ack cycle: drop the request
                for sig in (bus.cyc, bus.stb, bus.we):
                    yield sig.eq(0)
                requested = False
            elif rng.random() < 0.4:
                addr, data, sel, w = random_write(rng, dut)
                yield bus.adr.eq(addr >> 2)
                yield bus.dat_w.eq(data)
                yield bus.sel.eq(sel)
                for sig in (bus.cyc, bus.stb, bus.we):
                    yield sig.eq(1)
                requested, writes = True, (w,)
            if rng.random() < 0.3:
                lines ^= 1 << rng.randrange(dut.n_sources)
            yield dut.sources.eq(lines)
            claim = None
            if rng.random() < 0.1:
                want = model.outputs()
                claim = want.id if want.valid and rng.random() < 0.8 else rng.randrange(1 << len(dut.claim_id))
            yield dut.claim.eq(claim is not None)
            yield dut.claim_id.eq(claim or 0)
            thresholds = [rng.choice([0, 0xFF, rng.randrange(256)]) for _ in range(2)]
            yield dut.threshold.eq(thresholds[0])
            yield dut.threshold_alt.eq(thresholds[1])
            yield                                                   # cycle c
            valid, i, lvl, shv = yield from outputs(dut)
            verdicts = ((yield dut.irq_above), (yield dut.irq_above_alt), (yield dut.irq_id_kept))
            assert verdicts == (valid and lvl > last[1], valid and lvl > last[2], i == last[0]), \
                f"cycle {c} (seed {seed}): verdicts {verdicts}, outputs {(valid, i, lvl)}, last {last}"
            last = (i, *thresholds)
            seen["above"] += verdicts[0]
            got = clicmodel.Outputs(True, i, lvl, bool(shv)) if valid else clicmodel.INVALID
            want = model.outputs()
            assert got == want, f"cycle {c} (seed {seed}): CLIC {got}, model {want}"
            assert i == model.shown_id(), f"cycle {c} (seed {seed}): irq_id {i}, model {model.shown_id()}"
            seen["shown_while_idle"] += not valid and i != 0
            ip = yield dut.regs.ip
            assert ip == model.ip, f"cycle {c} (seed {seed}): pending {ip:#x}, model {model.ip:#x}"
            seen["valid"] += valid
            seen["winner_claimed"] += claim is not None and want.valid and claim == want.id
            seen["shv"] += valid and shv
            seen["levels"] += valid and lvl != 0xFF
            seen["writes"] += bool(writes)
            model.tick(lines, claim, writes)

    run_simulation(dut, body())
    return seen


@pytest.mark.parametrize("n,ctl_bits,register_after,cycles", [
    (64, 8, 3, 800),        # the SoC's CLIC (soc/soc.py): a register inside the tree, D = 2
    (8, 8, None, 3000),
    (5, 3, None, 3000),     # not a power of two, 3 ctl bits
    (16, 4, 1, 1500),       # a register after the first level
    (1, 0, None, 500),
], ids=lambda v: str(v))
def test_matches_reference_model(n, ctl_bits, register_after, cycles):
    dut = CLIC(n_sources=n, ctl_bits=ctl_bits, register_after=register_after)
    seen = cosimulate(dut, cycles, seed=n * 1000 + ctl_bits)
    # The stimulus reached what it is meant to check.
    assert seen["valid"] > cycles // 5 and seen["winner_claimed"] > cycles // 100, seen
    if ctl_bits:
        assert seen["levels"] > cycles // 20, seen
    assert seen["shv"] > 0, seen
    if n > 1:
        assert seen["shown_while_idle"] > 0, seen            # irq_id checked while nothing is valid
    assert 0 < seen["above"] < seen["valid"], seen          # verdicts of both values


def test_the_cosimulation_sees_a_wrong_idle_id(monkeypatch):
    """Negative control of the irq_id check while nothing is valid: a model
    whose shown id is 0 then (as if the tree named no source) is caught."""
    real = clicmodel.Clic.shown_id
    monkeypatch.setattr(clicmodel.Clic, "shown_id", lambda self: real(self) if self.outputs().valid else 0)
    with pytest.raises(AssertionError, match="irq_id"):
        cosimulate(CLIC(n_sources=8, ctl_bits=8), 3000, seed=8008)
