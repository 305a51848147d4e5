"""The irqlab reference SoC: core + interrupt generator + trace unit + machine timer.

Board targets (boards/) give it a platform, a clock and the SoC configuration
(soc/configs.py); the own core's Verilog is built beforehand
(irqlab.builders.core) and handed in. In simulation the console and the trace
have a stream each (the harness serves both); on a board (`serial_pads`) they
share the one serial link: console bytes travel inside the trace as CONSOLE
records, and the link's receive side feeds the console.

The SoC grows by `add_<thing>()`; each peripheral with an interrupt claims
its lines from the interrupt map (soc/irqmap.py), which exports them to the
firmware (IRQLAB_IRQ_<NAME>) and to the host (`facts()`, written beside the
headers as soc.json). Today's map (core interrupt inputs, or CLIC sources):
    0..5   LiteX's own peripherals (the UART)
    6      the pulse-train output (SoCs with `pto`)
    7      machine timer (the number of RISC-V's machine timer cause)
    8..15  interrupt generator lines 0..7
    16     the Modbus UART (SoCs with `modbus_uart`)
    17..   free (IRQLAB_IRQ_FIRST_FREE)
"""

from migen import *

from litex.soc.integration.soc_core import SoCCore
from litex.soc.integration.soc import SoCRegion
from litex.soc.cores.uart import UART, RS232PHY

from irqlab.errors import BuildError
from irqlab.host import record as rec
from irqlab.soc.configs import soc_config
from irqlab.soc import irqlab_core  # noqa: F401  registers the project's own core with LiteX
from irqlab.soc.irqmap import IrqMap
from irqlab.soc.irqgen import InterruptGenerator
from irqlab.soc.tracer import TraceUnit
from irqlab.soc import mtimer as mtimer_regs
from irqlab.soc.mtimer import MachineTimer
from irqlab.soc.clic import CLIC
from irqlab.soc.tcm import TcmRegion, window_clashes
from irqlab.soc.busstress import BusStress
from irqlab.soc.modbus_uart import ModbusUART, divisor_for
from irqlab.soc.pto import PulseTrainOutput
from irqlab.soc.taskdelay import TaskDelays

LITEX_IRQS = range(0, 6)   # LiteX's IRQ manager places its peripherals here
# Below 16: every interrupt model dispatches it (csr-mask's table, the
# CV32E40P's 16 local interrupts) and the trace unit sees it (line 16 + 6).
PTO_IRQ = 6
MTIMER_IRQ = 7
STIM_BASE = 0x90000000
CLIC_BASE = 0xA0000000
MTIMER_BASE = 0xB0000000   # the CLINT layout (soc/mtimer.py), above 0x8000_0000: uncached on every core
MODBUS_BAUD = 115200       # the Modbus UART's baud rate at reset (firmware sets its own)
MODBUS_SILENCE_US = 1750   # t3.5 above 19200 baud
CLIC_REGISTER_AFTER = 3    # a register inside the CLIC's tree: 39 MHz on the ECP5 without it


class IrqlabSoC(SoCCore):
    def __init__(self, platform, soc="vexriscv", sys_clk_freq=100e6, core_verilog=None, rom_init=None,
                 serial_pads=None, baudrate=3_000_000, traced_lines=rec.N_HW_LINES, trace_beat_bytes=1,
                 with_bus_stress=False, **kwargs):
        cfg = soc_config(soc)
        mem = cfg.memory_map
        if serial_pads is not None:
            kwargs["with_uart"] = False
        self.soc_config = cfg
        if cfg.tcm:
            # No ROM: the core starts in the ITCM, which holds the firmware.
            self.tcm_regions = [TcmRegion(n, irqlab_core.MEM_MAP[n], mem[n]) for n in ("itcm", "dtcm")]
            kwargs["cpu_reset_address"] = self.tcm_regions[0].origin
            rom = dict(integrated_rom_size=0)
        else:
            self.tcm_regions = []
            rom = dict(integrated_rom_size=mem["rom"],
                       # A full-size ROM image makes the RTL load it with $readmemh, so a
                       # simulation can swap firmware without rebuilding.
                       integrated_rom_init=rom_init if rom_init is not None else [0] * (mem["rom"] // 4))
        SoCCore.__init__(self, platform, sys_clk_freq,
            ident=f"irqlab SoC ({soc})",
            cpu_type=cfg.cpu_type, cpu_variant=cfg.cpu_variant,
            **rom,
            integrated_sram_size=mem["sram"],
            integrated_main_ram_size=mem["main_ram"],
            with_timer=False,
            bus_interconnect="crossbar",   # instruction fetches and data accesses in parallel
            **kwargs)
        if cfg.own_core:
            if core_verilog is None:
                raise BuildError(f"SoC '{soc}': the own core's Verilog must be built first (irqlab.builders.core)")
            # A board's firmware image (rom_init) goes into the ITCM where there is no ROM.
            self.cpu.attach(core_verilog, cfg.clic_sources, self.tcm_regions,
                            {cfg.code_memory: rom_init} if cfg.tcm and rom_init is not None else None,
                            save_tcms=("dtcm",) if cfg.fast_irq and not cfg.fast_irq_data_port else ())
        for r in self.tcm_regions:
            # Beside the core, not on the bus: a region for the linker and the headers only.
            self.bus.add_region(r.name, SoCRegion(origin=r.origin, size=r.size, linker=True))
        self.irqmap = IrqMap(len(self.cpu.interrupt), reserved=LITEX_IRQS)

        if serial_pads is not None:
            self.add_serial_link(serial_pads, baudrate)
        self.add_tracer(traced_lines, trace_beat_bytes)
        self.add_mtimer()
        self.add_irqgen()
        if cfg.clic_sources:
            self.add_clic()
        if with_bus_stress:
            # The target's choice (boards/descriptor.py `bus_stress`): idle, the
            # master never takes the bus from the CPU, so no other figure moves.
            self.add_bus_stress()
        if cfg.pto:
            self.add_pto()            # first: its line is fixed (PTO_IRQ)
        if cfg.modbus_uart:
            self.add_modbus_uart()
        if cfg.task_delays:
            self.add_task_delays(cfg.fast_contexts)
        self.add_constant("IRQLAB_N_GEN_LINES", rec.N_GEN_LINES)
        clashes = window_clashes(self.tcm_regions, {n: (r.origin, r.size) for n, r in self.bus.regions.items()})
        assert not clashes, f"bus regions in a TCM's decode window (soc/tcm.py): {clashes}"

    # ------------------------------------------------------------ the parts

    def add_serial_link(self, pads, baudrate):
        """Boards: one UART carries the trace out and the console/boot input in."""
        self.serial_phy = RS232PHY(pads, self.sys_clk_freq, baudrate)
        self.uart = UART(tx_fifo_depth=64, rx_fifo_depth=64)
        self.irq.add("uart", use_loc_if_exists=True)
        self.serial_pads = pads

    def add_tracer(self, traced_lines, beat_bytes=1):
        """The trace unit: the generator lines, their phase envelopes and as many
        of the core's interrupt inputs as `traced_lines` leaves room for; its
        record stream carries `beat_bytes` bytes a cycle (1: a serial link)."""
        assert rec.HW_CPU_IRQ < traced_lines <= rec.N_HW_LINES
        self.tracer = TraceUnit(n_hw=traced_lines, with_retire=self.soc_config.retire_port,
                                beat_bytes=beat_bytes)
        if self.soc_config.retire_port:
            r, c = self.tracer.retire, self.cpu.retire
            self.comb += [r.valid.eq(c.valid), r.pc.eq(c.pc), r.trap.eq(c.trap),
                          r.cause.eq(c.cause), r.mret.eq(c.mret), r.trap_delay.eq(c.trap_delay),
                          r.exec_valid.eq(c.exec_valid), r.exec_pc.eq(c.exec_pc)]
        self.bus.add_slave("stim", self.tracer.bus, SoCRegion(origin=STIM_BASE, size=0x400, cached=False))
        self.add_constant("IRQLAB_STIM_BASE", STIM_BASE)
        self.traced_cpu_irqs = min(traced_lines - rec.HW_CPU_IRQ, rec.N_CPU_IRQ_TRACED, len(self.cpu.interrupt))

    def add_mtimer(self):
        """The machine timer: memory-mapped mtime/mtimecmp (CLINT layout) and
        CSRs; its interrupt on line IRQLAB_IRQ_MTIMER and, where the core has
        one, on the core's machine-timer input (mip.MTIP, cause 7)."""
        self.mtimer = t = MachineTimer()
        self.comb += self.cpu.interrupt[self.irqmap.claim("mtimer", at=MTIMER_IRQ)].eq(t.irq)
        self.bus.add_slave("mtimer", t.bus, SoCRegion(origin=MTIMER_BASE, size=mtimer_regs.SIZE, cached=False))
        self.has_mtip = self._connect_mtip(t.irq)
        for name, value in [("IRQLAB_MTIMER_BASE", MTIMER_BASE),
                            ("IRQLAB_MTIME_ADDR", MTIMER_BASE + mtimer_regs.MTIME),
                            ("IRQLAB_MTIMECMP_ADDR", MTIMER_BASE + mtimer_regs.MTIMECMP),
                            ("IRQLAB_HAS_MTIP", int(self.has_mtip))]:
            self.add_constant(name, value)

    def _connect_mtip(self, irq):
        """Drive the core's machine-timer interrupt input; False if it has none
        (a CLIC core takes the timer as a CLIC source only)."""
        cpu = self.cpu
        if self.soc_config.clic_sources:
            return False
        if hasattr(cpu, "timer_interrupt"):                 # irqlab's own core (soc/irqlab_core.py)
            self.comb += cpu.timer_interrupt.eq(irq)
        elif "i_timerInterrupt" in getattr(cpu, "cpu_params", {}):   # LiteX's VexRiscv
            cpu.cpu_params["i_timerInterrupt"] = irq
        elif hasattr(cpu, "interrupt_padding"):             # LiteX's CV32E40P: irq_i[7] is MTI
            self.comb += cpu.interrupt_padding[7].eq(irq)
        else:
            return False
        return True

    def add_irqgen(self):
        self.irqgen = InterruptGenerator(rec.N_GEN_LINES)
        first = self.irqmap.claim("gen", rec.N_GEN_LINES)
        self.comb += self.cpu.interrupt[first:first + rec.N_GEN_LINES].eq(self.irqgen.lines)

    def add_clic(self):
        """The CLIC between the interrupt lines and the core (soc/clic.py)."""
        sources = self.cpu.interrupt
        self.clic = clic = CLIC(n_sources=len(sources), register_after=CLIC_REGISTER_AFTER)
        cpu = self.cpu
        self.comb += [
            clic.sources.eq(sources),
            cpu.clic_valid.eq(clic.irq_valid),
            cpu.clic_id.eq(clic.irq_id),
            cpu.clic_level.eq(clic.irq_level),
            cpu.clic_shv.eq(clic.irq_shv),
            cpu.clic_above.eq(clic.irq_above),
            cpu.clic_above_alt.eq(clic.irq_above_alt),
            cpu.clic_id_kept.eq(clic.irq_id_kept),
            clic.threshold.eq(cpu.clic_threshold),
            clic.threshold_alt.eq(cpu.clic_threshold_alt),
            clic.claim.eq(cpu.clic_claim),
            clic.claim_id.eq(cpu.clic_claim_id),
        ]
        self.bus.add_slave("clic", clic.bus, SoCRegion(origin=CLIC_BASE, size=clic.size, cached=False))
        self.add_constant("IRQLAB_CLIC_BASE", CLIC_BASE)
        self.add_constant("IRQLAB_CLIC_SOURCES", len(sources))

    def add_bus_stress(self, target="main_ram"):
        """A second Wishbone master making random traffic in `target` (its
        window defaults to the whole memory; soc/busstress.py)."""
        region = self.bus.regions[target]
        self.busstress = BusStress(default_base=region.origin, default_mask=region.size // 4 - 1)
        self.bus.add_master("busstress", master=self.busstress.bus)

    def add_modbus_uart(self):
        """The Modbus-RTU UART (soc/modbus_uart.py) on interrupt line
        IRQLAB_IRQ_MODBUS; its pins (`self.modbus.rx`, `tx`, `de`) are the
        target's to connect: the board's header pins (boards/common.py), the
        harness's serial bridge in simulation (boards/sim/target.py)."""
        self.modbus = u = ModbusUART(divisor_for(self.sys_clk_freq, MODBUS_BAUD),
                                     round(self.sys_clk_freq * MODBUS_SILENCE_US / 1e6))
        self.comb += self.cpu.interrupt[self.irqmap.claim("modbus", top=True)].eq(u.ev.irq)

    def add_pto(self):
        """The pulse-train output (soc/pto.py): its interrupt on line
        IRQLAB_IRQ_PTO, its pin on trace line HW_PTO (a board brings the pin
        out on its first reserved PTO header pin: boards/common.py)."""
        self.pto = PulseTrainOutput()
        # Its CSRs in the last page: LiteX places the others in name order,
        # so every other CSR keeps the address it had without the PTO.
        self.csr.add("pto", n=self.csr.n_locs - 1)
        self.comb += self.cpu.interrupt[self.irqmap.claim("pto", at=PTO_IRQ)].eq(self.pto.irq)

    def add_task_delays(self, contexts):
        """The tick's countdown of the tasks in task contexts (soc/taskdelay.py):
        stepped by the machine timer's line, a CLIC source per channel
        (IRQLAB_IRQ_TASKDELAY_<i> for context i+1), taken from the top so
        that no other line moves."""
        self.taskdelay = d = TaskDelays(contexts)
        # Its CSRs in the page below the PTO's, for the same reason as the PTO's.
        self.csr.add("taskdelay", n=self.csr.n_locs - 2)
        self.comb += d.tick.eq(self.mtimer.irq)
        first = self.irqmap.claim("taskdelay", d.channels, top=True)
        self.comb += [self.cpu.interrupt[first + i].eq(d.irq[i]) for i in range(d.channels)]

    def add_csr_bridge(self, name="csr", origin=None, register=False):
        # Registered: the decode of the many generator and trace CSRs then stays
        # off the CPU bus's critical path (one more cycle per CSR access).
        SoCCore.add_csr_bridge(self, name, origin, register=True)

    # ------------------------------------------------------------ finishing

    def _wire_trace_lines(self):
        hw, irq, n = self.tracer.hw_lines, self.cpu.interrupt, self.traced_cpu_irqs
        self.comb += [
            hw[rec.HW_GEN_LINE:rec.HW_GEN_LINE + rec.N_GEN_LINES].eq(self.irqgen.lines),
            hw[rec.HW_GEN_PHASE:rec.HW_GEN_PHASE + rec.N_GEN_LINES].eq(self.irqgen.phases),
            hw[rec.HW_CPU_IRQ:rec.HW_CPU_IRQ + n].eq(irq[:n]),
        ]
        if hasattr(self, "pto") and len(hw) > rec.HW_PTO:
            self.comb += hw[rec.HW_PTO].eq(self.pto.pin)
        if hasattr(self, "serial_pads"):
            self.comb += [
                self.serial_phy.source.connect(self.uart.sink),
                self.uart.source.connect(self.tracer.console),
                self.tracer.source.connect(self.serial_phy.sink),
            ]

    def memory(self, name):
        """The Migen Memory of one of the SoC's memories (SocConfig.memory_map)."""
        if any(r.name == name for r in self.tcm_regions):
            return self.cpu.tcm.memory(name)
        return getattr(self, name).mem

    def facts(self):
        """What the host and the tests may rely on, as built (soc.json)."""
        cfg = self.soc_config
        f = {
            "soc": cfg.name,
            "cpu_type": cfg.cpu_type,
            "cpu_variant": cfg.cpu_variant,
            # Origin and size of each memory, as placed on the bus.
            "memory": {name: {"origin": self.bus.regions[name].origin, "size": self.bus.regions[name].size}
                       for name in cfg.memory_map},
            "reset_address": self.cpu.reset_address,
            # Where the firmware image goes (its configuration block at the end).
            "code_memory": cfg.code_memory,
            "stim_base": STIM_BASE,
            "irq": self.irqmap.facts(),
            "trace": {"hw_lines": len(self.tracer.hw_lines), "gen_line": rec.HW_GEN_LINE,
                      "gen_phase": rec.HW_GEN_PHASE, "cpu_irq": rec.HW_CPU_IRQ,
                      "cpu_irqs_traced": self.traced_cpu_irqs, "retire_port": cfg.retire_port,
                      "pto": rec.HW_PTO if hasattr(self, "pto") and len(self.tracer.hw_lines) > rec.HW_PTO else None},
            "pto": {"irq": self.irqmap.line("pto")} if hasattr(self, "pto") else None,
            "clic": None,
            "mtimer": {"base": MTIMER_BASE, "mtime": MTIMER_BASE + mtimer_regs.MTIME,
                       "mtimecmp": MTIMER_BASE + mtimer_regs.MTIMECMP, "mtip": self.has_mtip},
        }
        f["modbus"] = None
        if cfg.modbus_uart:
            f["modbus"] = {"irq": self.irqmap.line("modbus"), "sys_clk_freq": int(self.sys_clk_freq),
                           "default_baud": MODBUS_BAUD}
        f["taskdelay"] = None
        if hasattr(self, "taskdelay"):
            f["taskdelay"] = {"irq": self.irqmap.line("taskdelay"), "channels": self.taskdelay.channels}
        f["bus_stress"] = None
        if hasattr(self, "busstress"):
            f["bus_stress"] = {"base": self.busstress._base.storage.reset.value,
                               "mask": self.busstress._mask.storage.reset.value}
        if cfg.clic_sources:
            f["clic"] = {"base": CLIC_BASE, "sources": cfg.clic_sources, "ctl_bits": self.clic.ctl_bits,
                         "register_after": CLIC_REGISTER_AFTER,
                         "output_delay": self.clic.output_delay}
        return f

    def do_finalize(self):
        self._wire_trace_lines()
        for name, value in self.irqmap.constants().items():
            self.add_constant(name, value)
        SoCCore.do_finalize(self)
        for name, loc in self.irq.locs.items():
            if loc not in LITEX_IRQS:
                raise BuildError(f"LiteX put IRQ '{name}' on line {loc}, which irqlab's interrupt map owns")
