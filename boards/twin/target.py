"""The board twin: a board's SoC as its FPGA flow generates it, in Verilator.

`prepare(board, core)` makes the LiteX project of `irqlab build --board B
--core C` the way that build does before its tools run (irqlab/flows/build.py
steps 1 and 2: the SoC's headers, the bench firmware for ROM, then the flow's
own generation, `flow.project(job)`: for the ULX3S irqlab/flows/ecp5.py), and
builds a Verilator model of that Verilog with boards/twin/harness.cpp. Nothing
of the SoC is described again here: the model's sources are the project's
own (sources.json, gateware/irqlab.v and its .init files) plus the stand-ins
below.

What is replaced, and why no cycle of the SoC can change
(boards/twin/ecp5_standins.v; every other module comes from the project):

    EHXPLLL  the PLL: CLKOP (and CLKOS) is CLKI, LOCK is `not RST`. The
             harness drives the board's clock input at the sys clock (one
             simulated cycle = one sys cycle, 1 / clock_hz): the SoC's
             flip-flops see one edge per sys cycle as behind the real PLL.
             A PLL only sets the period and the phase of the sys clock,
             which a cycle count does not see; its lock time only delays
             the end of reset.
    FD1S3BX  the reset synchronizer's flip-flops (positive edge, D, async
             preset PD): the same function, behaviourally.
    DCCA     the global clock buffer on the synchronized reset: CLKO = CLKI
             when CE (tied 1): a buffer, no logic, no register.

The block RAMs are not primitives in the project: LiteX writes its memories
as Verilog arrays (initialized by $readmemh from the .init files beside the
Verilog), which yosys maps to DP16KD; the model runs those same arrays. The
I/O pins are plain top-level ports (the project instantiates no I/O buffer;
nextpnr places the pads): the harness drives and samples them.

Caching: the project is made again when anything it is made from changed
(the hash in `project.stamp`); the model is compiled again only when its
Verilog, the stand-ins or the harness changed (`model.stamp`), so a change
of firmware alone costs a generation, not a compile.
"""

import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

from irqlab import paths
from irqlab.errors import BuildError

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.join(HERE, "harness.cpp")
MAKEFILE = os.path.join(HERE, "Makefile")
# Per FPGA flow: the file of stand-ins and the primitives it replaces.
STANDINS = {"ecp5": (os.path.join(HERE, "ecp5_standins.v"), ("EHXPLLL", "FD1S3BX", "DCCA"))}
# What the project is made from: the SoC, the boards, the flows' generation,
# the firmware in its ROM and the headers it is built with.
PROJECT_INPUTS = ["soc", "boards", "fw", "trace", os.path.join("irqlab", "flows"),
                  os.path.join("irqlab", "builders"), os.path.join("irqlab", "rows.py")]
PACKAGES = ["litex", "litex-boards", "migen", "pythondata-cpu-vexriscv"]
SOURCE_EXTS = (".py", ".c", ".h", ".S", ".ld", ".mk", "Makefile", ".cpp", ".v", ".scala")


@dataclasses.dataclass
class Twin:
    """A built twin of one board's SoC."""
    board: object          # the descriptor
    core: str
    dir: str               # build/twin/<board>-<core>
    gateware: str          # the project's gateware folder (the .init files; the model runs here)
    binary: str
    clock_hz: float
    baudrate: int          # the serial link's

    @property
    def name(self):
        return f"{self.board.name}/{self.core}"

    @property
    def project(self):
        return os.path.join(self.dir, "project")

    @property
    def facts(self):
        with open(os.path.join(self.project, "soc.json")) as f:
            return json.load(f)


def twin_dir(board, core):
    return os.path.join(paths.BUILD, "twin", f"{board}-{core}")


def _hash_tree(h, rels):
    for rel in rels:
        top = os.path.join(paths.ROOT, rel)
        files = [top] if os.path.isfile(top) else sorted(
            os.path.join(d, f) for d, _, fs in os.walk(top) for f in fs
            if f.endswith(SOURCE_EXTS) and "__pycache__" not in d and not d.startswith(HERE))
        for f in files:
            h.update(os.path.relpath(f, paths.ROOT).encode())
            with open(f, "rb") as fh:
                h.update(fh.read())


def _project_hash(board, core):
    from irqlab.builders import core as corebuild
    from irqlab.drivers import sim
    from irqlab.rows import row as row_info
    cfg = row_info(core).soc_config
    h = hashlib.sha256(f"{board}/{core}".encode())
    if cfg.own_core:
        h.update(f"core={cfg.core_variant}:{corebuild.core_hash(cfg.core_variant)}".encode())
    _hash_tree(h, PROJECT_INPUTS)
    sim.hash_packages(h, PACKAGES)
    return h.hexdigest()[:16]


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def job(board, core, progress=None):
    """The board build's job (irqlab/flows/build.py job(): the descriptor's
    options for the row's SoC, its default clock), aimed at the twin's folder."""
    from irqlab.flows import build as boardbuild
    j = boardbuild.job(board, core, progress)
    if j.board.flow not in STANDINS:
        raise BuildError(f"no board twin for {board}: its flow '{j.board.flow}' has no simulation stand-ins "
                         f"(boards/twin/)")
    return dataclasses.replace(j, dir=os.path.join(twin_dir(board, core), "project"))


def generate(j):
    """The project of board build `j` as that build makes it before its tools run:
    headers, the bench firmware for ROM, the flow's own generation."""
    from irqlab.builders import firmware
    from irqlab.flows import build as boardbuild, flow
    if os.path.exists(j.dir):
        shutil.rmtree(j.dir)
    j.step("twin: generating the SoC for its software headers")
    boardbuild.generate_headers(j)
    j.step("twin: building the firmware for ROM")
    j.firmware = firmware.build(j.core, "bench", os.path.join(j.dir, "software", "include"),
                                os.path.join(j.dir, "fw", f"{j.core}-bench-rom"))
    j.step("twin: generating the project as the flow does (firmware in ROM)")
    return flow(j.board.flow).project(j)


_MODULE = re.compile(r"^\s*module\s+(\w+)", re.M)
_INSTANCE = re.compile(r"^([A-Za-z_]\w*)\s+(?:#\s*\(|[A-Za-z_]\w*\s*\()", re.M)
_KEYWORDS = {"module", "input", "output", "inout", "wire", "reg", "assign", "always", "initial", "localparam",
             "parameter", "integer", "function", "task", "begin", "end", "if", "else", "case", "genvar",
             "generate", "for", "endmodule", "default"}


def primitives(sources):
    """Modules the sources instantiate but do not define: the FPGA primitives."""
    defined, used = set(), set()
    for s in sources:
        with open(s, errors="replace") as f:
            text = f.read()
        defined |= set(_MODULE.findall(text))
        used |= {m for m in _INSTANCE.findall(text) if m not in _KEYWORDS}
    return used - defined


def _sources(j, gw):
    with open(os.path.join(j.dir, "sources.json")) as f:
        src = json.load(f)
    standins, replaced = STANDINS[j.board.flow]
    left = primitives(src["sources"]) - set(replaced)
    if left:
        raise BuildError(f"{j.board.name}/{j.core}: the project instantiates {', '.join(sorted(left))}, which "
                         f"the twin has no stand-in for ({os.path.relpath(standins, paths.ROOT)})")
    with open(os.path.join(gw, "twin_sources.f"), "w") as f:
        for p in src["include_paths"]:
            f.write(f"+incdir+{p}\n")
        for p in src["sources"] + [standins]:
            f.write(p + "\n")
    return [standins] + src["sources"]


# Lines of LiteX's banner that change with every generation, not with the design.
_BANNER = re.compile(rb"^// (Date|LiteX sha1) .*$", re.M)


def _model_hash(files):
    h = hashlib.sha256()
    for f in sorted(files) + [HARNESS, MAKEFILE]:
        h.update(os.path.basename(f).encode())
        with open(f, "rb") as fh:
            h.update(_BANNER.sub(b"", fh.read()))
    return h.hexdigest()[:16]


def compile_model(gw, jobs=1):
    """Verilator: the project's top with the stand-ins and the harness."""
    from irqlab.flows import litexgen
    cmd = ["nice", "-n", "10", "make", "-s", "-f", MAKEFILE, f"-j{jobs}", f"GW={gw}", f"TOP={litexgen.TOP}",
           f"HARNESS={HARNESS}"]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        tail = (r.stdout.strip().splitlines() or ["(no output)"])[-1]
        raise BuildError(f"the twin's Verilator build failed: {tail} (log: {os.path.join(gw, 'verilator.log')})")
    return os.path.join(gw, "obj_dir", "V" + litexgen.TOP)


def prepare(board, core, progress=None):
    """The twin of `board` with row `core`'s SoC, built unless up to date."""
    from irqlab.host.atomic import exclusive
    from irqlab.flows import litexgen
    j = job(board, core, progress)
    d = twin_dir(board, core)
    gw = os.path.join(j.dir, "gateware")
    binary = os.path.join(d, "V" + litexgen.TOP)
    want = _project_hash(board, core)
    with exclusive(d):
        os.makedirs(d, exist_ok=True)
        if _read(os.path.join(d, "project.stamp")) != want or not os.path.isdir(gw):
            generate(j)
            with open(os.path.join(d, "project.stamp"), "w") as f:
                f.write(want)
        files = _sources(j, gw)
        model = _model_hash(files)
        if _read(os.path.join(d, "model.stamp")) != model or not os.path.exists(binary):
            j.step("twin: compiling the Verilator model (a few minutes)")
            built = compile_model(gw)
            shutil.copy(built, binary + ".tmp")
            os.replace(binary + ".tmp", binary)
            with open(os.path.join(d, "model.stamp"), "w") as f:
                f.write(model)
    return Twin(j.board, core, d, gw, binary, j.options["sys_clk_freq"], j.board.link.baudrate)
