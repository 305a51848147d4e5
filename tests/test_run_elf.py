"""`irqlab run --elf`: a program of its own (tests/fixtures/userprog, the
example of docs/USER_PROGRAMS.md) built with the RISC-V GCC, run in a stock
row and an own-core row: console, exit code, memory dumps, the trace event;
bad input gives one line and exit status 2 and writes no dump."""

import os
import shutil
import struct
import subprocess

import pytest

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


def test_memmap(program):
    row, _ = program
    r = irqlab("memmap", "--core", row)
    assert r.returncode == 0, r.stderr
    facts = sim.ensure_model(row).facts
    lines = [line.split() for line in r.stdout.splitlines()]
    assert ["IRQLAB_SIM_EXIT", f"0x{facts['csr']['simctrl_exit']:08x}"] in lines
    assert "rom 0x00000000-0x00007fff" in r.stdout


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
