"""Digilent Arty A7 target (Artix-7 35T or 100T; Vivado or openXC7).

    irqlab build --board arty --core vexriscv [--variant a7-100] [--toolchain openxc7]   (irqlab/flows/xilinx.py)

Clock: 100 MHz oscillator -> PLL -> sys_clk. The FT2232's UART channel
carries the trace (console inside it as CONSOLE records) and the firmware.
Pins, clocks and the programmer: BOARD below (docs/BOARDS.md has the table).
LEDs LD4..LD7: generator lines 0..1, the handler GPIO, a heartbeat.
"""

from migen import *

from litex.soc.cores.clock import S7PLL
from litex_boards.platforms import digilent_arty

from irqlab.host import protocol
from irqlab.boards.common import BoardIO
from irqlab.boards.descriptor import BoardDescriptor, HeaderPin, ModbusPins, Programmer, SerialLink
from irqlab.soc.soc import IrqlabSoC

VARIANTS = ("a7-35", "a7-100")     # the default first


def _pmod(port, index):
    """Pmod pin `index` (0..7) of litex-boards' connector pmod<port>: the
    board's pins 1-4 and 7-10 (5 and 6 are ground and 3.3 V)."""
    return HeaderPin(f"J{port.upper()}{index + 1 if index < 4 else index + 3}", site=f"pmod{port}:{index}")


def platform(variant, toolchain="vivado"):
    return digilent_arty.Platform(variant=variant, toolchain=toolchain)


BOARD = BoardDescriptor(
    name="arty", title="Arty", flow="xilinx",
    option="variant", choices=VARIANTS, toolchains=("vivado", "openxc7"),
    default_clock_hz=100e6,
    soc_target="irqlab.boards.arty:ArtySoC", platform=platform,
    programmer=Programmer(boards={"a7-35": "arty_a7_35t", "a7-100": "arty_a7_100t"}),
    link=SerialLink(bridge="FT2232 channel B", baudrate=3_000_000),
    gen_lines=tuple(_pmod("a", i) for i in range(8)),
    handler_gpio=_pmod("b", 0),
    pto=(_pmod("b", 1), _pmod("b", 5)),
    modbus=ModbusPins(tx=_pmod("b", 2), rx=_pmod("b", 3), de=_pmod("b", 4)),
    # A UART carries ~300 kB/s at 3 Mbaud: lean tracing (A, B and the phase
    # envelope only) and arrivals far enough apart that the link keeps up.
    bench_defaults={"lat_period": 20000, "lat_jitter": 0xFF, "flags": protocol.FLAG_TRACE_LEAN},
)


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
    def __init__(self, soc="vexriscv", core_verilog=None, variant=VARIANTS[0], toolchain="vivado", sys_clk_freq=BOARD.default_clock_hz,
                 rom_init=None):
        p = platform(variant, toolchain)
        self.crg = _CRG(p, sys_clk_freq)
        IrqlabSoC.__init__(self, p, soc=soc, sys_clk_freq=sys_clk_freq, rom_init=rom_init, core_verilog=core_verilog,
                           serial_pads=p.request("serial"), baudrate=BOARD.link.baudrate)
        self.board_io = BoardIO(self, p, BOARD, leds=[p.request("user_led", i) for i in range(4)])
