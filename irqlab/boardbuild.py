"""`irqlab build --board ulx3s|arty`: a bitstream (or a complete project) and its report.

Steps for one board and core:
  1. generate the SoC once for its software headers, build the firmware
     against them (the same fw/ as in simulation);
  2. generate it again with the firmware in ROM and run the FPGA flow;
  3. copy the bitstream to bitstreams/<board>-<core>.bit (.svf) and write
     bitstreams/<board>-<core>.json: resources, Fmax of every clock, timing met.
"""

import json
import os
import re
import shutil
import subprocess
import sys

from irqlab import corebuild, firmware, paths
from irqlab.errors import BoardBuildError, unknown
from irqlab.rows import row as row_info

BITSTREAMS = os.path.join(paths.ROOT, "bitstreams")
BOARDS = {
    # board -> (module, class, default options)
    "ulx3s": ("irqlab.boards.ulx3s", "ULX3SSoC", {"device": "LFE5U-85F", "sys_clk_freq": 50e6}),
    "arty": ("irqlab.boards.arty", "ArtySoC", {"variant": "a7-35", "sys_clk_freq": 100e6, "toolchain": "vivado"}),
}
TOP = "irqlab"
# SoCs that do not reach the board's default clock (the measured Fmax is in
# bitstreams/RESOURCES.md): the CLIC SoC reaches 45 MHz on the ECP5 (25 MHz
# leaves margin; nextpnr struggles for a long time on an infeasible target).
CLOCK_DEFAULTS = {("ulx3s", "clic"): 25e6}


def board_dir(board, core):
    return os.path.join(paths.BUILD, "boards", f"{board}-{core}")


def _generate(board, core, out_dir, options, rom_bin=None, run=False, tools_path=None, log=None, env_extra=None):
    """Run the LiteX generation (and the FPGA flow if run) in a subprocess."""
    module, cls, _ = BOARDS[board]
    script = (
        "import sys, json\n"
        "from importlib import import_module\n"
        "from litex.soc.integration.builder import Builder\n"
        "from irqlab.fwimage import load_image\n"
        "from irqlab.soc.configs import soc_config\n"
        "a = json.loads(sys.argv[1])\n"
        "opts = a['options']\n"
        "if a['rom_bin']:\n"
        "    img = load_image(a['rom_bin'], soc_config(a['soc']).code_size)\n"
        "    opts['rom_init'] = [int.from_bytes(img[i:i+4], 'little') for i in range(0, len(img), 4)]\n"
        "soc = getattr(import_module(a['module']), a['cls'])(soc=a['soc'], core_verilog=a['verilog'], **opts)\n"
        "b = Builder(soc, output_dir=a['out'], compile_software=False, compile_gateware=a['run'],\n"
        "            csr_csv=a['out'] + '/csr.csv')\n"
        "b.build(build_name=a['top'], run=a['run'])\n"
        "p = soc.platform\n"
        "json.dump({'sources': [s[0] for s in p.sources], 'include_paths': list(p.verilog_include_paths)},\n"
        "          open(a['out'] + '/sources.json', 'w'))\n"
        "json.dump(soc.facts(), open(a['out'] + '/soc.json', 'w'), indent=1)\n"
    )
    cfg = row_info(core).soc_config
    verilog = corebuild.build_core(cfg.core_variant) if cfg.own_core else None
    args = json.dumps({"module": module, "cls": cls, "soc": cfg.name, "verilog": verilog,
                       "options": options, "out": out_dir,
                       "rom_bin": rom_bin, "run": run, "top": TOP})
    env = dict(os.environ)
    if tools_path:
        env["PATH"] = tools_path + os.pathsep + env["PATH"]
    env.update(env_extra or {})
    log = log or os.path.join(out_dir, "generate.log")
    os.makedirs(out_dir, exist_ok=True)
    with open(log, "w") as f:
        r = subprocess.run([sys.executable, "-c", script, args], stdout=f, stderr=subprocess.STDOUT, env=env)
    if r.returncode != 0:
        with open(log) as f:
            tail = f.read().strip().splitlines()[-20:]
        raise BoardBuildError(f"{board}/{core}: LiteX {'build' if run else 'generation'} failed "
                              f"(log: {log}):\n  " + "\n  ".join(tail))
    return log


def parse_nextpnr_log(text):
    """Resources and per-clock Fmax from a nextpnr log (the last report in it)."""
    util = {}
    for m in re.finditer(r"Info:\s+([A-Z0-9_]+):\s+(\d+)/\s*(\d+)\s+(\d+)%", text):
        util[m.group(1)] = {"used": int(m.group(2)), "available": int(m.group(3))}
    clocks = {}
    for m in re.finditer(r"Max frequency for clock\s+'([^']+)':\s+([\d.]+) MHz \((PASS|FAIL) at ([\d.]+) MHz\)", text):
        clocks[m.group(1)] = {"fmax_mhz": float(m.group(2)), "target_mhz": float(m.group(4)),
                              "met": m.group(3) == "PASS"}
    return util, clocks


def ecp5_report(util, clocks):
    pick = lambda k: util.get(k, {}).get("used", 0)
    return {
        "luts": pick("TRELLIS_COMB"),
        "flip_flops": pick("TRELLIS_FF"),
        "block_ram": pick("DP16KD"),
        "dsp": pick("MULT18X18D"),
        "clocks": clocks,
        "timing_met": bool(clocks) and all(c["met"] for c in clocks.values()),
        "utilization": util,
    }


def _check_options(board, options):
    if board == "ulx3s":
        from irqlab.boards.ulx3s import DEVICES
        if options["device"] not in DEVICES:
            raise BoardBuildError(f"unknown ULX3S device '{options['device']}' (known: {', '.join(DEVICES)})")
    else:
        from irqlab.boards.arty import VARIANTS
        if options["variant"] not in VARIANTS:
            raise BoardBuildError(f"unknown Arty variant '{options['variant']}' (known: {', '.join(VARIANTS)})")
    if options["sys_clk_freq"] <= 0:
        raise BoardBuildError("the system clock must be positive")


def _git():
    from irqlab.bench import git_revision
    return git_revision()


def tools_dir():
    from irqlab.boards.yowasp_tools import write_wrappers
    return write_wrappers(os.path.join(paths.BUILD, "tools", "bin"))


def build(board, core, progress=None, **overrides):
    """Build one board/core; returns the report dict (also written as JSON)."""
    if board not in BOARDS:
        raise unknown("board", board, ["sim"] + list(BOARDS))
    row = row_info(core)
    if board == "ulx3s" and not row.soc_config.open_flow:
        raise BoardBuildError(f"core '{core}' cannot go through the open ECP5 flow: yosys cannot read its "
                              f"SystemVerilog; build it for the Arty with Vivado")
    options = dict(BOARDS[board][2])
    if (board, row.soc) in CLOCK_DEFAULTS:
        options["sys_clk_freq"] = CLOCK_DEFAULTS[(board, row.soc)]
    options.update({k: v for k, v in overrides.items() if v is not None})
    _check_options(board, options)
    d = board_dir(board, core)
    if os.path.exists(d):
        shutil.rmtree(d)
    step = progress.step if progress else (lambda m: None)

    step(f"{board}/{core}: generating the SoC for its software headers")
    _generate(board, core, d, options)
    step(f"{board}/{core}: building the firmware")
    fw = firmware.build(core, "bench", os.path.join(d, "software", "include"), os.path.join(d, "fw", f"{core}-bench-rom"))

    if board == "ulx3s":
        return _build_ulx3s(core, d, options, fw, step)
    return _build_arty(core, d, options, fw, step)


def _build_ulx3s(core, d, options, fw, step):
    step(f"ulx3s/{core}: synthesis, place and route (yosys + nextpnr-ecp5; minutes)")
    log = os.path.join(d, "flow.log")
    _generate("ulx3s", core, d, options, rom_bin=fw, run=True, tools_path=tools_dir(), log=log)
    gw = os.path.join(d, "gateware")
    with open(log, errors="replace") as f:
        util, clocks = parse_nextpnr_log(f.read())
    report = {"board": "ulx3s", "core": core, "device": options["device"], "git": _git(),
              "sys_clk_mhz": options["sys_clk_freq"] / 1e6, **ecp5_report(util, clocks)}
    os.makedirs(BITSTREAMS, exist_ok=True)
    name = f"ulx3s-{core}"
    for ext in (".bit", ".svf"):
        src = os.path.join(gw, TOP + ext)
        if not os.path.exists(src):
            raise BoardBuildError(f"ulx3s/{core}: the flow wrote no {ext} (log: {log})")
        shutil.copy(src, os.path.join(BITSTREAMS, name + ext))
    report["bitstream"] = os.path.relpath(os.path.join(BITSTREAMS, name + ".bit"), paths.ROOT)
    _write_report(name, report)
    if not report["timing_met"]:
        worst = min(clocks.values(), key=lambda c: c["fmax_mhz"] - c["target_mhz"]) if clocks else None
        raise BoardBuildError(f"ulx3s/{core}: timing not met at {options['sys_clk_freq'] / 1e6:.0f} MHz"
                              + (f" (Fmax {worst['fmax_mhz']:.1f} MHz)" if worst else " (no timing report)")
                              + f"; report: bitstreams/{name}.json")
    return report


ARTY_TOOLS = {
    "vivado": ["vivado"],
    "openxc7": ["yosys", "nextpnr-xilinx", "fasm2frames", "xc7frames2bit"],
}
ARTY_PARTS = {"a7-35": "xc7a35ticsg324", "a7-100": "xc7a100tcsg324"}   # nextpnr-xilinx chipdb names


def _openxc7_env(variant, have_tools):
    """LiteX's openXC7 flow needs CHIPDB (nextpnr-xilinx chip databases) and
    PRJXRAY_DB_DIR already when it writes the project. With the toolchain
    installed, the user's settings are used; without it, empty placeholders
    let the project be generated (set both and build again to use it)."""
    if have_tools and os.environ.get("CHIPDB") and os.environ.get("PRJXRAY_DB_DIR"):
        return {}
    root = os.path.join(paths.BUILD, "openxc7-placeholder")
    chipdb, prjxray = os.path.join(root, "chipdb"), os.path.join(root, "prjxray-db")
    os.makedirs(chipdb, exist_ok=True)
    os.makedirs(prjxray, exist_ok=True)
    open(os.path.join(chipdb, ARTY_PARTS[variant] + ".bin"), "a").close()
    return {"CHIPDB": chipdb, "PRJXRAY_DB_DIR": prjxray}


ARTY_INSTALL = {
    "vivado": "AMD/Xilinx Vivado (ML Standard edition is free) on PATH",
    "openxc7": "the openXC7 toolchain (yosys, nextpnr-xilinx, fasm2frames, xc7frames2bit) on PATH "
               "with CHIPDB and PRJXRAY_DB_DIR set",
}


def _build_arty(core, d, options, fw, step):
    report = {"board": "arty", "core": core, "variant": options["variant"], "git": _git(),
              "sys_clk_mhz": options["sys_clk_freq"] / 1e6, "projects": {}, "built": {}}
    for tc, tools in ARTY_TOOLS.items():
        out = os.path.join(d, tc)
        have = all(shutil.which(t) for t in tools)
        step(f"arty/{core}: {'building with' if have else 'generating the project for'} {tc}")
        env = _openxc7_env(options["variant"], have) if tc == "openxc7" else {}
        _generate("arty", core, out, {**options, "toolchain": tc}, rom_bin=fw, run=have,
                  log=os.path.join(out, "flow.log"), env_extra=env)
        report["projects"][tc] = os.path.relpath(os.path.join(out, "gateware"), paths.ROOT)
        bit = os.path.join(out, "gateware", TOP + ".bit")
        if have and os.path.exists(bit):
            name = f"arty-{core}-{tc}.bit"
            os.makedirs(BITSTREAMS, exist_ok=True)
            shutil.copy(bit, os.path.join(BITSTREAMS, name))
            report["built"][tc] = f"bitstreams/{name}"
        else:
            report["built"][tc] = None
            report.setdefault("to_build", {})[tc] = (
                f"install {ARTY_INSTALL[tc]}, then run again (or run the build script in "
                f"{report['projects'][tc]})")
    if row_info(core).soc_config.open_flow:
        step(f"arty/{core}: utilization estimate (yosys synth_xilinx; minutes)")
        report["estimate"] = xilinx_estimate(os.path.join(d, "vivado"))
    else:
        report["estimate"] = {"tool": "none: yosys cannot read this core's SystemVerilog", "luts": None,
                              "flip_flops": None, "bram36": None, "bram18": None, "lutram": None, "dsp": None}
    _write_report(f"arty-{core}", report)
    return report


def parse_yosys_stat(text):
    """Cell counts from the last `stat` of a yosys log."""
    last = text.rfind(f"=== {TOP} ===")
    cells = {}
    for m in re.finditer(r"^\s+(\d+)\s+(?:[\d.]+\s+)?\$?([A-Za-z0-9_]+)\s*$|^\s+([A-Za-z0-9_$]+)\s+(\d+)\s*$",
                         text[last:], re.M):
        if m.group(1):
            cells[m.group(2)] = int(m.group(1))
        else:
            cells[m.group(3).lstrip("$")] = int(m.group(4))
    return cells


def xilinx_estimate(project_dir):
    """LUT/FF/BRAM/DSP of the design by yosys synth_xilinx (an estimate: no
    place and route, no timing)."""
    gw = os.path.join(project_dir, "gateware")
    with open(os.path.join(project_dir, "sources.json")) as f:
        src = json.load(f)
    files = [p for p in src["sources"] if p.endswith((".v", ".sv"))]
    if not any(os.path.basename(p) == TOP + ".v" for p in files):
        files.append(os.path.join(gw, TOP + ".v"))
    incs = " ".join(f"-I{p}" for p in src["include_paths"])
    script = os.path.join(gw, "estimate.ys")
    with open(script, "w") as f:
        for p in files:
            f.write(f"read_verilog {'-sv ' if p.endswith('.sv') else ''}{incs} {p}\n")
        f.write(f"synth_xilinx -family xc7 -flatten -top {TOP}\nstat\n")
    log = os.path.join(gw, "estimate.log")
    env = dict(os.environ, PATH=tools_dir() + os.pathsep + os.environ["PATH"])
    with open(log, "w") as f:
        r = subprocess.run(["yosys", "-q", "-l", log + ".full", "-s", script], cwd=gw, stdout=f,
                           stderr=subprocess.STDOUT, env=env)
    if r.returncode != 0:
        raise BoardBuildError(f"yosys synth_xilinx failed (log: {log})")
    with open(log + ".full", errors="replace") as f:
        cells = parse_yosys_stat(f.read())
    luts = sum(n for c, n in cells.items() if re.fullmatch(r"LUT[1-6]", c))
    ffs = sum(n for c, n in cells.items() if re.fullmatch(r"FD[RSCP]E(_1)?", c))
    return {
        "tool": "yosys synth_xilinx (no place and route)",
        "luts": luts, "flip_flops": ffs,
        "bram36": cells.get("RAMB36E1", 0), "bram18": cells.get("RAMB18E1", 0),
        "lutram": sum(n for c, n in cells.items() if c.startswith(("RAM32", "RAM64", "RAM128", "RAM256"))),
        "dsp": cells.get("DSP48E1", 0),
        "cells": cells,
    }


def _write_report(name, report):
    os.makedirs(BITSTREAMS, exist_ok=True)
    path = os.path.join(BITSTREAMS, name + ".json")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)
    write_resources_table()


def write_resources_table():
    """bitstreams/RESOURCES.md: one row per board build report found."""
    rows_ecp5, rows_xc7 = [], []
    for fn in sorted(os.listdir(BITSTREAMS)):
        if not fn.endswith(".json"):
            continue
        with open(os.path.join(BITSTREAMS, fn)) as f:
            r = json.load(f)
        if r.get("board") == "ulx3s":
            fmax = min((c["fmax_mhz"] for c in r["clocks"].values()), default=0)
            rows_ecp5.append(f"| {r['core']} | {r['device']} | {r['luts']} | {r['flip_flops']} | {r['block_ram']} "
                             f"| {r['dsp']} | {fmax:.1f} | {r['sys_clk_mhz']:.0f} | {'yes' if r['timing_met'] else 'NO'} |")
        elif r.get("board") == "arty" and r["estimate"].get("luts") is not None:
            e = r["estimate"]
            rows_xc7.append(f"| {r['core']} | {r['variant']} | {e['luts']} | {e['flip_flops']} | {e['bram36']} | "
                            f"{e['bram18']} | {e['lutram']} | {e['dsp']} | {r['sys_clk_mhz']:.0f} |")
    text = ["# Resources and Fmax per core", "",
            "Written by `irqlab build --board ...` from its reports (`bitstreams/<board>-<core>.json`).", ""]
    if rows_ecp5:
        text += ["## ULX3S (ECP5, yosys + nextpnr-ecp5, whole SoC)", "",
                 "| core | device | LUT4 | FF | DP16KD | MULT18 | Fmax MHz | clock MHz | timing met |",
                 "|---|---|---|---|---|---|---|---|---|", *rows_ecp5, ""]
    if rows_xc7:
        text += ["## Arty A7 (Artix-7, yosys synth_xilinx estimate, whole SoC, no place and route)", "",
                 "| core | variant | LUT | FF | RAMB36 | RAMB18 | LUTRAM | DSP48 | clock MHz |",
                 "|---|---|---|---|---|---|---|---|---|", *rows_xc7, ""]
    path = os.path.join(BITSTREAMS, "RESOURCES.md")
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(text))
    os.replace(path + ".tmp", path)


def summary(r):
    """A few lines for the terminal."""
    if r["board"] == "ulx3s":
        clocks = ", ".join(f"{c['fmax_mhz']:.1f} MHz ({'met' if c['met'] else 'FAILED'} at {c['target_mhz']:.0f})"
                           for c in r["clocks"].values())
        return (f"{r['bitstream']}: {r['device']}, {r['luts']} LUT4, {r['flip_flops']} FF, "
                f"{r['block_ram']} DP16KD, {r['dsp']} MULT18; Fmax {clocks}")
    e = r["estimate"]
    lines = [f"arty/{r['core']} ({r['variant']}): estimate {e['luts']} LUT, {e['flip_flops']} FF, "
             f"{e['bram36']} RAMB36 + {e['bram18']} RAMB18, {e['dsp']} DSP48 ({e['tool']})"
             if e["luts"] is not None else f"arty/{r['core']} ({r['variant']}): no estimate ({e['tool']})"]
    for tc, path in r["projects"].items():
        built = r["built"].get(tc)
        lines.append(f"  {tc}: {built or 'project in ' + path + ' (not built: ' + r['to_build'][tc] + ')'}")
    return "\n".join(lines)


PROGRAMMER_BOARDS = {"ulx3s": "ulx3s", "arty": "arty_a7_35t"}


def load(board, core, bitstream=None, flash=False):
    if board not in PROGRAMMER_BOARDS:
        raise unknown("board", board, PROGRAMMER_BOARDS)
    tool = shutil.which("openFPGALoader")
    if not tool:
        raise BoardBuildError("openFPGALoader not found: apt-get install openfpgaloader")
    if bitstream is None:
        suffix = "" if board == "ulx3s" else "-vivado"
        bitstream = os.path.join(BITSTREAMS, f"{board}-{core}{suffix}.bit")
    if not os.path.exists(bitstream):
        raise BoardBuildError(f"no bitstream at {bitstream}: run irqlab build --board {board} --core {core}")
    cmd = [tool, "-b", PROGRAMMER_BOARDS[board]] + (["-f"] if flash else []) + [bitstream]
    if subprocess.run(cmd).returncode != 0:
        raise BoardBuildError(f"openFPGALoader failed: {' '.join(cmd)}")
