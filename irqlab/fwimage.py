"""Firmware images: a built binary plus the run-time configuration block.

The firmware keeps `struct bench_config` (fw/common/include/irqlab.h) in the
last 256 bytes of ROM; patching it here lets one build serve every run.
"""

import struct

CONFIG_MAGIC = 0x69726C31
CONFIG_FIELDS = ["magic", "tests", "lat_count", "lat_period", "lat_jitter", "seed",
                 "tp_phases", "tp_high", "tp_low", "hist_shift", "flags"]
FLAG_BOOT_WAIT = 1
FLAG_TRACE_LEAN = 2
CONFIG_SIZE_FROM_END = 256


class ImageError(Exception):
    pass


def load_image(bin_path, rom_size):
    """The image padded to its memory's size (ROM, or main RAM for loaded firmware)."""
    with open(bin_path, "rb") as f:
        data = bytearray(f.read())
    if len(data) > rom_size:
        raise ImageError(f"{bin_path}: {len(data)} bytes do not fit the {rom_size}-byte ROM")
    data += bytes(rom_size - len(data))
    off = rom_size - CONFIG_SIZE_FROM_END
    if struct.unpack_from("<I", data, off)[0] != CONFIG_MAGIC:
        raise ImageError(f"{bin_path}: no configuration block at 0x{off:x}")
    return data


def read_config(image, rom_size):
    off = rom_size - CONFIG_SIZE_FROM_END
    return dict(zip(CONFIG_FIELDS, struct.unpack_from(f"<{len(CONFIG_FIELDS)}I", image, off)))


def patch_config(image, rom_size, **values):
    cfg = read_config(image, rom_size)
    for k, v in values.items():
        if k not in cfg or k == "magic":
            raise ImageError(f"unknown firmware setting '{k}'")
        cfg[k] = int(v) & 0xFFFFFFFF
    struct.pack_into(f"<{len(CONFIG_FIELDS)}I", image, rom_size - CONFIG_SIZE_FROM_END,
                     *[cfg[k] for k in CONFIG_FIELDS])
    return cfg


def to_readmemh(image):
    """The ROM image as the $readmemh text the simulation loads (one word a line)."""
    words = struct.unpack(f"<{len(image) // 4}I", bytes(image))
    return "".join(f"{w:08x}\n" for w in words)


def crc32(data):
    import zlib
    return zlib.crc32(bytes(data)) & 0xFFFFFFFF


def load_frame(image):
    """What the ROM's boot code expects for 'load and run': 'L', length, CRC-32, bytes."""
    return b"L" + len(image).to_bytes(4, "little") + crc32(image).to_bytes(4, "little") + bytes(image)
