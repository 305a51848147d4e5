"""The irqlab reference SoC: core + interrupt generator + trace unit + machine timer.

Board targets (boards/) give it a platform and a clock. In simulation the
console and the trace have a stream each (the harness serves both); on a board
(`serial_pads`) they share the one serial link: console bytes travel inside
the trace as CONSOLE records, and the link's receive side feeds the console.

Interrupt inputs of the core (the same for every core):
    0..6   LiteX peripherals (UART)
    7      machine timer
    8..15  interrupt generator lines 0..7
With the CLIC (core `clic`) these are the CLIC's source IDs (0..63, the
rest unused), the CLIC's registers at CLIC_BASE.
"""

from migen import *

from litex.soc.integration.soc_core import SoCCore
from litex.soc.integration.soc import SoCRegion
from litex.soc.cores.uart import UART, RS232PHY

from irqlab.host import record as rec
from irqlab.soc.cpus import core_info
from irqlab.soc import irqlab_core  # noqa: F401  registers the project's own core with LiteX
from irqlab.soc.irqgen import InterruptGenerator
from irqlab.soc.tracer import TraceUnit
from irqlab.soc.mtimer import MachineTimer
from irqlab.soc.clic import CLIC

GEN_IRQ_BASE = 8
MTIMER_IRQ = 7
STIM_BASE = 0x90000000
CLIC_BASE = 0xA0000000
ROM_SIZE = 0x8000
SRAM_SIZE = 0x4000
MAIN_RAM_SIZE = 0x8000   # firmware loaded over the serial link runs here


class IrqlabSoC(SoCCore):
    def __init__(self, platform, core="vexriscv", sys_clk_freq=100e6, rom_init=None,
                 serial_pads=None, baudrate=3_000_000, **kwargs):
        info = core_info(core)
        if serial_pads is not None:
            kwargs["with_uart"] = False
        self.core_info = info
        SoCCore.__init__(self, platform, sys_clk_freq,
            ident=f"irqlab SoC ({core})",
            cpu_type=info.litex_type, cpu_variant=info.litex_variant,
            integrated_rom_size=ROM_SIZE,
            # A full-size ROM image makes the RTL load it with $readmemh, so a
            # simulation can swap firmware without rebuilding.
            integrated_rom_init=rom_init if rom_init is not None else [0] * (ROM_SIZE // 4),
            integrated_sram_size=SRAM_SIZE,
            integrated_main_ram_size=MAIN_RAM_SIZE,
            with_timer=False,
            bus_interconnect="crossbar",   # instruction fetches and data accesses in parallel
            **kwargs)

        if serial_pads is not None:
            self.serial_phy = RS232PHY(serial_pads, sys_clk_freq, baudrate)
            self.uart = UART(tx_fifo_depth=64, rx_fifo_depth=64)
            self.irq.add("uart", use_loc_if_exists=True)

        self.irqgen = InterruptGenerator(rec.N_GEN_LINES)
        self.tracer = TraceUnit(with_retire=info.retire)
        self.mtimer = MachineTimer()
        if info.retire:
            r, c = self.tracer.retire, self.cpu.retire
            self.comb += [r.valid.eq(c.valid), r.pc.eq(c.pc), r.trap.eq(c.trap),
                          r.cause.eq(c.cause), r.mret.eq(c.mret)]

        irq = self.cpu.interrupt
        assert len(irq) >= GEN_IRQ_BASE + rec.N_GEN_LINES
        if info.clic:
            self.add_clic(irq)
        self.comb += irq[MTIMER_IRQ].eq(self.mtimer.irq)
        for i in range(rec.N_GEN_LINES):
            self.comb += irq[GEN_IRQ_BASE + i].eq(self.irqgen.lines[i])

        hw = self.tracer.hw_lines
        self.comb += [
            hw[rec.HW_GEN_LINE:rec.HW_GEN_LINE + rec.N_GEN_LINES].eq(self.irqgen.lines),
            hw[rec.HW_GEN_PHASE:rec.HW_GEN_PHASE + rec.N_GEN_LINES].eq(self.irqgen.phases),
            hw[rec.HW_CPU_IRQ:rec.HW_CPU_IRQ + 16].eq(irq[:16]),
        ]
        if serial_pads is not None:
            self.comb += [
                self.serial_phy.source.connect(self.uart.sink),
                self.uart.source.connect(self.tracer.console),
                self.tracer.source.connect(self.serial_phy.sink),
            ]
        self.bus.add_slave("stim", self.tracer.bus,
            SoCRegion(origin=STIM_BASE, size=0x400, cached=False))

        for name, value in [("IRQLAB_GEN_IRQ_BASE", GEN_IRQ_BASE), ("IRQLAB_MTIMER_IRQ", MTIMER_IRQ),
                            ("IRQLAB_STIM_BASE", STIM_BASE), ("IRQLAB_N_GEN_LINES", rec.N_GEN_LINES),
                            ("IRQLAB_CORE_" + core.upper(), 1)]:
            self.add_constant(name, value)

    def add_clic(self, sources):
        """The CLIC between the interrupt lines and the core (soc/clic.py)."""
        # A register inside the arbitration tree: 39 MHz on the ECP5 without it.
        self.clic = clic = CLIC(n_sources=len(sources), register_after=3)
        cpu = self.cpu
        self.comb += [
            clic.sources.eq(sources),
            cpu.clic_valid.eq(clic.irq_valid),
            cpu.clic_id.eq(clic.irq_id),
            cpu.clic_level.eq(clic.irq_level),
            cpu.clic_shv.eq(clic.irq_shv),
            clic.claim.eq(cpu.clic_claim),
            clic.claim_id.eq(cpu.clic_claim_id),
        ]
        self.bus.add_slave("clic", clic.bus, SoCRegion(origin=CLIC_BASE, size=clic.size, cached=False))
        self.add_constant("IRQLAB_CLIC_BASE", CLIC_BASE)
        self.add_constant("IRQLAB_CLIC_SOURCES", len(sources))

    def add_csr_bridge(self, name="csr", origin=None, register=False):
        # Registered: the decode of the many generator and trace CSRs then stays
        # off the CPU bus's critical path (one more cycle per CSR access).
        SoCCore.add_csr_bridge(self, name, origin, register=True)

    def do_finalize(self):
        SoCCore.do_finalize(self)
        for name, loc in self.irq.locs.items():
            if loc >= MTIMER_IRQ:
                raise RuntimeError(f"LiteX put IRQ '{name}' on line {loc}, which irqlab reserves")
