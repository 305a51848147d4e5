"""`irqlab run --elf`: a program of its own (tests/fixtures/userprog, the
example of docs/USER_PROGRAMS.md) built with the RISC-V GCC, run in a stock
row and an own-core row: console, exit code, memory dumps, the trace event;
bad input gives one line and exit status 2 and writes no dump. Compressed
code is judged by the code, not by the ELF header's flag: `.option rvc`
alignments in rv32im code run, compressed instructions are refused."""

import os
import shutil
import struct
import subprocess

import pytest

from irqlab.rows import row as row_info

from irqlab.drivers import elfimage
from irqlab.drivers import sim
from irqlab.drivers import userprog
from irqlab.host import record as rec
from irqlab.host.decode import read_trace

from clitool import assert_one_line_error, irqlab

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "userprog")
GCC = "riscv64-unknown-elf-gcc"
CFLAGS = ["-march=rv32im", "-mabi=ilp32", "-O2", "-nostdlib", "-ffreestanding", "-Wall", "-Werror"]
ROWS = ["vexriscv", "clic-bus"]   # a stock core and the own core, both with a ROM (TCM SoCs: docs/USER_PROGRAMS.md)
# What hello.c writes into `table`, and sends on stimulus channel 5.
TABLE = [0xA5000000 | (i * i + 3) for i in range(8)]
EXIT_CODE = 42

pytestmark = pytest.mark.skipif(shutil.which(GCC) is None, reason=f"{GCC} not installed")


def build(folder, row, source=None, ld=None, flags=()):
    """hello.elf (or another source) linked for the row's SoC in `folder`."""
    folder.mkdir(exist_ok=True)
    (folder / "memory.ld").write_text(userprog.linker_script(sim.ensure_model(row)))
    shutil.copy(os.path.join(FIXTURE, "hello.c"), folder)
    shutil.copy(os.path.join(FIXTURE, "link.ld"), folder)
    if ld is not None:
        (folder / "link.ld").write_text(ld)
    src = folder / "prog.c"
    src.write_text(source if source is not None else (folder / "hello.c").read_text())
    elf = folder / "prog.elf"
    subprocess.run([GCC, *CFLAGS, *flags, "-T", "link.ld", "-o", elf.name, src.name], cwd=folder, check=True)
    return elf


@pytest.fixture(scope="module", params=ROWS)
def program(request, tmp_path_factory):
    row = request.param
    return row, build(tmp_path_factory.mktemp(f"prog-{row}"), row)


def test_console_exit_code_dump_and_trace(program, tmp_path):
    row, elf = program
    out, trace = tmp_path / "table.bin", tmp_path / "t.bin"
    r = irqlab("run", "--elf", elf, "--core", row, "--trace", trace,
               "--dump-symbols", "result_start", "result_end", "--dump-file", out)
    assert r.returncode == EXIT_CODE, r.stderr
    assert r.stdout == "hello from a program of its own\n"
    assert out.read_bytes() == struct.pack("<8I", *TABLE)
    records, _ = read_trace(str(trace))
    sw = [x for x in records if x.type == rec.TYPE_SW]
    assert [(x.payload >> 32 & 0xFF, x.payload & 0xFFFFFFFF) for x in sw] == [(5, TABLE[7])]


def test_dump_range(program, tmp_path):
    row, elf = program
    table = elfimage.read(str(elf)).symbol("table")
    out = tmp_path / "part.bin"
    r = irqlab("run", "--elf", elf, "--core", row, "--trace", tmp_path / "t.bin",
               "--dump-range", hex(table + 8), "12", "--dump-file", out)
    assert r.returncode == EXIT_CODE, r.stderr
    assert out.read_bytes() == struct.pack("<3I", *TABLE[2:5])


def test_entry_elsewhere_gets_a_jump(tmp_path):
    """Code linked for main RAM: the loader puts a jump to the entry at the reset vector."""
    ld = open(os.path.join(FIXTURE, "link.ld")).read().replace("} > rom", "} > main_ram")
    elf = build(tmp_path, "vexriscv", ld=ld)
    assert elfimage.read(str(elf)).entry != 0
    r = irqlab("run", "--elf", elf, "--core", "vexriscv", "--trace", tmp_path / "t.bin")
    assert r.returncode == EXIT_CODE, r.stderr
    assert "hello from a program of its own" in r.stdout


def test_jump_encoding():
    for target in (0x40000000, 0x40000ffc, 0x10000800, 0x7ff):
        lui, jalr = struct.unpack("<II", elfimage.jump(target))
        hi = lui >> 12
        lo = (jalr >> 20) - (1 << 12 if jalr >> 31 else 0)
        assert lui & 0xFFF == 0x2B7 and jalr & 0xFFFFF == 0x28067     # lui t0 / jalr zero, (t0)
        assert ((hi << 12) + lo) & 0xFFFFFFFF == target


# ------------------------------------------------------------------ bad input

def test_not_an_elf(tmp_path):
    p = tmp_path / "prog.elf"
    p.write_text("not an ELF\n")
    out = tmp_path / "out.bin"
    r = irqlab("run", "--elf", p, "--core", "vexriscv", "--dump-range", "0x10000000", "4", "--dump-file", out)
    assert_one_line_error(r, "not an ELF")
    assert_one_line_error(irqlab("run", "--elf", tmp_path / "missing.elf", "--core", "vexriscv"), "cannot read")
    assert not out.exists()


def test_64_bit_elf(tmp_path):
    (tmp_path / "p.c").write_text("void _start(void) { for (;;) { } }\n")
    subprocess.run([GCC, "-nostdlib", "-o", "p.elf", "p.c"], cwd=tmp_path, check=True)
    assert_one_line_error(irqlab("run", "--elf", tmp_path / "p.elf", "--core", "vexriscv"), "64-bit")


def test_segment_outside_memory(tmp_path):
    ld = open(os.path.join(FIXTURE, "link.ld")).read().replace("} > rom", "} > nowhere")
    ld = ld.replace("INCLUDE memory.ld", "INCLUDE memory.ld\nMEMORY { nowhere : ORIGIN = 0x20000000, LENGTH = 4K }")
    elf = build(tmp_path, "vexriscv", ld=ld)
    out = tmp_path / "out.bin"
    r = irqlab("run", "--elf", elf, "--core", "vexriscv", "--dump-symbols", "result_start", "result_end",
               "--dump-file", out)
    assert_one_line_error(r, "0x20000000", "outside the SoC's memories")
    assert not out.exists()


def test_program_too_big(tmp_path):
    src = open(os.path.join(FIXTURE, "hello.c")).read() + "uint32_t big[8192] = {1};\n"
    ld = open(os.path.join(FIXTURE, "link.ld")).read().replace("INCLUDE memory.ld", "INCLUDE memory.ld\n"
         "MEMORY { big_sram : ORIGIN = ORIGIN(sram), LENGTH = 1M }").replace("} > sram", "} > big_sram")
    elf = build(tmp_path, "vexriscv", source=src, ld=ld)
    r = irqlab("run", "--elf", elf, "--core", "vexriscv")
    assert_one_line_error(r, "does not fit sram", "SocConfig.sram_size")


def test_unknown_symbol_and_bad_ranges(program, tmp_path):
    row, elf = program
    out = tmp_path / "out.bin"
    run = ("run", "--elf", elf, "--core", row, "--trace", tmp_path / "t.bin")
    assert_one_line_error(irqlab(*run, "--dump-symbols", "result_start", "nope", "--dump-file", out),
                          "no symbol 'nope'")
    assert_one_line_error(irqlab(*run, "--dump-symbols", "result_end", "result_start", "--dump-file", out),
                          "empty or reversed")
    assert_one_line_error(irqlab(*run, "--dump-range", "0x10003ff0", "0x20", "--dump-file", out),
                          "does not lie inside one memory")
    assert_one_line_error(irqlab(*run, "--dump-range", "0x10000000", "4"), "--dump-file")
    assert_one_line_error(irqlab(*run, "--dump-file", out), "--dump-symbols")
    assert_one_line_error(irqlab(*run, "--dump-range", "0x10000000", "4", "--dump-file", tmp_path / "no" / "x"),
                          "no such folder")
    assert not out.exists()
    assert not (tmp_path / "t.bin").exists()   # nothing ran


def test_compressed_program_on_a_core_without_c(tmp_path):
    elf = build(tmp_path, "vexriscv", flags=["-march=rv32imc"])
    assert_one_line_error(irqlab("run", "--elf", elf, "--core", "vexriscv"), "compressed", "-march=rv32im")


# ------------------------------------- compressed code: judged by the code, not the header's flag

AS_FLAGS = ["-march=rv32im", "-mabi=ilp32", "-nostdlib", "-static", "-Wl,-Ttext=0x0", "-Wl,--no-warn-rwx-segments"]
# rv32im code with `.option rvc` around its alignments (as riscv-arch-test's
# environment writes them): the assembler marks the ELF as compressed; the
# first alignment pads with a 4-byte nop, the last, after three halfwords of
# data, with a c.nop at 0x...2 that no instruction fetch reaches.
RVC_ALIGN = """
    .text
    .globl _start
_start:
    li   a0, 1
    .option push
    .option rvc
    .align 3
    .option pop
    addi a0, a0, 1
    j    done
    .half 0x1234, 0x5678, 0x9abc
    .option push
    .option rvc
    .align 2
    .option pop
done:
    j    done
"""


def assemble(folder, source, flags=(), name="p"):
    """An ELF from assembly source, linked at 0 (no SoC's memory map)."""
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.S").write_text(source)
    elf = folder / f"{name}.elf"
    subprocess.run([GCC, *AS_FLAGS, *flags, "-o", elf.name, f"{name}.S"], cwd=folder, check=True)
    return elf


def c_nops(elf):
    """Addresses of the c.nop halfwords in the program's code ranges."""
    return [start + k for start, body in elf.code for k in range(0, len(body) - 1, 2)
            if body[k:k + 2] == b"\x01\x00"]


def test_rvc_alignment_padding_is_no_compressed_code(tmp_path):
    from irqlab.rows import row
    elf = elfimage.read(str(assemble(tmp_path, RVC_ALIGN)))
    assert elf.flags & elfimage.EF_RISCV_RVC            # the header says compressed...
    assert [a % 4 for a in c_nops(elf)] == [2]          # ...and the code holds only the filler
    assert elfimage.compressed_instruction(elf) is None
    userprog.check_isa(elf, row("vexriscv"))            # accepted


def test_compressed_code_is_refused_where_the_core_would_fetch_it(tmp_path):
    from irqlab.rows import row
    refused = {
        # a whole program built with C
        "rv32imc": (RVC_ALIGN, ["-march=rv32imc"]),
        # one compressed instruction under .option rvc
        "c.addi": (RVC_ALIGN.replace("addi a0, a0, 1", ".option push\n.option rvc\nc.addi a0, 1\n.option pop"), []),
        # a c.nop at a 4-byte boundary is executed: not padding
        "c.nop": (RVC_ALIGN.replace("li   a0, 1", "li   a0, 1\n.option push\n.option rvc\nc.nop\n.option pop"), []),
        # after data, only a c.nop is taken for padding
        "after data": (RVC_ALIGN.replace("done:\n", ".option push\n.option rvc\nc.addi a0, 1\n.option pop\ndone:\n"), []),
    }
    for what, (source, flags) in refused.items():
        path = assemble(tmp_path / what.replace(" ", "-").replace(".", ""), source, flags)
        found = elfimage.compressed_instruction(elfimage.read(str(path)))
        assert found is not None and not found.misaligned, what
        with pytest.raises(elfimage.ImageError, match="compressed"):
            userprog.check_isa(elfimage.read(str(path)), row("vexriscv"))
        userprog.check_isa(elfimage.read(str(path)), row("cv32e40p"))      # a core with C runs it
    # The command refuses before any model is built, in one line with the place and the remedy.
    rv32imc = tmp_path / "rv32imc" / "p.elf"
    r = irqlab("run", "--elf", rv32imc, "--core", "vexriscv")
    assert_one_line_error(r, "compressed (16-bit) instruction", "at 0x00000000", "-march=rv32im",
                          "pads to a 4-byte boundary")


def test_linker_relaxation_compresses_calls_in_an_object_marked_compressed(tmp_path):
    """The header's flag is not harmless after all where the linker relaxes:
    it turns the object's call and tail into c.jal and c.j, real compressed
    instructions, which are refused; with -mno-relax the program runs as written."""
    calls = RVC_ALIGN.replace("    li   a0, 1\n", "    call f\n    tail done\nf:  ret\n")
    relaxed = elfimage.read(str(assemble(tmp_path / "relax", calls)))
    found = elfimage.compressed_instruction(relaxed)
    assert found is not None and found.address == 0
    with pytest.raises(elfimage.ImageError, match="-mno-relax"):
        from irqlab.rows import row
        userprog.check_isa(relaxed, row("vexriscv"))
    as_written = elfimage.read(str(assemble(tmp_path / "norelax", calls, ["-mno-relax"])))
    assert as_written.flags & elfimage.EF_RISCV_RVC and elfimage.compressed_instruction(as_written) is None


def test_without_mapping_symbols_or_section_headers_the_code_is_still_walked(tmp_path):
    """Stripped (no mapping symbols: the executable sections are the code),
    and without section headers (the executable segments are)."""
    for flags, refused in (([], False), (["-march=rv32imc"], True)):
        elf = assemble(tmp_path / f"c{len(flags)}", RVC_ALIGN.split("    .half")[0] + "    j done\ndone: j done\n",
                       flags)
        subprocess.run(["riscv64-unknown-elf-strip", "--strip-all", str(elf)], check=True)
        data = bytearray(elf.read_bytes())
        assert (elfimage.compressed_instruction(elfimage.read(str(elf))) is not None) == refused
        struct.pack_into("<I", data, 32, 0)                 # e_shoff
        struct.pack_into("<HH", data, 48, 0, 0)             # e_shnum, e_shstrndx
        bare = elf.with_suffix(".bare")
        bare.write_bytes(bytes(data))
        image = elfimage.read(str(bare))
        assert image.code and image.symbols == {}
        assert (elfimage.compressed_instruction(image) is not None) == refused


def test_read_only_data_after_the_code_is_no_code(tmp_path):
    """Strings linked into the code's output section (as the example's
    link.ld does) follow the last instruction with no mark: an rv32im
    program with them runs; the same built with C is refused."""
    (tmp_path / "link.ld").write_text("SECTIONS { .text 0 : { *(.text*) *(.rodata*) } .data : { *(.data*) *(.bss*) } }\n")
    (tmp_path / "p.c").write_text(
        'const char msg[] = "sample: words that look like code, odd and even";\n'
        "volatile char out;\n"
        "void _start(void) { for (const char *p = msg; *p; p++) out = *p; for (;;) { } }\n")
    for march, refused in (("rv32im", False), ("rv32imc", True)):
        elf = tmp_path / f"{march}.elf"
        subprocess.run([GCC, f"-march={march}", "-mabi=ilp32", "-O2", "-nostdlib", "-ffreestanding", "-T", "link.ld",
                        "-Wl,--no-warn-rwx-segments", "-o", elf.name, "p.c"], cwd=tmp_path, check=True)
        image = elfimage.read(str(elf))
        assert image.symbols["msg"] > image.symbols["_start"]          # the string is in .text, after the code
        assert (elfimage.compressed_instruction(image) is not None) == refused, march
        if not refused:     # negative control: walked into as code, the string would be refused
            image.labels.add(image.symbols["msg"])
            assert elfimage.compressed_instruction(image) is not None


@pytest.fixture(scope="module", params=ROWS)
def rvc_aligned(request, tmp_path_factory):
    """hello.c with `.option rvc` alignments in its code (one after data, so
    padded with a c.nop), built for rv32im and the row's SoC without linker
    relaxation (which would compress its calls)."""
    row = request.param
    src = open(os.path.join(FIXTURE, "hello.c")).read() + (
        '__asm__(".text\\n.option push\\n.option rvc\\n.align 4\\n.option pop\\n"\n'
        '        ".half 0x1234\\n.option push\\n.option rvc\\n.align 2\\n.option pop\\n");\n')
    return row, build(tmp_path_factory.mktemp(f"rvc-{row}"), row, source=src, flags=["-mno-relax"])


def test_a_program_marked_compressed_by_its_alignments_runs(rvc_aligned, tmp_path):
    row, path = rvc_aligned
    elf = elfimage.read(str(path))
    assert elf.flags & elfimage.EF_RISCV_RVC and any(a % 4 == 2 for a in c_nops(elf))
    r = irqlab("run", "--elf", path, "--core", row, "--trace", tmp_path / "t.bin")
    assert r.returncode == EXIT_CODE, r.stderr
    assert r.stdout == "hello from a program of its own\n"


def test_memmap(program):
    row, _ = program
    r = irqlab("memmap", "--core", row)
    assert r.returncode == 0, r.stderr
    facts = sim.ensure_model(row).facts
    lines = [line.split() for line in r.stdout.splitlines()]
    assert ["IRQLAB_SIM_EXIT", f"0x{facts['csr']['simctrl_exit']:08x}"] in lines
    rom = row_info(row).soc_config.rom_size
    assert f"rom 0x00000000-0x{rom - 1:08x}" in r.stdout


def test_docs_example_is_the_fixture():
    """docs/USER_PROGRAMS.md shows the fixture's files as they are."""
    doc = open(os.path.join(os.path.dirname(__file__), "..", "docs", "USER_PROGRAMS.md")).read()
    for lang, name in (("ld", "link.ld"), ("c", "hello.c")):
        assert f"```{lang}\n" + open(os.path.join(FIXTURE, name)).read() + "```" in doc, name


def test_docs_addresses_are_the_models(program):
    """The address table of docs/USER_PROGRAMS.md (column of the vexriscv and
    own-core SoCs) against the built model's facts."""
    row, _ = program
    doc = open(os.path.join(os.path.dirname(__file__), "..", "docs", "USER_PROGRAMS.md")).read()
    table = {}
    for line in doc.splitlines():
        cells = [c.strip().strip("`") for c in line.replace("\\|", "").strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("IRQLAB_"):
            table[cells[0]] = int(cells[1].replace("_", ""), 16)
    facts = dict(userprog.program_facts(sim.ensure_model(row)))
    assert table == facts


def test_run_app_still_there(tmp_path):
    assert_one_line_error(irqlab("run", "--core", "vexriscv", "--app", "nope"), "unknown firmware application")
    assert_one_line_error(irqlab("run", "--core", "vexriscv", "--app", "bench", "--elf", tmp_path / "x.elf"),
                          "--elf")
    assert_one_line_error(irqlab("run", "--core", "vexriscv", "--dump-file", tmp_path / "x"), "--elf")
