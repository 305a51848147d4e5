"""CSV and JSON tables of a trace: its raw events (one row per event, every
record type but TIME_HI, whose bits are already in the timestamps) or its
interrupts (one row per interrupt, paired as trace/analysis.py pairs them)."""

import csv
import json

from irqlab.host import analysis
from irqlab.host import record as rec
from irqlab.host.describe import CORE_KIND_NAMES, cause_text, channel_name
from irqlab.host.signals import signals

TABLES = ("latencies", "events")
# b_execute_cycle, latency_execute_cycles: B-execute (PC-match rows; empty elsewhere)
LATENCY_COLUMNS = ["test", "index", "a_cycle", "b_cycle", "latency_cycles", "latency_ns", "b_marker",
                   "b_execute_cycle", "latency_execute_cycles"]
EVENT_COLUMNS = ["cycle", "type", "index", "name", "data", "pc"]


def latency_rows(records, clock_hz):
    ns = 1e9 / clock_hz
    return [{"test": i.test, "index": i.index, "a_cycle": i.a, "b_cycle": i.b,
             "latency_cycles": i.latency, "latency_ns": round(i.latency * ns, 3), "b_marker": i.marker,
             "b_execute_cycle": i.b_execute, "latency_execute_cycles": i.latency_execute}
            for i in analysis.interrupts(records)]


def event_rows(records):
    s = signals(records)
    rows = []
    for line in s.lines.values():
        rows += [{"cycle": t, "type": "rise" if v else "fall", "index": line.index, "name": line.name}
                 for t, v in line.edges]
    rows += [{"cycle": t, "type": "sw", "index": ch, "name": channel_name(ch), "data": d} for t, ch, d in s.sw]
    for t, kind, pc, arg in s.core:
        name = cause_text(arg) if kind == rec.CORE_TRAP else (
            f"comparator {arg}" if kind == rec.CORE_PC_MATCH else "")
        rows.append({"cycle": t, "type": CORE_KIND_NAMES.get(kind, f"core{kind}"), "index": arg,
                     "name": name, "pc": pc})
    rows += [{"cycle": t, "type": "overflow", "data": n, "name": "events dropped"} for t, n in s.overflow]
    rows += [{"cycle": t, "type": "console", "data": b, "name": chr(b)} for t, b in s.console]
    rows.sort(key=lambda r: r["cycle"])    # stable: each kind keeps its own order within a cycle
    return rows


def _rows(records, clock_hz, table):
    if table == "latencies":
        return LATENCY_COLUMNS, latency_rows(records, clock_hz)
    return EVENT_COLUMNS, event_rows(records)


def write_csv(records, f, clock_hz, table="latencies", source=""):
    columns, rows = _rows(records, clock_hz, table)
    w = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return f"{len(rows)} {'interrupts' if table == 'latencies' else 'events'}"


def write_json(records, f, clock_hz, table="latencies", source=""):
    columns, rows = _rows(records, clock_hz, table)
    key = "interrupts" if table == "latencies" else "events"
    doc = {"irqlab": f"trace {table}", "source": source, "clock_hz": clock_hz, "columns": columns,
           key: rows}
    json.dump(doc, f, indent=None, separators=(",", ":"))
    f.write("\n")
    return f"{len(rows)} {key}"
