"""Radiona ULX3S target (Lattice ECP5, open flow: yosys + nextpnr-ecp5 + ecppack).

    irqlab build --board ulx3s --core vexriscv [--device LFE5U-85F]   (irqlab/flows/ecp5.py)

Clock: 25 MHz oscillator -> PLL -> sys_clk. The FT231X USB UART carries the
trace (with the console inside it as CONSOLE records) and the firmware.
Pins, clocks and the programmer: BOARD below (docs/BOARDS.md has the table).
LEDs: LED0..5 show generator lines 0..5, LED6 the handler GPIO, LED7 blinks (alive).
"""

from migen import *

from litex.soc.cores.clock import ECP5PLL
from litex_boards.platforms import radiona_ulx3s

from irqlab.host import protocol
from irqlab.boards.common import BoardIO
from irqlab.boards.descriptor import BoardDescriptor, HeaderPin, ModbusPins, Programmer, SerialLink
from irqlab.soc.soc import IrqlabSoC

DEVICES = ("LFE5U-85F", "LFE5U-12F", "LFE5U-25F", "LFE5U-45F")     # the default first


def _j1(label, number, sub):
    """A J1 header pin: litex-boards' gpio resource `number`, its p or n side."""
    return HeaderPin(label, resource=("gpio", number, sub))


def _oled(label, resource, sub):
    """A pin of the OLED header (free when no display is plugged in)."""
    return HeaderPin(f"OLED {label}", resource=(resource, 0, sub))


def platform(device, toolchain="trellis"):
    return radiona_ulx3s.Platform(device=device, revision="2.0", toolchain=toolchain)


BOARD = BoardDescriptor(
    name="ulx3s", title="ULX3S", flow="ecp5",
    option="device", choices=DEVICES, toolchains=("trellis",),
    # 50 MHz on the 85F, every SoC (docs/BOARDS.md, Timing).
    default_clock_hz=50e6,
    soc_target="irqlab.boards.ulx3s:ULX3SSoC", platform=platform,
    programmer=Programmer(boards={d: "ulx3s" for d in DEVICES}),
    link=SerialLink(bridge="FT231X", baudrate=3_000_000),
    gen_lines=(_j1("GP0", 0, "p"), _j1("GN0", 0, "n"), _j1("GP1", 1, "p"), _j1("GN1", 1, "n"),
               _j1("GP2", 2, "p"), _j1("GN2", 2, "n"), _j1("GN3", 3, "n")),
    handler_gpio=_j1("GP3", 3, "p"),
    # litex-boards names only GP0..GN3 of J1, all taken above; the OLED header is the next free one.
    pto=(_oled("clk", "oled_spi", "clk"), _oled("csn", "oled_ctl", "csn")),
    modbus=ModbusPins(tx=_oled("mosi", "oled_spi", "mosi"), rx=_oled("dc", "oled_ctl", "dc"),
                      de=_oled("resn", "oled_ctl", "resn")),
    # A UART carries ~300 kB/s at 3 Mbaud: lean tracing (A, B and the phase
    # envelope only) and arrivals far enough apart that the link keeps up.
    bench_defaults={"lat_period": 20000, "lat_jitter": 0xFF, "flags": protocol.FLAG_TRACE_LEAN},
)


class _CRG(Module):
    def __init__(self, platform, sys_clk_freq):
        self.clock_domains.cd_sys = ClockDomain()
        clk25 = platform.request("clk25")
        rst = platform.request("rst")
        self.submodules.pll = pll = ECP5PLL()
        self.comb += pll.reset.eq(rst)
        pll.register_clkin(clk25, 25e6)
        pll.create_clkout(self.cd_sys, sys_clk_freq, with_reset=False)
        # The reset synchronizer (two flip-flops preset while the PLL is not
        # locked), its output through a global buffer (DCCA) to every
        # flip-flop of sys: on the general routing, a reset with a fanout of
        # thousands was the most congested net of the SoC (nextpnr's router2
        # heatmaps), and at 50 MHz the router did not converge.
        meta, sync = Signal(), Signal()
        self.specials += [
            Instance("FD1S3BX", i_CK=ClockSignal("sys"), i_PD=~pll.locked, i_D=0, o_Q=meta),
            Instance("FD1S3BX", i_CK=ClockSignal("sys"), i_PD=~pll.locked, i_D=meta, o_Q=sync),
            Instance("DCCA", i_CLKI=sync, i_CE=1, o_CLKO=ResetSignal("sys")),
        ]
        # Keep the ESP32 from resetting the FPGA.
        self.comb += platform.request("wifi_gpio0").eq(1)


class ULX3SSoC(IrqlabSoC):
    def __init__(self, soc="vexriscv", core_verilog=None, device=DEVICES[0], toolchain="trellis", sys_clk_freq=BOARD.default_clock_hz,
                 rom_init=None):
        p = platform(device, toolchain)
        self.crg = _CRG(p, sys_clk_freq)
        IrqlabSoC.__init__(self, p, soc=soc, sys_clk_freq=sys_clk_freq, rom_init=rom_init, core_verilog=core_verilog,
                           serial_pads=p.request("serial"), baudrate=BOARD.link.baudrate)
        self.board_io = BoardIO(self, p, BOARD, leds=[p.request("user_led", i) for i in range(8)])
