"""The cores a SoC can be built with: one entry per user-facing name.

`litex` is LiteX's cpu_type/variant; `entry` names the firmware's interrupt
entry code for the core (fw/common/entry_<entry>.S, if it has hardware vectors); `retire` says whether the
core drives the trace unit's retire port (PC-match comparators, core events).

Several names may share one SoC (`soc`: the same gateware, one simulation
model) and differ only in how the firmware is built (`march`, `mabi`,
`fw_flags`): the CLIC rows vectored, non-vectored (mnxti) and RV32E.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class CoreInfo:
    name: str
    litex_type: str
    litex_variant: str
    entry: str
    retire: bool
    march: str
    description: str
    # yosys can read its RTL (the open FPGA flows); CV32E40P's SystemVerilog
    # (package imports) needs Vivado or a simulator.
    open_flow: bool = True
    soc: str = ""          # the SoC (gateware) this row runs on; "" = its own name
    mabi: str = "ilp32"
    fw_flags: str = ""
    clic: bool = False     # the SoC has the memory-mapped CLIC (soc/clic.py)
    # The bench firmware's B: the first instruction after the caller-saved
    # context is stored on the way to generator line 0's handler (a PC match).
    b_symbol: str = "irq_context_saved"

    @property
    def soc_core(self):
        return self.soc or self.name


CORES = {
    "vexriscv": CoreInfo("vexriscv", "vexriscv", "standard", "vexriscv", False, "rv32im",
                         "stock LiteX VexRiscv (pythondata-cpu-vexriscv), caches on"),
    "cv32e40p": CoreInfo("cv32e40p", "cv32e40p", "standard", "cv32e40p", False, "rv32imc",
                         "CV32E40P (pythondata-cpu-cv32e40p), the seeds' baseline core", open_flow=False),
    # The project's own core (cores/, soc/irqlab_core.py): LiteX's VexRiscv
    # interrupt convention (mask/pending CSRs 0xBC0/0xFC0), so it shares the
    # "vexriscv" entry and dispatch code of the firmware.
    "clint": CoreInfo("clint", "irqlab", "clint", "vexriscv", True, "rv32im",
                      "irqlab core, CLINT-style interrupts (VexRiscv from source)"),
    # The same core with the CLIC (docs/CLIC.md): three firmware builds.
    "clic": CoreInfo("clic", "irqlab", "clic", "clic", True, "rv32im",
                     "irqlab core, CLIC, hardware-vectored (shv) C handlers",
                     clic=True, fw_flags="-DIRQLAB_CLIC_SHV=1", b_symbol="irq_context_saved_8"),
    "clic-nv": CoreInfo("clic-nv", "irqlab", "clic", "clic", True, "rv32im",
                        "irqlab core, CLIC, non-vectored: one entry, mnxti service loop",
                        clic=True, soc="clic", fw_flags="-DIRQLAB_CLIC_SHV=0", b_symbol="clic_context_saved"),
    "clic-rv32e": CoreInfo("clic-rv32e", "irqlab", "clic", "clic", True, "rv32em",
                           "irqlab core, CLIC, vectored, firmware built for RV32E (ilp32e)",
                           clic=True, soc="clic", mabi="ilp32e", fw_flags="-DIRQLAB_CLIC_SHV=1",
                           b_symbol="irq_context_saved_8"),
}


class UnknownCore(ValueError):
    pass


def core_info(name):
    try:
        return CORES[name]
    except KeyError:
        raise UnknownCore(f"unknown core '{name}' (known: {', '.join(CORES)})") from None
