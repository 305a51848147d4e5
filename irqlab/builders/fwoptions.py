"""Firmware build options: the one registry of the switches a firmware build
may take besides its row (`irqlab run --fw-option`, `irqlab bench --suite
ctxsw --fw-option`). An option is a set of C defines for the applications
that know it; a build with options goes to a folder of its own
(sim.build_firmware), and a results file records the options it ran with."""

from dataclasses import dataclass

from irqlab.errors import BenchError


@dataclass(frozen=True)
class FwOption:
    name: str
    defines: tuple           # ("NAME=VALUE", ...), passed as -D to every source of the build
    kernels: tuple           # the kernels whose applications take it (irqlab/builders/firmware.py app_kernel)
    help: str
    # The build keeps the port's kernel patch (irqlab/builders/firmware.py
    # kernel_for); False: the kernel as the crate ships it.
    kernel_patch: bool = True


OPTIONS = {o.name: o for o in [
    FwOption("opt-select", ("configUSE_PORT_OPTIMISED_TASK_SELECTION=1",), ("freertos",),
             "FreeRTOS's optimized task selection: a bitmap of the ready priorities and its highest "
             "set bit (seed 001, Table I) instead of the generic search down the ready lists"),
    FwOption("hw-sched-off", ("IRQLAB_PORT_HW_SCHED_OFF=1",), ("freertos",),
             "the port leaves the core's task contexts, its scheduler's view and bound interrupts "
             "unused (fw/freertos/port-clic/port_contexts.h): the kernel alone switches tasks, "
             "as on a core without contexts, and is built unpatched; on such a core it changes nothing",
             kernel_patch=False),
]}


def parse(names, app_kernel):
    """The options named (an iterable of names) for an application built
    against `app_kernel` (None: bare metal); a one-line error for a name that
    is unknown or does not apply."""
    out = []
    for n in names or ():
        o = OPTIONS.get(n)
        if o is None:
            raise BenchError(f"unknown firmware option '{n}' (known: {', '.join(sorted(OPTIONS))})")
        if app_kernel not in o.kernels:
            raise BenchError(f"firmware option '{n}' applies to applications on {', '.join(o.kernels)} only")
        if o not in out:
            out.append(o)
    return tuple(sorted(out, key=lambda o: o.name))


def suffix(options):
    """The build folder's suffix for these options ('' without)."""
    return "".join(f"+{o.name}" for o in options)


def cflags(options):
    return " ".join(f"-D{d}" for o in options for d in o.defines)
