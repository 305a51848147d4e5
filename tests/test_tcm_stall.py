"""Directed test: on a SoC with tightly coupled memories (soc/tcm.py) a
straight-line block that runs from the ITCM, with loads and stores to the
DTCM and loads from the ITCM, never stalls: its N instructions retire in N
consecutive cycles, seen cycle by cycle at the core's retire port (the
harness's --probe-retire probe, the signal the trace unit's PC matches use).

The same program on the same core with the bus memories (ROM and SRAM
through Wishbone) is the control: there the block takes longer, so the check
can see a stall. The rows are chosen by their SoC's memory feature.

The core's execute-entry output (RetirePortPlugin's exec_valid, the trace
unit's B-execute) is checked on the same block: one pulse per instruction,
in program order; on the TCMs in N consecutive cycles, each exactly
EXECUTE_TO_RETIRE cycles before its retirement (execute, memory,
writeBack); on the bus memories at least that many, with the stall inside.
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

# The block: no instruction uses a load's result within three instructions
# (a load-use interlock would stall on any memory). s0 = DTCM/SRAM buffer,
# s1 = a table among the code's constants (ITCM/ROM).
BLOCK = """
    addi t0, t0, 1
    sw   t0, 0(s0)
    lw   t1, 4(s0)
    sh   t0, 8(s0)
    lw   t2, 0(s1)
    sb   t0, 12(s0)
    add  t3, t0, t0
    lw   t4, 16(s0)
    sw   t3, 20(s0)
    xor  t5, t0, t3
    lbu  t6, 1(s0)
    sw   t5, 24(s0)
    lh   a0, 2(s1)
    sw   t0, 28(s0)
    lw   a1, 4(s1)
    sub  a2, t0, t3
    sw   a2, 32(s0)
    lhu  a3, 6(s0)
    ori  a4, t0, 3
    sw   a4, 36(s0)
"""
N = len([l for l in BLOCK.splitlines() if l.strip()])

PROGRAM = """
    .section .text.start, "ax"
    .globl _start
_start:
    li t0, 1
    la s0, buf
    la s1, table
    li s2, IRQLAB_STIM_BASE_ADDR
    li a5, IRQLAB_TRACE_ENABLE_ADDR
    sw t0, 0(a5)                 /* the harness probes while the trace unit is on */
    nop
    nop
    nop
    nop
    .balign 4
    .globl block_start
block_start:
{block}
    .globl block_end
block_end:
    nop
    nop
    nop
    li a5, IRQLAB_SIM_EXIT_ADDR
    li a4, 0x100                 /* exit, code 0 */
    sw a4, 0(a5)
1:  j 1b
    .section .rodata
    .balign 4
table: .word 0x11223344, 0x55667788
    .section .bss
    .balign 4
buf: .space 64
"""

LINK = """
INCLUDE memory.ld
ENTRY(_start)
SECTIONS
{{
    .text : {{ KEEP(*(.text.start)) *(.text .text.*) *(.rodata .rodata.*) }} > {code}
    .bss (NOLOAD) : {{ *(.bss .bss.*) }} > {data}
    /DISCARD/ : {{ *(.comment) *(.riscv.attributes) }}
}}
"""

pytestmark = pytest.mark.skipif(shutil.which(GCC) is None, reason=f"{GCC} not installed")


TCM_ROWS = one_row_per_soc(rows_with(memory="tcm"))
# The control: the own core's SoCs with bus memories.
# (Without caches: a cached core re-runs an access after a miss.)
BUS_ROWS = one_row_per_soc(rows_with(memory="bus", own_core=True, caches=False))


def run_block(row, tmp_path, block=BLOCK, entries_in_order=True):
    """The block's retirement and execute-entry cycles; `entries_in_order`:
    check that every instruction entered execute once, in order (a jump's
    flushed successor enters too)."""
    model = sim.ensure_model(row)
    code = model.code_memory
    data = "dtcm" if model.facts["memory"].get("dtcm") else "sram"
    (tmp_path / "memory.ld").write_text(userprog.linker_script(model))
    (tmp_path / "link.ld").write_text(LINK.format(code=code, data=data))
    facts = dict(userprog.program_facts(model))
    (tmp_path / "prog.S").write_text(
        f"#define IRQLAB_TRACE_ENABLE_ADDR {facts['IRQLAB_TRACE_ENABLE']:#x}\n"
        f"#define IRQLAB_SIM_EXIT_ADDR {facts['IRQLAB_SIM_EXIT']:#x}\n"
        f"#define IRQLAB_STIM_BASE_ADDR {facts['IRQLAB_STIM_BASE']:#x}\n"
        + PROGRAM.format(block=block))
    n = len([ln for ln in block.splitlines() if ln.strip()])
    subprocess.run([GCC, "-march=rv32im", "-mabi=ilp32", "-nostdlib", "-nostartfiles", "-T", "link.ld",
                    "-o", "prog.elf", "prog.S"], cwd=tmp_path, check=True)
    elf = elfimage.read(str(tmp_path / "prog.elf"))
    start, end = elf.symbol("block_start"), elf.symbol("block_end")
    assert end - start == 4 * n
    images = elfimage.place(elf, memmap.memories(model.facts), model.facts["reset_address"])
    probe = tmp_path / "probe.txt"
    r = sim.run(model, images.pop(code, None), str(tmp_path / "trace.bin"), images=images,
                probe_path=str(probe), probe_retire=(start, end), max_cycles=200_000)
    assert r.exit_code == 0, r.sim_log
    lines = [line.split() for line in probe.read_text().splitlines()]
    retires = [(int(p[1]), int(p[2], 16)) for p in lines if p[0] == "R" and p[3] == "0"]
    entries = [(int(p[1]), int(p[2], 16)) for p in lines if p[0] == "E"]
    pcs = [start + 4 * i for i in range(n)]
    assert [pc for _, pc in retires] == pcs, retires
    if entries_in_order:
        assert [pc for _, pc in entries] == pcs, entries    # one entry each, in order: nothing dropped
    return [ts for ts, _ in retires], [ts for ts, _ in entries]


EXECUTE_TO_RETIRE = 2


@pytest.mark.parametrize("row", TCM_ROWS)
def test_block_retires_one_instruction_per_cycle(row, tmp_path):
    ts, ex = run_block(row, tmp_path)
    assert [t - ts[0] for t in ts] == list(range(N)), \
        f"{row}: the {N} instructions retired at cycles {[t - ts[0] for t in ts]} after the first"
    assert [r - e for r, e in zip(ts, ex)] == [EXECUTE_TO_RETIRE] * N, (ts, ex)


@pytest.mark.parametrize("row", BUS_ROWS)
def test_control_bus_memory_stalls(row, tmp_path):
    ts, ex = run_block(row, tmp_path)
    assert ts[-1] - ts[0] > N - 1, f"{row}: no stall on the bus memories (the check would see none)"
    assert all(r - e >= EXECUTE_TO_RETIRE for r, e in zip(ts, ex)), (ts, ex)
    assert all(a < b for a, b in zip(ex, ex[1:]))


# Stores to the stimulus ports, behind the TCM's Wishbone bridge: the first
# goes out at once, the next wait in execute while it is on the bus.
STALL_BLOCK = """
    sw   t0, 0(s2)
    sw   t0, 4(s2)
    sw   t0, 8(s2)
    addi t0, t0, 1
"""


@pytest.mark.parametrize("row", TCM_ROWS)
def test_execute_entry_is_the_first_cycle_in_execute(row, tmp_path):
    """An instruction that stalls in execute enters it in its first cycle
    there: the cycle after the one before it left execute. Stores do not wait
    in memory or writeBack, so instruction i left execute EXECUTE_TO_RETIRE
    cycles before it retired, and i+1 entered one cycle later (the ITCM
    fetches one a cycle, decode is never empty)."""
    ts, ex = run_block(row, tmp_path, STALL_BLOCK)
    assert any(b - a > 1 for a, b in zip(ts, ts[1:])), f"{row}: no stall (the check would see none): {ts}"
    assert ex[0] == ts[0] - EXECUTE_TO_RETIRE
    assert [e - r for r, e in zip(ts, ex[1:])] == [1 - EXECUTE_TO_RETIRE] * (len(ts) - 1), (ts, ex)
