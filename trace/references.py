"""Published figures the measured rows are compared with (`irqlab compare`,
the HTML report): the seeds' and Cortex-M's, each with the paper it comes
from. They are the papers' numbers, not measured here, all with single-cycle
memory; the rows are printed as references, never as results.

A Figure is one number of cycles and what it is: "value" (the paper's
figure, no statistic given) or "max" (a worst case).
"""

from dataclasses import dataclass

PAPERS = {
    "seed 000": 'R. Balas, A. Ottaviano, L. Benini, "CV32RT: Enabling Fast Interrupt and Context '
                'Switching for RISC-V Microcontrollers", IEEE TVLSI 2024',
    "seed 001": 'R. Balas, L. Benini, "RISC-V for Real-time MCUs - Software Optimization and '
                'Microarchitectural Gap Analysis", DATE 2021',
    "seed 003": 'M. Scheck, T. Muermann, A. Koch, "Co-Exploration of RISC-V Processor Microarchitectures and '
                'FreeRTOS Extensions for Lower Context-Switch Latency", ASPLOS 2026',
}


@dataclass(frozen=True)
class Figure:
    cycles: int
    stat: str = "value"      # "value" or "max"


@dataclass(frozen=True)
class Reference:
    name: str
    paper: str               # a key of PAPERS
    where: str               # section, table or figure of the paper
    latency: Figure = None   # to a C handler: the context the ABI's caller saves is stored
    back_to_back: Figure = None
    nested: Figure = None
    note: str = ""
    memory: str = "1-cycle"  # the papers measure on single-cycle, zero-wait-state memory


REFERENCES = [
    Reference("CV32RT fastirq", "seed 000", "Sec. V-B, Fig. 6",
              latency=Figure(6), back_to_back=Figure(8),
              note="CLIC + fastirq (register banks, background saving); back to back through emret"),
    Reference("CV32E40P CLIC/CLINT", "seed 000", "Sec. V-B, Fig. 6",
              latency=Figure(33), back_to_back=Figure(68),
              note="the baseline CLIC and CLINT, integer ABI; back to back = full exit and re-entry"),
    Reference("CV32E40P, regular ABI", "seed 001", "Table II",
              latency=Figure(33, "max"), note="non-RTOS ISR, worst case (6-cycle critical section included)"),
    Reference("CV32E40P, ABI + RV32E", "seed 001", "Table II",
              latency=Figure(27, "max"), note="non-RTOS ISR, worst case"),
    Reference("CV32E40P, EABI + RV32E", "seed 001", "Table II",
              latency=Figure(24, "max"), note="non-RTOS ISR, worst case"),
    Reference("Arm Cortex-M4", "seed 000", "Table III, Sec. V-B (after the Cortex-M4 TRM)",
              latency=Figure(12), back_to_back=Figure(6),
              note="NVIC, hardware stacking; back to back = tail-chaining"),
]
assert all(r.paper in PAPERS for r in REFERENCES)


@dataclass(frozen=True)
class SwitchReference:
    """A published FreeRTOS context-switch figure, in cycles (the
    context-switch table's REFERENCE rows, trace/ctxsw.py). A figure may be a
    range ("121-129") where the paper gives several configurations."""
    name: str
    paper: str
    where: str
    mean: str = None         # average switch time
    jitter: str = None       # max - min
    worst: str = None        # worst case
    note: str = ""


SWITCH_REFERENCES = [
    SwitchReference("CV32E40P vanilla", "seed 001", "Table I", mean="162",
                    note="FreeRTOS's RISC-V port, rv32imac, -O3; power control unit firmware"),
    SwitchReference("CV32E40P optimized", "seed 001", "Table I", mean="121-129",
                    note="RV32E + EABI (129), plus optimized task selection with Xpulp (121)"),
    SwitchReference("Arm Cortex-M3", "seed 001", "Table I", mean="96"),
    SwitchReference("Arm Cortex-M4", "seed 000", "Sec. V-B4, Table III", mean="96",
                    note="the FreeRTOS website's figure, quoted by the paper"),
    SwitchReference("CV32RT fastirq", "seed 000", "Fig. 7, Table III", mean="104-114",
                    note="two dummy tasks, tracing and stack checks off; fastirq's background save"),
    SwitchReference("CV32E40P vanilla (RTOSBench)", "seed 003", "Sec. 6.1-6.2, Fig. 9", jitter="188",
                    worst="1649", note="trigger to mret; worst case by analysis with eight delayed tasks"),
    SwitchReference("RTOSUnit T / SLT", "seed 003", "Sec. 6.1-6.2, Fig. 9", jitter="16", worst="70",
                    note="hardware scheduling (T): jitter 16; context store, load and scheduling (SLT): "
                         "worst case 70, no jitter"),
]
assert all(r.paper in PAPERS for r in SWITCH_REFERENCES)
