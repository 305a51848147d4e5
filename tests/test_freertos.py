"""FreeRTOS on the SoC (fw/freertos/) on every row: the unmodified kernel
with FreeRTOS's own RISC-V port where the core takes the machine timer on
mip.MTIP, the project's CLIC port (fw/freertos/port-clic/) on the CLIC rows.
The application states its expected lines in its header (`expect:`); each
must be printed, in order, and the run must exit 0."""

import pytest

from irqlab import sim
from irqlab.host import describe, record as rec
from irqlab.rows import ROWS

from fwexpect import expected_lines

APP = "freertos"
MAX_CYCLES = 20_000_000       # a run takes about 1.1 M cycles


@pytest.mark.parametrize("row", list(ROWS))
def test_freertos_runs_its_checks(row, tmp_path):
    model = sim.ensure_model(row)
    # The port the build chose needs one of the two tick paths.
    assert model.facts["mtimer"]["mtip"] or model.facts["clic"], f"{row}: no tick source"
    image = sim.load_image(model, sim.build_firmware(model, app=APP))
    r = sim.run(model, image, str(tmp_path / "t.bin"), max_cycles=MAX_CYCLES)
    printed = [ln for ln in r.console.splitlines() if ln.startswith("freertos:")]
    assert printed == expected_lines(APP), r.console[-2000:]
    assert r.exit_code == 0, r.console[-2000:]
    # The trace hooks (configIRQLAB_TRACE): task switches, ticks, queue and
    # ISR events, named by the one protocol.
    records, _ = r.trace()
    seen = {describe.channel_name(describe.sw_fields(x.payload)[0]) for x in records if x.type == rec.TYPE_SW}
    for name in ("TASK_IN", "TASK_OUT", "TASK_READY", "TICK", "ISR_ENTER", "QUEUE_SEND", "QUEUE_RECEIVE", "INHERIT",
                 "NOTIFY_ISR"):
        assert f"freertos.{name}" in seen, (name, sorted(seen))
