"""A user's own program: a statically linked RV32 ELF file, read with struct
and placed into the SoC's memories by its program headers.

`read(path)` checks the header (32-bit, little-endian, RISC-V, executable,
not dynamically linked) and returns the loadable segments, the entry point
and the symbol table. `place(elf, mems, reset)` makes one full-size image per
memory that a segment names, at the segments' load (physical) addresses.

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
SHT_SYMTAB = 2
STB_LOCAL = 0
STT_SECTION, STT_FILE = 3, 4
EF_RISCV_RVC = 0x1

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

    @property
    def compressed(self):
        """Built with the C extension (compressed instructions)."""
        return bool(self.flags & EF_RISCV_RVC)

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
    segments = []
    for i in range(phnum):
        p_type, offset, vaddr, paddr, filesz, memsz, _, _ = _entry(data, path, phoff, phentsize, i, _PHDR)
        if p_type in (PT_DYNAMIC, PT_INTERP):
            raise ImageError(f"{path}: dynamically linked; link it statically (-static, -nostdlib)")
        if p_type != PT_LOAD or memsz == 0:
            continue
        if offset + filesz > len(data) or filesz > memsz:
            raise ImageError(f"{path}: program header {i} is corrupt (file bytes past the end)")
        segments.append(Segment(paddr, vaddr, data[offset:offset + filesz], memsz))
    if not segments:
        raise ImageError(f"{path}: no loadable segment")
    return Elf(path, entry, flags, segments, _symbols(data, path, shoff, shentsize, shnum))


def _entry(data, path, table, entsize, i, st):
    off = table + i * entsize
    if entsize < st.size or off + st.size > len(data):
        raise ImageError(f"{path}: truncated ELF header tables")
    return st.unpack_from(data, off)


def _symbols(data, path, shoff, shentsize, shnum):
    """name -> value of the symbol table's named symbols (globals win over
    locals of the same name)."""
    sections = [_entry(data, path, shoff, shentsize, i, _SHDR) for i in range(shnum)]
    symbols, local = {}, set()
    for sh in sections:
        if sh[1] != SHT_SYMTAB:
            continue
        if sh[6] >= len(sections):
            raise ImageError(f"{path}: corrupt symbol table")
        strtab = sections[sh[6]]
        strings = data[strtab[4]:strtab[4] + strtab[5]]
        for i in range(sh[5] // _SYM.size):
            name_off, value, _, info, _, _ = _entry(data, path, sh[4], _SYM.size, i, _SYM)
            end = strings.find(b"\0", name_off)
            name = strings[name_off:end if end >= 0 else None].decode("utf-8", "replace")
            if not name or info & 0xF in (STT_SECTION, STT_FILE):
                continue
            is_local = info >> 4 == STB_LOCAL
            if name not in symbols or (name in local and not is_local):
                symbols[name] = value
                if is_local:
                    local.add(name)
                else:
                    local.discard(name)
    return symbols


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
