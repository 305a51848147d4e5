"""The background workload's figures from a trace: the digits module
(fw/common/digits/) leaves one software event per inference on CH_DIGITS
(trace/protocol.py, APP_PROTOCOLS["digits"]), stamped by the trace unit.
Every application that takes the module gets these figures, alone
(fw/digits) or beside interrupts (a background task under FreeRTOS).

The rate is the span from the first to the last inference in the window,
divided by the inferences finished inside it (one fewer than the events):
cycles per inference as the task sees them, loop and interruptions
included; inferences per second at a clock is the clock over that.
"""

from dataclasses import dataclass

from irqlab.host import record as rec
from irqlab.host.protocol import APP_PROTOCOLS

PROTO = APP_PROTOCOLS["digits"]


@dataclass(frozen=True)
class Inference:
    ts: int          # cycle stamp of the event (just after the classification)
    index: int       # the test image
    cls: int         # the class found
    label: int       # the image's label
    differs: bool    # the class is not the host reference's


def inferences(records, start=None, end=None):
    """The CH_DIGITS events of decoded `records`, with start <= ts < end
    where given."""
    out = []
    for r in records:
        if r.type != rec.TYPE_SW or (r.payload >> 32) & 0xFF != PROTO.CH_DIGITS:
            continue
        if (start is not None and r.ts < start) or (end is not None and r.ts >= end):
            continue
        p = r.payload & 0xFFFFFFFF
        out.append(Inference(r.ts, p & 0xFFFF, (p >> PROTO.DIGITS_EV_CLASS_SHIFT) & 0xF,
                             (p >> PROTO.DIGITS_EV_LABEL_SHIFT) & 0xF, bool(p & PROTO.DIGITS_EV_DIFFERS)))
    return out


def figures(events, clock_hz):
    """inferences, correct, accuracy, differing (from the reference: must be
    0), cycles per inference (mean, min, max of the gaps) and inferences per
    second at clock_hz; the rate needs two events or more."""
    n = len(events)
    correct = sum(e.cls == e.label for e in events)
    out = {"inferences": n, "correct": correct, "accuracy": correct / n if n else None,
           "differing": sum(e.differs for e in events)}
    if n >= 2:
        gaps = [b.ts - a.ts for a, b in zip(events, events[1:])]
        mean = (events[-1].ts - events[0].ts) / (n - 1)
        out.update({"cycles_per_inference": {"mean": mean, "min": min(gaps), "max": max(gaps)},
                    "inferences_per_s": clock_hz / mean})
    return out
