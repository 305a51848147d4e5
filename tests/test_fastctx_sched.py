"""Directed tests of the core's view of the ready tasks (cores/:
FastIrqPlugin "The scheduler's view": CSRs mfastready, mfasttcb,
mfastdefer, mfastsel and `tswitch`) on the SoCs whose core has task
contexts, one assembly program (as test_fastctx.py).

The boot code (context 0) gives contexts 1-4 start pcs and marks 1, 2 and
4 ready at priority 2, 3 at priority 3, and yields into context 1. Each
context tells the core its TCB (a made-up address) when it first runs,
but context 4 never runs: its TCB stays unknown. Checked, in mfastsel
from the context named: 1 alone knows its TCB: none; 3 (priority 3, the
only one): none; 2: context 1 (the round robin from 2 skips 3, another
priority, and 4, whose TCB is unknown); 1, back by `tswitch` from 2:
context 2, and none with mintthresh raised, with priority 2 deferred, or
with 2 not ready; mfastready's read-back; 2, back by `tswitch` with a
skip, goes on after its own `tswitch`, its registers intact, in context
2; and the time from `tswitch`'s retirement to the next context's first.
Negative control: with context 2 at priority 3 the core chooses context 3
for 2's `tswitch`, which runs into its `j fail`.
"""

import pytest

from test_fastctx import ROWS, ending, pattern, run, switch_gaps, tswitch, tyield
from test_fastirq import exit_with, preamble

READY = 1 << 31


def tcb(ctx):
    return 0x5000 + 0x100 * ctx


# Results (word offsets): what each step read.
STEPS = ["ctx1_first", "ctx3", "ctx2", "ctx1_back", "ctx1_thresh", "ctx1_defer", "ctx1_not_ready",
         "ctx1_ready_again", "ready_csr", "ctx2_ctx", "ctx2_s2"]
OFF = {name: 4 * i for i, name in enumerate(STEPS)}


def program(facts, model, prio2=2):
    def sel(step):
        return f"    csrr s0, 0x7C8\n    sw s0, {OFF[step]}(s1)"

    def ready(ctx, prio, on=True):
        return f"    li s0, {(READY if on else 0) | ctx << 16 | prio:#x}\n    csrw 0x7C5, s0"

    def start(ctx, label):
        return f"    li s0, {ctx << 8}\n    csrw 0x7C2, s0\n    la s0, {label}\n    csrw 0x7C3, s0"

    return preamble(facts, model) + f"""
{start(1, "ctx1")}
{start(2, "ctx2")}
{start(3, "ctx3")}
{start(4, "fail")}
{ready(1, 2)}
{ready(2, prio2)}
{ready(3, 3)}
{ready(4, 2)}
    li s0, 1 << 8
    csrw 0x7C2, s0
{tyield(0)}
    j fail

ctx1:
    la s1, results
    li s0, {tcb(1):#x}
    csrw 0x7C6, s0               /* mfasttcb */
{sel("ctx1_first")}
    li s0, 3 << 8
    csrw 0x7C2, s0
{tyield(0)}
{sel("ctx1_back")}
    csrwi 0x347, 5               /* mintthresh */
{sel("ctx1_thresh")}
    csrwi 0x347, 0
    li s0, 1 << 2
    csrw 0x7C7, s0               /* mfastdefer: priority 2 */
{sel("ctx1_defer")}
    csrw 0x7C7, zero
{ready(2, prio2, on=False)}
{sel("ctx1_not_ready")}
{ready(2, prio2)}
{sel("ctx1_ready_again")}
    csrr s0, 0x7C5
    sw s0, {OFF["ready_csr"]}(s1)
{tswitch(4)}
    j fail

ctx3:
    la s1, results
    li s0, {tcb(3):#x}
    csrw 0x7C6, s0
{sel("ctx3")}
    li s0, 2 << 8
    csrw 0x7C2, s0
{tyield(0)}
    j fail

ctx2:
    la s1, results
    li s2, {pattern(2, 18):#x}
    li s0, {tcb(2):#x}
    csrw 0x7C6, s0
{sel("ctx2")}
    .globl ctx2_switch
ctx2_switch:
{tswitch(0)}
    csrr s0, 0x7C2
    sw s0, {OFF["ctx2_ctx"]}(s1)
    sw s2, {OFF["ctx2_s2"]}(s1)
{exit_with(facts, 0x100)}

{ending(facts)}
    .section .bss
    .balign 16
results: .space 64
"""


@pytest.fixture(scope="module", params=ROWS)
def chosen(request, tmp_path_factory):
    return run(request.param, tmp_path_factory.mktemp("sched"), program)


def test_the_core_chooses_the_next_ready_task_of_the_priority(chosen):
    sym, word, _ = chosen
    got = {step: word(sym("results") + OFF[step]) for step in STEPS}
    assert got["ctx1_first"] == 0                 # no other TCB known yet
    assert got["ctx3"] == 0                       # alone at priority 3
    assert got["ctx2"] == tcb(1)                  # 3: another priority; 4: TCB unknown
    assert got["ctx1_back"] == tcb(2)
    assert got["ctx1_thresh"] == 0                # in a critical section
    assert got["ctx1_defer"] == 0                 # priority 2 deferred to the kernel
    assert got["ctx1_not_ready"] == 0
    assert got["ctx1_ready_again"] == tcb(2)
    assert got["ready_csr"] == (0b1110 << 8) | 0b11110   # TCBs known: 1, 2, 3; ready: 1-4


def test_tswitch_goes_into_the_choice_and_back(chosen):
    sym, word, _ = chosen
    base = sym("results")
    assert word(base + OFF["ctx2_ctx"]) & 0xF == 2
    assert word(base + OFF["ctx2_s2"]) == pattern(2, 18)


def test_tswitch_jumps_at_once(chosen):
    sym, _, events = chosen
    gaps = switch_gaps(events, sym("ctx2_switch"))
    print(f"tswitch to the next context's first retirement: {gaps} cycles")
    assert gaps and max(gaps) <= 6, gaps


def test_another_priority_is_not_chosen_so_the_program_fails(tmp_path):
    """Negative control: context 2 at priority 3, its tswitch goes into
    context 3 (the round robin's next at that priority), into `j fail`."""
    with pytest.raises(AssertionError):
        run(ROWS[0], tmp_path, program, prio2=3)
