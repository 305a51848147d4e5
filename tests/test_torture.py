"""The random interrupt torture test of the CLIC rows (fw/torture), checked
from the trace.

Per row with the CLIC (hardware vectoring like clic, or the mnxti
trampoline like clic-nv: the row's feature hw_vectoring) and seed,
one run of the firmware: the checksum workload (fw/torture/workload.c, every
register x1..x31 live) runs once with interrupts off, then again from the same
start state under a storm of random interrupts (random levels, priorities,
edge/level triggers and edge polarities; generator lines on their sources
(the SoC's interrupt map, soc.json), handlers pending random groups of the
free sources; nesting).

What is checked, and how:

 * Result: the final state (30 registers and the 128-word buffer) of the storm
   pass equals the quiet pass's word for word, and both equal qemu-riscv32
   running the same workload.c (skipped if qemu-riscv32 is missing). On a
   core with task contexts the storm pass runs a second workload in context
   1, each yielding into the other (tyield) after every turn; its final
   state must equal the quiet pass's too (negative control: a register
   reload after the switch broken in the image). With a third context, one
   edge-triggered generator source is bound to it: its edges switch the
   core from context 1's workload, at any instruction, straight into the
   bound task, which yields back into it. The source is at the top level,
   so no interrupt nests before the bound task's first retirement (a
   handler run there would hide the claim; the bound task is not
   preempted, its handlers' nesting is tested everywhere else).
 * Bound switches. The bound task's every run starts at one pc, which PC
   comparator 0 watches: its retirement, BOUND_TAKE_TO_EXECUTE + 2 cycles
   after the take, gives the claim. A bound switch opens a frame of its own
   (from task code only: no trap frame open, mil and mintthresh 0), sets
   mintthresh to the source's level until the bound task's exit, and takes
   part in every check below as a handler run does; it uses the match the
   core registered from irq_id the cycle before (valid or not: the model's
   shown id), so irq_id must have named the source then (negative control:
   the claim placed one cycle earlier fails that check).
 * Claims are exact. The trace unit records every trap entry and mret of the
   core (retire port) and, in the clic-nv build, every retirement of the
   trampoline's mnxti instructions (PC comparators). A claim (the cycle the
   CLIC's edge pending bit is cleared) is the cycle the core took the trap in
   the clic build, and the mnxti's execute cycle in clic-nv. The core takes
   an interrupt between memory and execute; the older instructions still in
   memory and writeBack retire after that, and the retire port shows the
   trap in the first cycle without a retirement, up to 2 cycles late, with
   the delay in the trap record: taken = stamp - delay. An mret or a CSR
   instruction acts in execute and retires 2 cycles later (memory and
   writeBack never hold it), so one in memory when the trap is taken is
   older than the trap but may retire after it is shown: core events are
   read in the order the core acted (core_order). Which mnxti claimed which
   source follows from the frame structure: traps and mrets delimit
   trampoline frames, and the first handler entry event inside a frame
   after an mnxti belongs to it.
 * The fastirq rows (the SoC's feature IRQLAB_HAS_FASTIRQ: the core switches
   banks and saves the context itself, cores/README.md) fit the same frames.
   Their handlers return with emret, which the retire port shows as an mret;
   a tail chain (emret goes straight to the next pending interrupt) is that
   mret and a trap acting in the same cycle (emret's execute cycle: the trap
   record's delay is 3), which no mret does (its next trap is a cycle later
   at the earliest): counted as tail_chains, > 10 required on fastirq rows,
   0 on the others. After a nested entry emret falls through and the
   entry's restore path ends the frame with an mret. The non-vectored
   fastirq entry claims with its one mnxti (csrrci, MIE=0 from the trap, so
   mcause is its own trap's) and serves one handler per trap frame (a chain
   opens the next frame); the vectored one, as clic, one per trap.
 * The CLIC's state is then known at every cycle: the traced generator
   edges, the firmware's pend events (written with MIE=0 before the event,
   so no claim can fall in between) and the claims are replayed through the
   reference model of the CLIC (irqlab.host.clicmodel: its cycle contract is
   soc/clic.py's, with the output delay the SoC exports in soc.json), which
   gives the pending bits and the CLIC's outputs in every cycle.
 * Exactly once, per source: generator edges are not kept apart by design:
   two edges of the same source before its claim merge into one pending bit,
   and this is detected and accounted explicitly: every claim must consume
   at least one edge (edges in [previous claim, claim)), no edge may be left
   unclaimed at the end, and the merged edges are counted. Software pends
   (the firmware only pends a source that is not pending) must be consumed
   one per claim. Level sources: exactly one claim per high phase of the
   line, the line falling (the handler's acknowledge) between that handler's
   entry and exit, except a request cut off by stopping the generator at the
   end (counted explicitly). Handler entries per source in the trace =
   claims = the firmware's own counters.
 * Order: at every claim and every trap entry, the source taken is the
   highest-ranked pending-and-enabled source (clicintctl, i.e. level then
   priority with nlbits in 1..4, then the higher ID) of the pending state
   above; pend groups of two or more are served in rank order.
 * Preemption: a claim while other handlers are active (claimed, not yet
   exited) has a strictly higher level than each of them; every trap is above
   mil and mintthresh, every mnxti claim above mcause.mpil and mintthresh, and
   an mnxti that returned nothing had no winner above both (clic-nv: a missed
   claim). One handler in eight sets a random mintthresh until its exit (the
   firmware logs each write), so the threshold takes part.
 * Levels: mil and mcause are replayed through the trace (trap: mpil = mil,
   mil = the winner's level; mnxti claim: mil and the mcause code; mret: back
   to the trap's mpil; clic-nv: what a nested trampoline leaves in mcause).
   mintstatus.mil read by each handler must equal its source's level
   (clicintctl with the low 8-nlbits bits set) and the replayed mil, and
   mcause (code, mpil) the replayed one: in the clic build that is the
   handler's own source ID and the level it interrupted.
 * Vectors: each trap goes to the trampoline (clic-nv), or (clic) to its
   pointer-table entry mtvt + 4 * id, whose word the fetch unit reads as the
   handler's address, or, where the SoC's TCMs read the entry ahead, straight
   to the handler it holds (read from the firmware image).
 * No lost interrupt: while the core runs at level 0 (no trap frame open) with
   a source pending, the trap follows within BASE_LATENCY_MAX cycles.

Reproduce a failure: IRQLAB_TORTURE_SEEDS=<seed>[,...] pytest tests/test_torture.py;
IRQLAB_TORTURE_TURNS (workload length), IRQLAB_TORTURE_SCALE (a factor on every
row's turns), IRQLAB_TORTURE_GAP (generator gap: smaller is a heavier storm) and
IRQLAB_TORTURE_PEND (pend chance, 1/256) for soak runs; IRQLAB_TORTURE_MIN_CYCLES
makes a run shorter than that fail. `make torture` is the soak: every row for at
least 10^7 cycles per seed, with fresh seeds it prints (scripts/torture.sh).
"""

import bisect
import collections
import dataclasses
import os
import re
import shutil
import subprocess
import sys

import pytest

from irqlab import paths
from irqlab.drivers import sim
from irqlab.host import analysis, clicmodel
from irqlab.host import record as rec
from irqlab.host.protocol import APP_PROTOCOLS, CONFIGS
from irqlab.rows import row as row_info, rows_with

# The rows with the CLIC's interrupt model, except those built for RV32E: the
# workload keeps every register x1..x31 live, and RV32E has only x1..x15.
# Non-vectored rows: the mnxti trampoline (clic-nv) or fastirq's one entry
# (claim by mnxti, then emret: the docstring's "fastirq rows").
ROWS = [r for r in rows_with(irq_model="clic") if not row_info(r).features()["IRQLAB_ABI_RV32E"]]
# The rows whose torture runs the bound task (a third task context).
BOUND_ROWS = [r for r in ROWS if row_info(r).features()["IRQLAB_FASTIRQ_CONTEXTS"] > 2]
# The defaults give nlbits = 2, 1, 4, 3 (the firmware draws it from the seed).
SEEDS = [int(s, 0) for s in os.environ.get("IRQLAB_TORTURE_SEEDS", "0x1d5,0xc0ffee,0x7e57,0x1").split(",")]
# The firmware's run-time parameters (trace/protocol.py CONFIGS["torture"] documents them).
_DEFAULTS = CONFIGS["torture"].defaults()
TURNS = int(os.environ.get("IRQLAB_TORTURE_TURNS", _DEFAULTS["turns"]))
# One-cycle memories (SoCs with TCMs) run the workload about 3 times faster:
# as many more turns keep the storm as long, in cycles, as on the bus memories.
TCM_TURNS_FACTOR = 1 if "IRQLAB_TORTURE_TURNS" in os.environ else 3


SCALE = int(os.environ.get("IRQLAB_TORTURE_SCALE", "1"))
MIN_CYCLES = int(float(os.environ.get("IRQLAB_TORTURE_MIN_CYCLES", "0")))


def turns(row):
    return SCALE * TURNS * (TCM_TURNS_FACTOR if row_info(row).soc_config.tcm else 1)
GAP = int(os.environ.get("IRQLAB_TORTURE_GAP", _DEFAULTS["gap"]))
JITTER = _DEFAULTS["jitter"]
PEND_CHANCE = int(os.environ.get("IRQLAB_TORTURE_PEND", _DEFAULTS["pend_chance"]))
# A run takes 2-6 M cycles at scale 1 (the storm is finite: fw/torture/main.c).
MAX_CYCLES = 20_000_000 * SCALE
BASE_LATENCY_MAX = 150
# An mret or a CSR instruction (mnxti) acts in execute and retires two cycles
# later: memory and writeBack never hold it (no bus access, no divide).
EXECUTE_TO_RETIRE = 2
# A bound interrupt is taken (FastIrqPlugin "Bound interrupts") the cycle
# after the core registered irq_id as a match, at the earliest;
# the take's jump fetches the bound context's first instruction, which
# enters execute 3 cycles after the take.
BOUND_TAKE_TO_EXECUTE = 3

# The firmware's channels, markers and configuration kinds (fw/torture/main.c uses the same).
P = APP_PROTOCOLS["torture"]
WORK_REGS, WORK_WORDS = 30, 158
REG_NAMES = ["ra", "gp", "tp", "t0", "t1", "t2", "s0", "s1"] + [f"a{i}" for i in range(8)] \
    + [f"s{i}" for i in range(2, 12)] + [f"t{i}" for i in range(3, 7)]


def word_name(i):
    return REG_NAMES[i] if i < WORK_REGS else f"buf[{i - WORK_REGS}]"


# ----------------------------------------------------------------------- run

@dataclasses.dataclass
class Run:
    row: str
    seed: int
    result: object
    records: list
    stats: object
    cycles: int
    seconds: float
    facts: dict        # the SoC's (soc.json): interrupt map, the CLIC's size and output delay
    image: bytes       # the code memory as loaded (it holds the CLIC's pointer table)


def sim_cycles(sim_log):
    m = re.search(r"(\d+) cycles in ([\d.]+) s", sim_log)
    return (int(m.group(1)), float(m.group(2))) if m else (0, 0.0)


@pytest.fixture(scope="module", params=[(r, s) for r in ROWS for s in SEEDS],
                ids=lambda p: f"{p[0]}-seed{p[1]:#x}")
def run(request, tmp_path_factory):
    row, seed = request.param
    model = sim.ensure_model(row)
    fw = sim.build_firmware(model, "torture")
    # The configuration block of app "torture" (trace/protocol.py CONFIGS).
    image = sim.load_image(model, fw, seed=seed, turns=turns(row), gap=GAP, jitter=JITTER,
                           pend_chance=PEND_CHANCE)
    d = tmp_path_factory.mktemp(f"torture-{row}-{seed:x}")
    r = sim.run(model, image, str(d / "trace.bin"), max_cycles=MAX_CYCLES)
    records, stats = r.trace(allow_problems=True)
    cycles, seconds = sim_cycles(r.sim_log)
    return Run(row, seed, r, records, stats, cycles, seconds, model.facts, bytes(image))


@pytest.fixture(scope="module")
def checked(run):
    return Checker(run).check()


def run_events(run):
    return analysis.events(run.records)


# ------------------------------------------------------------------- config

@dataclasses.dataclass
class Config:
    seed: int = None
    iters: int = None
    nlbits: int = None
    mtvec: int = None
    mtvt: int = None
    ctl: dict = dataclasses.field(default_factory=dict)      # id -> clicintctl at set-up
    attr: dict = dataclasses.field(default_factory=dict)     # id -> clicintattr
    line_mode: dict = dataclasses.field(default_factory=dict)
    mnxti: dict = dataclasses.field(default_factory=dict)    # comparator -> (pc, instruction)
    bound_src: int = None      # the source bound to the bound task's context (cores with task contexts)
    bound_pc: int = None       # where every switch into that context starts (PC comparator 0)

    def mnxti_restores(self, k):
        """Comparator k is on an mnxti with MIE=0 (csrrci), where mcause is
        the frame's own trap's: the trampoline's exit path, after it restored
        it, or the fastirq entry's claim, before MIE is set (entry.S)."""
        return (self.mnxti[k][1] >> 12) & 7 == 7

    def level(self, ctl):
        return clicmodel.level(ctl, self.nlbits)

    def is_level_source(self, i):
        return not self.attr[i] & clicmodel.ATTR_EDGE

    def falling(self, i):
        return bool(self.attr[i] & clicmodel.ATTR_NEG)


def parse_config(evs):
    cfg = Config()
    words = [e.data for e in evs if e.kind == "sw" and e.index == P.CH_CFG]
    i = 0
    while i < len(words):
        w = words[i]
        kind = w >> 24
        if kind == P.CFG_SEED:
            cfg.seed = words[i + 1]
            i += 1
        elif kind == P.CFG_ITERS:
            cfg.iters = words[i + 1]
            i += 1
        elif kind == P.CFG_MNXTI:
            cfg.mnxti[w & 0xFF] = (words[i + 1], words[i + 2])    # pc, instruction
            i += 2
        elif kind == P.CFG_VECTORS:
            cfg.mtvec, cfg.mtvt = words[i + 1], words[i + 2]
            i += 2
        elif kind == P.CFG_BOUND:
            cfg.bound_src, cfg.bound_pc = w & 0xFF, words[i + 1]
            i += 1
        elif kind == P.CFG_NLBITS:
            cfg.nlbits = w & 0xFF
        elif kind == P.CFG_SOURCE:
            cfg.ctl[w & 0xFF] = (w >> 8) & 0xFF
            cfg.attr[w & 0xFF] = (w >> 16) & 0xFF
        elif kind == P.CFG_LINE:
            cfg.line_mode[(w >> 16) & 0xFF] = (w >> 8) & 0xFF
        i += 1
    return cfg


# --------------------------------------------------------- core events

def is_trap(e):
    return e.kind == "core" and e.index == rec.CORE_TRAP


def is_retirement(e):
    """A traced retirement: an mret or a PC match (the trampoline's mnxti)."""
    return e.kind == "core" and e.index != rec.CORE_TRAP


def acted(e):
    """The cycle a core event changed the core's state: a trap when it was
    taken (the retire port shows it behind older retirements and tells how
    late), an mret or an mnxti in execute."""
    return e.ts - rec.core_trap_delay(e.data) if is_trap(e) else e.ts - EXECUTE_TO_RETIRE


def bound_claim(e):
    """The cycle the core took a bound interrupt (switched into the bound
    task's context and claimed the source), from the retirement of that
    context's first instruction: the take's fetch, then decode and execute."""
    return acted(e) - BOUND_TAKE_TO_EXECUTE


def core_order(evs):
    """Indices of evs in the order the core acted. The interrupt is taken
    between memory and execute, so an mret (or mnxti) in memory then is older
    than the trap although it retires after the trap was shown: such a
    retirement acted before the trap was taken, and the trap moves behind it
    (with any record between them, all older than the trap's handler)."""
    order, trap_at = [], None       # trap_at: position of the last trap in order
    for n, e in enumerate(evs):
        if is_retirement(e) and trap_at is not None and acted(e) < acted(evs[order[trap_at]]):
            order.append(n)
            order.append(order.pop(trap_at))
            trap_at = len(order) - 1
            continue
        if is_trap(e):
            trap_at = len(order)
        order.append(n)
    return order


# ------------------------------------------------------------------ checker

@dataclasses.dataclass
class Instance:
    """One handler run: claimed, entered, exited."""
    id: int
    claim: int
    entry: int
    entry_data: int
    exit: int = None
    entry_idx: int = None      # index of the entry event
    level: int = None          # of its source at the claim (model)
    active_level: int = 0      # highest level among the handlers it preempted (0: none)
    bound: bool = False        # the bound task's run: claimed by a switch into its context, no trap


@dataclasses.dataclass
class Frame:
    trap: int
    cause: int
    mnxti: int = None
    handler: Instance = None
    handlers: int = 0
    bound: bool = False        # the bound task's run (from the switch into its context to its exit)


class Failures:
    def __init__(self):
        self.items = collections.defaultdict(list)

    def add(self, kind, msg):
        self.items[kind].append(msg)

    def report(self, kinds=None):
        out = []
        for k, msgs in sorted(self.items.items()):
            if kinds is None or k in kinds:
                out.append(f"{k}: {len(msgs)} failure(s), e.g.\n    " + "\n    ".join(msgs[:8]))
        return "\n".join(out)

    def any(self, kinds=None):
        return any(v for k, v in self.items.items() if kinds is None or k in kinds)


class Checker:
    def __init__(self, run):
        self.run = run
        self.shv = row_info(run.row).hw_vectoring
        # The core's fast-interrupt entry (FastIrqPlugin; the firmware's
        # entries use it wherever the SoC has it): one handler per trap frame.
        self.fastirq = bool(row_info(run.row).features()["IRQLAB_HAS_FASTIRQ"])
        self.bound = run.row in BOUND_ROWS
        self.evs = analysis.events(run.records)
        self.cfg = parse_config(self.evs)
        self.fail = Failures()
        self.stats = {}
        irq = run.facts["irq"]
        self.gen_first, self.gen_count = irq["claims"]["gen"]["first"], irq["claims"]["gen"]["count"]
        self.sw_first = irq["first_free"]      # software-pended sources: the free ones (fw/torture/main.c)
        # SoCs with TCMs read the pointer-table entry ahead (soc/tcm.py VectorPrefetch).
        self.prefetch = row_info(run.row).soc_config.tcm
        self.order = core_order(self.evs)

    def sw(self, ch):
        return [e for e in self.evs if e.kind == "sw" and e.index == ch]

    def mark(self, m):
        ts = [e.ts for e in self.sw(P.CH_MARK) if e.data == m]
        return ts[0] if ts else None

    def pointer(self, sid):
        """The handler address in source sid's pointer-table entry (mtvt + 4 * id),
        read from the code memory image."""
        origin = self.run.facts["memory"][self.run.facts["code_memory"]]["origin"]
        at = self.cfg.mtvt + 4 * sid - origin
        return int.from_bytes(self.run.image[at:at + 4], "little") & ~1

    def vectors(self, sid):
        """Where a trap of source sid goes: the trampoline (clic-nv); the
        pointer-table entry, whose word the fetch unit reads as the handler's
        address (clic), or, with the pointer read ahead, the handler itself."""
        if not self.shv:
            return [self.cfg.mtvec & ~0x3F]
        entry = self.cfg.mtvt + 4 * sid
        return [entry, self.pointer(sid)] if self.prefetch else [entry]

    # ----------------------------------------------------------- pass 1
    def is_bound_switch(self, e):
        """A retirement at the bound task's start (PC comparator 0 where the
        firmware binds a source)."""
        return self.cfg.bound_pc is not None and (e.data >> 40) & 0xFF == 0

    def parse_frames(self):
        """Trap frames (trap entry .. mret) and the handler runs inside them;
        the claim of each run; the level-0 intervals; traps in time order.
        Core events are taken in the order the core acted (core_order), each
        at the cycle it acted (acted)."""
        frames, insts, traps, base = [], [], [], []
        self.mnxti_claims = {}     # event index of a claiming mnxti -> source
        self.bound_exits = set()   # event indices of the bound task's exits
        base_from = 0
        last_ret, chains = None, 0  # the cycle the last mret (or emret) acted; tail chains
        for n in self.order:
            e = self.evs[n]
            if e.kind == "core":
                arg = (e.data >> 40) & 0xFF
                if e.index == rec.CORE_TRAP:
                    if not arg & 0x80:
                        self.fail.add("frames", f"exception at {e.ts}: mcause {arg & 0x7f}, "
                                                f"vector {e.data & 0xFFFFFFFF:#x}")
                        continue
                    taken, sid = acted(e), arg & 0x7F
                    if not frames:
                        base.append((base_from, taken))
                    if e.data & 0xFFFFFFFF not in self.vectors(sid):
                        self.fail.add("frames", f"trap at {taken} (source {sid}) to {e.data & 0xFFFFFFFF:#x}, "
                                                "expected " + " or ".join(f"{v:#x}" for v in self.vectors(sid)))
                    # emret's tail chain: its return and the next trap act in
                    # the same cycle (an mret is followed by a trap one later).
                    chains += taken == last_ret
                    frames.append(Frame(taken, sid))
                    traps.append((taken, sid))
                elif e.index == rec.CORE_MRET:
                    if not frames:
                        self.fail.add("frames", f"mret at {e.ts} outside a trap frame")
                        continue
                    f = frames.pop()
                    if f.bound:
                        self.fail.add("frames", f"mret at {e.ts} in the bound task's frame (switch at {f.trap})")
                        continue
                    if f.handler is not None:
                        self.fail.add("frames", f"mret at {e.ts} with handler {f.handler.id} not exited")
                    if (self.shv and f.handlers != 1) or (self.fastirq and f.handlers > 1):
                        self.fail.add("frames", f"trap at {f.trap} (source {f.cause}) ran {f.handlers} handlers")
                    last_ret = acted(e)
                    if not frames:
                        base_from = acted(e) + 1       # mil and MIE restored
                elif e.index == rec.CORE_PC_MATCH and self.is_bound_switch(e):
                    # A switch into the bound task's context: from task code
                    # only (mil 0, no frame open), a frame of its own.
                    claim = bound_claim(e)
                    if frames:
                        self.fail.add("frames", f"bound switch at {claim} inside the frame of source "
                                                f"{frames[-1].cause} at {frames[-1].trap}")
                    else:
                        base.append((base_from, claim))
                    frames.append(Frame(claim, self.cfg.bound_src, bound=True))
                elif e.index == rec.CORE_PC_MATCH:
                    if not frames:
                        self.fail.add("frames", f"mnxti retired at {e.ts} outside a trap frame")
                        continue
                    frames[-1].mnxti = (acted(e), n)
            elif e.kind == "sw" and e.index == P.CH_ENTRY:
                sid = e.data & 0xFF
                if not frames:
                    self.fail.add("frames", f"handler {sid} entered at {e.ts} outside a trap frame")
                    continue
                f = frames[-1]
                if f.handler is not None:
                    self.fail.add("frames", f"handler {sid} entered at {e.ts} inside handler {f.handler.id}")
                if f.bound:
                    if f.cause != sid or f.handlers:
                        self.fail.add("frames", f"entry {sid} at {e.ts} in the bound task's frame "
                                                f"(switch at {f.trap})")
                    claim = f.trap
                elif self.shv:
                    if f.cause != sid or f.handlers:
                        self.fail.add("frames", f"handler {sid} entered at {e.ts} in the frame of trap "
                                                f"{f.cause} at {f.trap}")
                    claim = f.trap
                else:
                    if f.mnxti is None:
                        self.fail.add("frames", f"handler {sid} entered at {e.ts} without an mnxti claim")
                        continue
                    claim = f.mnxti[0]
                    self.mnxti_claims[f.mnxti[1]] = sid
                    f.mnxti = None
                inst = Instance(sid, claim, e.ts, e.data, entry_idx=n, bound=f.bound)
                f.handler = inst
                f.handlers += 1
                insts.append(inst)
            elif e.kind == "sw" and e.index == P.CH_EXIT:
                sid = e.data & 0xFF
                if not frames or frames[-1].handler is None or frames[-1].handler.id != sid:
                    self.fail.add("frames", f"handler {sid} exit at {e.ts} does not match an entry")
                    continue
                frames[-1].handler.exit = e.ts
                frames[-1].handler = None
                if frames[-1].bound:
                    # the bound task yields back with MIE=0 from here: the
                    # interrupted task runs at level 0 again a few cycles on
                    frames.pop()
                    self.bound_exits.add(n)
                    if not frames:
                        base_from = e.ts
        if frames:
            self.fail.add("frames", f"{len(frames)} trap frames still open at the end")
        base.append((base_from, None))
        insts.sort(key=lambda i: i.claim)
        self.stats["tail_chains"] = chains
        return insts, traps, base

    # ------------------------------------------------------------ model
    def build_model(self, insts):
        """The CLIC's inputs as the trace shows them (generator line edges,
        the firmware's pends, the claims), replayed through the reference
        model (irqlab.host.clicmodel): `self.tl` knows the pending bits,
        clicintctl and the CLIC's outputs in every cycle. A pend event stands
        for the clicintctl and clicintip writes it reports (made with MIE=0
        before the event, so no claim falls in between). Kept for the
        accounting: per source the events that should make a handler run
        (`sets`: qualifying edges and pends; `level_iv`: a level source's
        high phases)."""
        cfg, facts = self.cfg, self.run.facts
        self.sources = sorted(cfg.ctl)
        self.claims = {s: [] for s in self.sources}
        for i in insts:
            self.claims.setdefault(i.id, []).append(i.claim)
        line_edges = collections.defaultdict(list)     # generator line -> [(ts, rising)]
        first_traced = facts["trace"]["gen_line"]      # the trace unit's hardware line of generator line 0
        for e in self.evs:
            if e.kind in ("rise", "fall") and 0 <= e.index - first_traced < self.gen_count:
                line_edges[e.index - first_traced].append((e.ts, e.kind == "rise"))
        self.line_edges = line_edges
        events = [clicmodel.Event(ts, "line", self.gen_first + line, int(up))
                  for line, edges in line_edges.items() for ts, up in edges]
        self.sets = {s: [] for s in self.sources}
        self.level_iv = {}                               # level source -> [(rise, fall)]
        for s in self.sources:
            if self.gen_first <= s < self.gen_first + self.gen_count:
                edges = line_edges[s - self.gen_first]
                if cfg.is_level_source(s):
                    iv, rise = [], None
                    for ts, up in edges:
                        if up:
                            rise = ts
                        elif rise is not None:
                            iv.append((rise, ts))
                            rise = None
                    if rise is not None:
                        iv.append((rise, None))
                    self.level_iv[s] = iv
                else:
                    want_rise = not cfg.falling(s)
                    self.sets[s] = [ts for ts, up in edges if up == want_rise]
        for e in self.sw(P.CH_PEND):
            s, ctl = e.data & 0xFF, (e.data >> 8) & 0xFF
            self.sets[s].append(e.ts)
            events.append(clicmodel.Event(e.ts, "write", write=clicmodel.Write(source=s, ctl=ctl, ip=1)))
        events += [clicmodel.Event(i.claim, "claim", i.id) for i in insts]
        clic = clicmodel.Clic(facts["clic"]["sources"], output_delay=facts["clic"]["output_delay"])
        clic.preset(clicmodel.Write(cliccfg=cfg.nlbits << 1),
                    *(clicmodel.Write(source=s, ie=1, attr=cfg.attr[s], ctl=cfg.ctl[s]) for s in self.sources))
        self.tl = clicmodel.Timeline(clic, events, start=min((e.t for e in events), default=0))
        self.latency = clic.latency      # a source's change in cycle t shows at the outputs in t + latency

    # ----------------------------------------------------------- checks
    def check(self):
        cfg, fail = self.cfg, self.fail
        self.storm_begin, self.stop, self.drained = (self.mark(m) for m in (P.M_STORM_BEGIN, P.M_STOP, P.M_DRAINED))
        if None in (self.storm_begin, self.stop, self.drained, cfg.nlbits):
            fail.add("run", "the trace lacks the firmware's markers or configuration")
            return self
        insts, traps, base = self.parse_frames()
        self.build_model(insts)
        self.insts = insts
        self.check_order_and_levels(insts, traps)
        self.check_exactly_once(insts)
        self.check_groups()
        self.check_base_latency(base)
        self.stats.update(interrupts=len(insts), traps=len(traps), bound_switches=sum(i.bound for i in insts))
        return self

    def check_order_and_levels(self, insts, traps):
        cfg, fail = self.cfg, self.fail
        # Claims (and, in clic-nv, trap entries) take the CLIC's winner.
        checked = 0
        points = [(i.claim, i.id, "claim") for i in insts]
        if not self.shv:
            points += [(t, sid, "trap") for t, sid in traps]
        for c, sid, what in points:
            w = self.tl.outputs(c)
            checked += 1
            if not w.valid:
                fail.add("order", f"{what} of source {sid} at {c}: nothing pending")
            elif w.id != sid:
                fail.add("order", f"{what} of source {sid} (ctl {self.tl.ctl(sid, c):#x}) at {c}: "
                                  f"the CLIC's winner is {w.id} (ctl {self.tl.ctl(w.id, c):#x})")
        self.stats["order_checks"] = checked
        # A bound claim uses the match the core registered a cycle before,
        # from irq_id (valid or not: idle, it names the most urgent source).
        for i in insts:
            shown = self.tl.shown_id(i.claim - 1)
            if i.bound and shown != i.id:
                fail.add("order", f"bound switch to source {i.id} at {i.claim}: irq_id was {shown} the cycle "
                                  "before, when the core registers the match")
        # Preemption and the levels seen by the handlers.
        for i in insts:
            i.level = cfg.level(self.tl.ctl(i.id, i.claim))
        open_, preempt, depth = [], 0, 0
        timeline = sorted([(i.claim, 1, n) for n, i in enumerate(insts)]
                          + [(i.exit, 0, n) for n, i in enumerate(insts) if i.exit is not None])
        for ts, is_claim, n in timeline:
            i = insts[n]
            if not is_claim:
                open_.remove(n)
                continue
            if open_:
                preempt += 1
                top = max(insts[k].level for k in open_)
                i.active_level = top
                if i.level <= top:
                    fail.add("preemption", f"source {i.id} (level {i.level:#x}) claimed at {ts} while "
                             + ", ".join(f"{insts[k].id} (level {insts[k].level:#x})" for k in open_)
                             + " active")
            open_.append(n)
            depth = max(depth, len(open_))
        self.stats.update(preemptions=preempt, max_depth=depth)
        for i in insts:
            if i.exit is None:
                fail.add("exactly-once", f"handler {i.id} entered at {i.entry} never exited")
        self.check_levels()

    def check_levels(self):
        """Replay of the core's mil, mintthresh and mcause through the trace
        (clicmodel.CoreCsrs: a trap saves mil as mcause.mpil with the cause and
        sets mil to the winner's level; an mnxti that claims sets mil and the
        mcause code; mret returns mil to mcause.mpil). The firmware's part:
        each trap frame saves the mcause of its trap and restores it before
        its mret (the clic build's handlers, the clic-nv trampoline, whose
        exit path restores it before its last mnxti), so a nested frame
        leaves its own trap's mcause behind, which is what a later handler of
        the outer clic-nv frame reads. Every handler must read mil = its
        level = the replayed mil and the replayed mcause; every trap and every
        claim must be above the level it interrupts; an mnxti that returned
        nothing must have had no winner it would have claimed."""
        cfg, fail = self.cfg, self.fail
        inst_at = {i.entry_idx: i for i in self.insts}
        core = clicmodel.CoreCsrs()
        saved = []                 # per open trap frame: the mcause its trap wrote
        raised, blocked = 0, 0
        for n in self.order:
            e = self.evs[n]
            if e.kind == "sw" and e.index == P.CH_THRESH:
                core.mintthresh = e.data & 0xFF
                raised += not (e.data >> 24) & 1
            if e.kind == "core":
                if e.index == rec.CORE_TRAP:
                    arg = (e.data >> 40) & 0xFF
                    if not arg & 0x80:
                        continue
                    cause, taken = arg & 0x7F, acted(e)
                    lvl = cfg.level(self.tl.ctl(cause, taken))
                    if not core.takes(lvl):
                        fail.add("preemption", f"trap of source {cause} (level {lvl:#x}) at {taken} with mil "
                                               f"{core.mil:#x}, mintthresh {core.mintthresh:#x}")
                    core.trap(cause, lvl)
                    saved.append(core.mcause)
                elif e.index == rec.CORE_MRET and saved:
                    core.mcause = saved.pop()
                    core.mret()
                elif e.index == rec.CORE_PC_MATCH and self.is_bound_switch(e):
                    # the switch sets mintthresh to the source's level, mil stays
                    c = bound_claim(e)
                    lvl = cfg.level(self.tl.ctl(cfg.bound_src, c))
                    if core.mil or core.mintthresh:
                        fail.add("preemption", f"bound switch at {c} with mil {core.mil:#x}, "
                                               f"mintthresh {core.mintthresh:#x}: not from task code")
                    core.mintthresh = lvl
                elif e.index == rec.CORE_PC_MATCH and saved:
                    if cfg.mnxti_restores((e.data >> 40) & 0xFF):
                        core.mcause = saved[-1]
                    c = acted(e)
                    sid = self.mnxti_claims.get(n)
                    if sid is not None:
                        lvl = cfg.level(self.tl.ctl(sid, c))
                        if not core.mnxti_passes(lvl):
                            fail.add("preemption", f"mnxti claimed source {sid} (level {lvl:#x}) at {c} "
                                                   f"with mcause.mpil {core.mcause.mpil:#x}, "
                                                   f"mintthresh {core.mintthresh:#x}")
                        core.mnxti_claim(sid, lvl)
                    else:
                        w = self.tl.outputs(c)
                        if w.valid and core.mnxti_passes(w.level, w.shv):
                            fail.add("order", f"mnxti at {c} returned nothing, but source {w.id} "
                                              f"(level {w.level:#x}) was above mcause.mpil {core.mcause.mpil:#x} "
                                              f"and mintthresh {core.mintthresh:#x}")
                        elif w.valid and core.mcause.mpil < w.level <= core.mintthresh:
                            blocked += 1
            elif e.kind == "sw" and n in self.bound_exits:
                core.mintthresh = 0                # the bound task's last write before its exit
            elif e.kind == "sw" and e.index == P.CH_ENTRY and n in inst_at and inst_at[n].bound:
                i = inst_at[n]
                emil, ethresh = (e.data >> 8) & 0xFF, (e.data >> 16) & 0xFF
                if emil != 0 or ethresh != i.level or ethresh != core.mintthresh:
                    fail.add("levels", f"bound task at {i.entry}: mil {emil:#x}, mintthresh {ethresh:#x}; "
                                       f"its level is {i.level:#x}, replayed mintthresh {core.mintthresh:#x}")
            elif e.kind == "sw" and e.index == P.CH_ENTRY and n in inst_at:
                i = inst_at[n]
                emil, empil, ecode = (e.data >> 8) & 0xFF, (e.data >> 16) & 0xFF, e.data >> 24
                if emil != i.level or emil != core.mil:
                    fail.add("levels", f"handler {i.id} at {i.entry}: mil {emil:#x}, its level is {i.level:#x}, "
                                       f"replayed mil {core.mil:#x}")
                if saved and (ecode, empil) != (core.mcause.code & 0xFF, core.mcause.mpil):
                    fail.add("levels", f"handler {i.id} at {i.entry}: mcause code {ecode} mpil {empil:#x}, "
                                       f"replayed code {core.mcause.code} mpil {core.mcause.mpil:#x}")
                if ecode != i.id:
                    self.stats["stale_mcause"] = self.stats.get("stale_mcause", 0) + 1
        self.stats.update(thresh_raised=raised, mnxti_held_by_thresh=blocked)

    def check_exactly_once(self, insts):
        """Per source: events that should make a handler run (edges of the
        configured polarity, software pends, level requests), the ones
        explicitly accounted for (edges merged into a pending bit that was
        already set; a level request cut off by stopping the generator),
        claims, handler entries in the trace and the firmware's counters:
        entries = claims = firmware count = events - merged - cancelled."""
        fail = self.fail
        entries = collections.Counter(i.id for i in insts)
        fw_counts = {e.data & 0xFF: e.data >> 8 for e in self.sw(P.CH_COUNT)}
        fw_pends = {e.data & 0xFF: e.data >> 8 for e in self.sw(P.CH_COUNT_PEND)}
        pends = collections.Counter(e.data & 0xFF for e in self.sw(P.CH_PEND))
        by_claim = {(i.id, i.claim): i for i in insts}
        self.per_source = {}
        for s in self.sources:
            cl = self.claims[s]
            merged = cancelled = 0
            if fw_pends.get(s, 0) != pends[s]:
                fail.add("exactly-once", f"source {s}: firmware pended it {fw_pends.get(s, 0)} times, "
                                         f"the trace shows {pends[s]}")
            if s in self.level_iv:
                kind, events = "level", len(self.level_iv[s])
                served = 0
                for rise, fall in self.level_iv[s]:
                    # Claims of this request: while the CLIC shows it.
                    hi = fall + self.latency if fall is not None else float("inf")
                    inside = [c for c in cl if rise + self.latency <= c < hi]
                    if len(inside) == 1:
                        served += 1
                        inst = by_claim[(s, inside[0])]
                        if fall is None or not (inst.entry < fall < (inst.exit or 0)):
                            fail.add("exactly-once", f"level source {s}: request at {rise} not acknowledged "
                                                     f"by its handler (entry {inst.entry}, exit {inst.exit}, "
                                                     f"line fall {fall})")
                    elif not inside and fall is not None and self.stop <= fall <= self.stop + 200:
                        cancelled += 1          # cut off by stopping the generator
                    else:
                        fail.add("exactly-once", f"level source {s}: request {rise}..{fall} claimed "
                                                 f"{len(inside)} times")
                if served != len(cl):
                    fail.add("exactly-once", f"level source {s}: {len(cl)} claims, {served} requests served")
            else:
                sw = s >= self.sw_first
                kind = "pend" if sw else "edge"
                sets = self.sets[s]
                events = len(sets)
                prev, used = None, 0
                for c in cl:
                    lo = bisect.bisect_left(sets, prev) if prev is not None else 0
                    n = bisect.bisect_left(sets, c) - lo      # events in [previous claim, claim)
                    if n == 0:
                        fail.add("exactly-once", f"source {s}: claim at {c} without a new {kind} since {prev}")
                    elif n > 1:
                        if sw:
                            fail.add("exactly-once", f"source {s}: {n} pends served by the one claim at {c}")
                        merged += n - 1
                    used += n
                    prev = c
                left = events - used
                if left:
                    fail.add("exactly-once", f"source {s}: {left} {kind}(s) never claimed "
                                             f"(last claim {prev}, events {sets[-left:][:4]})")
            expected = events - merged - cancelled
            got = (entries[s], len(cl), fw_counts.get(s, 0))
            if got != (expected,) * 3:
                fail.add("exactly-once", f"source {s}: {events} {kind} events - {merged} merged - {cancelled} "
                                         f"cancelled = {expected}, but {got[0]} handler entries, {got[1]} claims, "
                                         f"firmware count {got[2]}")
            self.per_source[s] = (kind, events, merged, cancelled, entries[s])
        for s in self.sources:
            if self.tl.pending(s, self.drained + 1):
                fail.add("exactly-once", f"source {s} still pending when the firmware found everything served")
        ps = self.per_source.values()
        self.stats.update(hw_events=sum(v[1] for v in ps if v[0] != "pend"),
                          merged_edges=sum(v[2] for v in ps), cancelled_by_stop=sum(v[3] for v in ps),
                          sw_pends=sum(v[1] for v in ps if v[0] == "pend"),
                          hw_handled=sum(v[4] for v in ps if v[0] != "pend"),
                          sw_handled=sum(v[4] for v in ps if v[0] == "pend"))

    def check_groups(self):
        """Groups pended together: served in rank order."""
        groups, cur = [], []
        for e in self.sw(P.CH_PEND):
            n, k = (e.data >> 16) & 0xF, (e.data >> 20) & 0xF
            if k == 0:
                cur = []
            cur.append((e.ts, e.data & 0xFF, (e.data >> 8) & 0xFF))
            if k == n - 1:
                groups.append(cur)
        checked = 0
        for g in groups:
            if len(g) < 2:
                continue
            checked += 1
            served = []
            for ts, s, ctl in g:
                cl = self.claims[s]
                j = bisect.bisect_right(cl, ts)
                served.append((cl[j] if j < len(cl) else float("inf"), ctl, s))
            served.sort()
            ranks = [(ctl, s) for _, ctl, s in served]
            if ranks != sorted(ranks, reverse=True):
                self.fail.add("order", f"group pended at {g[0][0]} served as "
                              + ", ".join(f"{s} (ctl {ctl:#x}) at {t}" for t, ctl, s in served))
        self.stats["groups_checked"] = checked

    def check_base_latency(self, base):
        """At level 0 (no trap frame) the CLIC's winner is taken within
        BASE_LATENCY_MAX cycles of the first cycle the CLIC shows it."""
        worst = 0
        lo_lim, hi_lim = self.storm_begin, self.drained
        for a, b in base:
            a = max(a, lo_lim)
            end = hi_lim if b is None else min(b, hi_lim)
            if a >= end:
                continue
            v = self.tl.first_valid(a, end)
            if v is None:
                continue
            if b is None or b > hi_lim:
                self.fail.add("lost", f"a source pending from {v} at level 0 was not taken before {hi_lim}")
                continue
            worst = max(worst, b - v)
            if b - v > BASE_LATENCY_MAX:
                self.fail.add("lost", f"a source pending from {v} at level 0 was taken only at {b}")
        self.stats["worst_base_latency"] = worst


def fmt_stats(run, checker):
    s = dict(checker.stats)
    return (f"{run.row} seed {run.seed:#x}: {run.cycles} cycles in {run.seconds:.1f} s, "
            + ", ".join(f"{k} {v}" for k, v in s.items()))


# --------------------------------------------------------------------- tests

def test_runs_to_completion(run):
    r = run.result
    assert r.exit_code == 0, r.console + r.sim_log[-400:]
    assert "irqlab: exit 0" in r.console
    assert run.stats.intact and run.stats.hw_dropped == 0, run.stats.problems()
    assert run.cycles >= MIN_CYCLES, (f"{run.cycles} cycles, the soak asks at least {MIN_CYCLES}: "
                                      "raise IRQLAB_TORTURE_SCALE")
    errs = [e.data for e in analysis.events(run.records) if e.kind == "sw" and e.index == P.CH_ERRORS]
    assert errs[-2:] == [0xFFFFFFFF, 0], f"firmware errors: {[hex(e) for e in errs]}"


def result_words(evs, ch):
    return [e.data for e in evs if e.kind == "sw" and e.index == ch]


def diff_words(a, b):
    return [f"{word_name(i)}: {x:#010x} != {y:#010x}" for i, (x, y) in enumerate(zip(a, b)) if x != y]


def test_storm_result_equals_quiet_result(run):
    evs = run_events(run)
    quiet = result_words(evs, P.CH_RESULT)
    storm = result_words(evs, P.CH_RESULT_STORM)
    assert len(quiet) == len(storm) == WORK_WORDS
    d = diff_words(storm, quiet)
    assert not d, f"{len(d)} words differ (storm != quiet): " + "; ".join(d[:10])
    # A core with task contexts runs a second workload in context 1, each
    # yielding into the other after every turn (fw/torture/main.c).
    other = result_words(evs, P.CH_RESULT_OTHER)
    if run.row in CONTEXT_ROWS:
        assert len(other) == WORK_WORDS
        d = diff_words(other, quiet)
        assert not d, f"{len(d)} words differ (context 1 != quiet): " + "; ".join(d[:10])
    else:
        assert other == []


CONTEXT_ROWS = [r for r in ROWS if row_info(r).soc_config.task_contexts]
TYIELD = 0x0000100B                  # .insn i 0x0B, 1, x0, x0, 0
RELOAD_T6 = 0x20412F83               # lw t6, 516(sp): the workload's scratch slot W_T0
NOP = 0x00000013


@pytest.mark.parametrize("row", CONTEXT_ROWS[:1])
def test_a_register_lost_across_a_switch_is_caught(row, tmp_path):
    """Negative control of the second workload's check: the reload of t6
    after the workload's tyield becomes a nop in the image, so both storm
    workloads come back from every switch with the yield word in t6; the
    firmware and the host must both see context 1's result differ."""
    model = sim.ensure_model(row)
    fw = sim.build_firmware(model, "torture")
    image = bytearray(sim.load_image(model, fw, seed=SEEDS[0], turns=20, gap=GAP, jitter=JITTER,
                                     pend_chance=PEND_CHANCE))
    words = [int.from_bytes(image[a:a + 4], "little") for a in range(0, len(image) - 3, 4)]
    at = [i for i in range(len(words) - 1) if words[i] == TYIELD and words[i + 1] == RELOAD_T6]
    assert len(at) == 1, "the workload's switch and its reload are not where this test expects"
    image[4 * at[0] + 4:4 * at[0] + 8] = NOP.to_bytes(4, "little")
    r = sim.run(model, bytes(image), str(tmp_path / "trace.bin"), max_cycles=MAX_CYCLES)
    evs = analysis.events(r.trace(allow_problems=True)[0])
    quiet, other = result_words(evs, P.CH_RESULT), result_words(evs, P.CH_RESULT_OTHER)
    assert len(quiet) == len(other) == WORK_WORDS
    assert diff_words(other, quiet)
    errs = [e.data for e in evs if e.kind == "sw" and e.index == P.CH_ERRORS]
    assert any(e >> 8 == 0x7 for e in errs[:-2]), [hex(e) for e in errs]
    assert r.exit_code != 0


_qemu_cache = {}


def qemu_state(seed, iters, tmp):
    """The workload's final state under qemu-riscv32 (workload.c, built for Linux user mode)."""
    key = (seed, iters)
    if key in _qemu_cache:
        return _qemu_cache[key]
    exe = os.path.join(tmp, "workload-qemu")
    if not os.path.exists(exe):
        stub = os.path.join(tmp, "stub.c")
        with open(stub, "w") as f:
            f.write(QEMU_STUB)
        cc = os.environ.get("IRQLAB_CROSS", "riscv64-unknown-elf-") + "gcc"
        subprocess.run([cc, "-march=rv32im_zicsr", "-mabi=ilp32", "-Os", "-nostdlib", "-static", "-ffreestanding",
                        "-Wl,--no-relax", "-I" + os.path.join(paths.FW, "torture"), stub,
                        os.path.join(paths.FW, "torture", "workload.c"), "-o", exe],
                       check=True, capture_output=True)
    out = subprocess.run(["qemu-riscv32", exe, str(seed), str(iters)], check=True,
                         capture_output=True, timeout=60).stdout.decode()
    words = [int(w, 16) for w in out.split()]
    _qemu_cache[key] = words
    return words


QEMU_STUB = r"""
#include "workload.h"
static uint32_t st[WORK_WORDS];
static char out[WORK_WORDS * 9];
static long sys3(long n, long a, long b, long c) {
    register long a0 __asm__("a0") = a, a1 __asm__("a1") = b, a2 __asm__("a2") = c, a7 __asm__("a7") = n;
    __asm__ volatile("ecall" : "+r"(a0) : "r"(a1), "r"(a2), "r"(a7) : "memory");
    return a0;
}
static uint32_t num(const char *s) {
    uint32_t v = 0;
    while (*s >= '0' && *s <= '9') v = v * 10 + (uint32_t)(*s++ - '0');
    return v;
}
void stub_main(long argc, char **argv) {
    work_init(st, num(argv[1]));
    work_run(st, num(argv[2]), 0);
    int n = 0;
    for (int i = 0; i < WORK_WORDS; i++) {
        for (int b = 28; b >= 0; b -= 4) out[n++] = "0123456789abcdef"[(st[i] >> b) & 15];
        out[n++] = '\n';
    }
    sys3(64, 1, (long)out, n);   /* write */
    sys3(93, 0, 0, 0);           /* exit */
}
__asm__(".global _start\n_start:\n  lw a0, 0(sp)\n  addi a1, sp, 4\n  call stub_main\n");
"""


@pytest.mark.skipif(shutil.which("qemu-riscv32") is None,
                    reason="qemu-riscv32 (Debian package qemu-user) is not installed: it is the reference")
def test_quiet_result_equals_qemu(run, tmp_path_factory):
    evs = run_events(run)
    cfg = parse_config(evs)
    ref = qemu_state(cfg.seed, cfg.iters, str(tmp_path_factory.getbasetemp()))
    quiet = result_words(evs, P.CH_RESULT)
    assert len(ref) == WORK_WORDS
    d = diff_words(quiet, ref)
    assert not d, f"{len(d)} words differ (core != qemu): " + "; ".join(d[:10])


def test_every_interrupt_handled_exactly_once(checked):
    assert not checked.fail.any(["run", "frames", "exactly-once", "lost"]), \
        checked.fail.report(["run", "frames", "exactly-once", "lost"])
    s = checked.stats
    # The storm is a storm: every kind of event happened.
    assert s["hw_handled"] > 300 and s["sw_handled"] > 300, fmt_stats(checked.run, checked)


@pytest.mark.parametrize("run", [(r, s) for r in BOUND_ROWS for s in SEEDS], indirect=True,
                         ids=lambda p: f"{p[0]}-seed{p[1]:#x}")
def test_a_bound_claim_placed_a_cycle_early_is_caught(run, monkeypatch):
    """Negative control of the bound switches' timing: with the claim taken
    one cycle earlier than the core takes it, the check of the registered
    match fails."""
    monkeypatch.setattr(sys.modules[__name__], "BOUND_TAKE_TO_EXECUTE", BOUND_TAKE_TO_EXECUTE + 1)
    early = Checker(run).check()
    assert any("bound switch" in m for m in early.fail.items["order"]), early.fail.report(["order"])


def test_handlers_run_in_clic_order(checked):
    assert not checked.fail.any(["order", "preemption"]), checked.fail.report(["order", "preemption"])
    s = checked.stats
    # Nesting as deep as the levels allow (nlbits = 1: two levels), pend groups served.
    deep = min(3, 1 << checked.cfg.nlbits)
    assert s["preemptions"] > 100 and s["max_depth"] >= deep and s["groups_checked"] > 50, \
        fmt_stats(checked.run, checked)
    # emret chains straight to the next handler where the core has it; an
    # mret never does (the next trap comes a cycle after it at the earliest).
    assert (s["tail_chains"] > 10) if checked.fastirq else (s["tail_chains"] == 0), fmt_stats(checked.run, checked)
    # Bound interrupts switch contexts where the core has a third context.
    assert (s["bound_switches"] > 10) if checked.bound else (s["bound_switches"] == 0), \
        fmt_stats(checked.run, checked)


def test_levels_seen_by_handlers(checked):
    assert not checked.fail.any(["levels"]), checked.fail.report(["levels"])
    print(fmt_stats(checked.run, checked))
