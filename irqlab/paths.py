"""Where things are: the source tree and the build tree."""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("IRQLAB_BUILD", os.path.join(ROOT, "build"))
RESULTS = os.environ.get("IRQLAB_RESULTS", os.path.join(ROOT, "results"))
BITSTREAMS = os.environ.get("IRQLAB_BITSTREAMS", os.path.join(ROOT, "bitstreams"))
FW = os.path.join(ROOT, "fw")


def sim_dir(core):
    return os.path.join(BUILD, "sim", core)
