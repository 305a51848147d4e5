"""The demos of issue #13: real control work on the SoC (`irqlab demo NAME`),
one entry each: name -> (module under irqlab.demos, what it shows)."""

import importlib

from irqlab.errors import unknown

DEMOS = {
    "pto": ("pto", "pulse-train output: max sustained frequency and period jitter per row (fw/pto/)"),
}


def demo_module(name):
    """The module of demo `name`; UnknownName (one line) if there is none."""
    if name not in DEMOS:
        raise unknown("demo", name, DEMOS)
    return importlib.import_module(f"irqlab.demos.{DEMOS[name][0]}")
