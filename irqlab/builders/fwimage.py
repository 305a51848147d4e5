"""Firmware images: a built binary plus its run-time configuration block.

Every irqlab application keeps its `struct irqlab_config` (trace/protocol.py:
one layout per application, told apart by its magic) in the last
CONFIG_FROM_END bytes of its code memory; patching it here lets one build
serve every run.
"""

import struct
import zlib

from irqlab.errors import ImageError
from irqlab.host import protocol


def load_image(bin_path, mem_size):
    """The image padded to its memory's size (ROM, or main RAM for loaded firmware)."""
    try:
        with open(bin_path, "rb") as f:
            data = bytearray(f.read())
    except OSError as e:
        raise ImageError(f"cannot read '{bin_path}': {e.strerror}") from None
    if len(data) > mem_size:
        raise ImageError(f"{bin_path}: {len(data)} bytes do not fit the {mem_size}-byte memory")
    data += bytes(mem_size - len(data))
    config_block(data, mem_size, bin_path)
    return data


def config_block(image, mem_size, what="image"):
    """The protocol.ConfigBlock the image carries."""
    off = mem_size - protocol.CONFIG_FROM_END
    magic = struct.unpack_from("<I", image, off)[0]
    block = protocol.config_by_magic(magic)
    if block is None:
        raise ImageError(f"{what}: no irqlab configuration block at 0x{off:x}")
    return block


def read_config(image, mem_size):
    block = config_block(image, mem_size)
    names = block.names
    return dict(zip(names, struct.unpack_from(f"<{len(names)}I", image, mem_size - protocol.CONFIG_FROM_END)))


def patch_config(image, mem_size, **values):
    block = config_block(image, mem_size)
    cfg = read_config(image, mem_size)
    for k, v in values.items():
        if k not in cfg or k == "magic":
            raise ImageError(f"unknown setting '{k}' of firmware '{block.app}' "
                             f"(known: {', '.join(n for n in block.names if n != 'magic')})")
        cfg[k] = int(v) & 0xFFFFFFFF
    struct.pack_into(f"<{len(cfg)}I", image, mem_size - protocol.CONFIG_FROM_END, *[cfg[k] for k in block.names])
    return cfg


def to_readmemh(image):
    """The ROM image as the $readmemh text the simulation loads (one word a line)."""
    words = struct.unpack(f"<{len(image) // 4}I", bytes(image))
    return "".join(f"{w:08x}\n" for w in words)


def from_memh(text, size):
    """Bytes of a memory from the hex text $writememh wrote (32-bit words,
    one a line, `@index` address lines and // comments allowed), padded to size."""
    data = bytearray(size)
    index = 0
    for line in text.splitlines():
        line = line.split("//")[0].strip()
        if not line:
            continue
        if line.startswith("@"):
            index = int(line[1:], 16)
            continue
        for word in line.split():
            if 4 * index + 4 <= size:
                struct.pack_into("<I", data, 4 * index, int(word, 16) & 0xFFFFFFFF)
            index += 1
    return bytes(data)


def crc32(data):
    return zlib.crc32(bytes(data)) & 0xFFFFFFFF


def load_frame(image):
    """What the ROM's boot code expects for 'load and run': 'L', length, CRC-32, bytes."""
    return b"L" + len(image).to_bytes(4, "little") + crc32(image).to_bytes(4, "little") + bytes(image)
