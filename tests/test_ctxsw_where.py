"""irqlab/suites/ctxsw_where.py: a ctxsw sample's cycles placed in the
code that ran them, from the simulator's retire probe."""

import pytest

from irqlab.errors import BenchError
from irqlab.suites import ctxsw_where as where


class _Code:
    def name(self, pc):
        return "a" if pc < 0x100 else "b"


def test_every_cycle_of_a_span_goes_to_the_next_retirement():
    retired = [(10, 0x10), (12, 0x20), (15, 0x100), (20, 0x104), (30, 0x10)]
    parts = where.attribute({"yield": [(0, 10)]}, retired, 10, _Code())["yield"]
    # probe span (10, 20]: 12 - 10 to a, 15 - 12 and 20 - 15 to b
    assert parts == {"a": 2, "b": 8}
    where.check_sums({"yield": parts}, {"yield": 10})


def test_a_wrong_clock_offset_is_caught():
    """Negative control of the sum check: with the offset one cycle off the
    span no longer ends on mark B's retirement."""
    retired = [(10, 0x10), (12, 0x20), (15, 0x100), (20, 0x104), (30, 0x10)]
    parts = where.attribute({"yield": [(0, 10)]}, retired, 9, _Code())["yield"]
    with pytest.raises(BenchError):
        where.check_sums({"yield": parts}, {"yield": 10})


def test_a_real_run_places_every_cycle():
    w, means = where.profile("fastctx", samples=8)
    assert {"yield", "sem-signal", "irq-bound-task"} <= set(w)
    # the yield's switch is tswitch in the port's inline yield: its cycles
    # are the runner task's and mark B's, not the kernel's
    assert not any(name.startswith("vTaskSwitchContext") for name in w["yield"])
    assert any(name.startswith("xQueueGenericSend") for name in w["sem-signal"])
    assert "ctxsw_mark_a" in w["sem-signal"]


def test_a_row_without_a_retire_port_is_a_one_line_error():
    with pytest.raises(BenchError, match="no retire port"):
        where.profile("vexriscv", samples=2)
