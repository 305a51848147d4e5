"""Directed test of the own core's interrupt entry point (TrapCsrPlugin,
cores/README.md "Interrupt entry"): an interrupt that arrives while a divide
is in flight aborts the divide, which runs again after mret with the right
result, and the entry takes exactly as long as when the interrupt meets a
chain of one-cycle instructions.

A program of its own (as in test_tcm_stall.py) on the CLIC SoC with TCMs:
a free CLIC source, edge-triggered and hardware-vectored, is made pending by
a store; the same store is followed once by a chain of dependent divides
and once by a chain of additions. The retire port (the harness's
--probe-retire probe) gives the cycles from the store's retirement to the
handler's first retirement; the handler records mepc, which must point into
the divide chain (the divide was aborted, not waited for).
"""

import shutil
import subprocess

import pytest

from irqlab.drivers import elfimage
from irqlab.drivers import memmap
from irqlab.drivers import sim
from irqlab.drivers import userprog
from irqlab.rows import one_row_per_soc, rows_with

GCC = "riscv64-unknown-elf-gcc"
SOURCE = 63            # a CLIC source no SoC block uses
N_DIV = 4
DIVIDEND, DIVISOR = 1000000007, 7

# Pieces the two programs share (str.format fields: clic_base, source,
# trace_enable, sim_exit).
START = """
    .equ CLIC_INT, {clic_base} + 0x1000 + 4 * {source}
    .section .text.start, "ax"
    .globl _start
_start:
    li t0, 1
    li a5, {trace_enable}
    sw t0, 0(a5)                 /* the harness probes while the trace unit is on */
"""
CLIC_SOURCE = """
    li a5, CLIC_INT
    li t1, 0xff030100            /* ctl 0xff, attr shv + positive edge, ie 1, ip 0 */
    sw t1, 0(a5)
    li t2, 0xff030101            /* the same with ip 1: the interrupt */
"""
EXCEPTION = """
    .balign 64
exception:
    li a4, 0x102
    li a5, {sim_exit}
    sw a4, 0(a5)
1:  j 1b
"""


def table(name, handler):
    """A CLIC pointer table: every source before SOURCE traps as an exception."""
    return f"""
    .balign 64
{name}:
    .rept {{source}}
    .word exception
    .endr
    .word {handler}
"""


PROGRAM = START + """    la t0, vectors
    csrw 0x307, t0               /* mtvt */
    la t0, exception
    csrw mtvec, t0
""" + CLIC_SOURCE + """    la s0, record
    csrsi mstatus, 8

    /* Trial 1: the interrupt meets a divide chain. */
    li s2, {dividend}
    li s3, {divisor}
    .balign 4
    .globl pend_div
pend_div:
    sw t2, 0(a5)
    .globl div_chain
div_chain:
{divides}
    .globl div_chain_end
div_chain_end:
    lw t0, 0(s0)                 /* the handler ran */
    beqz t0, fail
    sw s2, 12(s0)                /* the chain's result */
    lw t0, 4(s0)
    sw t0, 20(s0)                /* the first trial's mepc */

    /* Trial 2: the interrupt meets one-cycle instructions. */
    sw zero, 0(s0)
    .balign 4
    .globl pend_add
pend_add:
    sw t2, 0(a5)
{adds}
    lw t0, 0(s0)
    beqz t0, fail
    li a4, 0x100                 /* exit, code 0 */
    j exit
fail:
    li a4, 0x101
exit:
    li a5, {sim_exit}
    sw a4, 0(a5)
1:  j 1b

    .balign 4
    .globl handler
handler:
    sw t0, 16(s0)                /* the first instruction: B */
    li t0, 1
    sw t0, 0(s0)
    csrr t0, mepc
    sw t0, 4(s0)
    lw t0, 16(s0)
    mret

""" + EXCEPTION + """
""" + table("vectors", "handler") + """
    .section .bss
    .balign 4
    .globl record
record: .space 32
"""

LINK = """
INCLUDE memory.ld
ENTRY(_start)
SECTIONS
{{
    .text : {{ KEEP(*(.text.start)) *(.text .text.*) }} > {code}
    .bss (NOLOAD) : {{ *(.bss .bss.*) }} > {data}
    /DISCARD/ : {{ *(.comment) *(.riscv.attributes) }}
}}
"""

pytestmark = pytest.mark.skipif(shutil.which(GCC) is None, reason=f"{GCC} not installed")

ROWS = one_row_per_soc(rows_with(memory="tcm", irq_model="clic"))


@pytest.mark.parametrize("row", ROWS)
def test_divide_in_flight_does_not_delay_the_interrupt(row, tmp_path):
    model = sim.ensure_model(row)
    facts = dict(userprog.program_facts(model))
    code = model.code_memory
    (tmp_path / "memory.ld").write_text(userprog.linker_script(model))
    (tmp_path / "link.ld").write_text(LINK.format(code=code, data="dtcm"))
    divides = "\n".join("    divu s2, s2, s3" for _ in range(N_DIV))
    adds = "\n".join("    addi s4, s4, 1" for _ in range(60))
    (tmp_path / "prog.S").write_text(PROGRAM.format(
        clic_base=model.facts["clic"]["base"], source=SOURCE, trace_enable=facts["IRQLAB_TRACE_ENABLE"],
        sim_exit=facts["IRQLAB_SIM_EXIT"], dividend=DIVIDEND, divisor=DIVISOR, divides=divides, adds=adds))
    subprocess.run([GCC, "-march=rv32im_zicsr", "-mabi=ilp32", "-nostdlib", "-nostartfiles", "-T", "link.ld",
                    "-o", "prog.elf", "prog.S"], cwd=tmp_path, check=True)
    elf = elfimage.read(str(tmp_path / "prog.elf"))
    sym = elf.symbol
    images = elfimage.place(elf, memmap.memories(model.facts), model.facts["reset_address"])
    probe = tmp_path / "probe.txt"
    r = sim.run(model, images.pop(code, None), str(tmp_path / "trace.bin"), images=images,
                probe_path=str(probe), probe_retire=(0, 0xFFFFFFFF), max_cycles=200_000, dump=("dtcm",))
    assert r.exit_code == 0, (r.exit_code, r.sim_log)
    retires = [(int(p[1]), int(p[2], 16)) for p in (line.split() for line in probe.read_text().splitlines())
               if p[0] == "R" and p[3] == "0"]

    def entry_cycles(pend):
        t0 = next(t for t, pc in retires if pc == pend)
        t1 = next(t for t, pc in retires if pc == sym("handler") and t > t0)
        return t1 - t0

    dtcm = r.memories["dtcm"]
    rec = sym("record") - next(m.origin for m in memmap.memories(model.facts) if m.name == "dtcm")
    word = lambda k: int.from_bytes(dtcm[rec + 4 * k:rec + 4 * k + 4], "little")
    expect = DIVIDEND
    for _ in range(N_DIV):
        expect //= DIVISOR
    assert word(3) == expect, f"the divide chain gave {word(3)}, not {expect}"
    assert sym("div_chain") <= word(5) < sym("div_chain_end"), \
        f"mepc {word(5):#x} is not a divide of the chain (the divide was not the interrupted instruction)"
    d_div, d_add = entry_cycles(sym("pend_div")), entry_cycles(sym("pend_add"))
    print("entry cycles", d_div, d_add, "mepc", hex(word(5)))
    assert d_div == d_add, f"entry after the pending store: {d_div} cycles with a divide in flight, {d_add} without"
    # And the divide was aborted: the handler entered before the first divide could have finished.
    first_div_done = next(t for t, pc in retires if pc == sym("div_chain"))
    first_handler = next(t for t, pc in retires if pc == sym("handler"))
    assert first_handler < first_div_done, "the handler waited for the divide"


# ---------------------------------------------------------------------------
# The prefetched pointer is never stale (TrapCsrPlugin with vectorPrefetch,
# soc/tcm.py VectorPrefetch: `valid` names the previous cycle's entry
# address). Each trial pends SOURCE with mtvt = table1, whose entry has been
# read ahead, and changes the entry a few instructions later (by mtvt: csrw
# to table2, or by a store into table1's entry), one distance per trial, so
# that the change lands in each cycle around the take (the CLIC's request
# arrives a few cycles after the pending store). The handler that runs must
# be the one the entry names when the trap is taken: the old one iff the
# changing instruction had not executed (it is then mepc or younger).

DISTANCES = range(0, 14)

STALE_PROGRAM = START + """    la t0, exception
    csrw mtvec, t0
""" + CLIC_SOURCE + """    la s0, record
    la s1, results
    la s6, table1
    la s7, table2
    la s8, handler1
    la s9, handler2
    csrsi mstatus, 8
{trials}
    li a4, 0x100
    j exit
fail:
    li a4, 0x101
exit:
    li a5, {sim_exit}
    sw a4, 0(a5)
1:  j 1b

    .balign 4
handler1:
    li t0, 1
    j handled
handler2:
    li t0, 2
handled:
    sw t0, 0(s0)
    csrr t0, mepc
    sw t0, 4(s0)
    mret

""" + EXCEPTION + """
""" + table("table1", "handler1") + """""" + table("table2", "handler2") + """
    .section .bss
    .balign 4
record: .space 8
    .globl results
results: .space {results_size}
"""

TRIAL = """
    csrw 0x307, s6               /* mtvt = table1 */
    sw s8, 4 * {source}(s6)      /* table1's entry: handler1 */
    sw zero, 0(s0)
    .rept 12                     /* the prefetcher reads the entry */
    nop
    .endr
    sw t2, 0(a5)                 /* pend */
    .rept {d}
    nop
    .endr
    .globl change_{kind}_{d}
change_{kind}_{d}:
    {change}
    .rept 16
    nop
    .endr
    lw t0, 0(s0)
    beqz t0, fail
    sw t0, 0(s1)
    lw t0, 4(s0)
    sw t0, 4(s1)
    addi s1, s1, 8
"""

CHANGES = {
    "mtvt": "csrw 0x307, s7",            # to table2
    "store": "sw s9, 4 * {source}(s6)",  # table1's entry: handler2
}


def _run_program(row, tmp_path, text, retires=False):
    """Assemble `text` (code in the code memory, bss in the DTCM), run it on
    the row's SoC; returns (its symbols, a reader of DTCM words by symbol),
    and with `retires` the retire port's events [(cycle, pc, trap)] too."""
    model = sim.ensure_model(row)
    code = model.code_memory
    (tmp_path / "memory.ld").write_text(userprog.linker_script(model))
    (tmp_path / "link.ld").write_text(LINK.format(code=code, data="dtcm"))
    (tmp_path / "prog.S").write_text(text)
    subprocess.run([GCC, "-march=rv32im_zicsr", "-mabi=ilp32", "-nostdlib", "-nostartfiles", "-T", "link.ld",
                    "-o", "prog.elf", "prog.S"], cwd=tmp_path, check=True)
    elf = elfimage.read(str(tmp_path / "prog.elf"))
    images = elfimage.place(elf, memmap.memories(model.facts), model.facts["reset_address"])
    probe = tmp_path / "probe.txt"
    r = sim.run(model, images.pop(code, None), str(tmp_path / "trace.bin"), images=images,
                max_cycles=200_000, dump=("dtcm",),
                **(dict(probe_path=str(probe), probe_retire=(0, 0xFFFFFFFF)) if retires else {}))
    assert r.exit_code == 0, (r.exit_code, r.sim_log)
    dtcm = r.memories["dtcm"]
    base = next(m.origin for m in memmap.memories(model.facts) if m.name == "dtcm")
    word = lambda addr: int.from_bytes(dtcm[addr - base:addr - base + 4], "little")
    if not retires:
        return elf.symbol, word
    events = [(int(p[1]), int(p[2], 16), p[3] == "1") for p in (line.split() for line in probe.read_text().splitlines())
              if p[0] == "R"]
    return elf.symbol, word, events


@pytest.mark.parametrize("row", ROWS)
def test_prefetched_pointer_is_never_stale(row, tmp_path):
    model = sim.ensure_model(row)
    facts = dict(userprog.program_facts(model))
    kinds = list(CHANGES)
    trials = "".join(TRIAL.format(source=SOURCE, d=d, kind=k, change=CHANGES[k].format(source=SOURCE))
                     for k in kinds for d in DISTANCES)
    sym, word = _run_program(row, tmp_path, STALE_PROGRAM.format(
        clic_base=model.facts["clic"]["base"], source=SOURCE, trace_enable=facts["IRQLAB_TRACE_ENABLE"],
        sim_exit=facts["IRQLAB_SIM_EXIT"], trials=trials, results_size=8 * len(kinds) * len(DISTANCES)))
    k = 0
    for kind in kinds:
        seen = []
        for d in DISTANCES:
            which, mepc = word(sym("results") + 8 * k), word(sym("results") + 8 * k + 4)
            k += 1
            change = sym(f"change_{kind}_{d}")
            executed = mepc > change        # the change ran before the trap
            assert which == (2 if executed else 1), \
                f"{kind}, {d} nops: handler{which} ran with mepc {mepc:#x} (the change is at {change:#x})"
            seen.append(which)
        # The distances put the change both before and after the take.
        assert set(seen) == {1, 2}, (kind, seen)
        print(kind, seen)
