"""Directed test of the pipeline levers (cores/, Variants.levers): each lever
takes off what it claims, cycle by cycle at the retire port, on a block that
runs from the ITCM (tests/test_tcm_stall.py's harness), against the same
block on the row without the lever: the control, where the waits must show.

A block is `PAIRS` repetitions of an instruction and the one that uses its
result at once (or of a jump to the next instruction); the claim is the
cycles the lever saves per repetition."""

import pytest

from irqlab.builders import core as corebuild
from irqlab.rows import LEVER_SEPARATOR, row as row_info

from test_tcm_stall import GCC, pytestmark  # noqa: F401  (skips without the compiler)
from test_tcm_stall import run_block

BASE = "fastctx"
PAIRS = 4
# lever -> (one repetition, cycles the lever saves per repetition)
CLAIMS = {
    # MulPlugin adds the product in writeBack: the next instruction waits two
    # cycles; in execute it waits none, in memory one.
    "mul1": ("mul t1, t0, t2\n    add t3, t1, t1", 2),
    "mul2": ("mul t1, t0, t2\n    add t3, t1, t1", 1),
    # a load's result from memory, not writeBack: one wait fewer
    "load-early": ("lw t1, 0(s0)\n    add t3, t1, t1", 1),
    # a jal taken in decode (IBusSimplePlugin's static prediction): one
    # cycle lost, not three
    "predict": ("jal x0, 1f\n1:  addi t3, t3, 1", 2),
}


def span(row, tmp_path, one):
    tmp_path.mkdir()
    block = "\n".join(f"    {one}".replace("1f", f"{i}f").replace("1:", f"{i}:") for i in range(1, PAIRS + 1))
    retires, _ = run_block(row, tmp_path, block, entries_in_order=False)
    return retires[-1] - retires[0]


def test_every_lever_has_a_claim():
    assert sorted(CLAIMS) == sorted(corebuild.levers())


def test_a_lever_row_is_its_row_with_the_levers_core():
    r, base = row_info(f"{BASE}{LEVER_SEPARATOR}load-early"), row_info(BASE)
    assert r.soc_config.core_variant == f"{base.soc_config.core_variant}+load-early"
    assert r.features() == base.features()
    assert (r.march, r.b_symbol, r.hw_vectoring) == (base.march, base.b_symbol, base.hw_vectoring)


@pytest.mark.parametrize("lever", sorted(CLAIMS))
def test_the_lever_takes_off_what_it_claims(lever, tmp_path):
    one, saved = CLAIMS[lever]
    base = span(BASE, tmp_path / "base", one)
    with_lever = span(f"{BASE}{LEVER_SEPARATOR}{lever}", tmp_path / "lever", one)
    # the control: without the lever the block waits
    assert base > 2 * PAIRS - 1, base
    assert base - with_lever == saved * PAIRS, (base, with_lever)


def test_the_table_gives_each_lever_against_the_row():
    from irqlab.suites import levers
    def entry(digits, fmax, met):
        return {"ctxsw": {c: 10.0 for _, c in levers.CTXSW_COLUMNS}, "ctxsw_worst": 12, "digits": digits,
                "build": {"luts": 1, "flip_flops": 2, "block_ram": 3, "dsp": 4, "timing_met": met,
                          "fmax_mhz": fmax, "target_mhz": 50.0, "git": "abc1234"}}
    results = {"base": "fastctx", "board": "ulx3s", "git": "x",
               "rows": {"fastctx": entry(1000, 52.6, True), "fastctx+mul1": entry(900, 48.1, False)}}
    lines = levers.table(results).splitlines()
    assert " ".join(lines[2].split()[-3:]) == "48.1 (missed) abc1234" and "900 (-10.0%)" in lines[2]
    assert "%" not in lines[1] and " ".join(lines[1].split()[-2:]) == "52.6 abc1234"


def test_an_unknown_lever_is_a_one_line_error(capsys):
    from irqlab.suites import levers
    assert levers.main(["--levers", "faster", "--board", "none"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: unknown pipeline lever 'faster'") and "\n" not in err


def test_a_study_recorded_before_a_ctxsw_case_still_renders():
    """docs/results/levers/levers.json predates the ctxsw case tick-to-task:
    its column shows "-" for it, and every other figure as recorded."""
    import json
    from irqlab import paths
    from irqlab.suites import levers
    with open(f"{paths.ROOT}/docs/results/levers/levers.json") as f:
        results = json.load(f)
    assert any("tick-to-task" not in r["ctxsw"] for r in results["rows"].values())
    lines = levers.table(results).splitlines()
    col = [h for h, _ in levers.CTXSW_COLUMNS].index("tick->task") + 1
    assert all(ln.split()[col] == "-" for ln in lines[1:])
    assert lines[1].split()[1:3] == ["20.0", "383.0"]
