"""The board build reports: bitstreams/<board>-<core>.json per build (what
`irqlab load` and `irqlab bench --board` read back), the table of all of
them in bitstreams/RESOURCES.md, and the few lines the CLI prints."""

import json
import os
import shutil

from irqlab import paths
from irqlab.host.atomic import atomic_open

BITSTREAMS = paths.BITSTREAMS


def report_path(board, core):
    return os.path.join(BITSTREAMS, f"{board}-{core}.json")


def read(board, core):
    """The last build's report, or None."""
    try:
        with open(report_path(board, core)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


git_revision = paths.git_revision


def write(report):
    """bitstreams/<board>-<core>.json (atomically), then RESOURCES.md."""
    os.makedirs(BITSTREAMS, exist_ok=True)
    path = report_path(report["board"], report["core"])
    with atomic_open(path) as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    write_resources_table()


def timing_failure(what, clk_hz, clocks, name):
    worst = min(clocks.values(), key=lambda c: c["fmax_mhz"] - c["target_mhz"]) if clocks else None
    return (f"{what}: timing not met at {clk_hz / 1e6:.0f} MHz"
            + (f" (Fmax {worst['fmax_mhz']:.1f} MHz)" if worst else " (no timing report in the log)")
            + f"; no bitstream copied; report: bitstreams/{name}.json")


def copy_bitstream(src_base, name, log, exts=(".bit",)):
    """<src_base>.<ext> -> bitstreams/<name>.<ext> (atomic), only once every
    one is there; returns the .bit's path relative to the repository."""
    from irqlab.errors import BoardBuildError
    os.makedirs(BITSTREAMS, exist_ok=True)
    for ext in exts:
        if not os.path.exists(src_base + ext):
            raise BoardBuildError(f"{name}: the flow wrote no {ext} (log: {log})")
    for ext in exts:
        dst = os.path.join(BITSTREAMS, name + ext)
        shutil.copy(src_base + ext, dst + ".tmp")
        os.replace(dst + ".tmp", dst)
    return os.path.relpath(os.path.join(BITSTREAMS, name + exts[0]), paths.ROOT)


def fmax(clocks):
    """The lowest Fmax over a build's clocks (MHz), 0 without any."""
    return min((c["fmax_mhz"] for c in clocks.values()), default=0)


def write_resources_table():
    """bitstreams/RESOURCES.md: one row per board build report found."""
    rows_ecp5, rows_xc7, rows_est = [], [], []
    for fn in sorted(os.listdir(BITSTREAMS)):
        if not fn.endswith(".json"):
            continue
        with open(os.path.join(BITSTREAMS, fn)) as f:
            r = json.load(f)
        if r.get("board") == "ulx3s" and "luts" in r:
            rows_ecp5.append(f"| {r['core']} | {r['device']} | {r['luts']} | {r['flip_flops']} | {r['block_ram']} "
                             f"| {r['dsp']} | {fmax(r['clocks']):.1f} | {r['sys_clk_mhz']:.0f} | "
                             f"{'yes' if r['timing_met'] else 'NO'} |")
        elif r.get("board") == "arty":
            for tc, fl in r.get("flows", {}).items():
                if fl.get("luts") is not None:
                    rows_xc7.append(f"| {r['core']} | {r['variant']} | {tc} | {fl['luts']} | {fl['flip_flops']} | "
                                    f"{fl['bram36']} | {fl['bram18']} | {fl['dsp']} | {fmax(fl['clocks']):.1f} | "
                                    f"{r['sys_clk_mhz']:.0f} | {'yes' if fl['timing_met'] else 'NO'} |")
            e = r.get("estimate", {})
            if e.get("luts") is not None:
                rows_est.append(f"| {r['core']} | {r['variant']} | {e['luts']} | {e['flip_flops']} | {e['bram36']} | "
                                f"{e['bram18']} | {e['lutram']} | {e['dsp']} | {r['sys_clk_mhz']:.0f} |")
    text = ["# Resources and Fmax per core", "",
            "Written by `irqlab build --board ...` from its reports (`bitstreams/<board>-<core>.json`).", ""]
    if rows_ecp5:
        text += ["## ULX3S (ECP5, yosys + nextpnr-ecp5, whole SoC)", "",
                 "| core | device | LUT4 | FF | DP16KD | MULT18 | Fmax MHz | clock MHz | timing met |",
                 "|---|---|---|---|---|---|---|---|---|", *rows_ecp5, ""]
    if rows_xc7:
        text += ["## Arty A7 (Artix-7, place and route, whole SoC)", "",
                 "| core | variant | flow | LUT | FF | RAMB36 | RAMB18 | DSP48 | Fmax MHz | clock MHz | timing met |",
                 "|---|---|---|---|---|---|---|---|---|---|---|", *rows_xc7, ""]
    if rows_est:
        text += ["## Arty A7 (Artix-7, yosys synth_xilinx estimate, whole SoC, no place and route)", "",
                 "| core | variant | LUT | FF | RAMB36 | RAMB18 | LUTRAM | DSP48 | clock MHz |",
                 "|---|---|---|---|---|---|---|---|---|", *rows_est, ""]
    path = os.path.join(BITSTREAMS, "RESOURCES.md")
    with atomic_open(path) as f:
        f.write("\n".join(text))


def _clocks(clocks):
    return ", ".join(f"{c['fmax_mhz']:.1f} MHz ({'met' if c['met'] else 'FAILED'} at {c['target_mhz']:.0f})"
                     for c in clocks.values()) or "no timing report"


def summary(r):
    """A few lines for the terminal."""
    if r["board"] == "ulx3s":
        return (f"{r['bitstream'] or 'no bitstream'}: {r['device']}, {r['luts']} LUT4, {r['flip_flops']} FF, "
                f"{r['block_ram']} DP16KD, {r['dsp']} MULT18; Fmax {_clocks(r['clocks'])}")
    e = r["estimate"]
    lines = [f"arty/{r['core']} ({r['variant']}): estimate {e['luts']} LUT, {e['flip_flops']} FF, "
             f"{e['bram36']} RAMB36 + {e['bram18']} RAMB18, {e['dsp']} DSP48 ({e['tool']})"
             if e["luts"] is not None else f"arty/{r['core']} ({r['variant']}): no estimate ({e['tool']})"]
    for tc, fl in r["flows"].items():
        if fl["run"]:
            lines.append(f"  {tc}: {fl['bitstream'] or 'no bitstream'}: {fl['luts']} LUT, {fl['flip_flops']} FF, "
                         f"{fl['bram36']} RAMB36 + {fl['bram18']} RAMB18, {fl['dsp']} DSP48; "
                         f"Fmax {_clocks(fl['clocks'])}")
        else:
            lines.append(f"  {tc}: not run: {fl['reason']} (project: {r['projects'][tc]})")
    return "\n".join(lines)
