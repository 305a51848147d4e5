"""CLIC: the memory-mapped part of the RISC-V Core-Local Interrupt Controller.

Follows the CLIC draft v0.9 of 2021-07-20, machine mode only (nmbits = 0,
every interrupt is an M-mode interrupt).

    sources ─► pending bits ─► pending & enabled ─► comparator tree ─► irq_* (registered)
    bus ─────► cliccfg, clicintie/attr/ctl ──────────────┘      ▲
    claim, claim_id ─► clear edge pending bit ───────────────────┘ (and hold irq_valid)

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
          cycle as a clear wins, so no event is lost.

Arbitration: the maximum of (clicintctl, id) over pending-and-enabled sources,
i.e. the largest clicintctl and, among equals, the highest ID (spec rule).
irq_level is the winner's clicintctl with its low 8 - nlbits bits forced to 1.

Latency: a source edge (or level change) in cycle t sets the pending bit in
t+1 and shows on irq_valid/irq_id/irq_level/irq_shv in t+2. A claim in cycle c
clears the pending bit in c+1; the outputs of c+1 were still computed from
the old pending bit, so irq_valid is forced low in c+1, and from c+2 on the
outputs reflect the claim.

Not implemented: clicinttrig, S/U-mode windows and nmbits, the CSR side
(mtvt, mnxti, mintstatus, mintthresh: that is the core's job), threshold
masking (the core compares irq_level with its threshold).
"""

from migen import *

from litex.soc.interconnect import wishbone

CLICINTIP_BASE = 0x1000   # byte offset of clicintip[0]


class _Source(Module):
    """One interrupt input: its pending bit and its four byte registers.

    Inputs are taken as expressions, not copied into signals: the Migen
    simulator re-evaluates every comb statement on each pass, which would make
    large CLICs slow to simulate."""
    def __init__(self, line, hit, sel, dat_w, clear, ctl_bits):
        self.ip = Signal()
        self.ie = Signal()
        self.shv = Signal()
        self.edge = Signal()        # trig[0]
        self.neg = Signal()         # trig[1]
        self.ctl = Signal(ctl_bits) if ctl_bits else None

        # Edge: the line changed and its new value, polarity-corrected, is 1.
        line_d = Signal()
        hw_set = (line ^ line_d) & (line ^ self.neg)
        sw_ip = hit & sel[0]
        self.sync += [
            line_d.eq(line),
            If(self.edge,
                If(hw_set | (sw_ip & dat_w[0]), self.ip.eq(1)
                ).Elif((sw_ip & ~dat_w[0]) | clear, self.ip.eq(0))
            ).Else(
                self.ip.eq(line ^ self.neg)
            ),
            If(hit,
                If(sel[1], self.ie.eq(dat_w[8])),
                If(sel[2],
                    self.shv.eq(dat_w[16]),
                    self.edge.eq(dat_w[17]),
                    self.neg.eq(dat_w[18])),
                If(sel[3], *([self.ctl.eq(dat_w[32 - ctl_bits:32])] if ctl_bits else []))
            )
        ]

        # clicintctl as read: unimplemented low bits are 1.
        self.ctl8 = Cat(Replicate(1, 8 - ctl_bits), self.ctl) if ctl_bits else Constant(0xff, 8)
        self.word = Cat(
            self.ip, Replicate(0, 7),
            self.ie, Replicate(0, 7),
            self.shv, self.edge, self.neg, Replicate(0, 3), Constant(0b11, 2),
            self.ctl8)


def _arbitrate(module, leaves, ctl_bits):
    """Comparator tree over leaves in ID order; returns the winner.

    A candidate is a signal packing (shv, id, ctl, valid) from the LSB up.
    Pairs are always (lower IDs, higher IDs), so taking the right side on
    equal ctl gives the highest-ID tie rule without comparing IDs; an invalid
    pair yields an invalid node."""
    width = len(leaves[0])
    level = leaves
    depth = 0
    while len(level) > 1:
        nxt = []
        for k in range(0, len(level) - 1, 2):
            l, r = level[k], level[k + 1]
            right = r[-1]
            if ctl_bits:
                lctl, rctl = l[-1 - ctl_bits:-1], r[-1 - ctl_bits:-1]
                right = r[-1] & (~l[-1] | (rctl >= lctl))
            n = Signal(width, name=f"arb{depth}_{k // 2}")
            module.comb += n.eq(Mux(right, r, l))
            nxt.append(n)
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
        depth += 1
    return level[0]


class CLIC(Module):
    def __init__(self, n_sources=64, ctl_bits=8):
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
        self.size = 1 << (CLICINTIP_BASE + 4 * n_sources - 1).bit_length()

        # Bus decode: word offset within the region.
        aw = log2_int(self.size) - 2
        adr = Signal(aw)
        access = Signal()
        write = Signal()
        self.comb += [
            adr.eq(bus.adr[:aw]),
            access.eq(bus.cyc & bus.stb & ~bus.ack),   # first cycle only: one effect per access
            write.eq(access & bus.we),
        ]
        self.sync += bus.ack.eq(bus.cyc & bus.stb & ~bus.ack)

        base = CLICINTIP_BASE // 4
        in_src = Signal()
        idx_w = max(1, log2_int(n_sources, need_pow2=False))
        idx = Signal(idx_w)
        self.comb += [
            in_src.eq((adr >= base) & (adr < base + n_sources)),
            idx.eq(adr - base),
        ]

        # cliccfg: only nlbits is writable; WARL, values above 8 store 8.
        self.nlbits = nlbits = Signal(4)
        self.sync += If(write & (adr == 0) & bus.sel[0],
            If(bus.dat_w[4], nlbits.eq(8)).Else(nlbits.eq(bus.dat_w[1:5]))
        )
        cliccfg = Cat(Constant(1, 1), nlbits, Constant(0, 3))
        clicinfo = Constant(n_sources | (ctl_bits << 21), 32)

        # Sources.
        srcs = []
        for i in range(n_sources):
            s = _Source(line=self.sources[i],
                        hit=write & (adr == base + i),
                        sel=bus.sel, dat_w=bus.dat_w,
                        clear=self.claim & (self.claim_id == i),
                        ctl_bits=ctl_bits)
            self.submodules += s
            srcs.append(s)
        self.srcs = srcs

        # Read data, registered with the ack.
        words = Array(s.word for s in srcs)
        self.sync += If(in_src, bus.dat_r.eq(words[idx])
            ).Elif(adr == 0, bus.dat_r.eq(cliccfg)
            ).Elif(adr == 1, bus.dat_r.eq(clicinfo)
            ).Else(bus.dat_r.eq(0))

        # Arbitration. Comparing the stored ctl bits equals comparing the read
        # value: the low bits are 1 everywhere.
        id_w = len(self.irq_id)
        leaves = []
        for i, s in enumerate(srcs):
            ctl = [s.ctl] if ctl_bits else []
            leaves.append(Cat(s.shv, Constant(i, id_w), *ctl, s.ip & s.ie))
        best = Signal(len(leaves[0]))
        self.comb += best.eq(_arbitrate(self, leaves, ctl_bits))
        best_shv, best_id, best_valid = best[0], best[1:1 + id_w], best[-1]
        best_ctl8 = Constant(0xff, 8)
        if ctl_bits:
            best_ctl8 = Cat(Replicate(1, 8 - ctl_bits), best[1 + id_w:1 + id_w + ctl_bits])

        # Level mask: bit j is forced to 1 when it lies below the nlbits level bits.
        level_mask = Cat(*[nlbits + j < 8 for j in range(8)])

        # Outputs. A claim in cycle c clears the pending bit for c+1, but the
        # outputs of c+1 are computed in c: suppress them so the core never
        # sees the claimed interrupt twice.
        self.sync += [
            self.irq_valid.eq(best_valid & ~self.claim),
            self.irq_id.eq(best_id),
            self.irq_level.eq(best_ctl8 | level_mask),
            self.irq_shv.eq(best_shv),
        ]
