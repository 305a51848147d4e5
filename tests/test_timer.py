"""The machine timer on every SoC (fw/timertest): mtime counts, mtimecmp
raises the interrupt on its line through the HAL, and mip.MTIP follows it
where the core has a machine-timer input. The firmware states its expected
output; one row per SoC runs it."""

import os
import re

import pytest

from irqlab import paths, sim
from irqlab.rows import one_row_per_soc

APP = "timertest"
ROW_PER_SOC = one_row_per_soc()


def expected():
    with open(os.path.join(paths.FW, APP, "main.c")) as f:
        return re.findall(r"^ \* expect: (.*)$", f.read(), re.M)


@pytest.mark.parametrize("row", ROW_PER_SOC)
def test_machine_timer(row, tmp_path):
    model = sim.ensure_model(row)
    image = sim.load_image(model, sim.build_firmware(model, APP))
    r = sim.run(model, image, str(tmp_path / "trace.bin"), max_cycles=2_000_000)
    assert r.exit_code == 0, r.console
    lines = [l.strip() for l in r.console.splitlines() if l.startswith("timer:")]
    assert lines == expected()
    assert model.facts["mtimer"]["mtip"] == (not model.facts["clic"])
