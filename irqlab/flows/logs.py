"""Figures from the FPGA tools' logs: utilization and per-clock timing of
nextpnr (ECP5 and Xilinx alike) and Vivado, and yosys `stat` cell counts.

Every parser returns plain dicts; a clock entry is
{"fmax_mhz", "target_mhz", "met"}."""

import re

_NEXTPNR_UTIL = re.compile(r"Info:\s+([A-Za-z0-9_]+):\s+(\d+)/\s*(\d+)\s+(\d+)%")
_NEXTPNR_FMAX = re.compile(r"Max frequency for clock\s+'([^']+)':\s+([\d.]+) MHz \((PASS|FAIL) at ([\d.]+) MHz\)")


def parse_nextpnr(text):
    """(utilization {bel: {used, available}}, clocks) from a nextpnr log; the
    last report wins (nextpnr reports after placement and after routing)."""
    util, clocks = {}, {}
    for m in _NEXTPNR_UTIL.finditer(text):
        util[m.group(1)] = {"used": int(m.group(2)), "available": int(m.group(3))}
    for m in _NEXTPNR_FMAX.finditer(text):
        clocks[m.group(1)] = {"fmax_mhz": float(m.group(2)), "target_mhz": float(m.group(4)),
                              "met": m.group(3) == "PASS"}
    return util, clocks


def _used(util, *prefixes):
    return sum(u["used"] for k, u in util.items() if k.startswith(prefixes))


def ecp5_resources(util):
    return {"luts": _used(util, "TRELLIS_COMB"), "flip_flops": _used(util, "TRELLIS_FF"),
            "block_ram": _used(util, "DP16KD"), "dsp": _used(util, "MULT18X18D")}


def nextpnr_xilinx_resources(util):
    return {"luts": _used(util, "SLICE_LUTX"), "flip_flops": _used(util, "SLICE_FFX"),
            "bram36": _used(util, "RAMB36"), "bram18": _used(util, "RAMB18"), "dsp": _used(util, "DSP48")}


def _table_rows(text, title):
    """The lines of the Vivado report table that follows `| <title>` (up to
    the next `| ` section heading)."""
    m = re.search(r"^\|\s*" + re.escape(title) + r"\s*$", text, re.M)
    if not m:
        return []
    rest = text[m.end():]
    nxt = re.search(r"^\|\s*\S.*$\n^\|\s*-+\s*$", rest, re.M)
    return rest[:nxt.start() if nxt else len(rest)].splitlines()


def _columns(header):
    """(name, end column) of each heading of a Vivado table (separated by 2+ spaces)."""
    return [(m.group(0), m.end()) for m in re.finditer(r"\S+(?: \S+)*", header)]


def parse_vivado_timing(text):
    """Per-clock timing from `report_timing_summary` in a Vivado log: each
    clock's period (Clock Summary) and setup WNS (Intra Clock Table), so
    Fmax = 1000 / (period - WNS)."""
    periods = {}
    for line in _table_rows(text, "Clock Summary"):
        m = re.match(r"^\s*(\S+)\s+\{[^}]*\}\s+([\d.]+)\s+([\d.]+)", line)
        if m:
            periods[m.group(1)] = float(m.group(2))
    clocks = {}
    rows = _table_rows(text, "Intra Clock Table")
    header = next((l for l in rows if "WNS(ns)" in l), None)
    if header is not None:
        end = dict(_columns(header))["WNS(ns)"]
        for line in rows[rows.index(header) + 2:]:
            name = line.split()[0] if line.strip() else None
            if name not in periods:
                continue
            # Numbers are right-aligned under their heading; clocks without
            # setup paths (only pulse width) leave the WNS column blank.
            wns = line[max(0, end - 12):end].strip()
            if re.fullmatch(r"-?[\d.]+", wns):
                period = periods[name]
                clocks[name] = {"fmax_mhz": round(1000.0 / (period - float(wns)), 2),
                                "target_mhz": round(1000.0 / period, 2), "met": float(wns) >= 0,
                                "wns_ns": float(wns)}
    met = "All user specified timing constraints are met." in text
    return clocks, met


def parse_vivado_utilization(text):
    """Used/available per site type from `report_utilization` (the rows
    `| Slice LUTs | 123 | 0 | [0 |] 20800 | 0.59 |`)."""
    util = {}
    for m in re.finditer(r"^\|\s*([A-Za-z][^|]*?)\s*\|\s*(\d+)\s*\|(.*)\|\s*[<\d.]+\s*\|\s*$", text, re.M):
        cols = [c.strip() for c in m.group(3).split("|")]
        nums = [c for c in cols if re.fullmatch(r"\d+", c)]
        if nums and m.group(1) not in util:
            util[m.group(1)] = {"used": int(m.group(2)), "available": int(nums[-1])}
    return util


def vivado_resources(util):
    def pick(name):     # synthesis reports star some names ("Slice LUTs*")
        return util.get(name, util.get(name + "*", {})).get("used", 0)
    return {"luts": pick("Slice LUTs"), "flip_flops": pick("Slice Registers"),
            "bram36": pick("RAMB36/FIFO*"), "bram18": pick("RAMB18"), "dsp": pick("DSPs")}


def parse_yosys_stat(text, top):
    """Cell counts from the last `stat` of a yosys log."""
    last = text.rfind(f"=== {top} ===")
    cells = {}
    for m in re.finditer(r"^\s+(\d+)\s+(?:[\d.]+\s+)?\$?([A-Za-z0-9_]+)\s*$|^\s+([A-Za-z0-9_$]+)\s+(\d+)\s*$",
                         text[last:], re.M):
        if m.group(1):
            cells[m.group(2)] = int(m.group(1))
        else:
            cells[m.group(3).lstrip("$")] = int(m.group(4))
    return cells
