"""Radiona ULX3S target (Lattice ECP5, open flow: yosys + nextpnr-ecp5 + ecppack).

    irqlab build --board ulx3s --core vexriscv [--device LFE5U-85F]   (see irqlab/boardbuild.py)

Clock: 25 MHz oscillator -> PLL -> sys_clk (default 50 MHz).
Serial: the FT231X USB UART carries the trace (with the console inside it as
CONSOLE records) to the host and firmware/console input from it, at 3 Mbaud.
GPIO header J1 (3.3 V), for a logic analyzer:
    GP0 GN0 GP1 GN1 GP2 GN2   generator lines 0..5
    GP3                       handler GPIO (the firmware sets it on handler entry)
    GN3                       generator line 6
Reserved for later issues (not driven yet): PTO output and the Modbus UART go
on the next free header pins (see docs/BOARDS.md).
LEDs: LED0..5 show generator lines 0..5, LED6 the handler GPIO, LED7 blinks (alive).
"""

from migen import *

from litex.soc.cores.clock import ECP5PLL
from litex_boards.platforms import radiona_ulx3s

from irqlab.boards.common import BoardIO
from irqlab.soc.soc import IrqlabSoC

DEVICES = ["LFE5U-12F", "LFE5U-25F", "LFE5U-45F", "LFE5U-85F"]
DEFAULT_DEVICE = "LFE5U-85F"
DEFAULT_CLK = 50e6


class _CRG(Module):
    def __init__(self, platform, sys_clk_freq):
        self.clock_domains.cd_sys = ClockDomain()
        clk25 = platform.request("clk25")
        rst = platform.request("rst")
        self.submodules.pll = pll = ECP5PLL()
        self.comb += pll.reset.eq(rst)
        pll.register_clkin(clk25, 25e6)
        pll.create_clkout(self.cd_sys, sys_clk_freq)   # with its reset synchronizer
        # Keep the ESP32 from resetting the FPGA.
        self.comb += platform.request("wifi_gpio0").eq(1)


class ULX3SSoC(IrqlabSoC):
    def __init__(self, soc="vexriscv", core_verilog=None, device=DEFAULT_DEVICE, sys_clk_freq=DEFAULT_CLK, rom_init=None):
        if device not in DEVICES:
            raise ValueError(f"unknown ULX3S device '{device}' (known: {', '.join(DEVICES)})")
        platform = radiona_ulx3s.Platform(device=device, revision="2.0", toolchain="trellis")
        self.crg = _CRG(platform, sys_clk_freq)
        IrqlabSoC.__init__(self, platform, soc=soc, sys_clk_freq=sys_clk_freq, rom_init=rom_init,
                           core_verilog=core_verilog,
                           serial_pads=platform.request("serial"))
        header = [platform.request("gpio", i) for i in range(4)]
        gen_pins = [header[0].p, header[0].n, header[1].p, header[1].n, header[2].p, header[2].n, header[3].n]
        self.board_io = BoardIO(self, gen_pins=gen_pins, handler_pin=header[3].p,
                                leds=[platform.request("user_led", i) for i in range(8)])
