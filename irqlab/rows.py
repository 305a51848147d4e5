"""The benchmark rows: one entry per line of the table.

A row is a SoC (soc/configs.py) plus how its firmware is built: the ISA and
ABI, whether interrupts are vectored in hardware, and B, the entry-code symbol
at which everything a C call needs is saved (the end point of the latency,
taken by a PC match on cores with a retire port). Rows that share a SoC share
its gateware and its simulation model. Adding a row is one entry here; the
firmware and the tests read its features (`features()`), never its name.
"""

from dataclasses import dataclass, replace

from irqlab.builders.core import LEVER_SEPARATOR
from irqlab.errors import unknown
from irqlab.soc.configs import lever_text, soc_config


@dataclass(frozen=True)
class Row:
    name: str
    soc: str                  # a key of soc.configs.SOCS
    description: str
    march: str
    mabi: str = "ilp32"
    # Handlers are entered through a table the hardware reads (CLIC shv,
    # CV32E40P's vectored mtvec); otherwise one entry dispatches in software.
    hw_vectoring: bool = False
    # B: an entry-code symbol; {irq} is the interrupt input of generator line 0.
    b_symbol: str = "irq_context_saved"
    # The handler's return instruction (mret or emret), where each interrupt's
    # entry has its own: the start of the hand-over from one handler to the
    # next in the back-to-back test (a PC match, cores with a retire port).
    ret_symbol: str = None
    peer: bool = False        # a stock core, beside the project's own
    # The context-switch suite (fw/ctxsw) runs on it.
    ctxsw: bool = True

    @property
    def soc_config(self):
        return soc_config(self.soc)

    def b_symbol_for(self, irq):
        return self.b_symbol.format(irq=irq)

    @property
    def b_per_line(self):
        """Each interrupt line has its own B (a vectored entry); else one
        entry serves every line, and B does not say which line it is for."""
        return "{irq}" in self.b_symbol

    @property
    def cpu_flags(self):
        return f"-march={self.march} -misa-spec=2.2 -mabi={self.mabi}"

    def features(self):
        """The row's features as C constants (name -> int), the SoC's included."""
        f = dict(self.soc_config.features())
        f["IRQLAB_HW_VECTORING"] = int(self.hw_vectoring)
        f["IRQLAB_ABI_RV32E"] = int(self.mabi.endswith("e"))
        f["IRQLAB_HAS_RET_SYMBOL"] = int(self.ret_symbol is not None)
        f["IRQLAB_B_PER_LINE"] = int(self.b_per_line)
        return f


ROWS = {r.name: r for r in [
    Row("vexriscv", "vexriscv", "stock LiteX VexRiscv (pythondata-cpu-vexriscv), caches on", "rv32im",
        peer=True),
    Row("cv32e40p", "cv32e40p", "CV32E40P (pythondata-cpu-cv32e40p), the seeds' baseline core", "rv32imc",
        hw_vectoring=True, peer=True),
    # The own core's rows run on its TCMs (soc/tcm.py): code and vector
    # tables in the ITCM, data and stack in the DTCM.
    Row("clint", "clint", "irqlab core, CLINT-style interrupts, ITCM + DTCM", "rv32im"),
    Row("clic", "clic", "irqlab core, CLIC, hardware-vectored (shv) C handlers, ITCM + DTCM", "rv32im",
        hw_vectoring=True, b_symbol="irq_context_saved_{irq}", ret_symbol="irq_return_{irq}"),
    Row("clic-nv", "clic", "irqlab core, CLIC, non-vectored: one entry, mnxti service loop, ITCM + DTCM", "rv32im",
        b_symbol="clic_context_saved"),
    Row("clic-rv32e", "clic", "irqlab core, CLIC, vectored, firmware built for RV32E (ilp32e), ITCM + DTCM", "rv32em",
        mabi="ilp32e", hw_vectoring=True, b_symbol="irq_context_saved_{irq}", ret_symbol="irq_return_{irq}"),
    # fastirq (cores/: FastIrqPlugin): bank switch, background save, emret.
    Row("fastirq", "fastirq", "irqlab core, CLIC + fastirq: banked caller-saved registers, background save, "
        "emret, ITCM + DTCM", "rv32im", hw_vectoring=True, b_symbol="irq_context_saved_{irq}", ret_symbol="irq_return_{irq}"),
    Row("fastirq-nv", "fastirq", "irqlab core, CLIC + fastirq, non-vectored: one entry dispatching by mcause, "
        "emret, ITCM + DTCM", "rv32im", b_symbol="clic_context_saved"),
    Row("fastirq-dport", "fastirq-dport", "irqlab core, CLIC + fastirq, vectored, the frame stored through the "
        "data port in the cycles the core leaves free, ITCM + DTCM", "rv32im", hw_vectoring=True,
        b_symbol="irq_context_saved_{irq}", ret_symbol="irq_return_{irq}"),
    # fastctx: fastirq with task contexts; the FreeRTOS port switches tasks
    # by switching contexts (docs/FREERTOS.md).
    Row("fastctx", "fastctx", "irqlab core, CLIC + fastirq + 8 task contexts: a task switch moves no register "
        "through memory, ITCM + DTCM", "rv32im", hw_vectoring=True, b_symbol="irq_context_saved_{irq}",
        ret_symbol="irq_return_{irq}"),
    Row("fastirq-rv32e", "fastirq", "irqlab core, CLIC + fastirq, firmware built for RV32E (ilp32e), ITCM + DTCM",
        "rv32em", mabi="ilp32e", hw_vectoring=True, b_symbol="irq_context_saved_{irq}", ret_symbol="irq_return_{irq}"),
    # The `clic` firmware on the Wishbone memory path: what single-cycle memory buys.
    Row("clic-bus", "clic-bus", "irqlab core, CLIC, hardware-vectored, code and data on the Wishbone bus", "rv32im",
        hw_vectoring=True, b_symbol="irq_context_saved_{irq}", ret_symbol="irq_return_{irq}"),
    # clic-bus behind instruction and data caches (seed 004's T2; T3 invalidates them).
    Row("clic-cache", "clic-cache", "irqlab core, CLIC, hardware-vectored, code and data on the Wishbone bus "
        "behind 4 KiB instruction and data caches", "rv32im",
        hw_vectoring=True, b_symbol="irq_context_saved_{irq}", ret_symbol="irq_return_{irq}"),
]}


def row(name):
    """A row of the registry, or `<row>+<lever>`: the row on its SoC with one
    pipeline lever in the core or one SoC option (soc.configs.soc_config),
    for measuring what it buys; no default set includes such a row."""
    base, sep, lever = name.partition(LEVER_SEPARATOR)
    try:
        r = ROWS[base]
    except KeyError:
        raise unknown("row", name, ROWS) from None
    if not sep:
        return r
    cfg = soc_config(f"{r.soc}{LEVER_SEPARATOR}{lever}")
    return replace(r, name=name, soc=cfg.name, description=f"{r.description}; {lever_text(lever)}")


def row_for_soc(soc):
    """The first row on SoC `soc` (a lever's SoC: its base row with the lever)."""
    base, sep, lever = soc.partition(LEVER_SEPARATOR)
    name = next(n for n, r in ROWS.items() if r.soc == base)
    return row(f"{name}{sep}{lever}")


def rows_with(**features):
    """The rows whose attributes (or their SoC's) have the given values, e.g.
    rows_with(irq_model="clic"): how tests choose rows by feature."""
    def has(r):
        for k, v in features.items():
            obj = r if hasattr(r, k) else r.soc_config
            if getattr(obj, k) != v:
                return False
        return True
    return [r.name for r in ROWS.values() if has(r)]


def one_row_per_soc(names=None):
    """The first row of each SoC among `names` (default: all rows): enough to
    test what is the SoC's, not the firmware build's."""
    seen, out = set(), []
    for n in names if names is not None else ROWS:
        if ROWS[n].soc not in seen:
            seen.add(ROWS[n].soc)
            out.append(n)
    return out
