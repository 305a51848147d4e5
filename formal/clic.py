"""The CLIC (soc/clic.py) under proof: the generator and its jobs.

Size. The proofs run on CLIC(n_sources=5, ctl_bits=8, register_after=1):
output_delay D = 2, the SoC's (its 64-source tree has the register after 3
levels). Why 5 sources suffice for what is proven: every source is the same
bit slice of the pending/enable/attribute vectors (one vector statement per
register, _SourceRegs); the arbitration tree is one node, Mux(r >= l, r, l)
on (valid, enabled, clicintctl), repeated over pairs of (lower ids, higher
ids), so what a node does to two candidates it does at every level. Five
sources have every kind of place a candidate can take: both sides of a node,
a node fed by nodes, the tree's pipeline register in the middle, and the odd
source that skips a level (64 has none, the SoC's other sizes may). clicintctl
keeps its 8 bits so that every nlbits and every level/priority split is in.
What does not scale down is the decode of the id (3 bits here, 6 in the SoC):
a wider id is the same constant comparison per source.

Reset: asserted in the first cycle, free after (clic_props.sv).
"""

import functools
import os
import re

from migen.fhdl import verilog

from .sby import Job

HERE = os.path.dirname(os.path.abspath(__file__))

N_SOURCES = 5
CTL_BITS = 8
REGISTER_AFTER = 1


def _elaborate(n, ctl_bits, register_after):
    from irqlab.soc.clic import CLIC, CLICINTIP_BASE
    dut = CLIC(n_sources=n, ctl_bits=ctl_bits, register_after=register_after)
    ios = {dut.sources, dut.irq_valid, dut.irq_id, dut.irq_level, dut.irq_shv, dut.claim, dut.claim_id,
           dut.threshold, dut.threshold_alt, dut.irq_above, dut.irq_above_alt, dut.irq_id_kept}
    ios |= {getattr(dut.bus, name) for name, _, _ in dut.bus.layout}
    conv = verilog.convert(dut, ios=ios, name="clic")
    name = conv.ns.get_name
    aw = (dut.size.bit_length() - 1) - 2
    r = dut.regs
    if ctl_bits:
        ctl8 = [f"{{{name(c)}, {8 - ctl_bits}'b{'1' * (8 - ctl_bits)}}}" if ctl_bits < 8 else name(c)
                for c in r.ctl]
    else:
        ctl8 = ["8'hFF"] * n
    bind = {
        "sources": dut.sources, "ip": r.ip, "ie": r.ie, "shv": r.shv, "edge": r.edge, "neg": r.neg,
        "nlbits": dut.nlbits, "claim": dut.claim, "claim_id": dut.claim_id,
        "threshold": dut.threshold, "threshold_alt": dut.threshold_alt,
        "irq_valid": dut.irq_valid, "irq_id": dut.irq_id, "irq_level": dut.irq_level,
        "irq_shv": dut.irq_shv, "irq_above": dut.irq_above, "irq_above_alt": dut.irq_above_alt,
        "irq_id_kept": dut.irq_id_kept,
        "bus_cyc": dut.bus.cyc, "bus_stb": dut.bus.stb, "bus_we": dut.bus.we, "bus_ack": dut.bus.ack,
        "bus_adr": dut.bus.adr, "bus_sel": dut.bus.sel, "bus_dat_w": dut.bus.dat_w,
    }
    pre = [f"localparam F_N = {n};", f"localparam F_IDW = {len(dut.irq_id)};",
           f"localparam F_D = {dut.output_delay};", f"localparam F_AW = {aw};",
           f"localparam F_BASE = {CLICINTIP_BASE // 4};"]
    pre += [f"wire [{len(s) - 1}:0] f_{k} = {name(s)};" for k, s in bind.items()]
    pre.append(f"wire [{8 * n - 1}:0] f_ctl8 = {{{', '.join(reversed(ctl8))}}};")
    return str(conv), "\n".join(pre)


@functools.lru_cache(maxsize=None)
def generated(n=N_SOURCES, ctl_bits=CTL_BITS, register_after=REGISTER_AFTER):
    """(Verilog of the module, the f_* bindings), elaborated once per size."""
    return _elaborate(n, ctl_bits, register_after)


def with_properties(verilog_text, bindings, group):
    """The module with the property block inside, only `group` enabled."""
    with open(os.path.join(HERE, "clic_props.sv")) as f:
        props = f.read()
    block = f"`ifdef FORMAL\n{bindings}\n{props}\n`endif\n"
    head, sep, tail = verilog_text.rpartition("endmodule")
    assert sep, "no endmodule in the generated Verilog"
    return f"`define FP_{group.upper()}\n" + head + block + sep + tail


def mutate(text, pattern, replacement, count_at_least=1):
    """Apply a regex mutation to the generated Verilog; it must match."""
    new, k = re.subn(pattern, replacement, text, flags=re.M)
    if k < count_at_least:
        raise ValueError(f"mutation /{pattern}/ matches {k} times in the generated Verilog")
    return new


# Mutants: (name, property group that must catch it, what it breaks, pattern, replacement).
# Patterns are on the Verilog Migen generates for the size above.
MUTANTS = [
    ("tie_to_lower_id", "arbitration",
     "a tree node keeps its left (lower-id) candidate on equal keys",
     r"^(assign arb0_0 = \(\(\w+\[\d+:\d+\]) >= ", r"\1 > "),
    ("tree_reads_registered_ip", "arbitration",
     "the tree sees the registered pending bits, not `seen` (one cycle late)",
     r"^assign seen = .*;$", "assign seen = ip;"),
    ("one_hold_cycle", "arbitration",
     "after a claim irq_valid is held low one cycle, not D = 2",
     r"^(\s*)held <= claim;", r"\1held <= 1'd0;"),
    ("level_mask_off_by_one", "arbitration",
     "irq_level forces one low bit too many (nlbits < 9 - j)",
     r"\(nlbits < 4'd8\)", "(nlbits < 4'd9)"),
    ("above_or_equal", "threshold",
     "irq_above tests level >= threshold",
     r"\(valid & \(level > threshold\)\)", "(valid & (level >= threshold))"),
    ("prefetch_highest_enabled_id", "prefetch",
     "with nothing pending the tree ignores clicintctl (names the highest enabled id)",
     r"^assign (arbleaf\d+) = \((ie\[\d+\]) \? \{(seen\[\d+\]), 1'd1, (ctl\d+),",
     r"assign \1 = (\2 ? {\3, 1'd1, (\4 & {8{\3}}),"),
    ("id_kept_stuck", "prefetch",
     "irq_id_kept always 1",
     r"^(\s*)irq_id_kept <= \(.*\);", r"\1irq_id_kept <= 1'd1;"),
    ("edge_ignores_polarity", "pending",
     "an edge source is set by either edge of its line",
     r"^(\s*ip <= \(\(edge_1 & \(\(\(\(sources \^ lines_d\)) & \(sources \^ neg\)\)", r"\1)"),
    ("clear_wins_over_edge", "pending",
     "a software clear in the same cycle as an edge wins (the event is lost)",
     r"^(\s*ip <= \(\(edge_1 & \(\(\(\(sources \^ lines_d\) & \(sources \^ neg\))\)",
     r"\1 & ~({5{(~bus_dat_w[0])}} & (bus_sel[0] ? hit : 1'd0)))"),
    ("claim_clears_all_edges", "claim",
     "a claim clears every edge source's pending bit",
     r"^assign claimed = \(claim \? slice_proxy\d+\[\d+:0\] : 1'd0\);", f"assign claimed = {{{N_SOURCES}{{claim}}}};"),
    ("claim_ignored", "claim",
     "a claim clears nothing",
     r"^assign claimed = \(claim \? slice_proxy\d+\[\d+:0\] : 1'd0\);", "assign claimed = 1'd0;"),
]

PROPERTIES = {
    "arbitration": "irq_valid/id/level/shv: the pending-and-enabled source of x-D with the largest "
                   "(clicintctl, id), nlbits of x-1, none in the D cycles after a claim",
    "threshold": "irq_above(_alt): some pending-and-enabled source of x-D has a level above the "
                 "threshold of x-1, no claim since",
    "prefetch": "irq_id: the winner, else the most urgent enabled source, else 0 (never a source "
                "that cannot win); irq_id_kept = irq_id unchanged",
    "pending": "pending bits without a claim: level follows the corrected line, edge set by an "
               "edge of its polarity or software, cleared by software, a set winning",
    "claim": "a claim clears exactly the claimed edge source's bit, a same-cycle edge winning",
}

PROVE_DEPTH = 4      # D + 2: every register of the design and of the properties is set by then
MUTANT_DEPTH = 8     # BMC from reset: each mutant is caught within 4 cycles, 8 leaves margin


def migen_jobs(design, top, generated, with_properties, properties, mutants, prove_depth, mutant_depth):
    """The jobs of a design generated from Migen: each property group proven
    by k-induction to prove_depth(group), each mutant (name, group, about,
    pattern, replacement: a regex edit of the generated Verilog) by BMC from
    reset to mutant_depth, where it must fail."""
    out = []
    for group, about in properties.items():
        def text(group=group):
            v, b = generated()
            return with_properties(v, b, group)
        out.append(Job(design, group, text, top, "prove", prove_depth(group), about=about))
    for name, group, about, pattern, repl in mutants:
        def text(group=group, pattern=pattern, repl=repl):
            v, b = generated()
            return with_properties(mutate(v, pattern, repl), b, group)
        out.append(Job(design, group, text, top, "bmc", mutant_depth, mutant=name, about=about))
    return out


def jobs():
    return migen_jobs("clic", "clic", generated, with_properties, PROPERTIES, MUTANTS,
                      lambda group: PROVE_DEPTH, MUTANT_DEPTH)
