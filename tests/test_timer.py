"""The machine timer on every SoC (fw/timertest): mtime counts, mtimecmp
raises the interrupt on its line through the HAL, and mip.MTIP follows it
where the core has a machine-timer input. The firmware states its expected
output; one row per SoC runs it."""

import pytest

from irqlab.drivers import sim
from irqlab.rows import one_row_per_soc

from fwexpect import expected_lines

APP = "timertest"
ROW_PER_SOC = one_row_per_soc()


@pytest.mark.parametrize("row", ROW_PER_SOC)
def test_machine_timer(row, tmp_path):
    model = sim.ensure_model(row)
    image = sim.load_image(model, sim.build_firmware(model, APP))
    r = sim.run(model, image, str(tmp_path / "trace.bin"), max_cycles=2_000_000)
    assert r.exit_code == 0, r.console
    lines = [l.strip() for l in r.console.splitlines() if l.startswith("timer:")]
    assert lines == expected_lines(APP)
    assert model.facts["mtimer"]["mtip"] == (not model.facts["clic"])
