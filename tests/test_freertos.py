"""FreeRTOS on the SoC (fw/freertos/) on every row: the kernel (with the
CLIC port's patch where the SoC has the tick countdown) with FreeRTOS's own RISC-V port where the core takes the machine timer on
mip.MTIP, the project's CLIC port (fw/freertos/port-clic/) on the CLIC rows.
The application states its expected lines in its header (`expect:`); each
must be printed, in order, and the run must exit 0."""

import pytest

from irqlab.builders import firmware, freertos, fwoptions
from irqlab.drivers import elfimage, sim
from irqlab.host import describe, record as rec
from irqlab.rows import ROWS, row as row_info

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
    if model.facts["clic"] and model.facts["trace"]["retire_port"]:
        check_tick_saves_callee_only_to_switch(model, records)


# A row with task contexts on its SoC with the tick countdown (the SoC option
# soc/configs.py SOC_OPTIONS "tick-countdown").
TICK_ROW = next(r for r, info in ROWS.items() if info.soc_config.task_contexts) + "+tick-countdown"


def test_freertos_with_the_tick_countdown(tmp_path):
    """Delays in hardware: the application's checks pass with the port
    handing its tasks' delays to the SoC's tick countdown (the delays check
    asserts that it did)."""
    model = sim.ensure_model(TICK_ROW)
    assert model.facts["taskdelay"]["channels"] == row_info(TICK_ROW).soc_config.fast_contexts - 1
    image = sim.load_image(model, sim.build_firmware(model, app=APP))
    r = sim.run(model, image, str(tmp_path / "t.bin"), max_cycles=MAX_CYCLES)
    printed = [ln for ln in r.console.splitlines() if ln.startswith("freertos:")]
    assert printed == expected_lines(APP), r.console[-2000:]
    assert r.exit_code == 0, r.console[-2000:]


def test_the_delay_check_fails_with_the_kernel_unpatched(tmp_path, monkeypatch):
    """Negative control of the delays check (fw/freertos/main.c): the port
    with the tick countdown on, but the kernel as the crate ships it, so
    vTaskDelay never reaches the port: the application must fail there, with
    the kernel's tick count still right."""
    row = TICK_ROW
    model = sim.ensure_model(row)
    monkeypatch.setattr(firmware, "kernel_for", lambda r, options=(): freertos.kernel_dir())
    fw = firmware.build(row, APP, model.include, str(tmp_path / "fw"))
    r = sim.run(model, sim.load_image(model, fw), str(tmp_path / "t.bin"), max_cycles=MAX_CYCLES)
    printed = [ln for ln in r.console.splitlines() if ln.startswith("freertos:")]
    assert r.exit_code != 0, r.console[-1000:]
    assert printed[-1].startswith("freertos: FAILED: delays:") and printed[-1].endswith("; 0, 1)"), printed


def tick_intervals(model, records):
    """Per tick (trap with the machine timer's cause -> its mret, from the
    retire port): (cycles, switched: a task was switched in, pc matched:
    comparator 0 on port_tick_switch). An mret retiring just after a trap
    record may be older than the trap (it acts 2 cycles before it retires;
    the trap was taken core_trap_delay cycles before its record): skipped."""
    tick_cause = 0x80 | model.facts["irq"]["claims"]["mtimer"]["first"]
    ticks, cur = [], None
    for x in records:
        if x.type == rec.TYPE_CORE:
            kind, arg = (x.payload >> 32) & 0xFF, (x.payload >> 40) & 0xFF
            if kind == rec.CORE_TRAP:
                cur = ({"start": x.ts, "taken": x.ts - rec.core_trap_delay(x.payload), "switched": False,
                        "matched": False} if arg == tick_cause else None)
            elif kind == rec.CORE_MRET and cur is not None and x.ts - 2 >= cur["taken"]:
                ticks.append((x.ts - cur["start"], cur["switched"], cur["matched"]))
                cur = None
            elif kind == rec.CORE_PC_MATCH and cur is not None:
                cur["matched"] = True
        elif x.type == rec.TYPE_SW and cur is not None:
            if describe.channel_name(describe.sw_fields(x.payload)[0]) == "freertos.TASK_IN":
                cur["switched"] = True
    return ticks


def check_tick_saves_callee_only_to_switch(model, records):
    """The CLIC port's tick (port-clic/portasm.S) saves the callee-saved
    registers only when it switches tasks: the code that does it
    (port_tick_switch, traced by a PC comparator) retires in exactly the
    ticks that switch in a task, and a tick that does not switch is the
    cheaper one."""
    ticks = tick_intervals(model, records)
    assert all(switched == matched for _, switched, matched in ticks), ticks
    staying = sorted(c for c, switched, _ in ticks if not switched)
    switching = sorted(c for c, switched, _ in ticks if switched)
    assert len(staying) > 20 and len(switching) > 5, (len(staying), len(switching))
    assert staying[len(staying) // 2] < switching[len(switching) // 2], (staying, switching)


@pytest.mark.parametrize("row", ["clic", "fastirq-rv32e", "clint"])
def test_freertos_with_optimized_task_selection(row, tmp_path):
    """The build option opt-select (irqlab/builders/fwoptions.py): the ready-priority
    bitmap (the CLIC port's byte table, FreeRTOS's own port's clz) passes
    the same checks."""
    model = sim.ensure_model(row)
    fw = sim.build_firmware(model, app=APP, options=fwoptions.parse(["opt-select"], "freertos"))
    assert "+opt-select" in fw
    r = sim.run(model, sim.load_image(model, fw), str(tmp_path / "t.bin"), max_cycles=MAX_CYCLES)
    printed = [ln for ln in r.console.splitlines() if ln.startswith("freertos:")]
    assert printed == expected_lines(APP), r.console[-2000:]
    assert r.exit_code == 0, r.console[-2000:]


@pytest.mark.parametrize("row", [r for r in ROWS if ROWS[r].soc_config.task_contexts])
def test_freertos_with_the_hardware_scheduler_off(row, tmp_path):
    """The build option hw-sched-off (fw/freertos/port-clic/port_contexts.h):
    on a row with task contexts the port leaves them unused, the kernel
    alone switches tasks, and the same checks pass on the unpatched kernel.
    The port's context code is then absent from the image."""
    model = sim.ensure_model(row)
    fw = sim.build_firmware(model, app=APP, options=fwoptions.parse(["hw-sched-off"], "freertos"))
    assert "+hw-sched-off" in fw
    symbols = elfimage.read(fw[:-4] + ".elf").symbols
    assert "vPortTaskNotReady" not in symbols and "port_switch" in symbols
    assert "vPortTaskNotReady" in elfimage.read(sim.build_firmware(model, app=APP)[:-4] + ".elf").symbols
    # The kernel as the crate ships it: no delay reaches the port.
    assert firmware.kernel_for(ROWS[row], fwoptions.parse(["hw-sched-off"], "freertos")) == freertos.kernel_dir()
    assert "xPortTaskDelay" not in symbols
    r = sim.run(model, sim.load_image(model, fw), str(tmp_path / "t.bin"), max_cycles=MAX_CYCLES)
    printed = [ln for ln in r.console.splitlines() if ln.startswith("freertos:")]
    assert printed == expected_lines(APP), r.console[-2000:]
    assert r.exit_code == 0, r.console[-2000:]


SW_S0_0_SP = 0x00812023      # sw s0, 0(sp): the first store of the port's save of a shared context
NOP = 0x00000013


@pytest.mark.parametrize("row", [r for r in ROWS if ROWS[r].soc_config.task_contexts])
def test_register_test_catches_a_lost_register(row, tmp_path):
    """Negative control of the register test (main.c test_registers): the
    port's store of s0, when a task sharing context 0 is switched out,
    becomes a nop in the image, so that task comes back with another
    task's s0; the test must say so."""
    model = sim.ensure_model(row)
    fw = sim.build_firmware(model, app=APP)
    symbol = elfimage.read(fw[:-4] + ".elf").symbol
    image = bytearray(sim.load_image(model, fw))
    start = symbol("port_switch") - symbol("_start")      # the image's first word is crt0's
    words = [int.from_bytes(image[a:a + 4], "little") for a in range(start, start + 128, 4)]
    k = words.index(SW_S0_0_SP)
    image[start + 4 * k:start + 4 * k + 4] = NOP.to_bytes(4, "little")
    r = sim.run(model, bytes(image), str(tmp_path / "t.bin"), max_cycles=MAX_CYCLES)
    assert "freertos: FAILED: registers: a register changed across a switch" in r.console, r.console[-2000:]
    assert r.exit_code != 0
