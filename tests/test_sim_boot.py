"""The serial boot path boards use, exercised in simulation: the ROM image
waits for the host, loads a firmware image sent over the console link into
main RAM (CRC-checked) and runs it; a corrupted image is refused. Also on a
SoC with TCMs, where the waiting image is the ITCM's (its code memory)."""

import pytest

from irqlab import sim
from irqlab import fwimage
from irqlab.host import analysis, protocol
from irqlab.host.benchmarks import BENCHMARKS
from irqlab.host.decode import read_trace
from irqlab.rows import rows_with

# A stock core on the bus memories, and the first row whose SoC has TCMs.
CORES = ["vexriscv"] + rows_with(memory="tcm")[:1]


@pytest.fixture(scope="module", params=CORES)
def images(request):
    model = sim.ensure_model(request.param)
    latency = BENCHMARKS["latency"].test_id
    rom = sim.load_image(model, sim.build_firmware(model), flags=protocol.FLAG_BOOT_WAIT,
                         tests=latency, lat_count=20)
    ram = sim.load_image(model, sim.build_firmware(model, layout="ram"), size=main_ram_size(model),
                         tests=latency, lat_count=50)
    return model, rom, ram


def main_ram_size(model):
    return model.facts["memory"]["main_ram"]["size"]


def latency_count(trace_path):
    records, _ = read_trace(trace_path)
    return analysis.analyze(records, 100e6)["tests"]["latency"]["latency"]["count"]


def test_loaded_firmware_runs_from_main_ram(images, tmp_path):
    model, rom, ram = images
    r = sim.run(model, rom, str(tmp_path / "t.bin"), console_in=fwimage.load_frame(ram))
    assert r.exit_code == 0, r.console
    assert f"irqlab boot: loaded {main_ram_size(model)} bytes" in r.console
    assert latency_count(r.trace_path) == 50          # the loaded image's configuration


def test_corrupt_image_is_refused_and_rom_runs(images, tmp_path):
    model, rom, ram = images
    frame = bytearray(fwimage.load_frame(ram))
    frame[100] ^= 0x55
    r = sim.run(model, rom, str(tmp_path / "t.bin"), console_in=bytes(frame) + b"g")
    assert r.exit_code == 0, r.console
    assert "CRC mismatch" in r.console
    assert latency_count(r.trace_path) == 20          # the ROM image's configuration
