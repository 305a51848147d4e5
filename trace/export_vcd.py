"""A trace as a Value Change Dump (pyvcd) for GTKWave and other waveform
viewers. Time unit: the largest VCD unit (1, 10 or 100 s, ms, ... fs) that
divides the clock period: 10 ns at 100 MHz, so times are cycles; 10 ns at
25 MHz, times are 4 x cycles; 1 ns at 125 MHz, 8 x cycles. A period that no
unit divides is rounded to femtoseconds.

  irqlab.lines   a 1-bit wire per hardware line that changes (gen0..7, phase0..7, irq0..15)
  irqlab.sw      the stimulus-port bus: channel, data, channel name, a strobe per store
  irqlab.core    retire-port events: pc, trap (strobe, cause), mret (strobe),
                 pc_match (strobe, comparator), trap_depth (nesting)
  irqlab.trace   dropped: events the trace unit reported lost so far (OVERFLOW)

Strobes are high for the one cycle of their event.
"""

from vcd import VCDWriter

from irqlab.host import record as rec
from irqlab.host.describe import channel_name
from irqlab.host.signals import signals

_UNITS = [("s", 10**15), ("ms", 10**12), ("us", 10**9), ("ns", 10**6), ("ps", 10**3), ("fs", 1)]


def timescale(clock_hz):
    """((magnitude, unit), VCD time steps per cycle) for a clock."""
    period_fs = 1e15 / clock_hz
    for unit, fs in _UNITS:
        for mag in (100, 10, 1):
            steps = period_fs / (mag * fs)
            if steps >= 1 and abs(steps - round(steps)) <= 1e-9 * steps:
                return (mag, unit), round(steps)
    return (1, "fs"), max(1, round(period_fs))


def write(records, f, clock_hz, source="trace"):
    s = signals(records)
    (mag, unit), k = timescale(clock_hz)
    w = VCDWriter(f, timescale=f"{mag} {unit}", date=None, version="irqlab",
                  comment=f"{source} at {clock_hz / 1e6:g} MHz; one cycle = {k} x {mag} {unit}",
                  init_timestamp=s.start * k)
    changes = []                          # (cycle, order, var, value)

    def strobe(var, cycles):
        hits = set(cycles)
        for i, t in enumerate(sorted(hits)):
            changes.append((t, 0, var, 1))
            if t + 1 not in hits:
                changes.append((t + 1, 0, var, 0))

    for line in s.lines.values():
        var = w.register_var("irqlab.lines", line.name, "wire", size=1, init=line.initial)
        changes += [(t, 1, var, v) for t, v in line.edges]
    if s.sw:
        chan = w.register_var("irqlab.sw", "channel", "reg", size=8, init=0)
        data = w.register_var("irqlab.sw", "data", "reg", size=32, init=0)
        name = w.register_var("irqlab.sw", "name", "string", init="-")
        stb = w.register_var("irqlab.sw", "strobe", "wire", size=1, init=0)
        for t, ch, d in s.sw:
            changes += [(t, 1, chan, ch), (t, 1, data, d), (t, 1, name, channel_name(ch))]
        strobe(stb, [t for t, _, _ in s.sw])
    if s.core:
        pc = w.register_var("irqlab.core", "pc", "reg", size=32, init=0)
        cause = w.register_var("irqlab.core", "cause", "reg", size=8, init=0)
        comp = w.register_var("irqlab.core", "comparator", "reg", size=8, init=0)
        depth = w.register_var("irqlab.core", "trap_depth", "integer", init=0)
        stb = {kind: w.register_var("irqlab.core", n, "wire", size=1, init=0)
               for kind, n in ((rec.CORE_TRAP, "trap"), (rec.CORE_MRET, "mret"), (rec.CORE_PC_MATCH, "pc_match"))}
        level = 0
        for t, kind, p, arg in s.core:
            changes.append((t, 1, pc, p))
            if kind == rec.CORE_TRAP:
                level += 1
                changes += [(t, 1, cause, arg), (t, 1, depth, level)]
            elif kind == rec.CORE_MRET:
                level = max(0, level - 1)
                changes.append((t, 1, depth, level))
            elif kind == rec.CORE_PC_MATCH:
                changes.append((t, 1, comp, arg))
        for kind, var in stb.items():
            strobe(var, [t for t, kd, _, _ in s.core if kd == kind])
    if s.overflow:
        dropped = w.register_var("irqlab.trace", "dropped", "integer", init=0)
        total = 0
        for t, n in s.overflow:
            total += n
            changes.append((t, 1, dropped, total))
    changes.sort(key=lambda c: (c[0], c[1]))
    for t, _, var, value in changes:
        w.change(var, t * k, value)
    w.close((max([s.end] + [c[0] for c in changes]) + 1) * k)
    return f"{len(s.lines)} lines, {len(changes)} value changes, timescale {mag} {unit}"
