"""Tightly coupled memories (TCMs) beside the project's own core.

A core variant with native buses (cores/: NativeBusPlugin) leaves VexRiscv's
IBusSimpleBus and DBusSimpleBus at its ports. This module puts the memory
system beside it:

    core iBus ──► IBusSplit ──┬─► ITCM instruction port ─┐
                              ├─► DTCM instruction port  │  one cycle
                              └─► Wishbone (every other address)
    core dBus ──► DBusSplit ──┬─► ITCM data port (read/write: loads firmware)
                              ├─► DTCM data port
                              └─► Wishbone (every other address)
    core vecPrefetch ──► VectorPrefetch ──► the data ports' free cycles
                              (the CLIC pointer-table entry, read ahead)
    core fastirqSave ──► the DTCM's instruction port (FastIrqPlugin's
                              background save of the interrupted context)

Each TCM (`TcmMemory`) is one block RAM with two synchronous ports, one per
bus, so a fetch and a load or store never wait for each other, and each bus
reaches both memories (code may run from the DTCM, constants and the CLIC's
pointer table may sit in either).

Why this meets one cycle: the command's address goes straight into the block
RAM's registered address input in the cycle the command fires; the word is
at the RAM's output in the next cycle, which is the cycle VexRiscv expects it
(IBusSimplePlugin with busLatencyMin = 1 joins the response one stage after
the command; DBusSimplePlugin issues in execute and takes the response in
memory). `cmd.ready` is decoded from the address and one register, never
from `cmd.valid`, so no combinational loop runs through the core. The
Wishbone bridges are registered (one request at a time), off the TCM path.
The data bus's path from the core's address adder to the RAMs is the
SoC's longest (ULX3S): a TCM is decoded from the address's top four bits
only (WINDOW_BITS), so it answers its whole 256 MiB window, its image
repeated; the SoC keeps every other region out of those windows
(`window_clashes`). "A TCM address" below means one in its window.

Contracts, cycle by cycle (t = a cycle in which cmd.valid & cmd.ready):

IBusSplit
  * cmd.ready = 1 unless a Wishbone fetch is outstanding.
  * pc in a TCM's window: rsp.valid = 1 at t+1, rsp.inst = the word at pc (as the RAM
    held it at the edge ending cycle t).
  * otherwise: CYC/STB from t+1 until the ACK cycle u (>= t+1); rsp.valid = 1
    at u with DAT_R; cmd.ready = 0 from t+1 to u; the next command may fire
    at u+1. Responses therefore come in command order.

DBusSplit
  * cmd.ready = 1 for a TCM address; for any other, 1 unless a Wishbone access
    is outstanding.
  * store to a TCM: written at the edge ending cycle t (bytes chosen by size
    and address[1:0]); no response (DBusSimplePlugin expects none).
  * load from a TCM: rsp.ready = 1 from t+1 with the word; rsp.ready and the
    data are held until the next command fires (so a stalled memory stage
    still finds them).
  * otherwise: one Wishbone access from t+1 until the ACK cycle u; a load
    gets rsp.ready = 1 at u with DAT_R; cmd.ready = 0 for non-TCM addresses
    from t+1 to u. A store lets the core go on at once (as LiteX's VexRiscv
    bridge does).
rsp.error is 0 on both buses (no access faults: cores/README.md).

Save port (cores with FastIrqPlugin's save port: `save_tcms` names the TCMs
it writes; a core that stores the frame through its data bus, the SoC's
`fast_irq_data_port`, has none, and its DTCM one write port)
  * save.valid in cycle t with an address in such a TCM: the word is written
    at the edge ending t, through that TCM's instruction port; save.ready = 1.
    A fetch from that TCM cannot fire in t (cmd.ready = 0): fetches from the
    DTCM are rare, and the ITCM's port, the fetch path of every instruction,
    has no save mux. Any other address: save.ready = 0 (the stack of a
    fastirq core lives in the DTCM; the core waits, its nested interrupts
    with it).

VectorPrefetch (cores with TrapCsrPlugin's vectorPrefetch port)
  * a TCM's data port is free in a cycle without a command to it and
    without a load answer held at its output; then it reads the word at the
    core's vecPrefetch_address (if in that TCM). The data bus never waits.
  * valid/data: see VectorPrefetch (valid is registered: it names the
    previous cycle's address).
"""

from dataclasses import dataclass

from migen import *
from migen.fhdl.specials import READ_FIRST

from litex.soc.interconnect import wishbone

# A TCM is decoded from the address's bits [WINDOW_BITS:32]: it answers its
# whole 256 MiB window (its image repeated), where no other region may lie.
WINDOW_BITS = 28


@dataclass(frozen=True)
class TcmRegion:
    """A TCM's name (also its memory's name: <top>_<name>.init), origin and size in bytes."""
    name: str
    origin: int
    size: int

    def __post_init__(self):
        assert self.size >= 4 and self.size & (self.size - 1) == 0, f"{self.name}: size must be a power of two"
        assert self.origin % self.size == 0, f"{self.name}: origin must be aligned to the size"
        assert self.size <= 1 << WINDOW_BITS, f"{self.name}: larger than its decode window"

    @property
    def words(self):
        return self.size // 4

    @property
    def window(self):
        """(origin, size) of the address window the TCM answers: the
        WINDOW_BITS-aligned block around it, its image repeated."""
        return self.origin & ~((1 << WINDOW_BITS) - 1), 1 << WINDOW_BITS

    def contains(self, address):
        """The Migen expression `address` (32 bits, bytes) lies in the
        region's window: a compare of the top bits only, one LUT after the
        core's address adder (the data bus's path to the block RAMs)."""
        return address[WINDOW_BITS:32] == (self.origin >> WINDOW_BITS)


def window_clashes(tcm_regions, regions):
    """The names of `regions` ({name: (origin, size)}, the SoC's other bus
    regions) that overlap a TCM's window: those addresses would reach the TCM."""
    clashes = []
    for t in tcm_regions:
        w0, wsize = t.window
        clashes += [n for n, (o, size) in regions.items() if n != t.name and o < w0 + wsize and w0 < o + size]
    return clashes


class TcmMemory(Module):
    """One TCM: a 32-bit block RAM with an instruction port (`i`: read) and a
    data port (`d`: read with `re`, write with byte enables), both
    synchronous: the word addressed in cycle t is at dat_r in cycle t+1. The
    data port's output holds until its next read (`re`)."""
    def __init__(self, region, init=None, savable=False):
        self.region = region
        init = list(init) if init is not None else [0] * region.words
        assert len(init) <= region.words
        # A full-size init makes the RTL load the memory with $readmemh, so a
        # simulation can put a new image in without a rebuild (as the ROM).
        init += [0] * (region.words - len(init))
        self.mem = Memory(32, region.words, init=init, name=region.name)
        # With the save port, the instruction port writes too (whole words).
        self.i = self.mem.get_port(write_capable=savable)
        self.d = self.mem.get_port(write_capable=True, we_granularity=8, has_re=True, mode=READ_FIRST)
        if savable:
            # Two write ports. The data port's read is read-first in the RTL,
            # also against the other port's write, which no block RAM does:
            # yosys then builds the 32 KiB from flip-flops and dies (the
            # ULX3S build of `fastirq`). That read never meets a write to its
            # word in the same cycle: the data port reads or writes, never
            # both (DBusSplit), and a load from a frame word waits until the
            # save port has written it (FastIrqPlugin's conflict rule, whose
            # `written` counts only words already stored). `no_rw_check` says
            # so to yosys (such a collision's result is left open); the
            # instruction port's write-first read stays exact (yosys adds the
            # bypass against the data port's stores, as on the other TCMs).
            # Simulation does not read the attribute.
            self.mem.attr = {("no_rw_check", 1)}
        self.specials += self.mem, self.i, self.d


class SavePort:
    """FastIrqPlugin's `fastirqSave_*` port: a word write a cycle."""
    def __init__(self):
        self.valid = Signal()
        self.address = Signal(32)
        self.data = Signal(32)
        self.ready = Signal()


class IBusSplit(Module):
    """VexRiscv's IBusSimpleBus to the TCMs' instruction ports and a Wishbone
    master for every other address, and the save port to the instruction
    ports of the TCMs in `save_tcms` (contract: the module's docstring)."""
    def __init__(self, tcms, save=None, save_tcms=()):
        self.cmd_valid = Signal()
        self.cmd_ready = Signal()
        self.cmd_pc    = Signal(32)
        self.rsp_valid = Signal()
        self.rsp_inst  = Signal(32)
        self.rsp_error = Signal()
        self.wb = wb = wishbone.Interface(data_width=32, address_width=32, addressing="word")

        fire = Signal()
        hit = Signal(len(tcms))
        answered = Signal(len(tcms))    # bit k: TCM k answers in this cycle
        busy = Signal()                  # a Wishbone fetch is outstanding
        saving = Signal(len(tcms))      # bit k: the save port writes TCM k this cycle
        for k, t in enumerate(tcms):
            if save is not None and t.region.name in save_tcms:
                self.comb += [
                    saving[k].eq(save.valid & t.region.contains(save.address)),
                    t.i.adr.eq(Mux(saving[k], save.address[2:], self.cmd_pc[2:])),
                    t.i.dat_w.eq(save.data),
                    t.i.we.eq(saving[k]),
                ]
            else:
                self.comb += t.i.adr.eq(self.cmd_pc[2:])
        if save is not None:
            self.comb += save.ready.eq(Cat(*[t.region.contains(save.address) for t in tcms
                                             if t.region.name in save_tcms]) != 0)
        self.comb += [
            hit.eq(Cat(*[t.region.contains(self.cmd_pc) for t in tcms])),
            self.cmd_ready.eq(~busy & ((hit & saving) == 0)),
            fire.eq(self.cmd_valid & self.cmd_ready),
            wb.cyc.eq(busy), wb.stb.eq(busy), wb.we.eq(0), wb.sel.eq(0xf), wb.cti.eq(0), wb.bte.eq(0),
            self.rsp_valid.eq((answered != 0) | (busy & wb.ack)),
            self.rsp_inst.eq(Mux(answered != 0,
                                 reduce(or_, [Replicate(answered[k], 32) & t.i.dat_r for k, t in enumerate(tcms)]),
                                 wb.dat_r)),
            self.rsp_error.eq(0),
        ]
        self.sync += [
            answered.eq(Mux(fire, hit, 0)),
            If(fire & (hit == 0),
                busy.eq(1),
            ).Elif(wb.ack,
                busy.eq(0),
            ),
            # The address follows the pc while no fetch is outstanding, so it
            # holds the one that fired when busy rises: its 30 enables hang
            # off `busy`, not off `fire` (the stall of the whole pipeline).
            If(~busy, wb.adr.eq(self.cmd_pc[2:])),
        ]


class DBusSplit(Module):
    """VexRiscv's DBusSimpleBus to the TCMs' data ports and a Wishbone master
    for every other address (contract: the module's docstring)."""
    def __init__(self, tcms):
        self.cmd_valid   = Signal()
        self.cmd_ready   = Signal()
        self.cmd_wr      = Signal()
        self.cmd_address = Signal(32)
        self.cmd_data    = Signal(32)
        self.cmd_size    = Signal(2)
        self.rsp_ready   = Signal()
        self.rsp_error   = Signal()
        self.rsp_data    = Signal(32)
        self.wb = wb = wishbone.Interface(data_width=32, address_width=32, addressing="word")

        fire = Signal()
        hit = Signal(len(tcms))
        held = Signal(len(tcms))   # bit k: TCM k holds the answer of the last load
        busy = Signal()            # a Wishbone access is outstanding
        mask = Signal(4)
        self.comb += [
            hit.eq(Cat(*[t.region.contains(self.cmd_address) for t in tcms])),
            self.cmd_ready.eq((hit != 0) | ~busy),
            fire.eq(self.cmd_valid & self.cmd_ready),
            mask.eq(Mux(self.cmd_size == 0, 1 << self.cmd_address[:2],
                    Mux(self.cmd_size == 1, 3 << self.cmd_address[:2], 0xf))),
            wb.cyc.eq(busy), wb.stb.eq(busy), wb.cti.eq(0), wb.bte.eq(0),
            self.rsp_ready.eq((held != 0) | (busy & wb.ack & ~wb.we)),
            self.rsp_data.eq(Mux(held != 0,
                                 reduce(or_, [Replicate(held[k], 32) & t.d.dat_r for k, t in enumerate(tcms)]),
                                 wb.dat_r)),
            self.rsp_error.eq(0),
        ]
        # Per TCM: the data port is free this cycle (no command to it, and no
        # load answer held at its output), a borrower's read (VectorPrefetch),
        # and the core writes it this cycle.
        self.port_free = [Signal(name=f"{t.region.name}_free") for t in tcms]
        self.borrow_re = [Signal(name=f"{t.region.name}_borrow_re") for t in tcms]
        self.borrow_adr = Signal(32)
        self.writing = [Signal(name=f"{t.region.name}_writing") for t in tcms]
        for k, t in enumerate(tcms):
            sel = Signal(name=f"{t.region.name}_sel")
            self.comb += [
                # = fire & hit[k] (a TCM address is always ready), one gate
                # shorter on the path from the address adder to the RAMs.
                sel.eq(self.cmd_valid & hit[k]),
                self.port_free[k].eq(~sel & ~held[k]),
                self.writing[k].eq(sel & self.cmd_wr),
                t.d.adr.eq(Mux(sel, self.cmd_address[2:], self.borrow_adr[2:])),
                t.d.dat_w.eq(self.cmd_data),
                t.d.we.eq(Replicate(sel & self.cmd_wr, 4) & mask),
                t.d.re.eq((sel & ~self.cmd_wr) | (self.port_free[k] & self.borrow_re[k])),
            ]
        self.sync += [
            If(fire, held.eq(Mux(self.cmd_wr, 0, hit))),
            If(fire & (hit == 0),
                busy.eq(1), wb.adr.eq(self.cmd_address[2:]), wb.we.eq(self.cmd_wr),
                wb.dat_w.eq(self.cmd_data), wb.sel.eq(Mux(self.cmd_wr, mask, 0xf)),
            ).Elif(wb.ack,
                busy.eq(0),
            ),
        ]


class VectorPrefetch(Module):
    """Reads the CLIC pointer-table entry the core names (`address`: mtvt +
    4*id for the id the CLIC presents, from the core's TrapCsrPlugin
    with vectorPrefetch) through the TCMs' data ports in every cycle the
    data bus leaves the port free, so the core can jump straight to the
    handler when it takes the interrupt.

    Contract: `valid` and `data` are registers, and `valid` = 1 in cycle
    t+1 iff `data` in t+1 is the word the memory holds in t+1 at `address`
    of cycle t (the core checks that its entry is that address): the word
    was read at that address, and no store to that TCM has fired since the
    read was issued (a store fired in cycle u invalidates it from u+1; in u
    the memory still holds the word). A read issued in cycle t (port free,
    address in a TCM) arrives at t+1 and is registered at its end: `valid`
    from t+2 (if the address of t+1 is the same). Otherwise (the port busy,
    the address outside every TCM, a store) `valid` is 0 and the core
    fetches the entry itself, as the Wishbone variants always do.
    Registering both keeps the address compare and the RAM's slow output
    (with its route across the chip) off the core's path from the trap
    decision to the fetch pc and the ITCM's address: the ULX3S's critical
    paths at 50 MHz. A new id's word is ready in the third cycle the CLIC
    presents it; while nothing is pending the CLIC presents the highest
    enabled source, so a lone interrupt finds its word ready.
    """
    def __init__(self, tcms, dbus):
        self.address = Signal(32)
        self.valid = Signal()
        self.data = Signal(32)

        pending = Signal(len(tcms))    # bit k: TCM k answers a read issued last cycle
        pend_adr = Signal(30)
        got = Signal(len(tcms))        # bit k: `data` came from TCM k and is still its word
        got_adr = Signal(30)
        issue = Signal(len(tcms))
        writing = Signal(len(tcms))
        got_next = Signal(len(tcms))   # `got` and `got_adr` of the next cycle
        got_adr_next = Signal(30)
        fresh = Signal(32)
        kept = Signal(32)
        self.comb += fresh.eq(reduce(or_, [Replicate(pending[k], 32) & t.d.dat_r for k, t in enumerate(tcms)]))
        self.comb += [
            dbus.borrow_adr.eq(self.address),
            [dbus.borrow_re[k].eq(t.region.contains(self.address)) for k, t in enumerate(tcms)],
            issue.eq(Cat(*[dbus.port_free[k] & dbus.borrow_re[k] for k in range(len(tcms))])),
            writing.eq(Cat(*dbus.writing)),
            # The word read last cycle is registered as it arrives.
            got_next.eq(Mux(pending != 0, pending, got) & ~writing),
            got_adr_next.eq(Mux(pending != 0, pend_adr, got_adr)),
            self.data.eq(kept),
        ]
        self.sync += [
            pending.eq(issue),
            If(issue != 0, pend_adr.eq(self.address[2:])),
            If(pending != 0, kept.eq(fresh)),
            got.eq(got_next),
            got_adr.eq(got_adr_next),
            # Next cycle's `data` is this address's word and survives this
            # cycle's store.
            self.valid.eq((got_next != 0) & (got_adr_next == self.address[2:])),
        ]


class TightlyCoupled(Module):
    """The TCMs and both bus splits: connect the core's native buses to
    `ibus`/`dbus` (IBusSplit/DBusSplit), and `ibus.wb`/`dbus.wb` to the SoC;
    with `save_tcms`, FastIrqPlugin's save port to `save`."""
    def __init__(self, regions, inits=None, save_tcms=()):
        inits = inits or {}
        assert len({r.window for r in regions}) == len(regions), "two TCMs in one decode window"
        self.tcms = [TcmMemory(r, inits.get(r.name), savable=r.name in save_tcms) for r in regions]
        for t in self.tcms:
            setattr(self.submodules, t.region.name, t)
        self.save = SavePort() if save_tcms else None
        self.submodules.ibus = IBusSplit(self.tcms, self.save, save_tcms)
        self.submodules.dbus = DBusSplit(self.tcms)
        self.submodules.vector = VectorPrefetch(self.tcms, self.dbus)

    def memory(self, name):
        return next(t.mem for t in self.tcms if t.region.name == name)
