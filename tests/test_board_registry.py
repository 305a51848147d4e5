"""Boards as descriptors (boards/registry.py, boards/descriptor.py): one
list of boards, defaults and option checks in one place, real header pins."""

import dataclasses

import pytest

from irqlab.boards import registry
from irqlab.boards.descriptor import BoardOptionError
from irqlab.soc.configs import SOCS


def test_unknown_board_is_one_line():
    with pytest.raises(registry.UnknownBoard) as e:
        registry.board("x")
    assert str(e.value) == "unknown board 'x' (known: sim, ulx3s, arty)"


def test_every_board_has_a_descriptor_named_as_registered():
    for name in registry.names():
        assert registry.board(name).name == name
    assert not registry.board("sim").is_fpga
    with pytest.raises(registry.UnknownBoard, match="not an FPGA board"):
        registry.fpga_board("sim")


def test_defaults_and_soc_clock_overrides():
    u = registry.board("ulx3s")
    assert u.options("vexriscv") == {"sys_clk_freq": 50e6, "device": "LFE5U-85F", "toolchain": "trellis"}
    # Every own-core SoC runs at the board's 50 MHz (`clic` included).
    for name, cfg in SOCS.items():
        if cfg.own_core:
            assert u.options(name)["sys_clk_freq"] == 50e6, name
    assert u.options("clic", sys_clk_freq=40e6)["sys_clk_freq"] == 40e6
    # A per-SoC clock of a descriptor, where a board needs one.
    assert dataclasses.replace(u, soc_clock_hz={"clic": 25e6}).options("clic")["sys_clk_freq"] == 25e6
    a = registry.board("arty")
    assert a.options("clic") == {"sys_clk_freq": 100e6, "variant": "a7-35", "toolchain": "vivado"}
    with pytest.raises(BoardOptionError, match="unknown Arty variant 'a7-50'"):
        a.options("clic", variant="a7-50")
    with pytest.raises(BoardOptionError, match="has no option device"):
        a.options("clic", device="LFE5U-85F")
    with pytest.raises(BoardOptionError, match="positive"):
        u.options("clic", sys_clk_freq=-1)


@pytest.mark.parametrize("name", ["ulx3s", "arty"])
def test_header_pins_are_real_and_distinct(name):
    b = registry.board(name)
    for choice in b.choices:
        platform = b.platform(choice)
        pins = b.reserved_pins()
        balls = [p.ball(platform) for _, p in pins]
        assert len(set(balls)) == len(balls), balls
        assert len(set(p.label for _, p in pins)) == len(pins)
    assert len(b.gen_lines) >= 7 and b.handler_gpio and len(b.pto) == 2
    assert b.modbus.tx and b.modbus.rx and b.modbus.de
    assert b.link.baudrate == 3_000_000 and b.bench_defaults["lat_period"] == 20000


def test_programmer_per_variant():
    a = registry.board("arty")
    assert a.programmer.command("a7-100") == ["-b", "arty_a7_100t"]
    assert registry.board("ulx3s").programmer.command("LFE5U-85F") == ["-b", "ulx3s"]
