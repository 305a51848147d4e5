"""LiteX CPU wrapper for irqlab's own cores (cores/, built by irqlab.builders.core).

The wrapper builds nothing: the SoC hands it the core's Verilog with
`attach(verilog, clic_sources)` (the board target or the simulation driver
runs corebuild first), so generating the gateware never runs Maven.

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

from irqlab.builders.core import top_name
from irqlab.soc.configs import OWN_CPU_TYPE as CPU_TYPE
from irqlab.soc.tracer import RetirePort
from irqlab.soc.tcm import TightlyCoupled


# The same map as LiteX's VexRiscv (docs/ARCHITECTURE.md "Memory map"), plus
# the TCMs of SoCs with memory "tcm" (soc/tcm.py), which have no ROM.
MEM_MAP = {
    "rom":      0x0000_0000,
    "sram":     0x1000_0000,
    "itcm":     0x2000_0000,
    "dtcm":     0x3000_0000,
    "main_ram": 0x4000_0000,
    "csr":      0xf000_0000,
}


class _AnyVariant:
    """LiteX checks `variant in cpu.variants`; the variants are cores/'s
    (Variants.scala), checked by irqlab.builders.core when the Verilog is built."""
    def __contains__(self, variant):
        return True

    def __iter__(self):
        return iter(())


class IrqlabCore(CPU):
    category             = "softcore"
    family               = "riscv"
    name                 = CPU_TYPE
    human_name           = "irqlab core"
    variants             = _AnyVariant()
    data_width           = 32
    endianness           = "little"
    gcc_triple           = CPU_GCC_TRIPLE_RISCV32
    linker_output_format = "elf32-littleriscv"
    nop                  = "nop"
    # origin, length: uncached (the variant clic-cache's caches bypass the same range, ioRange = msb)
    io_regions           = {0x8000_0000: 0x8000_0000}
    interrupts           = {}   # all 32 externalInterruptArray lines are the SoC's (soc/soc.py)

    @property
    def mem_map(self):
        return dict(MEM_MAP)

    # Only for LiteX's software headers; irqlab's firmware build (irqlab/builders/firmware.py)
    # takes -march/-mabi from the row.
    gcc_flags = "-march=rv32i2p0_m -mabi=ilp32"

    def __init__(self, platform, variant="clint"):
        self.platform   = platform
        self.variant    = variant
        self.human_name = f"irqlab core ({variant})"
        self.reset      = Signal()
        # The interrupt lines LiteX's IRQ manager drives (attach() widens them
        # to the CLIC's sources when the SoC puts a CLIC in front of the core).
        self.interrupt  = Signal(32)
        self.retire     = RetirePort()
        self.timer_interrupt = Signal()   # mip.MTIP (cores without the CLIC)
        # CLIC request (in) and claim (out), wired by the SoC to soc/clic.py.
        self.clic_valid    = Signal()
        self.clic_id       = Signal(12)
        self.clic_level    = Signal(8)
        self.clic_shv      = Signal()
        self.clic_above    = Signal()     # the CLIC's registered verdicts (soc/clic.py)
        self.clic_above_alt = Signal()
        self.clic_id_kept  = Signal()
        self.clic_threshold = Signal(8)   # out: what the verdicts compare with
        self.clic_threshold_alt = Signal(8)
        self.clic_claim    = Signal()
        self.clic_claim_id = Signal(12)
        self.ibus       = wishbone.Interface(data_width=32, address_width=32, addressing="word")
        self.dbus       = wishbone.Interface(data_width=32, address_width=32, addressing="word")
        self.periph_buses = [self.ibus, self.dbus]
        self.memory_buses = []
        self.verilog    = None
        self.clic_sources = 0
        self.tcm        = None

    def attach(self, verilog, clic_sources=0, tcm_regions=(), tcm_inits=None, save_tcms=()):
        """The core's Verilog (irqlab.builders.core.build_core) and, for a core
        with the CLIC interface, the number of CLIC sources. `tcm_regions`
        (soc/tcm.py TcmRegion): the core has native buses (NativeBusPlugin),
        and these TCMs sit beside it; `ibus`/`dbus` then carry only the
        other addresses; `tcm_inits`: name -> initial words; `save_tcms`:
        the TCMs the core's fastirq save port writes (FastIrqPlugin)."""
        self.verilog = verilog
        self.clic_sources = clic_sources
        if clic_sources:
            self.interrupt = Signal(clic_sources)
        if tcm_regions:
            # LiteX made ibus/dbus bus masters already: the splits drive them.
            self.submodules.tcm = self.tcm = TightlyCoupled(tcm_regions, tcm_inits, save_tcms)
            self.comb += [self.tcm.ibus.wb.connect(self.ibus), self.tcm.dbus.wb.connect(self.dbus)]

    def set_reset_address(self, reset_address):
        self.reset_address = reset_address

    def do_finalize(self):
        assert hasattr(self, "reset_address")
        assert self.verilog, "the SoC must attach() the core's Verilog"
        r, ibus, dbus = self.retire, self.ibus, self.dbus
        params = dict(
            i_clk                 = ClockSignal("sys"),
            i_reset               = ResetSignal("sys") | self.reset,
            i_externalResetVector = Signal(32, reset=self.reset_address),
            o_retire_valid = r.valid,
            o_retire_pc    = r.pc,
            o_retire_trap  = r.trap,
            o_retire_cause = r.cause,
            o_retire_mret  = r.mret,
            o_retire_trapDelay = r.trap_delay,
            o_exec_valid   = r.exec_valid,
            o_exec_pc      = r.exec_pc,
        )
        if self.clic_sources:
            params.update(
                i_clic_valid   = self.clic_valid,
                i_clic_id      = self.clic_id,
                i_clic_level   = self.clic_level,
                i_clic_shv     = self.clic_shv,
                i_clic_above   = self.clic_above,
                i_clic_aboveAlt = self.clic_above_alt,
                i_clic_idKept  = self.clic_id_kept,
                o_clic_threshold_now = self.clic_threshold,
                o_clic_threshold_alt = self.clic_threshold_alt,
                o_clic_claim   = self.clic_claim,
                o_clic_claimId = self.clic_claim_id,
            )
        else:
            params.update(
                i_externalInterruptArray = self.interrupt,
                i_timerInterrupt         = self.timer_interrupt,
                i_softwareInterrupt      = 0,
            )
        if self.tcm is not None:
            params.update(self._native_buses(self.tcm.ibus, self.tcm.dbus))
            if self.clic_sources:   # TrapCsrPlugin(vectorPrefetch): the pointer-table read port
                v = self.tcm.vector
                params.update(o_vecPrefetch_address=v.address,
                              i_vecPrefetch_valid=v.valid, i_vecPrefetch_data=v.data)
            if self.tcm.save is not None:   # FastIrqPlugin's background save
                v = self.tcm.save
                params.update(o_fastirqSave_valid=v.valid, o_fastirqSave_address=v.address,
                              o_fastirqSave_data=v.data, i_fastirqSave_ready=v.ready)
        else:
            params.update(self._wishbone_buses(ibus, dbus))
        self.platform.add_source(self.verilog)
        self.specials += Instance(top_name(self.variant), **params)

    @staticmethod
    def _native_buses(i, d):
        """VexRiscv's IBusSimpleBus/DBusSimpleBus ports (NativeBusPlugin) to soc/tcm.py's splits."""
        return {
            "o_iBus_cmd_valid":         i.cmd_valid,
            "i_iBus_cmd_ready":         i.cmd_ready,
            "o_iBus_cmd_payload_pc":    i.cmd_pc,
            "i_iBus_rsp_valid":         i.rsp_valid,
            "i_iBus_rsp_payload_error": i.rsp_error,
            "i_iBus_rsp_payload_inst":  i.rsp_inst,
            "o_dBus_cmd_valid":         d.cmd_valid,
            "i_dBus_cmd_ready":         d.cmd_ready,
            "o_dBus_cmd_payload_wr":    d.cmd_wr,
            "o_dBus_cmd_payload_address": d.cmd_address,
            "o_dBus_cmd_payload_data":  d.cmd_data,
            "o_dBus_cmd_payload_size":  d.cmd_size,
            "i_dBus_rsp_ready":         d.rsp_ready,
            "i_dBus_rsp_error":         d.rsp_error,
            "i_dBus_rsp_data":          d.rsp_data,
        }

    @staticmethod
    def _wishbone_buses(ibus, dbus):
        params = {}
        for prefix, bus in (("iBusWishbone", ibus), ("dBusWishbone", dbus)):
            params.update({
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
        return params


def register():
    """Make CPU_TYPE known to LiteX (idempotent)."""
    litex_cpu.CPUS[CPU_TYPE] = IrqlabCore


register()
