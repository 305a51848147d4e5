"""LiteX CPU wrapper for irqlab's own cores (cores/, built by irqlab.corebuild).

The cores keep the port names of LiteX's stock VexRiscv (Wishbone iBus/dBus,
externalInterruptArray with the mask/pending CSRs 0xBC0/0xFC0,
timerInterrupt, softwareInterrupt, externalResetVector) and add the retire
port (cores/README.md), which the SoC connects to the trace unit.

LiteX finds CPUs by name in `litex.soc.cores.cpu.CPUS` (collected from its own
cpu/ directory and the working directory when LiteX is imported); importing
this module adds CPU_TYPE there, so `SoCCore(cpu_type=CPU_TYPE,
cpu_variant=<variant>)` works from any directory.
"""

from migen import *

from litex.soc.interconnect import wishbone
from litex.soc.cores import cpu as litex_cpu
from litex.soc.cores.cpu import CPU, CPU_GCC_TRIPLE_RISCV32

from irqlab import corebuild
from irqlab.soc.tracer import RetirePort

CPU_TYPE = "irqlab"

GCC_FLAGS = {
    "clint": "-march=rv32i2p0_m -mabi=ilp32",
    "clic": "-march=rv32i2p0_m -mabi=ilp32",
}
# Cores with the CLIC interface: the SoC puts soc/clic.py in front of them.
CLIC_VARIANTS = {"clic"}
CLIC_SOURCES = 64


class IrqlabCore(CPU):
    category             = "softcore"
    family               = "riscv"
    name                 = CPU_TYPE
    human_name           = "irqlab core"
    variants             = corebuild.VARIANTS
    data_width           = 32
    endianness           = "little"
    gcc_triple           = CPU_GCC_TRIPLE_RISCV32
    linker_output_format = "elf32-littleriscv"
    nop                  = "nop"
    io_regions           = {0x8000_0000: 0x8000_0000}   # origin, length (uncached: no caches at all)
    interrupts           = {}   # all 32 externalInterruptArray lines are the SoC's (soc/soc.py)

    @property
    def mem_map(self):
        # The same map as LiteX's VexRiscv (docs/ARCHITECTURE.md "Memory map").
        return {
            "rom":      0x0000_0000,
            "sram":     0x1000_0000,
            "main_ram": 0x4000_0000,
            "csr":      0xf000_0000,
        }

    @property
    def gcc_flags(self):
        return GCC_FLAGS.get(self.variant, "-march=rv32i2p0_m -mabi=ilp32") + " -D__irqlab_core__"

    def __init__(self, platform, variant="clint"):
        self.platform   = platform
        self.variant    = variant
        self.human_name = f"irqlab core ({variant})"
        self.reset      = Signal()
        self.has_clic   = variant in CLIC_VARIANTS
        # The interrupt lines LiteX's IRQ manager drives; for the CLIC variant
        # they are the CLIC's sources (the SoC connects them, soc/soc.py).
        self.interrupt  = Signal(CLIC_SOURCES if self.has_clic else 32)
        self.retire     = RetirePort()
        # CLIC request (in) and claim (out), wired by the SoC to soc/clic.py.
        self.clic_valid    = Signal()
        self.clic_id       = Signal(12)
        self.clic_level    = Signal(8)
        self.clic_shv      = Signal()
        self.clic_claim    = Signal()
        self.clic_claim_id = Signal(12)
        self.ibus       = ibus = wishbone.Interface(data_width=32, address_width=32, addressing="word")
        self.dbus       = dbus = wishbone.Interface(data_width=32, address_width=32, addressing="word")
        self.periph_buses = [ibus, dbus]
        self.memory_buses = []

        # Built (or found in the cache) now, so a failing core build stops the
        # SoC generation with corebuild's message.
        self.verilog = corebuild.build_core(variant)
        self.top = corebuild.top_name(variant)

        r = self.retire
        self.cpu_params = dict(
            i_clk                    = ClockSignal("sys"),
            i_reset                  = ResetSignal("sys") | self.reset,


            o_retire_valid = r.valid,
            o_retire_pc    = r.pc,
            o_retire_trap  = r.trap,
            o_retire_cause = r.cause,
            o_retire_mret  = r.mret,
        )
        if self.has_clic:
            self.cpu_params.update(
                i_clic_valid   = self.clic_valid,
                i_clic_id      = self.clic_id,
                i_clic_level   = self.clic_level,
                i_clic_shv     = self.clic_shv,
                o_clic_claim   = self.clic_claim,
                o_clic_claimId = self.clic_claim_id,
            )
        else:
            self.cpu_params.update(
                i_externalInterruptArray = self.interrupt,
                i_timerInterrupt         = 0,
                i_softwareInterrupt      = 0,
            )
        for prefix, bus in (("iBusWishbone", ibus), ("dBusWishbone", dbus)):
            self.cpu_params.update({
                f"o_{prefix}_ADR":      bus.adr,
                f"o_{prefix}_DAT_MOSI": bus.dat_w,
                f"o_{prefix}_SEL":      bus.sel,
                f"o_{prefix}_CYC":      bus.cyc,
                f"o_{prefix}_STB":      bus.stb,
                f"o_{prefix}_WE":       bus.we,
                f"o_{prefix}_CTI":      bus.cti,
                f"o_{prefix}_BTE":      bus.bte,
                f"i_{prefix}_DAT_MISO": bus.dat_r,
                f"i_{prefix}_ACK":      bus.ack,
                f"i_{prefix}_ERR":      bus.err,
            })

    def set_reset_address(self, reset_address):
        self.reset_address = reset_address
        self.cpu_params.update(i_externalResetVector=Signal(32, reset=reset_address))

    def do_finalize(self):
        assert hasattr(self, "reset_address")
        self.platform.add_source(self.verilog)
        self.specials += Instance(self.top, **self.cpu_params)


def register():
    """Make CPU_TYPE known to LiteX (idempotent)."""
    litex_cpu.CPUS[CPU_TYPE] = IrqlabCore


register()
