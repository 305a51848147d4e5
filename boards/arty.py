"""Digilent Arty A7 target (Artix-7 35T or 100T; Vivado or openXC7).

    irqlab build --board arty --core vexriscv [--variant a7-100] [--toolchain openxc7]

Clock: 100 MHz oscillator -> PLL -> sys_clk (default 100 MHz).
Serial: the FT2232's UART channel carries the trace (console inside it as
CONSOLE records) at 3 Mbaud, and firmware/console input from the host.
PMOD JA (3.3 V), for a logic analyzer: JA1..JA8 = generator lines 0..7.
PMOD JB: JB1 = handler GPIO; JB2 (PTO output) and JB3/JB4 (Modbus UART TX/RX)
are reserved for later issues.
LEDs LD4..LD7: generator lines 0..1, the handler GPIO, a heartbeat.
"""

from migen import *

from litex.build.generic_platform import Pins, IOStandard
from litex.soc.cores.clock import S7PLL
from litex_boards.platforms import digilent_arty

from irqlab.boards.common import BoardIO
from irqlab.soc.soc import IrqlabSoC

VARIANTS = ["a7-35", "a7-100"]
TOOLCHAINS = {"vivado": "vivado", "openxc7": "openxc7"}
DEFAULT_CLK = 100e6

_header_io = [
    ("irqgen_lines", 0, Pins("pmoda:0 pmoda:1 pmoda:2 pmoda:3 pmoda:4 pmoda:5 pmoda:6 pmoda:7"),
     IOStandard("LVCMOS33")),
    ("handler_gpio", 0, Pins("pmodb:0"), IOStandard("LVCMOS33")),
]


class _CRG(Module):
    def __init__(self, platform, sys_clk_freq):
        self.clock_domains.cd_sys = ClockDomain()
        clk100 = platform.request("clk100")
        rst = ~platform.request("cpu_reset")
        self.submodules.pll = pll = S7PLL(speedgrade=-1)
        self.comb += pll.reset.eq(rst)
        pll.register_clkin(clk100, 100e6)
        pll.create_clkout(self.cd_sys, sys_clk_freq)   # with its reset synchronizer
        platform.add_false_path_constraints(self.cd_sys.clk, pll.clkin)


class ArtySoC(IrqlabSoC):
    def __init__(self, soc="vexriscv", core_verilog=None, variant="a7-35", toolchain="vivado", sys_clk_freq=DEFAULT_CLK,
                 rom_init=None):
        if variant not in VARIANTS:
            raise ValueError(f"unknown Arty variant '{variant}' (known: {', '.join(VARIANTS)})")
        if toolchain not in TOOLCHAINS:
            raise ValueError(f"unknown Arty toolchain '{toolchain}' (known: {', '.join(TOOLCHAINS)})")
        platform = digilent_arty.Platform(variant=variant, toolchain=TOOLCHAINS[toolchain])
        platform.add_extension(_header_io)
        self.crg = _CRG(platform, sys_clk_freq)
        IrqlabSoC.__init__(self, platform, soc=soc, sys_clk_freq=sys_clk_freq, rom_init=rom_init,
                           core_verilog=core_verilog,
                           serial_pads=platform.request("serial"))
        lines = platform.request("irqgen_lines")
        self.board_io = BoardIO(self, gen_pins=[lines[i] for i in range(8)],
                                handler_pin=platform.request("handler_gpio"),
                                leds=[platform.request("user_led", i) for i in range(4)])
