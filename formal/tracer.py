"""The trace unit (soc/tracer.py) under proof: the generator and its jobs.

Abstraction. TraceUnit(n_hw=2, n_pc_match=1, n_stats=0, class_fifo_depth=2,
fifo_depth=2, beat_bytes=18): the same merge, drop accounting, OVERFLOW and
TIME_HI logic and timestamp as the SoC's (which has 32 lines, 4 comparators,
class FIFOs of 8 and a record FIFO of 1024, a byte a beat), with FIFOs that
fill in two cycles, so every full/empty combination and every drop is
reachable in a few steps. What it assumes: that Migen's SyncFIFO keeps order
and loses nothing whatever its depth (the class FIFOs' order is proven here
for depth 2, with the invariants in tracer_props.sv); that the number of
lines and comparators changes only the width of a payload and of the OR that
makes an event (one record per class and cycle either way); the latency
statistics (n_stats) read the capture stage and feed nothing back. The CSRs
are not on a bus here: their storage and strobes are free inputs, so any
value can appear in any cycle (more than software can do). The serializer
and the byte stream are outside the properties (tests/test_tracer.py).
"""

import functools
import os

from migen import Memory
from migen.fhdl import verilog

from .clic import migen_jobs, mutate
from .sby import Job

HERE = os.path.dirname(os.path.abspath(__file__))
N_CLASSES = 3


def _types():
    from irqlab.host import record as rec
    return [rec.TYPE_HW, rec.TYPE_SW, rec.TYPE_CORE, rec.TYPE_CONSOLE]


TYPES = _types()


def _local(conv, name):
    """The generated name of the one signal called `name` (a local of TraceUnit)."""
    hits = [s for s in conv.ns.pnd if getattr(s, "backtrace", None) and s.backtrace[-1][0] == name]
    if len(hits) != 1:
        raise ValueError(f"{len(hits)} signals named {name!r} in the trace unit")
    return conv.ns.get_name(hits[0])


def _elaborate():
    from irqlab.soc.tracer import TraceUnit
    t = TraceUnit(n_hw=2, n_pc_match=1, n_stats=0, fifo_depth=2, class_fifo_depth=2, beat_bytes=18)
    # The stream's data is left out (an internal signal yosys removes, with the
    # frame register and the CRC behind it): no property reads it.
    ios = {t.hw_lines, t.source.valid, t.source.ready,
           t.console.valid, t.console.ready, t.console.data}
    ios |= {getattr(t.bus, n) for n, _, _ in t.bus.layout}
    ios |= {getattr(t.retire, n) for n in ("valid", "pc", "trap", "cause", "mret", "trap_delay",
                                            "exec_valid", "exec_pc")}
    for c in t.get_csrs():       # no CSR bank: the storage and strobes are free inputs
        for a in ("storage", "re", "r", "status", "we"):
            if hasattr(c, a):
                ios.add(getattr(c, a))
    conv = verilog.convert(t, ios=ios, name="tracer")
    name = conv.ns.get_name
    bind = {"ts": t.ts, "ts_core": t.ts_core, "load": t._ts_load.re, "drops": t._drops.status,
            "rwe": t.fifo.we, "rwritable": t.fifo.writable, "rdin": t.fifo.din}
    lines = []
    fifos = [getattr(t, f"class_fifo{i}") for i in range(N_CLASSES)] + [t.console_fifo]
    for c, f in enumerate(fifos):
        bind.update({f"we{c}": f.we, f"writable{c}": f.writable, f"re{c}": f.re,
                     f"readable{c}": f.readable, f"din{c}": f.din, f"dout{c}": f.dout, f"level{c}": f.level})
        # Its memory, for the FIFO facts.
        mem = [s for s in f._fragment.specials if isinstance(s, Memory)]
        assert len(mem) == 1 and mem[0].depth == 2, "FIFOs of depth 2"
        wr = [p for p in mem[0].ports if p.we is not None]
        rd = [p for p in mem[0].ports if p.we is None]
        assert len(wr) == 1 and len(rd) == 1
        # the write address is produce (replace is never used), the read address consume
        bind[f"produce{c}"] = wr[0].adr
        bind[f"consume{c}"] = rd[0].adr
        m = name(mem[0])
        lines += [f"wire [119:0] f_rec{c}_{k} = {m}[{k}];" for k in range(2)]
    pre = [f"wire [{len(s) - 1}:0] f_{k} = {name(s)};" for k, s in bind.items()]
    for k in ("pending", "report", "last_was_overflow", "time_hi_pending"):
        pre.append(f"wire [{32 - 1 if k == 'pending' else 0}:0] f_{k} = {_local(conv, k)};")
    return str(conv), "\n".join(pre + lines)


@functools.lru_cache(maxsize=None)
def generated():
    return _elaborate()


def _expand(props, marker, substitutions):
    """Write the block between `// <marker>_BEGIN` and `// <marker>_END` once per substitution."""
    head, begin, rest = props.partition(f"// {marker}_BEGIN")
    template, end, tail = rest.partition(f"// {marker}_END")
    assert begin and end, marker
    template = template.split("\n", 1)[1]
    out = []
    for sub in substitutions:
        t = template
        for k, v in sub.items():
            t = t.replace(k, v)
        out.append(t)
    return head + "".join(out) + tail


def with_properties(verilog_text, bindings, group):
    with open(os.path.join(HERE, "tracer_props.sv")) as f:
        props = f.read()
    props = _expand(props, "F_FIFO", [{"<c>": str(c), "<T>": f"8'd{t}"} for c, t in enumerate(TYPES)])
    now = ["f_ts[47:0]", "f_ts[47:0]", "f_ts_core"]
    props = _expand(props, "F_CLASS", [{"<c>": str(c), "<NOW>": now[c]} for c in range(N_CLASSES)])
    block = f"`ifdef FORMAL\n{bindings}\n{props}\n`endif\n"
    h, sep, t = verilog_text.rpartition("endmodule")
    return f"`define FP_{group.upper()}\n" + h + block + sep + t


MUTANTS = [
    ("drops_one_per_cycle", "account",
     "the drop count adds one per cycle however many classes dropped",
     r"^assign n_new = \(\(\(1'd0 \+ (\w+)\) \+ (\w+)\) \+ (\w+)\);", r"assign n_new = ((\1 | \2) | \3);"),
    ("report_forgets_new_drops", "account",
     "drops in the cycle of an OVERFLOW report are not kept pending",
     r"^(\s*)pending <= n_new;", r"\1pending <= 1'd0;"),
    ("merge_ignores_full", "account",
     "the merge moves a record when the record FIFO is full (lost silently)",
     r"^(\s*)if \(\w+\) begin\n(\s*)if \(time_hi_pending\) begin", r"\1if (1'd1) begin\n\2if (time_hi_pending) begin"),
    ("overflow_waits_for_idle", "report",
     "OVERFLOW only when no class has a record (starved under load)",
     r"\(\(pending != 1'd0\) & \(\(~last_was_overflow\) \| \(~any_class\)\)\)", "((pending != 1'd0) & (~any_class))"),
    ("timestamp_stops", "mono",
     "the timestamp counter stops at 5",
     r"^(\s*)ts <= \(ts \+ 1'd1\);", r"\1ts <= (ts + (ts[2:0] != 3'd5));"),
    ("fifo_reads_other_slot", "mono",
     "the class FIFOs present the slot after the oldest one",
     r"^assign (\w+_rdport_dat_r) = (\w+)\[(\w+_rdport_adr)\];", r"assign \1 = \2[~\3];"),
]

PROPERTIES = {
    "account": "no event lost without a count: drops CSR = events offered to a full class FIFO, "
               "OVERFLOW payloads + pending = drops, class FIFO -> record FIFO unchanged, never into a full one",
    "report": "drops pending: the first or second cycle with room in the record FIFO (no TIME_HI due) "
              "writes the OVERFLOW record",
    "mono": "timestamp counts one a cycle; per class, stamps into the class FIFO and from it into "
            "the record FIFO strictly increase (no ts_load, no 48-bit wrap)",
}

PROVE_DEPTH = {"account": 3, "report": 3, "mono": 4}
MUTANT_DEPTH = 8


def jobs():
    return migen_jobs("tracer", "tracer", generated, with_properties, PROPERTIES, MUTANTS,
                      PROVE_DEPTH.__getitem__, MUTANT_DEPTH)
