"""Reference model of the CLIC (soc/clic.py, draft v0.9, machine mode only)
and of the core's rules for its interrupts (levels, threshold, nesting,
mnxti), in plain Python. Two users: tests/test_clic.py runs it beside the
Migen module, cycle by cycle, on the same random stimulus; tests/test_torture.py
replays a whole run's trace through it (`Timeline`).

The memory-mapped CLIC, `Clic`, cycle by cycle
------------------------------------------------
Cycle x is the interval between two clock edges. `Clic.outputs()` is what
the CLIC shows in the current cycle x; `Clic.tick(lines, claim, writes)` is
the clock edge that ends cycle x, given the inputs present in x; after it the
model is in cycle x + 1 (`Clic.cycle`). D = `output_delay` is 1, plus 1 per
register inside the arbitration tree: the SoC exports it as
facts["clic"]["output_delay"], the Migen module as `CLIC.output_delay`.

  pending   An edge source's bit is set in t+1 by an edge of the chosen
            polarity in cycle t (the line in t, corrected for polarity, is 1
            and differs from the line in t-1) or by a software write of 1
            presented in t; cleared in t+1 by a software write of 0 or a claim
            of its id presented in t. A set wins over a clear in the same
            cycle. A level source's bit in x is its polarity-corrected line in
            x-1; writes and claims leave it alone. Switching a source from
            level to edge keeps the bit as it was.
  seen      What the arbitration sees in cycle x: the pending bits of x with
            the hardware changes of x already in (an edge source's bit or its
            edge in x; a level source's corrected line in x), not the
            software writes or claims presented in x.
  writes    A register write presented in cycle c (the bus request cycle)
            takes effect in c+1. A write's ip byte is interpreted with the
            trig the source had before the write.
  outputs   In cycle x: the winner among the sources seen and enabled in
            cycle x-D, by the largest (clicintctl, id), with the clicintctl,
            ie and shv of cycle x-D. irq_level is the winner's clicintctl with
            its low 8 - nlbits bits set, nlbits of cycle x-1. irq_valid is 0
            when there is no winner and in the D cycles after a claim (a claim
            presented in any of x-D .. x-1, whatever its id). id, level and shv
            are given (not None) only while valid.
  shown id  irq_id in cycle x whatever irq_valid: the winner's id, or, with
            no source seen, the enabled source with the largest
            (clicintctl, id) of cycle x-D (0 if none is enabled); a claim
            does not hold it. The core registers its bound-interrupt match
            from it (`Clic.shown_id()`).

Registers are given as the bytes of the bus word (`Write`): clicintip,
clicintie, clicintattr (bit 0 shv, bit 1 edge, bit 2 negative polarity),
clicintctl (its top ctl_bits bits are stored, the others read 1) and cliccfg
(nlbits in [4:1]; a value above 8 stores 8).

The core side, `CoreCsrs`
-------------------------
mil (mintstatus), mintthresh and the interrupt part of mcause (code, mpil)
of the core (cores/.../TrapCsrPlugin.scala, docs/CLIC.md): an interrupt is
taken when its level is above max(mil, mintthresh) (and MIE = 1: the caller's
business); the trap saves mil in mcause.mpil and sets mil to the level; mret
sets mil back to mcause.mpil; an mnxti claims a winner that is not shv and is
above max(mcause.mpil, mintthresh), and sets mil and the mcause code.
Preemption is by level only: a handler that re-enabled MIE is preempted by a
strictly higher level.
"""

import bisect
import collections
from dataclasses import dataclass

ATTR_SHV, ATTR_EDGE, ATTR_NEG = 0b001, 0b010, 0b100     # clicintattr bits


def level(ctl, nlbits):
    """The interrupt level of an 8-bit clicintctl: its top nlbits bits, the
    rest set."""
    return ctl | (0xFF >> nlbits)


def ctl_read(written, ctl_bits):
    """The clicintctl a source reads after `written`: the top ctl_bits bits
    kept, the low ones 1."""
    low = 0xFF >> ctl_bits
    return (written & ~low & 0xFF) | low


def nlbits_written(cliccfg):
    """cliccfg.nlbits after writing the byte `cliccfg` (WARL: above 8 stores 8)."""
    return min((cliccfg >> 1) & 0xF, 8)


@dataclass(frozen=True)
class Write:
    """One register write: a source's bytes (None: byte lane not written), or
    cliccfg's byte 0."""
    source: int = None
    ip: int = None
    ie: int = None
    attr: int = None
    ctl: int = None
    cliccfg: int = None


@dataclass(frozen=True)
class Outputs:
    valid: bool
    id: int = None
    level: int = None
    shv: bool = None


INVALID = Outputs(False)


class Clic:
    """The memory-mapped CLIC, cycle by cycle (the contract: module docstring)."""

    def __init__(self, n_sources, ctl_bits=8, output_delay=1):
        assert output_delay >= 1
        self.n = n_sources
        self.ctl_bits = ctl_bits
        self.delay = output_delay
        self.cycle = 0
        self.ip = self.ie = self.shv = self.edge = self.neg = 0    # bit i: source i
        self.ctl = [ctl_read(0, ctl_bits)] * n_sources             # as read
        self.nlbits = 0
        self._lines_d = 0
        self._winners = collections.deque([None] * output_delay)   # (ctl, id, shv) of x-D .. x-1
        self._shown = collections.deque([0] * output_delay)        # irq_id of x-D .. x-1
        self._claims = collections.deque([False] * output_delay)   # presented in x-D .. x-1
        self._nlbits_d = 0                                         # of cycle x-1

    @property
    def latency(self):
        """Cycles from a source's change to the outputs: a change in cycle t
        shows in t + latency (a register write presented in t, one later)."""
        return self.delay

    def preset(self, *writes):
        """Apply register writes at once, as if made long ago (the set-up
        before a replay; the outputs follow from the next tick)."""
        for w in writes:
            self._apply(w)

    def pending(self, i):
        return bool(self.ip >> i & 1)

    def winner(self, seen):
        """(clicintctl, id) of the current cycle's winner among the sources
        `seen` (a bit each) that are enabled, or None (the outputs show it D
        cycles later)."""
        best = None
        cand = seen & self.ie
        while cand:
            low = cand & -cand
            i = low.bit_length() - 1
            key = (self.ctl[i], i)
            if best is None or key > best:
                best = key
            cand ^= low
        return best

    def shown_id(self):
        """irq_id in the current cycle, valid or not (the module docstring's
        "shown id")."""
        return self._shown[0]

    def outputs(self):
        w = self._winners[0]
        if w is None or any(self._claims):
            return INVALID
        ctl, i, shv = w
        return Outputs(True, i, level(ctl, self._nlbits_d), shv)

    def tick(self, lines=0, claim=None, writes=()):
        """The clock edge ending the current cycle: `lines` the sources' lines
        in it (bit i: source i), `claim` the id claimed in it (or None),
        `writes` the register writes presented in it."""
        if isinstance(writes, Write):
            writes = (writes,)
        mask = (1 << self.n) - 1
        lines &= mask
        corrected = lines ^ self.neg
        hw_set = (lines ^ self._lines_d) & corrected
        seen = (self.edge & (hw_set | self.ip)) | (~self.edge & corrected & mask)
        best = self.winner(seen)
        self._winners.append(best and best + (bool(self.shv >> best[1] & 1),))
        self._winners.popleft()
        urgent = best or self.winner(mask)
        self._shown.append(urgent[1] if urgent else 0)
        self._shown.popleft()
        self._claims.append(claim is not None)
        self._claims.popleft()
        self._nlbits_d = self.nlbits
        # Pending, from this cycle's registers (a write's ip uses the old trig).
        sw_set = sw_clear = 0
        for w in writes:
            if w.source is not None and w.ip is not None and w.source < self.n:
                if w.ip & 1:
                    sw_set |= 1 << w.source
                else:
                    sw_clear |= 1 << w.source
        if claim is not None and 0 <= claim < self.n:
            sw_clear |= 1 << claim
        self.ip = (self.edge & (hw_set | sw_set | (self.ip & ~sw_clear))) | (~self.edge & corrected & mask)
        self._lines_d = lines
        for w in writes:
            self._apply(w)
        self.cycle += 1

    def _apply(self, w):
        if w.cliccfg is not None:
            self.nlbits = nlbits_written(w.cliccfg)
        i = w.source
        if i is None or not 0 <= i < self.n:
            return
        bit = 1 << i

        def put(vec, value):
            return (vec | bit) if value else (vec & ~bit)
        if w.ie is not None:
            self.ie = put(self.ie, w.ie & 1)
        if w.attr is not None:
            self.shv = put(self.shv, w.attr & ATTR_SHV)
            self.edge = put(self.edge, w.attr & ATTR_EDGE)
            self.neg = put(self.neg, w.attr & ATTR_NEG)
        if w.ctl is not None:
            self.ctl[i] = ctl_read(w.ctl, self.ctl_bits)


class _Steps:
    """A value over cycles: changes recorded in time order, looked up by cycle."""

    def __init__(self, initial):
        self.times, self.values = [], []
        self.initial = initial

    def set(self, t, value):
        if (self.values[-1] if self.values else self.initial) != value:
            if self.times and self.times[-1] == t:
                self.values[-1] = value
            else:
                self.times.append(t)
                self.values.append(value)

    def at(self, t):
        k = bisect.bisect_right(self.times, t) - 1
        return self.values[k] if k >= 0 else self.initial


@dataclass(frozen=True)
class Event:
    """A stimulus of a replay, presented in cycle t: a source's line takes a
    value (from t on), a register write, or a claim."""
    t: int
    kind: str          # "line", "write" or "claim"
    source: int = None
    value: int = None  # line: 0/1
    write: Write = None


class Timeline:
    """A whole run replayed through `Clic`: pending bits, clicintctl and the
    outputs as functions of the cycle, for any cycle from `start` on.

    `clic` is the configured model in cycle `start` (its lines idle low);
    `events` are its inputs. Between events the model is stepped only until
    it is still (D + 2 cycles), then jumps, so a run of millions of cycles
    with thousands of events replays in a second."""

    def __init__(self, clic, events, start=0):
        self.clic = clic
        self.delay = clic.delay
        self.latency = clic.latency
        clic.cycle = start
        self._ip = _Steps(clic.ip)
        self._ctl = {i: _Steps(c) for i, c in enumerate(clic.ctl)}
        self._out = _Steps(clic.outputs())
        self._shown = _Steps(clic.shown_id())
        by_time = collections.defaultdict(list)
        for e in events:
            if e.t < start:
                raise ValueError(f"event at {e.t} before the start {start}")
            by_time[e.t].append(e)
        times = sorted(by_time)
        lines, k, still = 0, 0, 0
        while k < len(times) or still <= clic.delay + 1:
            if still > clic.delay + 1:
                clic.cycle = times[k]          # still until the next event: jump
            evs = ()
            if k < len(times) and times[k] == clic.cycle:
                evs = by_time[times[k]]
                k += 1
            claim, writes = None, []
            for e in evs:
                if e.kind == "line":
                    lines = (lines | 1 << e.source) if e.value else (lines & ~(1 << e.source))
                elif e.kind == "claim":
                    if claim is not None:
                        raise ValueError(f"two claims in cycle {e.t}")
                    claim = e.source
                elif e.kind == "write":
                    writes.append(e.write)
                else:
                    raise ValueError(f"unknown event kind {e.kind!r}")
            clic.tick(lines, claim, writes)
            still = 0 if evs else still + 1
            self._record(w.source for w in writes)

    def _record(self, written):
        c = self.clic
        self._ip.set(c.cycle, c.ip)
        for i in written:
            if i in self._ctl:
                self._ctl[i].set(c.cycle, c.ctl[i])
        self._out.set(c.cycle, c.outputs())
        self._shown.set(c.cycle, c.shown_id())

    def pending(self, i, x):
        """Source i's pending bit in cycle x."""
        return bool(self._ip.at(x) >> i & 1)

    def ctl(self, i, x):
        """Source i's clicintctl (as read) in cycle x."""
        return self._ctl[i].at(x)

    def outputs(self, x):
        """What the CLIC shows in cycle x (Outputs)."""
        return self._out.at(x)

    def shown_id(self, x):
        """irq_id in cycle x, valid or not."""
        return self._shown.at(x)

    def first_valid(self, x, end):
        """The first cycle in [x, end) in which irq_valid is 1, or None."""
        o = self._out
        k = bisect.bisect_right(o.times, x) - 1
        if (o.values[k] if k >= 0 else o.initial).valid:
            return x
        for j in range(k + 1, len(o.times)):
            if o.times[j] >= end:
                break
            if o.values[j].valid:
                return o.times[j]
        return None


@dataclass(frozen=True)
class Mcause:
    """The interrupt part of mcause: exccode (the source id) and mpil."""
    code: int = 0
    mpil: int = 0


class CoreCsrs:
    """The core's CLIC state: mil, mintthresh, mcause (rules: module docstring)."""

    def __init__(self):
        self.mil = 0
        self.mintthresh = 0
        self.mcause = Mcause()

    def takes(self, lvl):
        """An interrupt at level lvl is taken (with MIE = 1)."""
        return lvl > max(self.mil, self.mintthresh)

    def trap(self, i, lvl):
        self.mcause = Mcause(i, self.mil)
        self.mil = lvl

    def mret(self):
        self.mil = self.mcause.mpil

    def mnxti_passes(self, lvl, shv=False):
        """An mnxti returns (and, if it writes, claims) a winner at level lvl."""
        return not shv and lvl > max(self.mcause.mpil, self.mintthresh)

    def mnxti_claim(self, i, lvl):
        self.mil = lvl
        self.mcause = Mcause(i, self.mcause.mpil)
