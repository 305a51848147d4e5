"""A trace as a sigrok session file (.sr), which PulseView and sigrok-cli
open: the hardware lines that change, as logic channels sampled once per
clock cycle (samplerate = the clock), so every edge sits on its exact cycle.

The file is a zip archive: `version` ("2"), `metadata` (an INI text: sample
rate, channel names, bytes per sample) and the samples in chunks
`logic-1-1`, `logic-1-2`, ... (one sample = `unitsize` bytes, channel k in
bit k-1). Deflate shrinks the long constant runs to almost nothing, but the
sample count is what a viewer has to hold, so one file covers a window of at
most `max_samples` cycles (default 2^25, 0.34 s at 100 MHz: a whole
10,000-interrupt latency test) from `start` (default: the first event).
"""

import zipfile

import numpy as np

from irqlab.errors import ExportError
from irqlab.host.signals import signals

MAX_SAMPLES = 1 << 25
CHUNK_SAMPLES = 1 << 22


def samplerate_text(clock_hz):
    return f"{int(round(clock_hz))} Hz"


def write(records, f, clock_hz, source="trace", start=None, max_samples=MAX_SAMPLES):
    s = signals(records)
    lines = list(s.lines.values())
    if not lines:
        raise ExportError(f"{source}: no hardware line changes, nothing for a logic analyzer")
    if max_samples < 1:
        raise ExportError(f"--max-samples must be at least 1, not {max_samples}")
    first = s.start if start is None else start
    if not s.start <= first <= s.end:
        raise ExportError(f"--start {first} lies outside the trace (cycles {s.start}..{s.end})")
    end = min(s.end + 1, first + max_samples)          # exclusive
    unitsize = 1 if len(lines) <= 8 else 2 if len(lines) <= 16 else 4
    dtype = {1: np.uint8, 2: np.uint16, 4: np.uint32}[unitsize]

    # The packed level of every channel after each cycle that changes one.
    edges = sorted((t, bit, v) for bit, ln in enumerate(lines) for t, v in ln.edges)
    state = sum(ln.initial << bit for bit, ln in enumerate(lines))
    initial = state
    times, values = [], []
    for t, bit, v in edges:
        state = (state & ~(1 << bit)) | (v << bit)
        if times and times[-1] == t:
            values[-1] = state
        else:
            times.append(t)
            values.append(state)
    times = np.array(times, dtype=np.int64)
    values = np.array(values, dtype=np.int64)

    meta = ["[global]", "sigrok version=0.5.2", "", "[device 1]", "capturefile=logic-1",
            f"total probes={len(lines)}", f"samplerate={samplerate_text(clock_hz)}", "total analog=0"]
    meta += [f"probe{i + 1}={ln.name}" for i, ln in enumerate(lines)]
    meta += [f"unitsize={unitsize}", ""]
    with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("version", "2")
        z.writestr("metadata", "\n".join(meta))
        for n, c0 in enumerate(range(first, end, CHUNK_SAMPLES)):
            cycles = np.arange(c0, min(end, c0 + CHUNK_SAMPLES), dtype=np.int64)
            idx = np.searchsorted(times, cycles, side="right") - 1
            chunk = np.where(idx >= 0, values[np.maximum(idx, 0)], initial).astype(dtype)
            z.writestr(f"logic-1-{n + 1}", chunk.astype(np.dtype(dtype).newbyteorder("<")).tobytes())
    note = f"{len(lines)} channels, {end - first} samples from cycle {first} at {samplerate_text(clock_hz)}"
    if end <= s.end:
        note += f" (window: the trace runs to cycle {s.end}; --start/--max-samples choose another)"
    return note
