"""The gate-level check (boards/gatelevel/check.py): the netlist yosys's
synth_ecp5 makes of the simulation SoC, by the ULX3S flow's own script,
simulated with yosys's ECP5 cell models and the block RAM and multiplier
models of boards/gatelevel/ecp5_models.v, must give the RTL's trace event for
event (type, sequence number, cycle stamp, payload) on a short benchmark run,
the same console and exit code, and no collision of a block RAM's two ports.

A collision of a block RAM's two ports (undefined on the FPGA) gives the
reading port inverted data in the model, so a design that uses it disagrees;
the DTCM's port that the save port writes must never meet a read of the
other (its `no_rw_check`).

The negative control: the same model with one INIT bit of one LUT flipped
(the one that counts the timestamp's bit 0, boards/gatelevel/mutate.py) must
disagree.

`make test` checks the SoCs of GATELEVEL_SOCS (default `fastirq`, the
dual-write DTCM with `no_rw_check`); the netlists are cached by content under
build/gatelevel/, so a run with nothing changed only simulates.
"""

import os
import re

import pytest

from irqlab.boards.gatelevel import check as gl
from irqlab.boards.gatelevel import mutate

SOCS = [s for s in os.environ.get("GATELEVEL_SOCS", "fastirq").split(",") if s]


@pytest.fixture(scope="module", params=SOCS)
def prepared(request, tmp_path_factory):
    return gl.prepare(request.param, trace_dir=str(tmp_path_factory.mktemp(request.param)))


@pytest.fixture(scope="module")
def result(prepared):
    r = gl.run_gate(prepared)
    print(r.summary())
    return r


def test_netlist_agrees_with_rtl(result):
    assert result.events > 100, "the short benchmark run left too few events to compare"
    assert result.agree, result.summary()


def test_dtcm_reads_never_meet_a_save(result):
    """The DTCM's `no_rw_check` (soc/tcm.py): no read of its data port (the
    block RAMs' port A) meets a write of its instruction port (port B: the
    save port's writes) on a word in the same cycle, the collision whose
    result the attribute leaves open."""
    dtcm = {k: v for k, v in result.collision_counts("B writes").items() if ".dtcm." in k}
    dtcm_both = {k: v for k, v in result.collision_counts("both").items() if ".dtcm." in k}
    assert not any(dtcm.values()) and not any(dtcm_both.values()), (dtcm, dtcm_both)


def test_negative_control_disagrees(prepared):
    result = gl.run_gate(prepared, mutant=True)
    print(result.first_difference)
    assert result.differs_in_a_record, f"flipping INIT bit {prepared.gate.mutant['bit']} of LUT " \
                                       f"{prepared.gate.mutant['lut']} went unnoticed"


def test_the_synthesis_is_the_flows(prepared):
    """The netlist's script is the ULX3S flow's: the same lines but the
    sources, the top and the output; the synth line's options unchanged."""
    flow = gl.flow_script(prepared.rtl.row)
    with open(os.path.join(gl.soc_dir(prepared.rtl.soc), "synth", "synth.ys")) as f:
        ours = f.read().splitlines()
    keep = [l for l in flow if not re.match(r"(read_|write_)", l)]
    assert [l for l in ours if not re.match(r"(read_|write_)", l)] == \
        [re.sub(r"-top\s+\S+", f"-top {gl.TOP}", l) for l in keep]
    assert any(l.startswith("write_verilog") for l in ours)


FF_NETLIST = """\
  LUT4 #(
    .INIT(16'h1b1b)
  ) _7_ (
    .A(\\ts [0]),
    .B(load),
    .C(1'h1),
    .D(1'h0),
    .Z(_3_)
  );
  TRELLIS_FF #(
    .REGSET("RESET")
  ) _8_ (
    .CLK(sys_clk),
    .DI(_3_),
    .Q(\\ts [0])
  );
  assign probe_ts[0] = \\ts [0];
"""


def test_mutation_choice():
    """The LUT feeding the timestamp's bit 0, the entry with its constant
    inputs at their constants and the others low."""
    m = mutate.choose_lut(FF_NETLIST)
    assert m == {"lut": "_7_", "init": 0x1b1b, "bit": 0b0100, "net": "probe_ts[0]"}
    text = gl.prepare_netlist(FF_NETLIST, "_7_", 4)
    assert "GATELEVEL_MUTANT_LUT4 #(\n    .FLIP(4)," in text and text.count("LUT4 #(") == 1
