"""The task delays (soc/taskdelay.py) in Migen simulation, cycle by cycle
against the contract of its docstring: a channel counts the tick line's
rises after its load, pulses its line for one cycle as it reaches zero, a
load in a rise's cycle wins over that rise, 0 stops a channel, and a write
for a context without a channel changes nothing."""

import random

import pytest
from migen import run_simulation

from irqlab.soc.taskdelay import CONTEXT_SHIFT, TaskDelays

CONTEXTS = 4


def contract(ticks, loads, cycles, channels):
    """The docstring's contract as a per-cycle model: for each cycle, the
    irq lines (a bit per channel) and the armed bits. `ticks[c]`: the tick
    line in cycle c; `loads[w]` = (context, ticks): a load whose re is in w."""
    count = [0] * (channels + 1)
    out = []
    irq = 0
    for c in range(cycles):
        armed = sum(1 << k for k in range(1, channels + 1) if count[k])
        out.append((irq, armed))
        rise = ticks[c] and (c == 0 or not ticks[c - 1])
        irq = 0
        nxt = list(count)
        for k in range(1, channels + 1):
            if c in loads and loads[c][0] == k:
                nxt[k] = loads[c][1]
            elif rise and count[k]:
                nxt[k] = count[k] - 1
                irq |= (count[k] == 1) << (k - 1)
        count = nxt
    return out


def simulate(dut, ticks, loads, cycles):
    out = []

    def bench():
        for c in range(cycles):
            yield dut.tick.eq(ticks[c])
            if c in loads:
                context, n = loads[c]
                yield dut._load.storage.eq(context << CONTEXT_SHIFT | n)
                yield dut._load.re.eq(1)
            else:
                yield dut._load.re.eq(0)
            yield
            # What is written in one step the logic sees in the next cycle,
            # and what is read after the step is that cycle's: both one on.
            out.append(((yield dut.irq), (yield dut._armed.status)))
    run_simulation(dut, bench())
    return out


def random_case(seed, cycles=600):
    rng = random.Random(seed)
    ticks, level = [], 0
    while len(ticks) < cycles:
        span = rng.choice([1, 2, 3, 7, 15])         # highs and lows of one cycle too
        ticks += [level] * span
        level ^= 1
    ticks = ticks[:cycles]
    loads = {}
    for w in sorted(rng.sample(range(cycles - 50), 40)):
        loads[w] = (rng.randrange(0, CONTEXTS + 2), rng.choice([0, 1, 1, 2, 3, 5]))
    return ticks, loads


def test_the_docstring_example_a_load_of_two_fires_at_the_second_rise():
    ticks = [0] * 5 + [1] * 3 + [0] * 4 + [1] * 3 + [0] * 5
    got = simulate(TaskDelays(CONTEXTS), ticks, {1: (2, 2)}, len(ticks))
    fired = [c for c, (irq, _) in enumerate(got) if irq]
    assert fired == [13]                           # the second rise is cycle 12
    assert got[13][0] == 0b010                     # context 2's channel, for one cycle
    assert got[2][1] == 0b100 and got[13][1] == 0  # armed from the load's next cycle to the end


def test_a_load_in_the_cycle_of_a_rise_counts_from_the_next_rise():
    ticks = [0] * 4 + [1] * 2 + [0] * 4 + [1] * 2 + [0] * 4
    got = simulate(TaskDelays(CONTEXTS), ticks, {4: (1, 1)}, len(ticks))
    assert [c for c, (irq, _) in enumerate(got) if irq] == [11]


def test_zero_stops_a_channel_and_a_context_without_one_changes_nothing():
    ticks = [0] * 3 + [1] * 2 + [0] * 3 + [1] * 2 + [0] * 3
    got = simulate(TaskDelays(CONTEXTS), ticks, {0: (1, 2), 1: (1, 0), 2: (0, 1), 3: (CONTEXTS, 1)}, len(ticks))
    assert got[1] == (0, 0b10)                     # armed by the first load for a cycle
    assert all(irq == 0 and armed == 0 for irq, armed in got[2:])


@pytest.mark.parametrize("seed", range(6))
def test_random_ticks_and_loads_follow_the_contract_cycle_by_cycle(seed):
    ticks, loads = random_case(seed)
    got = simulate(TaskDelays(CONTEXTS), ticks, loads, len(ticks))
    want = contract(ticks, loads, len(ticks), CONTEXTS - 1)
    assert sum(1 for irq, _ in want if irq) > 3, "the case fires too rarely to test anything"
    assert got == want


class CountsLevels(TaskDelays):
    """A wrong channel: counts every cycle the tick line is high, not its rises."""
    def tick_event(self, tick_before):
        return self.tick


def test_the_contract_check_catches_a_channel_that_counts_levels():
    ticks, loads = random_case(0)
    got = simulate(CountsLevels(CONTEXTS), ticks, loads, len(ticks))
    assert got != contract(ticks, loads, len(ticks), CONTEXTS - 1)
