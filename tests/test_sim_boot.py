"""The serial boot path boards use, exercised in simulation: the image in the
code memory waits for the host, loads a firmware image sent over the console
link (CRC-checked) and runs it; a corrupted image is refused. On the bus
memories the image goes to main RAM; on a SoC with TCMs it is the TCM image
and goes into the ITCM, over the code that receives it (fw/common/itcm_loader.S
runs from main RAM meanwhile)."""

import pytest

from irqlab.drivers import sim
from irqlab.builders import fwimage
from irqlab.drivers.board import load_target
from irqlab.host import analysis, protocol
from irqlab.host.benchmarks import BENCHMARKS
from irqlab.host.decode import read_trace
from irqlab.rows import row as row_info, rows_with

# A stock core on the bus memories, and the first row whose SoC has TCMs.
CORES = ["vexriscv"] + rows_with(memory="tcm")[:1]


@pytest.fixture(scope="module", params=CORES)
def images(request):
    model = sim.ensure_model(request.param)
    latency = BENCHMARKS["latency"].test_id
    rom = sim.load_image(model, sim.build_firmware(model), flags=protocol.FLAG_BOOT_WAIT,
                         tests=latency, lat_count=20)
    layout, size = load_target(row_info(model.row).soc_config)
    loaded = sim.load_image(model, sim.build_firmware(model, layout=layout), size=size,
                            tests=latency, lat_count=50)
    return model, rom, loaded


def has_tcm(model):
    return row_info(model.row).soc_config.tcm


def latency_count(trace_path):
    records, _ = read_trace(trace_path)
    return analysis.analyze(records, 100e6)["tests"]["latency"]["latency"]["count"]


def test_loaded_firmware_runs(images, tmp_path):
    model, rom, loaded = images
    r = sim.run(model, rom, str(tmp_path / "t.bin"), console_in=fwimage.load_frame(loaded))
    assert r.exit_code == 0, r.console
    said = f"loading {len(loaded)} bytes into the ITCM" if has_tcm(model) else f"loaded {len(loaded)} bytes"
    assert f"irqlab boot: {said}" in r.console
    assert latency_count(r.trace_path) == 50          # the loaded image's configuration


def test_corrupt_image_is_refused(images, tmp_path):
    """On the bus memories the ROM image runs on ('g'); with TCMs the ITCM
    is overwritten already, so the loader asks again and the good image,
    sent next, runs."""
    model, rom, loaded = images
    frame = bytearray(fwimage.load_frame(loaded))
    frame[100] ^= 0x55
    if has_tcm(model):
        r = sim.run(model, rom, str(tmp_path / "t.bin"), console_in=bytes(frame) + fwimage.load_frame(loaded))
        assert r.exit_code == 0, r.console
        assert "irqlab boot: image refused (CRC or length). Send it again." in r.console
        assert latency_count(r.trace_path) == 50      # the image sent the second time
    else:
        r = sim.run(model, rom, str(tmp_path / "t.bin"), console_in=bytes(frame) + b"g")
        assert r.exit_code == 0, r.console
        assert "CRC mismatch" in r.console
        assert latency_count(r.trace_path) == 20      # the ROM image's configuration
