"""Where things are: the source tree and the build tree."""

import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("IRQLAB_BUILD", os.path.join(ROOT, "build"))
RESULTS = os.environ.get("IRQLAB_RESULTS", os.path.join(ROOT, "results"))
BITSTREAMS = os.environ.get("IRQLAB_BITSTREAMS", os.path.join(ROOT, "bitstreams"))
FW = os.path.join(ROOT, "fw")


def sim_dir(core):
    return os.path.join(BUILD, "sim", core)


def git_revision():
    """The source tree's commit (short), with -dirty if tracked files changed."""
    try:
        rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        return rev + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
