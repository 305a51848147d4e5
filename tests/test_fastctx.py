"""Directed tests of the task contexts (cores/: FastIrqPlugin `contexts`,
variant `fastctx`) on the SoCs whose core has them, one assembly program
(as test_fastirq.py).

Context 0 (the boot code's) fills every register but x0, sp, gp, tp, s0
and s1 (the program's temporary and results base) with a pattern of its
own, names context 3 in `mfastctx` with a start pc in `mfastctxpc`, and
executes `tyield` with a skip of 4. Context 3 starts there with registers
of its own, reads `mfastctx`, fills its registers with another pattern and
yields back into context 0 (`mfastctx` = 0, skip 0); context 0 must go on
4 bytes past its `j fail`, with its registers as it left them. A second
round switches into context 3 again, which must go on after its own
`tyield` with its pattern intact, store its registers and come back.
Checked: both contexts' registers after every switch, sp, the CSR's
read-back, the resume points (a wrong one runs into `j fail`), and the
switch's time on the retire port.
"""

import pytest

from irqlab.drivers import sim, userprog
from irqlab.rows import one_row_per_soc, rows_with
from test_fastirq import exit_with, preamble
from test_irq_entry import _run_program

ROWS = one_row_per_soc(rows_with(task_contexts=True))
# Every register a context owns, but x0, sp, gp, tp (the ABI's, alike in
# every task), s0 (the program's temporary) and s1 (the results' base).
REGS = [1] + list(range(5, 8)) + list(range(10, 32))
OTHER = 3                 # the second context
ROUND1_CTX0, CTX3_CSR, ROUND2_CTX3, ROUND2_CTX0 = 0, 160, 256, 384    # result offsets


def pattern(ctx, r):
    return 0xC0000000 | (ctx << 20) | (r << 8) | r


def tyield(skip):
    return f"    .insn i 0x0B, 1, x0, x0, {skip}"


def tswitch(skip):
    return f"    .insn i 0x0B, 2, x0, x0, {skip}"


def ending(facts):
    """Assembly every program of these tests ends its code with: `fail`,
    `exception` and a handler table whose every entry is `fail`."""
    return f"""fail:
{exit_with(facts, 0x101)}
exception:
{exit_with(facts, 0x102)}
    .balign 64
vectors:
    .rept 64
    .word fail
    .endr
"""


def run(row, tmp_path, program, **kw):
    """Build `program(facts, model, **kw)` for `row` and run it (_run_program)."""
    model = sim.ensure_model(row)
    facts = dict(userprog.program_facts(model))
    return _run_program(row, tmp_path, program(facts, model, **kw), retires=True)


def switch_gaps(events, pc):
    """Cycles from each retirement at `pc` to the next retirement."""
    pcs = [(t, p) for t, p, trap in events if not trap]
    return [t - t0 for (t, _), (t0, p0) in zip(pcs[1:], pcs) if p0 == pc]


def fill(ctx):
    return "\n".join(f"    li x{r}, {pattern(ctx, r):#x}" for r in REGS)


def store(offset):
    return "\n".join(f"    sw x{r}, {offset + 4 * k}(s1)" for k, r in enumerate(REGS + [2]))


def program(facts, model, first_skip=4):
    return preamble(facts, model, stack="stack_top") + f"""
    la s1, results
    li s0, {OTHER << 8}
    csrw 0x7C2, s0               /* mfastctx: the next context */
    la s0, ctx3
    csrw 0x7C3, s0               /* mfastctxpc: where it starts */
{fill(0)}
{tyield(first_skip)}
    j fail                       /* skipped on the way back */
{store(ROUND1_CTX0)}
    li s0, {OTHER << 8}
    csrw 0x7C2, s0
{tyield(4)}
    j fail
    .globl round2_back
round2_back:
{store(ROUND2_CTX0)}
{exit_with(facts, 0x100)}

    .globl ctx3
ctx3:                            /* context 3: nothing of context 0's */
    la s1, results
    csrr s0, 0x7C2
    sw s0, {CTX3_CSR}(s1)
{fill(OTHER)}
    csrw 0x7C2, zero             /* back into context 0 */
    .globl ctx3_yield
ctx3_yield:
{tyield(0)}
{store(ROUND2_CTX3)}
    csrw 0x7C2, zero
{tyield(0)}
    j fail

{ending(facts)}
    .section .bss
    .balign 16
results: .space 512
stack: .space 256
stack_top:
"""


@pytest.fixture(scope="module", params=ROWS)
def switched(request, tmp_path_factory):
    return run(request.param, tmp_path_factory.mktemp("fastctx"), program)


def registers(word, base, offset):
    return {r: word(base + offset + 4 * k) for k, r in enumerate(REGS + [2])}


def test_each_context_keeps_its_registers(switched):
    sym, word, _ = switched
    base = sym("results")
    expect0 = {r: pattern(0, r) for r in REGS}
    expect0[2] = sym("stack_top")
    assert registers(word, base, ROUND1_CTX0) == expect0
    expect3 = {r: pattern(OTHER, r) for r in REGS}
    got3 = registers(word, base, ROUND2_CTX3)
    assert {r: got3[r] for r in REGS} == expect3
    # Context 0's own temporary changed between the rounds; nothing else.
    assert registers(word, base, ROUND2_CTX0) == expect0


def test_mfastctx_reads_the_current_and_the_next_context(switched):
    sym, word, _ = switched
    # bits 3:0 the current, 11:8 the next, 23:16 the number of contexts
    assert word(sym("results") + CTX3_CSR) == (8 << 16) | (OTHER << 8) | OTHER


def test_tyield_jumps_into_the_next_context_at_once(switched):
    """From tyield's retirement to the next context's first instruction:
    the jump's target is a register, so the fetch goes out at once."""
    sym, _, events = switched
    gaps = switch_gaps(events, sym("ctx3_yield"))
    print(f"tyield to the next context's first retirement: {gaps} cycles")
    assert gaps and max(gaps) <= 6, gaps


def test_a_wrong_resume_point_is_caught(tmp_path):
    """Negative control: context 0's first tyield skips nothing, so the way
    back runs into `j fail`, and the run says so."""
    with pytest.raises(AssertionError):
        run(ROWS[0], tmp_path, program, first_skip=0)
