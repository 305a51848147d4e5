"""`irqlab run --elf FILE --core ROW`: a user's own RV32 program in the
simulated SoC of a row (docs/USER_PROGRAMS.md).

The ELF is placed into the SoC's memories (irqlab/drivers/elfimage.py), the model
runs it from the reset vector, and a memory range (two symbols, or an address
and a length) can be written to a file when the run ends. Everything the user
asked for is checked before the simulation starts; the dump file is written
whole (a temporary file renamed) or not at all.
"""

import os
from dataclasses import dataclass

from irqlab.drivers import elfimage
from irqlab.drivers import memmap
from irqlab.errors import ImageError
from irqlab.host.atomic import atomic_open


@dataclass(frozen=True)
class DumpRange:
    memory: memmap.Memory
    start: int
    length: int

    def take(self, contents):
        off = self.start - self.memory.origin
        return contents[off:off + self.length]


def dump_range(elf, mems, symbols=None, addr_len=None):
    """The range to dump: between two symbols [START, END), or ADDR and LEN;
    it must lie inside one memory."""
    if symbols:
        start_name, end_name = symbols
        start, end = elf.symbol(start_name), elf.symbol(end_name)
        what = f"{start_name}..{end_name} (0x{start:08x}-0x{end:08x})"
        length = end - start
    else:
        start, length = addr_len
        what = f"0x{start:08x} + {length}"
    if length <= 0:
        raise ImageError(f"dump range {what} is empty or reversed")
    m = memmap.holding(mems, start, length)
    if m is None:
        raise ImageError(f"dump range {what} does not lie inside one memory: {memmap.describe(mems)}")
    return DumpRange(m, start, length)


def write_atomically(path, data):
    """Write data to path whole or not at all (trace/atomic.py)."""
    try:
        with atomic_open(path, binary=True) as f:
            f.write(data)
    except OSError as e:
        raise ImageError(f"cannot write '{path}': {e.strerror}") from None


def check_isa(elf, row):
    """A program whose code holds a compressed instruction where the core
    would fetch one needs a core with C. Judged by the code
    (elfimage.compressed_instruction: a c.nop that only pads to a 4-byte
    boundary is accepted), not by the ELF header's flag, which `.option rvc`
    around an `.align` sets without any compressed instruction. (Such an
    object may still get some: with linker relaxation, the linker turns its
    calls and tails into c.jal and c.j; the message names -mno-relax.)"""
    march = row.march.split("_")[0]
    if "c" in march[len("rv32"):]:
        return
    found = elfimage.compressed_instruction(elf)
    if found:
        raise ImageError(f"{elf.path}: {found.describe()}; core '{row.name}' runs {row.march}, without C "
                         f"(32-bit instructions at 4-byte boundaries only): build with -march={march}, and "
                         f"where .option rvc is used link with -mno-relax (the linker compresses calls in "
                         f"such objects); a c.nop that only pads to a 4-byte boundary is accepted")


def check_request(elf, row, dump_symbols=None, dump_addr=None, dump_file=None):
    """What can be checked before the SoC's model is built: the dump
    arguments go together, the symbols exist, the core runs the ELF's ISA."""
    if (dump_symbols or dump_addr) and not dump_file:
        raise ImageError("a dump range needs --dump-file OUT")
    if dump_file and not (dump_symbols or dump_addr):
        raise ImageError("--dump-file needs --dump-symbols START END or --dump-range ADDR LEN")
    if dump_symbols and dump_addr:
        raise ImageError("give --dump-symbols or --dump-range, not both")
    if dump_file and os.path.isdir(dump_file):
        raise ImageError(f"--dump-file '{dump_file}' is a folder")
    if dump_file and not os.path.isdir(os.path.dirname(os.path.abspath(dump_file))):
        raise ImageError(f"--dump-file '{dump_file}': no such folder")
    for name in dump_symbols or ():
        elf.symbol(name)
    check_isa(elf, row)


def run_elf(model, elf, trace_path, dump_symbols=None, dump_addr=None, dump_file=None,
            max_cycles=400_000_000, progress=None):
    """Run `elf` (elfimage.read) on the model; returns (RunResult, DumpRange or None)."""
    from irqlab.drivers import sim
    from irqlab.rows import row as row_info
    check_request(elf, row_info(model.row), dump_symbols, dump_addr, dump_file)
    mems = memmap.memories(model.facts)
    images = elfimage.place(elf, mems, model.facts["reset_address"])
    rng = dump_range(elf, mems, dump_symbols, dump_addr) if dump_file else None
    result = sim.run(model, images.pop("rom", None), trace_path, images=images, max_cycles=max_cycles,
                     progress=progress, label=os.path.basename(elf.path),
                     dump=[rng.memory.name] if rng else ())
    if rng:
        write_atomically(dump_file, rng.take(result.memories[rng.memory.name]))
    return result, rng


def program_facts(model):
    """What a program of its own needs to know about the row's SoC, as
    (name, value) pairs: the reset vector, stack top, the console, exit and
    trace-enable registers, the stimulus ports (the memories: memmap)."""
    f = model.facts
    sram = next(m for m in memmap.memories(f) if m.name == "sram")
    csr = f["csr"]
    return [("IRQLAB_RESET", f["reset_address"]),
            ("IRQLAB_STACK_TOP", sram.end),
            ("IRQLAB_UART_RXTX", csr["uart_rxtx"]),
            ("IRQLAB_UART_TXFULL", csr["uart_txfull"]),
            ("IRQLAB_SIM_EXIT", csr["simctrl_exit"]),
            ("IRQLAB_TRACE_ENABLE", csr["tracer_enable"]),
            ("IRQLAB_STIM_BASE", f["stim_base"])]


def linker_script(model):
    """A linker-script fragment for the row's SoC: the MEMORY block and the
    program facts as symbols (`irqlab memmap --core ROW --ld`)."""
    lines = [f"/* irqlab SoC '{model.soc}' (row '{model.row}'): irqlab memmap --core {model.row} --ld */",
             "MEMORY", "{"]
    for m in memmap.memories(model.facts):
        lines.append(f"    {m.name} : ORIGIN = 0x{m.origin:08x}, LENGTH = 0x{m.size:x}")
    lines += ["}"]
    lines += [f"{name} = 0x{value:08x};" for name, value in program_facts(model)]
    return "\n".join(lines) + "\n"
