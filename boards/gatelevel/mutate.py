"""The gate-level check's negative control: which LUT of a netlist to
mutate, and which of its INIT bits.

The LUT is the one that computes the next value of bit 0 of the trace unit's
timestamp counter (the flip-flop whose output is the top's `probe_ts[0]`):
every trace record carries the counter, and the counter counts in every
cycle, so a wrong LUT there must show in the first record after the first
cycle in which the flipped entry is used. The bit flipped is the entry the
counting reaches: the LUT's inputs tied to constants at their constant, all
others low (the counter's own bit low, no load, no reset: every other cycle
of counting).

The netlist is yosys's `write_verilog -noattr` text: cells as

      TYPE #(
        .PARAM(value),
      ) NAME (
        .PIN(net),
      );
"""

import re

_CELL = re.compile(r"^  (\S+) (?:#\(\n(.*?)\n  \) )?(\S+) \(\n(.*?)\n  \);", re.M | re.S)
_PIN = re.compile(r"^\s*\.(\w+)\((.*)\),?$", re.M)
_ASSIGN = re.compile(r"^  assign (.+?) = (.+?);$", re.M)
_CONST = re.compile(r"^1'h([01])$")
_INIT = re.compile(r"\.INIT\(16'h([0-9a-fA-F]{4})\)")
TARGET = "probe_ts[0]"


def cells(text):
    """(type, name, params text, {pin: net}) of each cell."""
    for m in _CELL.finditer(text):
        yield m.group(1), m.group(3), m.group(2) or "", {p: n.strip() for p, n in _PIN.findall(m.group(4))}


def _norm(net):
    """A net's name as one token: `\\a [3]` and `a[3]` alike."""
    return net.replace("\\", "").replace(" ", "")


def choose_lut(text, target=TARGET):
    """{'lut': instance name, 'init': its INIT, 'bit': the INIT bit to flip,
    'net': the net its flip-flop drives} for the timestamp's bit 0."""
    alias = {}
    for a, b in _ASSIGN.findall(text):
        alias[_norm(a)] = _norm(b)
        alias[_norm(b)] = _norm(a)
    want = {_norm(target)}
    if _norm(target) in alias:
        want.add(alias[_norm(target)])
    by_output, ff = {}, None
    all_cells = list(cells(text))
    for typ, name, params, pins in all_cells:
        if typ == "LUT4":
            by_output[_norm(pins.get("Z", ""))] = (name, params, pins)
        if typ == "TRELLIS_FF" and _norm(pins.get("Q", "")) in want:
            ff = (name, pins)
    if ff is None:
        raise ValueError(f"no flip-flop drives {target} in the netlist")
    d = _norm(ff[1].get("DI", ""))
    if d not in by_output:
        raise ValueError(f"{target}'s flip-flop {ff[0]} is not fed by a LUT4 (DI = {d})")
    name, params, pins = by_output[d]
    init = int(_INIT.search(params).group(1), 16)
    bit = 0
    for k, pin in enumerate("ABCD"):
        c = _CONST.match(pins.get(pin, "1'h0"))
        if c and c.group(1) == "1":
            bit |= 1 << k
    return {"lut": name, "init": init, "bit": bit, "net": target}
