"""`irqlab export`: a captured trace in the formats other tools read. One
entry per format (its writer module, the default file suffix, binary or
text); every file is written whole or not at all (trace/atomic.py)."""

import importlib
import os
import sys
from dataclasses import dataclass

from irqlab.errors import ExportError, unknown
from irqlab.host.atomic import atomic_open


@dataclass(frozen=True)
class Format:
    name: str
    module: str          # irqlab.host.<module>, with write(records, file, clock_hz, source, **options)
    function: str
    suffix: str          # the default output: the trace's name with this instead of its suffix
    binary: bool
    description: str


FORMATS = {f.name: f for f in [
    Format("perfetto", "export_perfetto", "write", ".perfetto.json", False,
           "Chrome JSON trace events for ui.perfetto.dev: line, latency, handler and event tracks"),
    Format("vcd", "export_vcd", "write", ".vcd", False,
           "Value Change Dump for GTKWave: a wire per hardware line, the software and core events"),
    Format("sigrok", "export_sigrok", "write", ".sr", True,
           "sigrok session (PulseView, sigrok-cli): the hardware lines sampled every cycle"),
    Format("csv", "export_tables", "write_csv", ".{table}.csv", False,
           "one row per interrupt (--table latencies) or per event (--table events)"),
    Format("json", "export_tables", "write_json", ".{table}.json", False,
           "the same rows as csv, as JSON"),
]}

# Options each format takes beyond records, clock and source (the CLI passes only these).
OPTIONS = {"sigrok": ("start", "max_samples"), "csv": ("table",), "json": ("table",)}


def get(name):
    if name not in FORMATS:
        raise unknown("export format", name, FORMATS)
    return FORMATS[name]


def default_output(trace_path, fmt, table="latencies"):
    base, ext = os.path.splitext(trace_path)
    return (base if ext else trace_path) + FORMATS[fmt].suffix.format(table=table)


def export(records, fmt, out, clock_hz, source="trace", **options):
    """Write `records` as format `fmt` to `out` ('-': standard output, text
    formats only). Returns the writer's one-line summary."""
    f = get(fmt)
    if clock_hz <= 0:
        raise ExportError(f"the clock must be positive, not {clock_hz / 1e6:g} MHz")
    if options.get("table", "latencies") not in ("latencies", "events"):
        raise unknown("table", options["table"], ("latencies", "events"))
    writer = getattr(importlib.import_module(f"irqlab.host.{f.module}"), f.function)
    opts = {k: v for k, v in options.items() if k in OPTIONS.get(fmt, ()) and v is not None}
    if out == "-":
        if f.binary:
            raise ExportError(f"format {fmt} is binary: give an output file with -o")
        return writer(records, sys.stdout, clock_hz, source=source, **opts)
    if os.path.isdir(out):
        raise ExportError(f"output '{out}' is a folder")
    try:
        with atomic_open(out, binary=f.binary) as fh:
            return writer(records, fh, clock_hz, source=source, **opts)
    except OSError as e:
        raise ExportError(f"cannot write '{out}': {e.strerror}") from None
