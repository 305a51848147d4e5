"""Directed tests of bound interrupts (cores/: FastIrqPlugin "Bound
interrupts", CSR mfastbind) on the SoCs whose core has task contexts, one
assembly program (as test_fastctx.py).

The boot code (context 0) yields into context 1, which binds a free CLIC
source (edge-triggered, level 0x40) to context 3, armed, gives context 3 a
start pc, fills its registers with a pattern and pends the source by a
store. The core must switch straight into context 3, with no trap: context
3 reads mfastctx (current 3, next 1: the interrupted context), mintthresh
(the source's level), mintstatus (level 0) and mfastbind (nothing armed
any more), fills its own registers, sets a flag and yields back with no
mfastctx write; context 1 must go on where it was interrupted, with every
register as it left it. The time from the pending store's retirement to
context 3's first retirement is checked on the retire port. Negative
control: the same program with the binding not armed takes the interrupt
as an ordinary one, into the handler table's `fail`.
"""

import pytest

from test_fastctx import REGS, ROWS, ending, fill, pattern, run, store, tyield
from test_fastirq import exit_with, preamble
from test_irq_entry import SOURCE
TASK, BOUND = 1, 3          # the interrupted context, the bound one
LEVEL = 0x40
ARMED = 1 << 31
CTX_CSR, THRESH, STATUS, BIND_AFTER, BIND_BEFORE, TASK_REGS = 0, 4, 8, 12, 16, 64   # result offsets


def program(facts, model, armed=True):
    clic = model.facts["clic"]["base"]
    clic_int = clic + 0x1000 + 4 * SOURCE
    bind = (ARMED if armed else 0) | (BOUND << 16) | SOURCE
    return preamble(facts, model) + f"""
    li t0, {clic}
    li t1, 8 << 1                /* cliccfg.nlbits = 8: clicintctl is all level */
    sw t1, 0(t0)
    li s0, {TASK << 8}
    csrw 0x7C2, s0               /* into context 1 */
    la s0, task
    csrw 0x7C3, s0
{tyield(0)}
    j fail

task:
    la s1, results
    la sp, stack_top
    li s0, {BOUND << 8}
    csrw 0x7C2, s0               /* context 3 starts at `bound` */
    la s0, bound
    csrw 0x7C3, s0
    li s0, {TASK << 8}
    csrw 0x7C2, s0
    li s0, {bind:#x}
    csrw 0x7C4, s0               /* mfastbind: context 3 waits for the source */
    csrr s0, 0x7C4
    sw s0, {BIND_BEFORE}(s1)
{fill(TASK)}
    li tp, {clic_int}
    li gp, {(LEVEL << 24) | 0x030100:#x}   /* ctl, shv + positive edge, ie */
    sw gp, 0(tp)
    li gp, {(LEVEL << 24) | 0x030101:#x}   /* ... and ip */
    csrsi mstatus, 8
    .globl pend
pend:
    sw gp, 0(tp)                 /* the switch comes a few cycles on */
    la gp, flag
1:  lw tp, 0(gp)
    beqz tp, 1b
{store(TASK_REGS)}
{exit_with(facts, 0x100)}

    .globl bound
bound:                           /* context 3: registers of its own */
    la s1, results
    csrr s0, 0x7C2
    sw s0, {CTX_CSR}(s1)
    csrr s0, 0x347
    sw s0, {THRESH}(s1)
    csrr s0, 0x346
    sw s0, {STATUS}(s1)
    csrr s0, 0x7C4
    sw s0, {BIND_AFTER}(s1)
{fill(BOUND)}
    la s1, flag
    li s0, 1
    sw s0, 0(s1)
    csrw 0x347, zero
{tyield(0)}                      /* back into the interrupted context */
    j fail

{ending(facts)}
    .section .bss
    .balign 16
results: .space 256
flag: .space 4
stack: .space 256
stack_top:
"""


@pytest.fixture(scope="module", params=ROWS)
def switched(request, tmp_path_factory):
    return run(request.param, tmp_path_factory.mktemp("bound"), program)


def test_the_bound_context_runs_with_no_trap(switched):
    sym, word, _ = switched
    base = sym("results")
    assert word(base + BIND_BEFORE) == 1 << BOUND          # armed, read back
    assert word(base + CTX_CSR) == (8 << 16) | (TASK << 8) | BOUND
    assert word(base + THRESH) == LEVEL                     # at the source's level
    assert word(base + STATUS) == 0                         # mil: no handler
    assert word(base + BIND_AFTER) == 0                     # disarmed by the switch


def test_the_interrupted_context_keeps_its_registers(switched):
    sym, word, _ = switched
    base = sym("results")
    got = {r: word(base + TASK_REGS + 4 * k) for k, r in enumerate(REGS + [2])}
    expect = {r: pattern(TASK, r) for r in REGS}
    expect[2] = sym("stack_top")
    assert got == expect


def test_the_switch_follows_the_request_at_once(switched):
    """From the pending store's retirement to context 3's first
    retirement: the CLIC's registered request, the take, the fetch."""
    sym, _, events = switched
    pcs = [(t, pc) for t, pc, trap in events if not trap]
    assert not any(trap for _, _, trap in events)
    t_pend = next(t for t, pc in pcs if pc == sym("pend"))
    t_bound = next(t for t, pc in pcs if pc == sym("bound"))
    print(f"pending store to the bound context's first retirement: {t_bound - t_pend} cycles")
    assert 0 < t_bound - t_pend <= 10


def test_an_unarmed_binding_is_an_ordinary_interrupt(tmp_path):
    """Negative control: not armed, the interrupt is taken through the
    handler table, into `fail`, and the run says so."""
    with pytest.raises(AssertionError):
        run(ROWS[0], tmp_path, program, armed=False)
