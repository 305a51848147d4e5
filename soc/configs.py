"""The SoCs irqlab builds: one entry per gateware configuration.

A SoC is what becomes one bitstream or one simulation model. Several
benchmark rows (irqlab/rows.py) may run on one SoC and differ only in how
their firmware is built. The words, kept apart everywhere:

    row          a line of the benchmark table (irqlab/rows.py): a SoC plus a firmware build
    SoC          a gateware configuration (this file): the CPU, its interrupt
                 controller, its memory
    CPU type     LiteX's name of the CPU wrapper (`cpu_type`): vexriscv, cv32e40p,
                 irqlab (the project's own core, soc/irqlab_core.py)
    core variant a plugin list of the project's own core (cores/, built by Maven;
                 LiteX's `cpu_variant` when the CPU type is irqlab)

Features are what firmware and tests branch on (never on names); they reach C
as constants of the generated headers (irqlab/builders/firmware.py).
"""

from dataclasses import dataclass, replace

from irqlab.builders.core import LEVER_SEPARATOR
from irqlab.errors import unknown

OWN_CPU_TYPE = "irqlab"

# How interrupts reach the core; each has one implementation of the firmware's
# interrupt HAL (fw/common/irq/<model>/).
IRQ_MODELS = {
    # One external interrupt (mie.MEIE); lines masked and pending in the
    # custom CSRs 0xBC0/0xFC0: LiteX's VexRiscv convention. Software dispatch.
    "csr-mask": "external interrupt with LiteX's mask/pending CSRs, dispatched in software",
    # RISC-V local interrupts in mie/mip bits 16 and up, vectored mtvec (CV32E40P).
    "mie-fast": "local interrupts in mie/mip bits 16+, vectored mtvec",
    # The memory-mapped CLIC (soc/clic.py) with the core's CLIC CSRs.
    "clic": "CLIC draft v0.9: levels, hardware vectoring, mnxti",
}

# Where code and data live; each has a firmware linker layout (fw/common/layout_<layout>.ld).
MEMORIES = {
    # LiteX's Wishbone ROM (code) and SRAM (data, stack); 2-3 cycles an access.
    "bus": {"layout": "rom", "label": "bus"},
    # An ITCM (code, vector tables, constants) and a DTCM (data, stack) on the
    # core's own ports, one cycle an access (soc/tcm.py); the rest on Wishbone.
    "tcm": {"layout": "tcm", "label": "TCM"},
}


@dataclass(frozen=True)
class SocConfig:
    name: str
    cpu_type: str            # LiteX cpu_type
    cpu_variant: str         # LiteX cpu_variant; for the own core, its core variant
    description: str
    irq_model: str           # a key of IRQ_MODELS
    retire_port: bool        # the core drives the trace unit's retire port
    clic_sources: int = 0    # irq_model "clic": sources of the CLIC
    # yosys can read its RTL (the open FPGA flows); CV32E40P's SystemVerilog
    # (package imports) needs Vivado or a simulator.
    open_flow: bool = True
    memory: str = "bus"      # where code and data live: a key of MEMORIES
    caches: bool = False     # the CPU has instruction and data caches in front of the bus
    # The Modbus-RTU UART (soc/modbus_uart.py) on an interrupt line of its
    # own: off where the core has no free line (CV32E40P's 16 are taken).
    modbus_uart: bool = True
    # The pulse-train output (soc/pto.py): a timer toggling a pin in hardware
    # with an interrupt per edge, for the PTO demo (irqlab/demos/pto/sim.py).
    pto: bool = True
    # Sizes in bytes: ROM (the firmware built into the SoC), SRAM (data,
    # stack), main RAM (firmware loaded over the serial link). The CLIC SoCs
    # on the bus have 64 KiB of ROM: the FreeRTOS application with the CLIC
    # port and every check does not fit 32.
    rom_size: int = 0x8000
    sram_size: int = 0x4000
    main_ram_size: int = 0x8000
    # memory "tcm": the instruction and data TCMs beside the core (soc/tcm.py).
    # The own core's fast-interrupt extension (cores/: FastIrqPlugin): banked
    # caller-saved registers, background save into the DTCM, emret.
    fast_irq: bool = False
    # Where its drain stores the frame: a save port of its own into the DTCM
    # (False), or the core's data bus in the cycles execute leaves it free
    # (True: the core variant's FastIrqPlugin(saveThroughDataBus)).
    fast_irq_data_port: bool = False
    # Task contexts of the fast-interrupt extension (FastIrqPlugin `contexts`):
    # the register file once per context, switched by a return (1: none).
    fast_contexts: int = 1
    # The tick's countdown per task context (soc/taskdelay.py): the port
    # hands a task's delay to it. An option (SOC_OPTIONS), on no default SoC:
    # it costs the ULX3S build the 50 MHz (cores/README.md "Delays in hardware").
    task_delays: bool = False
    itcm_size: int = 0x10000  # the FreeRTOS application with the CLIC stubs needs > 32 KiB
    dtcm_size: int = 0x8000

    def __post_init__(self):
        assert self.irq_model in IRQ_MODELS, self.irq_model
        assert (self.irq_model == "clic") == (self.clic_sources > 0), self.name
        assert self.memory in MEMORIES, self.memory
        assert self.memory != "tcm" or self.own_core, f"{self.name}: TCMs need the own core's native buses"
        assert not self.fast_irq or (self.tcm and self.irq_model == "clic"), f"{self.name}: fastirq needs the CLIC and the DTCM"
        assert self.fast_irq or not self.fast_irq_data_port, f"{self.name}: fast_irq_data_port without fast_irq"
        assert self.fast_irq or self.fast_contexts == 1, f"{self.name}: fast_contexts without fast_irq"
        assert self.task_contexts or not self.task_delays, f"{self.name}: task_delays without task contexts"

    @property
    def own_core(self):
        return self.cpu_type == OWN_CPU_TYPE

    @property
    def core_variant(self):
        """The variant of the project's own core (cores/), or None for a stock CPU."""
        return self.cpu_variant if self.own_core else None

    @property
    def tcm(self):
        """The SoC has tightly coupled memories beside the core (soc/tcm.py)."""
        return self.memory == "tcm"

    @property
    def memory_label(self):
        """The memory path in a word, for every table: 'TCM', 'bus', 'bus+cache'."""
        return MEMORIES[self.memory]["label"] + ("+cache" if self.caches else "")

    @property
    def memory_map(self):
        """name -> size of the SoC's memories. With TCMs there is no ROM: the
        core starts in the ITCM, which holds the firmware image."""
        m = {"itcm": self.itcm_size, "dtcm": self.dtcm_size} if self.tcm else {"rom": self.rom_size}
        m.update({"sram": self.sram_size, "main_ram": self.main_ram_size})
        return m

    @property
    def code_memory(self):
        """The memory the firmware image is built into (simulation, bitstream)."""
        return "itcm" if self.tcm else "rom"

    @property
    def code_size(self):
        return self.memory_map[self.code_memory]

    @property
    def firmware_layout(self):
        """The firmware's linker layout (fw/common/layout_<layout>.ld) for that image."""
        return MEMORIES[self.memory]["layout"]

    @property
    def task_contexts(self):
        """The core keeps task contexts (FastIrqPlugin `contexts`: more than
        the one register-file context every core has)."""
        return self.fast_contexts > 1

    @property
    def irq_levels(self):
        """Interrupt levels (preemption by level): the CLIC has them."""
        return self.irq_model == "clic"

    def features(self):
        """The SoC's facts as C constants (name -> int)."""
        f = {f"IRQLAB_IRQ_MODEL_{m.upper().replace('-', '_')}": int(m == self.irq_model) for m in IRQ_MODELS}
        f.update({
            "IRQLAB_HAS_IRQ_LEVELS": int(self.irq_levels),
            "IRQLAB_HAS_RETIRE_PORT": int(self.retire_port),
            "IRQLAB_OWN_CORE": int(self.own_core),
            "IRQLAB_HAS_TCM": int(self.tcm),
            "IRQLAB_HAS_FASTIRQ": int(self.fast_irq),
            "IRQLAB_FASTIRQ_DATA_PORT": int(self.fast_irq_data_port),
            "IRQLAB_FASTIRQ_CONTEXTS": self.fast_contexts,
            "IRQLAB_TASK_DELAYS": int(self.task_delays),
            "IRQLAB_HAS_MODBUS_UART": int(self.modbus_uart),
            "IRQLAB_HAS_CACHES": int(self.caches),
            "IRQLAB_HAS_PTO": int(self.pto),
        })
        return f


SOCS = {s.name: s for s in [
    SocConfig("vexriscv", "vexriscv", "standard", "stock LiteX VexRiscv (pythondata-cpu-vexriscv), caches on",
              irq_model="csr-mask", retire_port=False, caches=True),
    SocConfig("cv32e40p", "cv32e40p", "standard", "CV32E40P (pythondata-cpu-cv32e40p), the seeds' baseline core",
              irq_model="mie-fast", retire_port=False, open_flow=False, modbus_uart=False),
    # The project's own core keeps LiteX VexRiscv's interrupt convention. Its
    # SoCs have tightly coupled memories beside the core (soc/tcm.py): the
    # variants with native buses.
    SocConfig("clint", OWN_CPU_TYPE, "clint-native", "irqlab core, CLINT-style interrupts, ITCM + DTCM",
              irq_model="csr-mask", retire_port=True, memory="tcm"),
    SocConfig("clic", OWN_CPU_TYPE, "clic-native", "irqlab core with the CLIC (docs/CLIC.md), ITCM + DTCM",
              irq_model="clic", retire_port=True, clic_sources=64, memory="tcm"),
    SocConfig("fastirq", OWN_CPU_TYPE, "fastirq-native",
              "irqlab core with the CLIC and fastirq (banked registers, background save, emret), ITCM + DTCM",
              irq_model="clic", retire_port=True, clic_sources=64, memory="tcm", fast_irq=True),
    SocConfig("fastirq-dport", OWN_CPU_TYPE, "fastirq-dport-native",
              "irqlab core with the CLIC and fastirq, the frame stored through the data port, ITCM + DTCM",
              irq_model="clic", retire_port=True, clic_sources=64, memory="tcm", fast_irq=True,
              fast_irq_data_port=True),
    SocConfig("fastctx", OWN_CPU_TYPE, "fastctx-native",
              "irqlab core with the CLIC, fastirq and 8 task contexts (a task switch is a context switch "
              "in the register file), ITCM + DTCM",
              irq_model="clic", retire_port=True, clic_sources=64, memory="tcm", fast_irq=True, fast_contexts=8),
    # The CLIC core with its memory on LiteX's Wishbone bus, as before the
    # TCMs: what the memory path costs.
    SocConfig("clic-bus", OWN_CPU_TYPE, "clic", "irqlab core with the CLIC, code and data on the Wishbone bus",
              irq_model="clic", retire_port=True, clic_sources=64, rom_size=0x10000),
    # The same on the bus behind 4 KiB instruction and data caches (the core
    # variant clic-cache): seed 004's T2 and T3 on the own core.
    SocConfig("clic-cache", OWN_CPU_TYPE, "clic-cache",
              "irqlab core with the CLIC, code and data on the Wishbone bus behind 4 KiB I/D caches",
              irq_model="clic", retire_port=True, clic_sources=64, caches=True, rom_size=0x10000),
]}


def soc_config(name):
    """A SoC of the registry, or `<soc>+<lever>`: an own-core SoC whose core
    has one pipeline lever applied (cores/, Variants.levers) or one SoC
    option (SOC_OPTIONS), built and run like its SoC but never part of a
    default set."""
    base, sep, lever = name.partition(LEVER_SEPARATOR)
    try:
        cfg = SOCS[base]
    except KeyError:
        raise unknown("SoC", name, SOCS) from None
    return with_lever(cfg, lever) if sep else cfg


# Options of a SoC itself, named and applied as a pipeline lever is
# (`<soc>+<option>`): a part measured on its own and not in a default SoC.
SOC_OPTIONS = {
    # the tick's countdown per task context (soc/taskdelay.py)
    "tick-countdown": ("the tick's countdown per task context", dict(task_delays=True)),
}


def lever_text(lever):
    """What `+<lever>` adds, in words, for a SoC's and a row's description."""
    return SOC_OPTIONS[lever][0] if lever in SOC_OPTIONS else f"pipeline lever {lever}"


def with_lever(cfg, lever):
    from irqlab.builders import core as corebuild
    if lever in SOC_OPTIONS:
        if not cfg.task_contexts:
            raise unknown("SoC with task contexts", cfg.name, [s for s in SOCS if SOCS[s].task_contexts])
        return replace(cfg, name=f"{cfg.name}{LEVER_SEPARATOR}{lever}",
                       description=f"{cfg.description}; {lever_text(lever)}", **SOC_OPTIONS[lever][1])
    if not cfg.own_core:
        raise unknown("own-core SoC", cfg.name, [s for s in SOCS if SOCS[s].own_core])
    known = corebuild.levers()
    if lever not in known:
        raise unknown("pipeline lever or SoC option", lever, known + sorted(SOC_OPTIONS))
    return replace(cfg, name=f"{cfg.name}{LEVER_SEPARATOR}{lever}",
                   cpu_variant=f"{cfg.cpu_variant}{LEVER_SEPARATOR}{lever}",
                   description=f"{cfg.description}; {lever_text(lever)}")
