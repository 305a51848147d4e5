"""A decoded trace as signals over time, for the exports: each hardware line's
level changes, the software events, the core events, overflow reports and
console bytes, all in time order (cycles)."""

from dataclasses import dataclass, field

from irqlab.host import record as rec
from irqlab.host.describe import core_fields, hw_fields, sw_fields


@dataclass
class Line:
    index: int
    name: str
    initial: int = 0                            # level before the first edge
    edges: list = field(default_factory=list)   # (ts, new level)


@dataclass
class Signals:
    lines: dict = field(default_factory=dict)      # line index -> Line, only lines with edges
    sw: list = field(default_factory=list)         # (ts, channel, data)
    core: list = field(default_factory=list)       # (ts, kind, pc, arg)
    overflow: list = field(default_factory=list)   # (ts, events dropped)
    console: list = field(default_factory=list)    # (ts, byte)
    start: int = 0                                 # first and last event timestamp
    end: int = 0


def signals(records):
    """The signals of a list of records (trace.decode.Record)."""
    s = Signals()
    ordered = sorted(records, key=lambda r: r.ts)   # stable: one cycle's records keep their order
    stamped = [r.ts for r in ordered if r.type != rec.TYPE_TIME_HI]
    if stamped:
        s.start, s.end = stamped[0], stamped[-1]
    for r in ordered:
        if r.type == rec.TYPE_HW:
            rise, fall = hw_fields(r.payload)
            for i in range(rec.N_HW_LINES):
                for mask, level in ((fall, 0), (rise, 1)):
                    if mask >> i & 1:
                        line = s.lines.get(i)
                        if line is None:
                            line = s.lines[i] = Line(i, rec.line_name(i), initial=1 - level)
                        line.edges.append((r.ts, level))
        elif r.type == rec.TYPE_SW:
            s.sw.append((r.ts, *sw_fields(r.payload)))
        elif r.type == rec.TYPE_CORE:
            s.core.append((r.ts, *core_fields(r.payload)))
        elif r.type == rec.TYPE_OVERFLOW:
            s.overflow.append((r.ts, r.payload & 0xFFFFFFFF))
        elif r.type == rec.TYPE_CONSOLE:
            s.console.append((r.ts, r.payload & 0xFF))
    s.lines = dict(sorted(s.lines.items()))
    return s


def level_at(line, ts):
    """The level of a Line just after cycle `ts`."""
    level = line.initial
    for t, v in line.edges:
        if t > ts:
            break
        level = v
    return level
