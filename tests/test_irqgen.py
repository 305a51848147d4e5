"""Cycle-exact tests of the interrupt generator (soc/irqgen.py) in Migen simulation.

Timing convention used throughout (see `simulate`): cycle c is the interval
after the c-th clock edge of the simulation. Inputs written for cycle c are
visible in cycle c, and the recorded row c holds the value of every probe in
that same cycle. A one-cycle pulse on `start` therefore occupies exactly one
row, and "the first rising edge" is the first row in which `out` reads 1.

Start-to-first-rising-edge offset (worked out from the FSM and asserted below):
with `start` high in cycle s, the line goes IDLE -> DELAY (s+1) -> WAIT_DELAY
(s+2 ... s+1+d) -> HIGH, so the first high cycle is s + d + 2 for a delay
d = delay + (seed & jitter) >= 1.  delay = 0 behaves like delay = 1 (every
counter treats 0 as 1). High phases last exactly `high` cycles, low phases
exactly `low` (+ jitter) cycles.
"""

import pytest
from migen.sim import run_simulation

from irqlab.soc.lfsr import model as lfsr_next
from irqlab.soc.irqgen import (GeneratorLine, InterruptGenerator, MODE_SINGLE, MODE_PERIODIC,
                               MODE_BURST, MODE_LEVEL)

START = 3            # cycle of the start pulse in every test


def simulate(dut, n, config, pulses, probes, inputs=None):
    """Run n cycles. `config` {signal: value} is applied from cycle 0 on,
    `pulses` {cycle: [signal, ...]} raises those signals for that one cycle,
    `inputs` {cycle: [(signal, value), ...]} are general writes for a cycle.
    Returns {name: [value in cycle 0, 1, ...]} for the signals in `probes`."""
    rows = {name: [] for name in probes}
    inputs = inputs or {}

    def gen():
        for sig, val in config.items():
            yield sig.eq(val)
        high = []
        for c in range(n):
            for sig in high:
                yield sig.eq(0)
            high = list(pulses.get(c, []))
            for sig in high:
                yield sig.eq(1)
            for sig, val in inputs.get(c, []):
                yield sig.eq(val)
            yield                        # now in cycle c
            for name, sig in probes.items():
                rows[name].append((yield sig))

    run_simulation(dut, gen())
    return rows


def line_probes(line):
    return {"out": line.out, "phase": line.phase, "running": line.running, "start": line.start}


def line_config(line, mode, delay, high, low=1, count=0, burst=1, jitter=0, seed=1):
    return {line.mode: mode, line.delay: delay, line.high: high, line.low: low,
            line.count: count, line.burst: burst, line.jitter: jitter, line.seed: seed}


def runs(values):
    """[(value, first cycle, length), ...] of consecutive equal values."""
    out = []
    for c, v in enumerate(values):
        if out and out[-1][0] == v:
            out[-1][2] += 1
        else:
            out.append([v, c, 1])
    return [tuple(r) for r in out]




def rising_edges(values):
    return [c for c in range(1, len(values)) if values[c] and not values[c - 1]]


# --------------------------------------------------------------------------- SINGLE

@pytest.mark.parametrize("delay,high", [(5, 4), (1, 1), (0, 3)])
def test_single_one_pulse(delay, high):
    line = GeneratorLine()
    n = START + delay + high + 20
    r = simulate(line, n, line_config(line, MODE_SINGLE, delay, high, low=7, count=5),
                 {START: [line.start]}, line_probes(line))
    assert r["start"].index(1) == START
    first = START + max(delay, 1) + 2
    expect = [0] * first + [1] * high + [0] * (n - first - high)
    assert r["out"] == expect            # count/low are ignored in SINGLE mode
    assert r["phase"] == expect
    # Busy from the cycle after start until the end of the pulse, then idle.
    assert r["running"] == [0] * (START + 1) + [1] * (first + high - START - 1) + [0] * (n - first - high)


# --------------------------------------------------------------------------- PERIODIC

@pytest.mark.parametrize("delay,high,low,count", [(10, 3, 5, 4), (2, 1, 1, 3), (7, 6, 2, 1)])
def test_periodic_exact_pulses(delay, high, low, count):
    line = GeneratorLine()
    first = START + delay + 2
    end = first + count * (high + low)
    n = end + 30
    r = simulate(line, n, line_config(line, MODE_PERIODIC, delay, high, low, count),
                 {START: [line.start]}, line_probes(line))

    # Measured: offset from the start cycle to the first rising edge.
    assert r["out"].index(1) - START == delay + 2
    # Exactly `count` pulses, each exactly `high` cycles, separated by exactly `low` cycles.
    pulses = [(s, length) for v, s, length in runs(r["out"]) if v == 1]
    assert len(pulses) == count
    assert [length for _, length in pulses] == [high] * count
    assert [b - a for (a, _), (b, _) in zip(pulses, pulses[1:])] == [high + low] * (count - 1)
    # The whole waveform, and the pattern ends after the last low phase.
    expect = [0] * first + ([1] * high + [0] * low) * count + [0] * (n - end)
    assert r["out"] == expect
    assert r["phase"] == expect
    assert r["running"].index(0, START + 1) == end
    assert not any(r["running"][end:])


def test_periodic_forever_and_stop():
    """count = 0 runs until stopped; stop returns the line to idle in the next
    cycle, even in the middle of a high phase, and the line can be restarted."""
    line = GeneratorLine()
    delay, high, low = 4, 5, 3
    first = START + delay + 2
    stop_at = first + 6 * (high + low) + 2          # third cycle of the 7th high phase
    restart = stop_at + 10
    n = restart + delay + 2 + high + 10
    r = simulate(line, n, line_config(line, MODE_PERIODIC, delay, high, low, count=0),
                 {START: [line.start], stop_at: [line.stop], restart: [line.start]},
                 line_probes(line))
    expect = [0] * first + ([1] * high + [0] * low) * 6 + [1] * 3
    assert r["out"][:stop_at + 1] == expect
    assert r["out"][stop_at + 1:restart + 1] == [0] * (restart - stop_at)
    assert r["phase"][stop_at + 1:restart + 1] == [0] * (restart - stop_at)
    assert r["running"][stop_at] == 1
    assert r["running"][stop_at + 1:restart + 1] == [0] * (restart - stop_at)
    # Restart behaves like a fresh start.
    assert r["out"].index(1, restart) == restart + delay + 2
    assert r["running"][restart + 1] == 1


# --------------------------------------------------------------------------- BURST

def test_burst_pattern():
    """count bursts of `burst` pulses; pulses are `high` high and `high` low
    inside a burst, bursts are separated by `low` cycles."""
    line = GeneratorLine()
    delay, high, low, count, burst = 6, 2, 9, 3, 4
    first = START + delay + 2
    one_burst = ([1] * high + [0] * high) * (burst - 1) + [1] * high + [0] * low
    end = first + count * len(one_burst)
    n = end + 20
    r = simulate(line, n, line_config(line, MODE_BURST, delay, high, low, count, burst),
                 {START: [line.start]}, line_probes(line))
    assert r["out"] == [0] * first + one_burst * count + [0] * (n - end)
    assert len(rising_edges(r["out"])) == count * burst
    assert r["running"].index(0, START + 1) == end


def test_burst_of_one_is_periodic():
    line = GeneratorLine()
    delay, high, low, count = 3, 3, 4, 3
    first = START + delay + 2
    n = first + count * (high + low) + 10
    r = simulate(line, n, line_config(line, MODE_BURST, delay, high, low, count, burst=1),
                 {START: [line.start]}, line_probes(line))
    assert r["out"] == [0] * first + ([1] * high + [0] * low) * count + [0] * 10


# --------------------------------------------------------------------------- LEVEL

def test_level_request_and_ack():
    """LEVEL: each high phase raises a request; it is held (also through the
    low phase and after the pattern ended) until acknowledged. The request
    register is set from the phase start, so the line rises one cycle after
    the phase envelope does. An ack inside a phase drops the line for exactly
    one cycle, then a new request rises; an ack outside a phase leaves it low."""
    line = GeneratorLine()
    delay, high, low, count = 4, 8, 10, 3
    p = [START + delay + 2 + k * (high + low) for k in range(count)]   # phase starts
    end = p[-1] + high + low
    acks = [
        p[0] + high + 3,      # phase 1: request held through the phase, acked in the low phase
        p[0] + high + 6,      # ack outside a phase with no request: stays low
        p[1] + 2,             # inside phase 2: one low cycle, re-raised
        p[1] + 5,             # again inside phase 2: one low cycle, re-raised
        p[1] + high + 4,      # in the low phase: the re-raised request is dropped
        # phase 3 is never acknowledged inside: held beyond the end of the pattern
        end + 5,
    ]
    n = end + 12
    r = simulate(line, n, line_config(line, MODE_LEVEL, delay, high, low, count),
                 {a: [line.ack] for a in acks} | {START: [line.start]},
                 line_probes(line) | {"ack": line.ack})
    assert [c for c, a in enumerate(r["ack"]) if a] == acks

    phase = [0] * n
    for s in p:
        phase[s:s + high] = [1] * high
    assert r["phase"] == phase

    out = [0] * n
    def high_(a, b):
        out[a:b] = [1] * (b - a)
    high_(p[0] + 1, acks[0] + 1)             # rises one cycle after the phase start
    high_(p[1] + 1, acks[2] + 1)
    high_(acks[2] + 2, acks[3] + 1)          # exactly one low cycle after each ack
    high_(acks[3] + 2, acks[4] + 1)
    high_(p[2] + 1, acks[5] + 1)             # held after the pattern has ended
    assert r["out"] == out
    assert r["running"][end - 1] == 1 and r["running"][end] == 0
    # Each ack inside a phase: line low for exactly one cycle.
    for a in acks[2:4]:
        assert r["out"][a:a + 3] == [1, 0, 1]


def test_level_ack_in_last_cycle_of_phase():
    """An ack in the last high cycle of a phase is not followed by a new
    request: the re-raise happens only while the phase is still high."""
    line = GeneratorLine()
    delay, high, low = 2, 4, 6
    p0 = START + delay + 2
    ack = p0 + high - 1
    n = p0 + high + low + 4
    r = simulate(line, n, line_config(line, MODE_LEVEL, delay, high, low, count=1),
                 {START: [line.start], ack: [line.ack]}, line_probes(line))
    assert r["out"] == [0] * (p0 + 1) + [1] * (high - 1) + [0] * (n - p0 - high)


def test_level_stop_clears_request():
    line = GeneratorLine()
    delay, high, low = 2, 5, 5
    p0 = START + delay + 2
    stop = p0 + high + 2          # low phase, request pending
    n = stop + 10
    r = simulate(line, n, line_config(line, MODE_LEVEL, delay, high, low, count=0),
                 {START: [line.start], stop: [line.stop]}, line_probes(line))
    assert r["out"][p0 + 1:stop + 1] == [1] * (stop - p0)
    assert r["out"][stop + 1:] == [0] * (n - stop - 1)
    assert r["running"][stop + 1:] == [0] * (n - stop - 1)


# --------------------------------------------------------------------------- jitter

def _jitter_run(seed, mask=0x7, delay=5, high=2, low=3, count=10):
    line = GeneratorLine()
    n = START + delay + mask + 2 + count * (high + low + mask) + 5
    r = simulate(line, n, line_config(line, MODE_PERIODIC, delay, high, low, count,
                                      jitter=mask, seed=seed),
                 {START: [line.start]}, line_probes(line))
    rv = runs(r["out"])
    first_high = rv[1][1]
    highs = [length for v, _, length in rv if v == 1]
    # Low phases: the gaps after each pulse (the last one ends where running drops).
    end = r["running"].index(0, START + 1)
    lows = [length for v, _, length in rv[2:] if v == 0]
    lows[-1] = end - rv[-1][1]
    return first_high - START - 2, highs, lows


def test_jitter_low_phases():
    mask, delay, high, low, count = 0x7, 5, 2, 3, 10
    d1, highs1, lows1 = _jitter_run(0x1234ABCD, mask, delay, high, low, count)
    d2, highs2, lows2 = _jitter_run(0x1234ABCD, mask, delay, high, low, count)
    d3, highs3, lows3 = _jitter_run(0x0BADF00D, mask, delay, high, low, count)

    for highs in (highs1, highs3):
        assert highs == [high] * count           # high phases are not jittered
    for lows in (lows1, lows3):
        assert len(lows) == count
        assert all(low <= x <= low + mask for x in lows)
        assert len(set(lows)) > 1                # they do vary
    # Same seed: identical sequence; different seed: a different one.
    assert (d1, lows1) == (d2, lows2)
    assert lows1 != lows3

    # Exact values against a model of the documented LFSR: the seed is loaded
    # at start; the delay takes (seed & mask), each low phase the next value.
    for seed, d, lows in [(0x1234ABCD, d1, lows1), (0x0BADF00D, d3, lows3)]:
        v = seed
        assert d == delay + (v & mask)
        expect = []
        for _ in range(count):
            v = lfsr_next(v)
            expect.append(low + (v & mask))
        assert lows == expect


def test_zero_jitter_mask_is_exact():
    d, highs, lows = _jitter_run(0xFFFFFFFF, mask=0)
    assert d == 5 and highs == [2] * 10 and lows == [3] * 10


# --------------------------------------------------------------------------- wrapper

def test_wrapper_synchronized_start():
    """InterruptGenerator: one write to the start CSR starts all selected lines
    in the same cycle. Lines 0 (PERIODIC) and 2 (BURST) get the same delay and
    must rise in the same cycle; line 1 (configured but not in the mask) stays idle."""
    gen = InterruptGenerator(n_lines=3)
    cfg = {}
    for i, (mode, delay, high, low, count, burst) in enumerate([
            (MODE_PERIODIC, 9, 3, 4, 2, 1),
            (MODE_PERIODIC, 2, 2, 2, 3, 1),
            (MODE_BURST, 9, 1, 5, 1, 3)]):
        for name, v in [("mode", mode), ("delay", delay), ("high", high), ("low", low),
                        ("count", count), ("burst", burst), ("jitter", 0), ("seed", 1)]:
            cfg[getattr(gen, f"_l{i}_{name}").storage] = v
    n = 40
    r = simulate(gen, n, cfg, {START: [gen._start.re]},
                 {"lines": gen.lines, "phases": gen.phases, "running": gen._running.status},
                 inputs={0: [(gen._start.r, 0b101)]})
    l0 = [v & 1 for v in r["lines"]]
    l1 = [v >> 1 & 1 for v in r["lines"]]
    l2 = [v >> 2 & 1 for v in r["lines"]]
    first = START + 9 + 2
    assert l0.index(1) == first and l2.index(1) == first
    assert l0 == [0] * first + [1] * 3 + [0] * 4 + [1] * 3 + [0] * (n - first - 10)
    assert l2 == [0] * first + [1, 0, 1, 0, 1] + [0] * (n - first - 5)
    assert not any(l1)
    assert r["phases"] == r["lines"]          # not LEVEL: the line is its phase
    assert r["running"][START] == 0 and r["running"][START + 1] == 0b101


def test_wrapper_ack_and_stop_per_line():
    """The ack and stop CSRs act on the lines whose bit is set, only in the
    cycle the CSR is written (re)."""
    gen = InterruptGenerator(n_lines=2)
    cfg = {}
    for i in range(2):
        for name, v in [("mode", MODE_LEVEL), ("delay", 2), ("high", 20), ("low", 5),
                        ("count", 0), ("burst", 1), ("jitter", 0), ("seed", 1)]:
            cfg[getattr(gen, f"_l{i}_{name}").storage] = v
    rise = START + 2 + 2 + 1                  # LEVEL: one cycle after the phase start
    ack, stop = rise + 4, rise + 10
    inputs = {0: [(gen._start.r, 0b11), (gen._ack.r, 0b01), (gen._stop.r, 0b01)],  # r without re: no effect
              ack: [(gen._ack.r, 0b10)]}
    n = stop + 6
    r = simulate(gen, n, cfg, {START: [gen._start.re], ack: [gen._ack.re], stop: [gen._stop.re]},
                 {"lines": gen.lines, "running": gen._running.status}, inputs=inputs)
    l0 = [v & 1 for v in r["lines"]]
    l1 = [v >> 1 & 1 for v in r["lines"]]
    assert l0 == [0] * rise + [1] * (stop + 1 - rise) + [0] * (n - stop - 1)
    assert l1 == [0] * rise + [1] * (ack + 1 - rise) + [0] + [1] * (n - ack - 2)
    assert r["running"][stop] == 0b11 and r["running"][stop + 1:] == [0b10] * (n - stop - 1)
