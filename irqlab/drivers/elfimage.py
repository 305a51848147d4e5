"""A user's own program: a statically linked RV32 ELF file, read with struct
and placed into the SoC's memories by its program headers.

`read(path)` checks the header (32-bit, little-endian, RISC-V, executable,
not dynamically linked) and returns the loadable segments, the entry point,
the symbol table and the code. `place(elf, mems, reset)` makes one full-size
image per memory that a segment names, at the segments' load (physical)
addresses. `compressed_instruction(elf)` finds a 16-bit instruction where a
core without the C extension would fetch one (its docstring has the rule).

Execution starts at the reset vector (the ROM's origin). A program whose
entry point is elsewhere gets a two-instruction jump to it at the reset
vector, provided no segment of its own covers that place.
"""

import struct
from dataclasses import dataclass, field

from irqlab.drivers import memmap
from irqlab.errors import ImageError

EM_RISCV = 243
ELFCLASS32, ELFCLASS64 = 1, 2
ELFDATA2LSB = 1
ET_EXEC = 2
PT_LOAD, PT_DYNAMIC, PT_INTERP = 1, 2, 3
PF_X = 0x1
SHT_PROGBITS, SHT_SYMTAB = 1, 2
SHF_ALLOC, SHF_EXECINSTR = 0x2, 0x4
STB_LOCAL = 0
STT_OBJECT, STT_SECTION, STT_FILE = 1, 3, 4
# The header's "compressed" flag: the assembler allowed C somewhere (`.option
# rvc` around an `.align` sets it too), not that the code holds any 16-bit
# instruction; compressed_instruction() looks at the code instead.
EF_RISCV_RVC = 0x1
C_NOP = 0x0001                               # c.nop: `.align`'s 2-byte filler under .option rvc

_EHDR = struct.Struct("<16sHHIIIIIHHHHHH")   # Elf32_Ehdr
_PHDR = struct.Struct("<IIIIIIII")           # Elf32_Phdr
_SHDR = struct.Struct("<IIIIIIIIII")         # Elf32_Shdr
_SYM = struct.Struct("<IIIBBH")              # Elf32_Sym
JUMP_BYTES = 8                               # lui + jalr


@dataclass
class Segment:
    paddr: int      # where it is loaded
    vaddr: int      # where it runs
    data: bytes     # the file's bytes (p_filesz)
    memsz: int      # bytes in memory; the rest past data is zero


@dataclass
class Elf:
    path: str
    entry: int
    flags: int
    segments: list
    symbols: dict = field(default_factory=dict)   # name -> value
    code: list = field(default_factory=list)       # [(address, bytes)]: the ranges that hold instructions
    labels: set = field(default_factory=set)       # addresses of its symbols but data objects' (code may start there)
    named_labels: list = field(default_factory=list)   # [(address, name)] of those, locals of one name each kept

    def symbol(self, name):
        try:
            return self.symbols[name]
        except KeyError:
            raise ImageError(f"{self.path}: no symbol '{name}' in its symbol table") from None


def read(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ImageError(f"cannot read '{path}': {e.strerror}") from None
    if data[:4] != b"\x7fELF":
        raise ImageError(f"{path}: not an ELF file")
    if len(data) < 6:
        raise ImageError(f"{path}: truncated ELF header")
    if data[4] == ELFCLASS64:
        raise ImageError(f"{path}: a 64-bit ELF; the SoC's cores run RV32 programs")
    if data[4] != ELFCLASS32 or data[5] != ELFDATA2LSB:
        raise ImageError(f"{path}: not a 32-bit little-endian ELF")
    if len(data) < _EHDR.size:
        raise ImageError(f"{path}: truncated ELF header")
    (_, e_type, machine, _, entry, phoff, shoff, flags, _, phentsize, phnum,
     shentsize, shnum, _) = _EHDR.unpack_from(data)
    if machine != EM_RISCV:
        raise ImageError(f"{path}: not a RISC-V program (ELF machine {machine})")
    if e_type != ET_EXEC:
        raise ImageError(f"{path}: not a statically linked executable (ELF type {e_type})")
    segments, executable = [], []
    for i in range(phnum):
        p_type, offset, vaddr, paddr, filesz, memsz, p_flags, _ = _entry(data, path, phoff, phentsize, i, _PHDR)
        if p_type in (PT_DYNAMIC, PT_INTERP):
            raise ImageError(f"{path}: dynamically linked; link it statically (-static, -nostdlib)")
        if p_type != PT_LOAD or memsz == 0:
            continue
        if offset + filesz > len(data) or filesz > memsz:
            raise ImageError(f"{path}: program header {i} is corrupt (file bytes past the end)")
        segments.append(Segment(paddr, vaddr, data[offset:offset + filesz], memsz))
        if p_flags & PF_X:
            executable.append((vaddr, segments[-1].data))
    if not segments:
        raise ImageError(f"{path}: no loadable segment")
    sections = [_entry(data, path, shoff, shentsize, i, _SHDR) for i in range(shnum)]
    symbols, marks, labels, named_labels = _symbols(data, path, sections)
    # Without section headers the executable segments are the code.
    code = _code(data, path, sections, marks) if sections else executable
    return Elf(path, entry, flags, segments, symbols, code, labels, named_labels)


def _entry(data, path, table, entsize, i, st):
    off = table + i * entsize
    if entsize < st.size or off + st.size > len(data):
        raise ImageError(f"{path}: truncated ELF header tables")
    return st.unpack_from(data, off)


def _symbols(data, path, sections):
    """name -> value of the symbol table's named symbols (globals win over
    locals of the same name), and the mapping symbols the assembler marks
    code and data with: {section index: [(address, True for code ($x...),
    False for data ($d))]}, and the addresses of the symbols that are not
    data objects, with their names ([(address, name)], every local kept)."""
    symbols, local, marks, labels, named = {}, set(), {}, set(), []
    for sh in sections:
        if sh[1] != SHT_SYMTAB:
            continue
        if sh[6] >= len(sections):
            raise ImageError(f"{path}: corrupt symbol table")
        strtab = sections[sh[6]]
        strings = data[strtab[4]:strtab[4] + strtab[5]]
        for i in range(sh[5] // _SYM.size):
            name_off, value, _, info, _, shndx = _entry(data, path, sh[4], _SYM.size, i, _SYM)
            end = strings.find(b"\0", name_off)
            name = strings[name_off:end if end >= 0 else None].decode("utf-8", "replace")
            if not name or info & 0xF in (STT_SECTION, STT_FILE):
                continue
            if name == "$d" or name.startswith("$x"):
                marks.setdefault(shndx, []).append((value, name.startswith("$x")))
                continue
            if info & 0xF != STT_OBJECT:
                labels.add(value)
                named.append((value, name))
            is_local = info >> 4 == STB_LOCAL
            if name not in symbols or (name in local and not is_local):
                symbols[name] = value
                if is_local:
                    local.add(name)
                else:
                    local.discard(name)
    return symbols, marks, labels, named


def _code(data, path, sections, marks):
    """[(address, bytes)] of the instructions in the executable sections:
    the stretches the mapping symbols mark as code ($x up to the next $d),
    the whole section where it has none (a stretch before its first mark
    counts as code)."""
    out = []
    for k, sh in enumerate(sections):
        _, sh_type, sh_flags, addr, offset, size = sh[:6]
        if sh_type != SHT_PROGBITS or sh_flags & (SHF_ALLOC | SHF_EXECINSTR) != SHF_ALLOC | SHF_EXECINSTR:
            continue
        if offset + size > len(data):
            raise ImageError(f"{path}: section {k} is corrupt (bytes past the end of the file)")
        body = data[offset:offset + size]
        edges = sorted((a, is_code) for a, is_code in marks.get(k, []) if addr <= a <= addr + size)
        if not edges or edges[0][0] > addr:
            edges.insert(0, (addr, True))
        for (start, is_code), (stop, _) in zip(edges, edges[1:] + [(addr + size, None)]):
            if is_code and stop > start:
                out.append((start, body[start - addr:stop - addr]))
    return out


@dataclass(frozen=True)
class Fetch:
    """An instruction a core without C cannot run where it lies."""
    address: int
    halfword: int            # its first halfword
    misaligned: bool = False  # a 32-bit instruction off the 4-byte boundaries (else a 16-bit one)

    def describe(self):
        if self.misaligned:
            return f"a 32-bit instruction at 0x{self.address:08x}, off the 4-byte boundaries (code laid out for C)"
        return f"a compressed (16-bit) instruction 0x{self.halfword:04x} at 0x{self.address:08x}"


def _sext(value, bits):
    return value - (1 << bits) if value >> (bits - 1) & 1 else value


def _flow(addr, insn):
    """(falls through to the next instruction, direct target or None) of a
    32-bit instruction at addr."""
    opcode, rd = insn & 0x7F, insn >> 7 & 0x1F
    if opcode == 0x6F:                                       # jal: a call (rd != 0) returns
        imm = (insn >> 31 << 20 | (insn >> 12 & 0xFF) << 12 | (insn >> 20 & 1) << 11
               | (insn >> 21 & 0x3FF) << 1)
        return rd != 0, addr + _sext(imm, 21)
    if opcode == 0x67:                                       # jalr: ret, jr, tail do not return
        return rd != 0, None
    if opcode == 0x63:                                       # branches
        imm = insn >> 31 << 12 | (insn >> 7 & 1) << 11 | (insn >> 25 & 0x3F) << 5 | (insn >> 8 & 0xF) << 1
        return True, addr + _sext(imm, 13)
    if insn in (0x30200073, 0x10200073):                     # mret, sret
        return False, None
    return True, None


def compressed_instruction(elf):
    """The first 16-bit instruction in the program's code where a core
    without the C extension would fetch one (a Fetch), or None.

    Such a core starts instructions only at 4-byte boundaries (a jump
    elsewhere traps) and reads 32 bits there. Each code range (Elf.code) is
    walked in instruction lengths from its start: a halfword whose low two
    bits are 0b11 starts a 32-bit instruction, any other a 16-bit one. The
    walk follows the code only where execution can go on: after an
    instruction that never falls through (j, jr/ret, tail, mret) it goes on
    only at a symbol, the entry point or a target of a jump or branch seen
    before (a data object's symbol is none of these); elsewhere the rest of
    the range is data (read-only data linked into the code's section carries
    no mark of its own). On the walk, a
    16-bit instruction at a 4-byte boundary is compressed code the core would
    execute: refused, as is a 32-bit instruction off the boundaries (code
    laid out for a core with C). Not refused, because the core never runs
    them as 16-bit instructions: a c.nop (0x0001) two bytes before a 4-byte
    boundary, the filler `.align` writes under `.option rvc` after data of an
    odd number of halfwords (no jump can land on it, and no instruction
    starts there); and zero halfwords, the section fill (all zeros is an
    illegal instruction in every encoding, no compressed one). The ELF
    header's compressed flag is not looked at. Where the file has no mapping
    symbols (stripped, or an assembler that writes none), data inside an
    executable section that a falling-through instruction runs into is read
    as code, and may be refused as such."""
    landings = set(elf.labels) | {elf.entry}
    for start, body in elf.code:
        pos, flows = 0, True
        while pos + 2 <= len(body):
            addr = start + pos
            if not flows and addr not in landings:
                break                                        # past the code: data
            (half,) = struct.unpack_from("<H", body, pos)
            if half == 0:
                pos += 2
            elif half & 3 == 3:
                if addr % 4:
                    return Fetch(addr, half, misaligned=True)
                if pos + 4 > len(body):
                    break
                (insn,) = struct.unpack_from("<I", body, pos)
                flows, target = _flow(addr, insn)
                if target is not None:
                    landings.add(target & 0xFFFFFFFF)
                pos += 4
            elif addr % 4 == 2 and half == C_NOP:
                pos += 2
            else:
                return Fetch(addr, half)
    return None


def _home(mems, path, i, what, addr, size):
    """The memory that holds a segment's range, or a one-line error saying why none does."""
    m = memmap.holding(mems, addr, size)
    if m is not None:
        return m
    where = f"{path}: segment {i} {what} 0x{addr:08x}-0x{addr + size - 1:08x} ({size} bytes)"
    start = memmap.containing(mems, addr)
    if start is not None:
        raise ImageError(f"{where} does not fit {start}; the size is SocConfig.{start.name}_size "
                         f"(soc/configs.py)")
    raise ImageError(f"{where} lies outside the SoC's memories: {memmap.describe(mems)}")


def jump(target):
    """`lui t0, %hi(target); jalr zero, %lo(target)(t0)` as little-endian bytes."""
    hi = ((target + 0x800) >> 12) & 0xFFFFF
    lo = (target - (hi << 12)) & 0xFFF
    return struct.pack("<II", (hi << 12) | (5 << 7) | 0x37, (lo << 20) | (5 << 15) | 0x67)


def place(elf, mems, reset):
    """{memory name: bytearray of the memory's full size} for every memory a
    segment is loaded into (and the reset vector's memory); raises ImageError
    when a segment does not fit a memory or the entry cannot be reached."""
    images = {}
    covered = []   # (memory, start offset, end offset) of loaded bytes
    for i, s in enumerate(elf.segments):
        _home(mems, elf.path, i, "runs at", s.vaddr, s.memsz)
        m = _home(mems, elf.path, i, "loads at", s.paddr, s.memsz)
        img = images.setdefault(m.name, bytearray(m.size))
        off = s.paddr - m.origin
        img[off:off + len(s.data)] = s.data
        covered.append((m.name, off, off + s.memsz))
    if not any(s.vaddr <= elf.entry < s.vaddr + s.memsz for s in elf.segments):
        raise ImageError(f"{elf.path}: entry point 0x{elf.entry:08x} lies in none of its segments")
    if elf.entry != reset:
        m = memmap.containing(mems, reset)
        off = reset - m.origin
        if any(name == m.name and a < off + JUMP_BYTES and off < b for name, a, b in covered):
            raise ImageError(f"{elf.path}: entry point 0x{elf.entry:08x} is not the reset vector "
                             f"0x{reset:08x}, and a segment covers the reset vector (put the entry at "
                             f"0x{reset:08x}, or leave its first {JUMP_BYTES} bytes free for a jump)")
        img = images.setdefault(m.name, bytearray(m.size))
        img[off:off + JUMP_BYTES] = jump(elf.entry)
    return images
