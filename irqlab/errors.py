"""The errors that mean 'bad input or environment': the CLI reports each in
one line and exits with status 2.

A leaf module (no imports): every part of irqlab, the host package included,
raises these without pulling in the rest, so `irqlab decode` and `irqlab
analyze` need nothing but the host package.
"""


class UserError(Exception):
    """Bad input or a missing tool: one line for the user, exit status 2."""


class UnknownName(UserError, ValueError):
    """A name (row, SoC, core variant, board, benchmark) not in its registry."""


class CaptureError(UserError):
    """A trace capture failed (port, socket, link)."""


class TraceError(UserError):
    """A trace file is corrupt, truncated or has gaps."""


class ExportError(UserError):
    """A trace cannot be exported as asked (format, window, output)."""


class ResultsError(UserError):
    """A benchmark results file (bench.json) cannot be read or is not one."""


class ImageError(UserError):
    """A firmware image or ELF cannot be loaded as asked."""


class BuildError(UserError):
    """Building the simulation model or a firmware failed."""


class CoreBuildError(UserError):
    """Building the project's own core (Maven/SpinalHDL) failed."""


class BoardBuildError(UserError):
    """A board build (FPGA flow) failed or cannot run."""


class BenchError(UserError):
    """A benchmark run failed or was asked for something impossible."""


def unknown(what, name, known):
    """The one-line error for a name missing from a registry."""
    return UnknownName(f"unknown {what} '{name}' (known: {', '.join(known)})")
