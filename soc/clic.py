"""CLIC: the memory-mapped part of the RISC-V Core-Local Interrupt Controller.

Follows the CLIC draft v0.9 of 2021-07-20, machine mode only (nmbits = 0,
every interrupt is an M-mode interrupt).

    sources ──► pending bits ───────┐
    bus ──────► clicintie/attr/ctl ─┼─► comparator tree ─► irq_valid/id/level/shv
    bus ──────► cliccfg.nlbits ─────┘                      (registered)
    claim, claim_id ──► clear that edge pending bit, hold irq_valid low one cycle

Register map (byte offsets; the slave decodes only the low address bits, so
the block is aliased every `size` bytes):
  0x0000        cliccfg   [0] nvbits = 1 (RO: clicintattr.shv is implemented),
                          [4:1] nlbits (WARL 0..8, larger writes store 8),
                          [6:5] nmbits = 0 (RO), [7] 0
  0x0004        clicinfo  [12:0] num_interrupt = n_sources, [20:13] version = 0
                          (no version numbering in this implementation),
                          [24:21] CLICINTCTLBITS = ctl_bits, [30:25] num_trigger = 0
  0x1000+4*i    byte 0 clicintip[i]    [0] pending
                byte 1 clicintie[i]    [0] enable
                byte 2 clicintattr[i]  [0] shv, [2:1] trig (bit 1: edge, bit 2:
                                       negative polarity), [7:6] mode = 11 (RO)
                byte 3 clicintctl[i]   top ctl_bits bits stored, the rest read 1
Everything else (clicinttrig included) reads 0 and ignores writes. Each byte
lane is written only when its `sel` bit is set.

Pending bit of source i (one register, its meaning follows trig):
  level   the polarity-corrected input, registered; software writes ignored.
  edge    set by an edge of the chosen polarity (the input is compared with
          its own registered copy), set/cleared by software writes of bit 0,
          cleared by `claim` with claim_id == i. A hardware edge in the same
          cycle as a clear wins, so no event is lost. After a switch from
          level to edge the bit keeps the last level (the spec leaves it
          undefined).

Arbitration: the maximum of (clicintctl, id) over pending-and-enabled sources,
i.e. the largest clicintctl and, among equals, the highest ID (spec rule).
irq_level is the winner's clicintctl with its low 8 - nlbits bits forced to 1.

The comparator tree is log2(n_sources) levels deep within one cycle, or, with
`register_after=k`, split by a register after k levels (the SoC uses 3: the
64-source tree in one cycle limited the ECP5 to 39 MHz); that register adds a
cycle to the latency below and to the hold after a claim.
irq_id/irq_level/irq_shv are meaningful only while irq_valid is 1; while
nothing is pending, irq_id names the enabled source with the largest
(clicintctl, id), the most urgent one (0 if none): the core's pointer
prefetch (soc/tcm.py VectorPrefetch) reads that source's table entry ahead,
so its next interrupt enters without waiting for it. (Until the matrix's T4
showed it, this was the highest-ID enabled source whatever its level: a
line at the top level among enabled lower ones paid the 2-cycle table read.)

Latency: a source edge (or level change) in cycle t sets the pending bit in
t+1 and shows on irq_valid/irq_id/irq_level/irq_shv in t+1: the tree sees
the pending bits with the cycle's hardware changes already in (`seen`), so
the pending bit's register is not on the way from a line to the outputs. A
claim in cycle c clears the pending bit in c+1; the outputs of c+1 were
still computed from the old pending bit, so irq_valid is forced low in c+1
(for any claim), and from c+2 on the outputs reflect the claim. A bus write
requested in cycle c (acked in c+1) takes effect in c+1 and reaches the
outputs in c+2; there is no hold for it, so in the ack cycle the outputs
still show the old state. (While the tree read the registered bits, a line
reached the outputs in t+2.)

Verdicts: registered with the outputs, for the core's interrupt decision
(cores/: TrapCsrPlugin, which gives `threshold`, max(mil, mintthresh), and
`threshold_alt`, the same after its instruction in execute if that acts),
so the decision starts at registers and no comparator lies on the core's
path from it to the fetch pc (the ULX3S's 50 MHz):
  irq_above      in t+1: irq_valid & (irq_level > threshold of t)
  irq_above_alt  in t+1: irq_valid & (irq_level > threshold_alt of t)
  irq_id_kept    in t+1: irq_id equals irq_id of t (1 after reset)
The comparators see this cycle's thresholds, so they are the arbitration
tree's path into registers, never into the core's fetch.

Not implemented: clicinttrig, S/U-mode windows and nmbits, the CSR side
(mtvt, mnxti, mintstatus, mintthresh: that is the core's job), threshold
masking beyond the verdicts (the core chooses which one it takes).
"""

from migen import *

from litex.soc.interconnect import wishbone

CLICINTIP_BASE = 0x1000   # byte offset of clicintip[0]


def _onehot(index, n):
    """n-bit one-hot of `index` (0 when index >= n), as an expression."""
    return (Constant(1, n) << index)[:n]


def _ctl8(stored, ctl_bits):
    """8-bit clicintctl from its stored top bits; the missing low bits are 1."""
    if ctl_bits == 0:
        return Constant(0xff, 8)
    if ctl_bits == 8:
        return stored      # no empty replication: {0{..}} is not legal Verilog
    return Cat(Replicate(1, 8 - ctl_bits), stored)


def _write_bit(vec, onehot, value):
    """Write `value` into the bits of vec selected by onehot, keep the others."""
    return vec.eq((vec & ~onehot) | (Replicate(value, len(vec)) & onehot))


class _SourceRegs(Module):
    """Per-source state: pending bits and the clicintie/attr/ctl registers.

    The one-bit fields of all sources are kept as n-bit vectors (bit i is
    source i), so the pending logic is one vector statement: this keeps large
    CLICs quick to build and to simulate in Migen."""
    def __init__(self, n, ctl_bits, lines, we, index, sel, dat_w, claim, claim_id):
        self.ip = Signal(n)
        self.ie = Signal(n)
        self.shv = Signal(n)
        self.edge = Signal(n)       # clicintattr.trig[0]
        self.neg = Signal(n)        # clicintattr.trig[1]
        self.ctl = [Signal(ctl_bits, name=f"ctl{i}") for i in range(n)] if ctl_bits else []

        hit = Signal(n)             # the source addressed by this write
        claimed = Signal(n)
        lines_d = Signal(n)
        self.comb += [
            hit.eq(Mux(we, _onehot(index, n), 0)),
            claimed.eq(Mux(claim, _onehot(claim_id, n), 0)),
        ]

        # Pending: level sources follow the corrected line; edge sources are
        # set by an edge whose new value, corrected, is 1, or by software, and
        # cleared by software or a claim, a set winning over a clear.
        level = lines ^ self.neg
        hw_set = (lines ^ lines_d) & level
        sw_ip = Mux(sel[0], hit, 0)
        sw_set = Replicate(dat_w[0], n) & sw_ip
        clear = (Replicate(~dat_w[0], n) & sw_ip) | claimed
        # What the arbitration sees: the pending bits with this cycle's
        # hardware changes already in (an edge sets, a level follows its
        # line), one cycle before the bits hold them. Software writes and
        # claims act through the bits only (their paths, from the bus and
        # from the core's trap decision, stay off the tree).
        self.seen = Signal(n)
        self.comb += self.seen.eq((self.edge & (hw_set | self.ip)) | (~self.edge & level))
        self.sync += [
            lines_d.eq(lines),
            self.ip.eq((self.edge & (hw_set | sw_set | (self.ip & ~clear))) | (~self.edge & level)),
            If(sel[1], _write_bit(self.ie, hit, dat_w[8])),
            If(sel[2],
                _write_bit(self.shv, hit, dat_w[16]),
                _write_bit(self.edge, hit, dat_w[17]),
                _write_bit(self.neg, hit, dat_w[18])),
        ]
        # One decoded write rather than a write enable per register: the
        # simulator then tests one condition a cycle, not n.
        if self.ctl:
            self.sync += If(we & sel[3], Case(index, {i: c.eq(dat_w[32 - ctl_bits:32])
                                                      for i, c in enumerate(self.ctl)}))

        # The words as read; unimplemented clicintctl bits read 1.
        self.ctl8 = [_ctl8(c, ctl_bits) for c in self.ctl] or [_ctl8(None, 0)] * n
        self.words = [Cat(self.ip[i], Replicate(0, 7),
                          self.ie[i], Replicate(0, 7),
                          self.shv[i], self.edge[i], self.neg[i], Replicate(0, 3), Constant(0b11, 2),
                          self.ctl8[i])
                      for i in range(n)]


class _Arbiter(Module):
    """Comparator tree: the pending-and-enabled source with the largest
    (clicintctl, id).

    Candidates pack (shv, id, ctl, enabled, valid) from the LSB up, and a
    source that is not enabled is all zero. Each node keeps the larger of
    its two candidates by their top bits (valid, enabled, ctl): pairs are
    always (lower IDs, higher IDs), so taking the right side on equal keys
    gives the highest-ID tie rule without comparing IDs. With nothing
    pending the tree names the enabled source with the largest (clicintctl,
    id), the most urgent one (the id the core's pointer prefetch reads ahead
    for, soc/tcm.py VectorPrefetch), and with nothing enabled it yields zero.

    One unsigned compare and one select per node, rather than separate
    tests of the valid, enabled and ctl fields: the same choice, and the
    simulator evaluates the tree some eight times faster (it is evaluated
    every cycle)."""
    def __init__(self, leaves, key_lsb, register_after=None):
        self.best = Signal(len(leaves[0]))
        self.stages = 0          # registers inside the tree (added latency)
        nodes = leaves
        depth = 0
        while len(nodes) > 1:
            if register_after and depth == register_after:
                # A pipeline register across the tree: Fmax for wide CLICs.
                regs = []
                for k, n in enumerate(nodes):
                    r = Signal(len(n), name=f"arbreg_{k}")
                    self.sync += r.eq(n)
                    regs.append(r)
                nodes = regs
                self.stages = 1
            nxt = []
            for k in range(0, len(nodes) - 1, 2):
                l, r = nodes[k], nodes[k + 1]
                node = Signal(len(self.best), name=f"arb{depth}_{k // 2}")
                self.comb += node.eq(Mux(r[key_lsb:] >= l[key_lsb:], r, l))
                nxt.append(node)
            if len(nodes) % 2:
                nxt.append(nodes[-1])
            nodes = nxt
            depth += 1
        self.comb += self.best.eq(nodes[0])


class CLIC(Module):
    def __init__(self, n_sources=64, ctl_bits=8, register_after=None):
        assert 1 <= n_sources <= 4096, "the CLIC memory map holds 1..4096 inputs"
        assert 0 <= ctl_bits <= 8
        self.n_sources = n_sources
        self.ctl_bits = ctl_bits

        self.sources = Signal(n_sources)
        self.bus = bus = wishbone.Interface(data_width=32, address_width=32, addressing="word")
        self.irq_valid = Signal()
        self.irq_id = Signal(max(1, log2_int(n_sources, need_pow2=False)))
        self.irq_level = Signal(8)
        self.irq_shv = Signal()
        self.claim = Signal()
        self.claim_id = Signal(len(self.irq_id))
        # The core's level test, registered here (see "Verdicts" above).
        self.threshold = Signal(8)
        self.threshold_alt = Signal(8)
        self.irq_above = Signal()
        self.irq_above_alt = Signal()
        self.irq_id_kept = Signal(reset=1)
        self.size = 1 << (CLICINTIP_BASE + 4 * n_sources - 1).bit_length()

        # Bus decode: word offset within the region.
        aw = log2_int(self.size) - 2
        adr = Signal(aw)
        write = Signal()
        base = CLICINTIP_BASE // 4
        in_src = Signal()
        index = Signal(len(self.irq_id))
        self.comb += [
            adr.eq(bus.adr[:aw]),
            write.eq(bus.cyc & bus.stb & ~bus.ack & bus.we),   # first cycle only: one effect per access
            in_src.eq((adr >= base) & (adr < base + n_sources)),
            index.eq(adr - base),
        ]
        self.sync += bus.ack.eq(bus.cyc & bus.stb & ~bus.ack)

        # cliccfg: only nlbits is writable; WARL, values above 8 store 8.
        self.nlbits = nlbits = Signal(4)
        self.sync += If(write & (adr == 0) & bus.sel[0],
            If(bus.dat_w[4], nlbits.eq(8)).Else(nlbits.eq(bus.dat_w[1:5]))
        )
        cliccfg = Cat(Constant(1, 1), nlbits, Constant(0, 3))
        clicinfo = Constant(n_sources | (ctl_bits << 21), 32)

        self.submodules.regs = regs = _SourceRegs(
            n_sources, ctl_bits, lines=self.sources, we=write & in_src, index=index,
            sel=bus.sel, dat_w=bus.dat_w, claim=self.claim, claim_id=self.claim_id)

        # Read data, registered with the ack.
        word = Signal(32)
        self.comb += word.eq(Array(regs.words)[index])
        self.sync += If(in_src, bus.dat_r.eq(word)
            ).Elif(adr == 0, bus.dat_r.eq(cliccfg)
            ).Elif(adr == 1, bus.dat_r.eq(clicinfo)
            ).Else(bus.dat_r.eq(0))

        # Arbitration. Comparing the stored ctl bits equals comparing the read
        # value: the low bits are 1 everywhere.
        id_w = len(self.irq_id)
        leaf_w = 1 + id_w + ctl_bits + 2
        leaves = []
        for i in range(n_sources):
            leaf = Signal(leaf_w, name=f"arbleaf{i}")
            self.comb += leaf.eq(Mux(regs.ie[i], Cat(regs.shv[i], Constant(i, id_w), *regs.ctl[i:i + 1],
                                                     Constant(1, 1), regs.seen[i]), 0))
            leaves.append(leaf)
        self.submodules.arbiter = _Arbiter(leaves, key_lsb=1 + id_w, register_after=register_after)
        best = self.arbiter.best
        # Cycles from a pending bit to the outputs (the host's CLIC model uses it).
        self.output_delay = 1 + self.arbiter.stages
        best_shv, best_id, best_valid = best[0], best[1:1 + id_w], best[-1]
        best_ctl8 = _ctl8(best[1 + id_w:1 + id_w + ctl_bits], ctl_bits)

        # Level mask: bit j is forced to 1 when it lies below the nlbits level bits.
        level_mask = Cat(*[nlbits < 8 - j for j in range(8)])

        # Outputs. A claim in cycle c clears the pending bit for c+1, but the
        # outputs of c+1 are computed in c: suppress them so the core never
        # sees the claimed interrupt twice.
        # With a register inside the tree the outputs are one cycle older:
        # hold for that cycle too.
        stale = self.claim
        for _ in range(self.arbiter.stages):
            held = Signal()
            self.sync += held.eq(stale)
            stale = stale | held
        valid = Signal()
        level = Signal(8)
        self.comb += [valid.eq(best_valid & ~stale), level.eq(best_ctl8 | level_mask)]
        self.sync += [
            self.irq_valid.eq(valid),
            self.irq_id.eq(best_id),
            self.irq_level.eq(level),
            self.irq_shv.eq(best_shv),
            self.irq_above.eq(valid & (level > self.threshold)),
            self.irq_above_alt.eq(valid & (level > self.threshold_alt)),
            self.irq_id_kept.eq(best_id == self.irq_id),
        ]
