"""FreeRTOS on the SoC (fw/freertos/): the unmodified kernel with FreeRTOS's
own RISC-V port, its tick from the machine timer, on every row whose core
takes that timer on mip.MTIP (the SoC's fact). The application states its
expected lines in its header (`expect:`); each must be printed, in order,
and the run must exit 0."""

import os
import re

import pytest

from irqlab import paths, sim
from irqlab.rows import ROWS

APP = "freertos"
EXPECT_RE = re.compile(r"^\s*\*\s*expect:\s*(.+?)\s*$", re.M)
MAX_CYCLES = 20_000_000       # a run takes about 1.1 M cycles


def expected_lines():
    with open(os.path.join(paths.FW, APP, "main.c")) as f:
        return EXPECT_RE.findall(f.read())


def rows_with_the_stock_port():
    """Rows whose SoC gives the core a machine-timer interrupt (mip.MTIP):
    what FreeRTOS's own RISC-V port needs. Decided from the SoC's facts, so
    the model must exist; the SoC registry says it without building:
    CLIC SoCs take the timer as a CLIC source instead."""
    return [r for r, row in ROWS.items() if row.soc_config.irq_model != "clic"]


@pytest.mark.parametrize("row", rows_with_the_stock_port())
def test_freertos_runs_its_checks(row, tmp_path):
    model = sim.ensure_model(row)
    assert model.facts["mtimer"]["mtip"], f"{row}: no mip.MTIP"
    image = sim.load_image(model, sim.build_firmware(model, app=APP))
    r = sim.run(model, image, str(tmp_path / "t.bin"), max_cycles=MAX_CYCLES)
    printed = [ln for ln in r.console.splitlines() if ln.startswith("freertos:")]
    assert printed == expected_lines(), r.console[-2000:]
    assert r.exit_code == 0, r.console[-2000:]
