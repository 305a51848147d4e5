"""The Xilinx 7-series flows (Arty): Vivado and openXC7 (yosys +
nextpnr-xilinx + fasm2frames + xc7frames2bit).

Both projects are always written (LiteX's build script in
build/boards/<board>-<core>/<toolchain>/gateware/). A flow runs when all it
needs is found; otherwise the report says, in one line, what is missing.
`--toolchain T` makes flow T required: then a missing piece is an error
(after the projects and the report are written). Utilization and per-clock
timing come from the tools' logs; missed timing is an error and copies no
bitstream. The yosys estimate (xc7estimate.py) is in every report.

openXC7 needs (docs/BOARDS.md):
  nextpnr-xilinx, fasm2frames, xc7frames2bit   on PATH
  PRJXRAY_DB_DIR   Project X-Ray database (the folder holding artix7/)
  CHIPDB           folder of nextpnr-xilinx chip databases, <part>.bin;
                   default build/openxc7-chipdb, where irqlab makes a missing
                   one with NEXTPNR_XILINX_PYTHON_DIR's bbaexport.py and bbasm
yosys is the project's own (PyPI), not whatever yosys is on PATH.
"""

import os
import re
import shutil
import sys
from dataclasses import dataclass, field
from typing import Optional

from irqlab import paths
from irqlab.flows import report as boardreport
from irqlab.errors import BoardBuildError
from irqlab.flows import litexgen, logs, own_tools_dir, scriptrun, xc7estimate
from irqlab.progress import LogSteps
from irqlab.rows import row

OPENXC7_TOOLS = ("nextpnr-xilinx", "fasm2frames", "xc7frames2bit")
# Where the openXC7 snap installs its databases; LiteX looks there too.
SNAP = "/snap/openxc7/current/opt/nextpnr-xilinx"

STEPS = {
    "openxc7": [
        (re.compile(r"Executing SYNTH_XILINX|^Yosys \d"), "synthesis (yosys)"),
        (re.compile(r"Info: Packing"), "packing (nextpnr-xilinx)"),
        (re.compile(r"Info: (Running|Creating initial) .*plac|Info: Placed \d"), "placement (nextpnr-xilinx)"),
        (re.compile(r"Info: Routing|Info: Running router"), "routing (nextpnr-xilinx)"),
        (re.compile(r"Info: Program finished normally"), "bitstream (fasm2frames, xc7frames2bit)"),
    ],
    "vivado": [
        (re.compile(r"Command: synth_design|Starting synth_design"), "synthesis (Vivado)"),
        (re.compile(r"Command: opt_design"), "optimization (Vivado)"),
        (re.compile(r"Command: place_design"), "placement (Vivado)"),
        (re.compile(r"Command: route_design"), "routing (Vivado)"),
        (re.compile(r"Command: write_bitstream"), "bitstream (Vivado)"),
    ],
}


@dataclass
class Openxc7Setup:
    """What the openXC7 flow will use for one part, and what it lacks."""
    dbpart: str                 # chip database name: xc7a35ticsg324
    device: str                 # Project X-Ray part: xc7a35tcsg324-1
    family: str                 # artix7
    chipdb: str                 # <CHIPDB>/<dbpart>.bin
    prjxray: str                # PRJXRAY_DB_DIR
    python_dir: Optional[str] = None    # nextpnr-xilinx's python/ folder, to make the chip database
    make_chipdb: bool = False
    missing: list = field(default_factory=list)



def _shown(path):
    """A path as the report shows it: relative to the repository when inside
    it (the tracked reports must not carry one machine's folders)."""
    rel = os.path.relpath(path, paths.ROOT)
    return path if rel.startswith("..") else rel

def openxc7_setup(platform, env=os.environ):
    tc = platform.toolchain
    tc.platform = platform
    tc._check_properties()      # LiteX's own part names for the chip database and Project X-Ray
    s = Openxc7Setup(dbpart=tc.dbpart, device=tc.device, family=tc._xc7family,
                     chipdb=os.path.join(env.get("CHIPDB") or os.path.join(paths.BUILD, "openxc7-chipdb"),
                                         tc.dbpart + ".bin"),
                     prjxray=(env.get("PRJXRAY_DB_DIR") or os.path.join(SNAP, "external", "prjxray-db")).rstrip("/"))
    for tool in OPENXC7_TOOLS:
        if not shutil.which(tool, path=env.get("PATH")):
            s.missing.append(f"{tool} (not on PATH)")
    part_yaml = os.path.join(s.prjxray, s.family, s.device, "part.yaml")
    prjxray_ok = os.path.isfile(part_yaml)
    if not prjxray_ok:
        s.missing.append(f"the Project X-Ray database (no {part_yaml}; set PRJXRAY_DB_DIR)")
    if not (os.path.isfile(s.chipdb) and os.path.getsize(s.chipdb) > 0):
        s.python_dir = (env.get("NEXTPNR_XILINX_PYTHON_DIR") or os.path.join(SNAP, "python")).rstrip("/")
        cannot = []
        if not shutil.which("bbasm", path=env.get("PATH")):
            cannot.append("bbasm not on PATH")
        if not os.path.isfile(os.path.join(s.python_dir, "bbaexport.py")):
            cannot.append(f"no bbaexport.py in {s.python_dir} (set NEXTPNR_XILINX_PYTHON_DIR)")
        if not prjxray_ok:
            cannot.append("no Project X-Ray database")
        if cannot:
            s.missing.append(f"the chip database {_shown(s.chipdb)} (not there, set CHIPDB; to make it: "
                             f"{', '.join(cannot)})")
        else:
            s.make_chipdb = True
    return s


def vivado_missing(env=os.environ):
    settings = env.get("LITEX_ENV_VIVADO")
    if shutil.which("vivado", path=env.get("PATH")) or (settings and os.path.isfile(
            os.path.join(settings, "settings64.sh"))):
        return []
    return ["vivado (not on PATH; install AMD Vivado ML Standard, free, or set LITEX_ENV_VIVADO)"]


def generate_openxc7(job, out, setup):
    """The openXC7 project. LiteX checks for CHIPDB and PRJXRAY_DB_DIR while
    it writes the script, and tries (unchecked) to make a missing chip
    database; so it writes against a placeholder, deleted right after, and
    the script is pointed at the real paths and at the project's yosys."""
    ph = os.path.join(out, "placeholder")
    os.makedirs(os.path.join(ph, "chipdb"), exist_ok=True)
    os.makedirs(os.path.join(ph, "prjxray-db"), exist_ok=True)
    open(os.path.join(ph, "chipdb", setup.dbpart + ".bin"), "w").close()
    try:
        gw = litexgen.generate(job, out, {**job.options, "toolchain": "openxc7"}, rom=True,
                               env_extra={"CHIPDB": os.path.join(ph, "chipdb"),
                                          "PRJXRAY_DB_DIR": os.path.join(ph, "prjxray-db")})
    finally:
        shutil.rmtree(ph, ignore_errors=True)
    script = os.path.join(gw, f"build_{litexgen.TOP}.sh")
    with open(script) as f:
        text = f.read()
    text = text.replace(os.path.join(ph, "chipdb"), os.path.dirname(setup.chipdb)) \
               .replace(os.path.join(ph, "prjxray-db"), setup.prjxray)
    # The project's own yosys even when the script is run by hand (Debian's
    # 0.23 crashes in synth_xilinx -abc9 on this design).
    text = re.sub(r"^yosys ", os.path.join(own_tools_dir(), "yosys") + " ", text, flags=re.M)
    if ph in text:
        raise BoardBuildError(f"{script}: LiteX wrote a path this flow does not know; cannot point it at "
                              f"the chip database")
    with open(script + ".tmp", "w") as f:
        f.write(text)
    os.replace(script + ".tmp", script)
    return gw


def make_chipdb(job, setup):
    """nextpnr-xilinx's chip database for the part: bbaexport.py (with the
    Project X-Ray database from PRJXRAY_DB_DIR) then bbasm; checked, atomic."""
    os.makedirs(os.path.dirname(setup.chipdb), exist_ok=True)
    bba = setup.chipdb[:-4] + ".bba.tmp"
    log = os.path.join(job.dir, "chipdb.log")
    python = os.environ.get("PYPY3") or shutil.which("pypy3") or sys.executable
    job.step(f"making the nextpnr-xilinx chip database {setup.chipdb} (once per part; many minutes)")
    scriptrun.run([python, os.path.join(setup.python_dir, "bbaexport.py"), "--device", setup.device,
                   "--xray", os.path.join(setup.prjxray, setup.family), "--bba", bba],
                  setup.python_dir, log, what="bbaexport.py (the chip database)")
    scriptrun.run(["bbasm", "-l", bba, setup.chipdb + ".tmp"], os.path.dirname(setup.chipdb),
                  log + ".bbasm", what="bbasm (the chip database)")
    os.remove(bba)
    os.replace(setup.chipdb + ".tmp", setup.chipdb)


def _results(tc, gw, log):
    with open(log, errors="replace") as f:
        text = f.read()
    if tc == "openxc7":
        util, clocks = logs.parse_nextpnr(text)
        res = logs.nextpnr_xilinx_resources(util)
        met = bool(clocks) and all(c["met"] for c in clocks.values())
    else:
        clocks, met = logs.parse_vivado_timing(text)
        rpt = os.path.join(gw, f"{litexgen.TOP}_utilization_place.rpt")
        util = {}
        if os.path.exists(rpt):
            with open(rpt, errors="replace") as f:
                util = logs.parse_vivado_utilization(f.read())
        res = logs.vivado_resources(util)
        met = met and bool(clocks) and all(c["met"] for c in clocks.values())
    return {**res, "clocks": clocks, "timing_met": met, "utilization": util}


def _run(job, tc, gw, setup):
    """Run one complete flow; returns (its report entry, error or None)."""
    if tc == "openxc7" and setup.make_chipdb:
        make_chipdb(job, setup)
    log = os.path.join(job.dir, tc, "flow.log")
    what = f"{job.board.name}/{job.core}: the {tc} flow"
    job.step(f"{tc}: synthesis, place and route")
    scriptrun.run(["bash", f"build_{litexgen.TOP}.sh"], gw, log,
                  LogSteps(job.progress, f"{job.board.name}/{job.core}", STEPS[tc], first=STEPS[tc][0][1]),
                  path_first=[own_tools_dir()] if tc == "openxc7" else None, what=what)
    entry = {"run": True, "reason": None, "log": os.path.relpath(log, paths.ROOT), "bitstream": None,
             **_results(tc, gw, log)}
    if not entry["timing_met"]:
        return entry, boardreport.timing_failure(what, job.options["sys_clk_freq"], entry["clocks"], job.name)
    entry["bitstream"] = boardreport.copy_bitstream(os.path.join(gw, litexgen.TOP), f"{job.name}-{tc}", log)
    return entry, None


def build(job):
    b = job.board
    report = {"board": b.name, "core": job.core, b.option: job.options[b.option], "git": boardreport.git_revision(),
              "sys_clk_mhz": job.options["sys_clk_freq"] / 1e6, "projects": {}, "flows": {}, "bitstream": None}
    setup = openxc7_setup(b.platform(job.options[b.option], "openxc7"))
    errors = []
    open_flow = row(job.core).soc_config.open_flow
    for tc in b.toolchains:
        out = os.path.join(job.dir, tc)
        missing = setup.missing if tc == "openxc7" else vivado_missing()
        if tc == "openxc7" and not open_flow:
            missing = ["a core yosys can read (this core is SystemVerilog with package imports)"]
        skip = f"--toolchain {job.toolchain_asked}" if job.toolchain_asked not in (None, tc) else None
        job.step(f"writing the {tc} project")
        gw = generate_openxc7(job, out, setup) if tc == "openxc7" else \
            litexgen.generate(job, out, {**job.options, "toolchain": tc}, rom=True)
        report["projects"][tc] = os.path.relpath(gw, paths.ROOT)
        if missing or skip:
            reason = f"not asked ({skip})" if skip else "missing " + "; ".join(missing)
            job.step(f"{tc} not run: {reason}")
            report["flows"][tc] = {"run": False, "reason": reason, "bitstream": None}
            if tc == job.toolchain_asked:
                errors.append(f"{b.name}/{job.core}: {tc} not run: {reason}")
            continue
        try:
            report["flows"][tc], err = _run(job, tc, gw, setup)
        except BoardBuildError as e:
            report["flows"][tc], err = {"run": False, "reason": f"failed: {e}", "bitstream": None}, str(e)
        if err:
            errors.append(err)
        report["bitstream"] = report["bitstream"] or report["flows"][tc]["bitstream"]
    if open_flow:
        job.step("utilization estimate (yosys synth_xilinx; minutes)")
        report["estimate"] = xc7estimate.estimate(os.path.join(job.dir, b.toolchains[0]))
    else:
        report["estimate"] = xc7estimate.not_estimated("yosys cannot read this core's SystemVerilog")
    boardreport.write(report)
    if errors:
        raise BoardBuildError(errors[0] + (f" (report: bitstreams/{job.name}.json)"
                                           if "report:" not in errors[0] else ""))
    return report
