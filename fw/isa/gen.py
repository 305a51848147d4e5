#!/usr/bin/env python3
"""Generate the ISA conformance test bodies (RV32I, RV32M, machine CSRs).

    python fw/isa/gen.py OUT_DIR        # writes OUT_DIR/<test>.S and <test>.json

Every test is a *body*: assembly that starts at `isa_body`, stores result words
into the signature [isa_sig_begin, isa_sig_end) and ends with `j isa_finish`.
It is linked with one of two stubs (start_linux.S for qemu-riscv32,
start_bare.S for the core, see README.md), so the body is identical in both
worlds. <test>.json lists the signature words' names (`labels`), and for
tests that cannot run under qemu-user (machine CSRs, traps) the `expected`
values computed here.

Conventions inside a body: x31 (t6) points into the signature (the generator
tracks the offset and re-derives it after a test that uses x31); everything
is deterministic (random operands come from a fixed seed).
"""

import json
import os
import random
import sys

SEED = 20261122
M32 = 0xFFFFFFFF

# Operand values that hit the corner cases of every ALU/M operation: zero,
# one, all ones, the signed extremes and their neighbours, alternating bits,
# shift amounts 0/31/32 in the low five bits, and an ordinary value.
EDGE = [0, 1, 2, M32, 0xFFFFFFFE, 0x7FFFFFFF, 0x80000000, 0x80000001,
        0x55555555, 0xAAAAAAAA, 31, 32, 0x12345678]
IMM12 = [0, 1, 2, -1, -2, 2047, -2048, 0x555, -0x556, 0x7F0]
SHAMT = [0, 1, 2, 15, 16, 30, 31]
BRANCH_VALUES = [0, 1, M32, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFE, 0x55555555]


def s32(v):
    v &= M32
    return v - (1 << 32) if v & 0x80000000 else v


def hx(v):
    return f"0x{v & M32:08x}"


def enc_r(opcode, funct3, funct7, rd, rs1, rs2):
    """An R-type instruction word."""
    return funct7 << 25 | rs2 << 20 | rs1 << 15 | funct3 << 12 | rd << 7 | opcode


def enc_csr(funct3, rd, rs1, csr):
    """A Zicsr instruction word (rs1: the register number or the uimm)."""
    return csr << 20 | rs1 << 15 | funct3 << 12 | rd << 7 | 0x73


def alu_ref(op, a, b):
    """The RV32IM result of `op` on 32-bit operands a, b (b: rs2 or the
    sign-extended immediate): a third opinion next to qemu and the core."""
    a &= M32
    b &= M32
    sa, sb = s32(a), s32(b)
    op = {"addi": "add", "slti": "slt", "sltiu": "sltu", "xori": "xor", "ori": "or", "andi": "and",
          "slli": "sll", "srli": "srl", "srai": "sra"}.get(op, op)
    if op in ("div", "rem"):
        if b == 0:
            return M32 if op == "div" else a
        if sa == -2 ** 31 and sb == -1:
            return a if op == "div" else 0
        q = abs(sa) // abs(sb)
        q = q if (sa < 0) == (sb < 0) else -q       # rounds towards zero
        return (q if op == "div" else sa - q * sb) & M32
    r = {"add": lambda: a + b, "sub": lambda: a - b, "sll": lambda: a << (b & 31),
         "srl": lambda: a >> (b & 31), "sra": lambda: sa >> (b & 31), "slt": lambda: int(sa < sb),
         "sltu": lambda: int(a < b), "xor": lambda: a ^ b, "or": lambda: a | b, "and": lambda: a & b,
         "mul": lambda: a * b, "mulh": lambda: (sa * sb) >> 32, "mulhsu": lambda: (sa * b) >> 32,
         "mulhu": lambda: (a * b) >> 32, "divu": lambda: a // b if b else M32,
         "remu": lambda: a % b if b else a}[op]()
    return r & M32


def rand_value(rng):
    """Random 32-bit operands biased towards interesting magnitudes."""
    k = rng.randrange(6)
    if k == 0:
        return rng.getrandbits(32)
    if k == 1:
        return rng.randrange(-64, 64) & M32
    if k == 2:
        return (rng.choice(EDGE) + rng.randrange(-3, 4)) & M32
    if k == 3:
        return (1 << rng.randrange(32)) & M32
    if k == 4:
        return (~(1 << rng.randrange(32))) & M32
    return rng.getrandbits(rng.randrange(1, 33))


class Body:
    """One test program: assembly text plus the signature words' labels."""

    SIG = "x31"

    def __init__(self, name, qemu=True, doc=""):
        self.name = name
        self.qemu = qemu
        self.doc = doc
        self.text = []
        self.data = []
        self.labels = []
        self.expected = [] if not qemu else None
        self.model = {}        # word index -> value from alu_ref (qemu tests too)
        self.base = 0          # byte offset of x31 from isa_sig_begin
        self.nlabel = 0
        self.asm("la x31, isa_sig_begin")

    def asm(self, *lines):
        for line in lines:
            self.text.append("    " + line if not line.endswith(":") else line)

    def label(self):
        self.nlabel += 1
        return f"L{self.nlabel}"

    def li(self, reg, value):
        self.asm(f"li {reg}, {s32(value)}")

    def sig(self, reg, label, expect=None, model=None):
        """Store `reg` as the next signature word; `expect`: its value for a
        core-only test; `model`: its value per alu_ref (checked against qemu)."""
        if model is not None:
            self.model[len(self.labels)] = model & M32
        off = 4 * len(self.labels) - self.base
        if off > 2044:
            self.asm(f"addi x31, x31, 2040")
            self.base += 2040
            off -= 2040
        self.asm(f"sw {reg}, {off}(x31)")
        self.labels.append(label)
        if self.expected is not None:
            if expect is None:
                raise ValueError(f"{self.name}: core-only test word '{label}' needs an expected value")
            self.expected.append(expect & M32)

    def restore_sig_pointer(self):
        self.asm(f"la x31, isa_sig_begin + {self.base}")

    def source(self):
        n = len(self.labels)
        out = [f"/* {self.name}: generated by fw/isa/gen.py -- do not edit */",
               f"/* {self.doc} */" if self.doc else "",
               "    .text", "    .globl isa_body", "isa_body:"]
        out += self.text
        out += ["    j isa_finish", "",
                "    .data", "    .balign 16"]
        out += self.data
        out += ["    .balign 16", "    .globl isa_sig_begin", "isa_sig_begin:",
                f"    .fill {n}, 4, 0xdeadbeef", "    .globl isa_sig_end", "isa_sig_end:", ""]
        return "\n".join(out)

    def manifest(self):
        m = {"name": self.name, "doc": self.doc, "qemu": self.qemu, "labels": self.labels}
        if self.expected is not None:
            m["expected"] = self.expected
        m["model"] = {str(k): v for k, v in sorted(self.model.items())}
        return m


# ---------------------------------------------------------------------------
# RV32I: register-register and immediate ALU operations, LUI, AUIPC

R_OPS = ["add", "sub", "sll", "slt", "sltu", "xor", "srl", "sra", "or", "and"]
I_OPS = ["addi", "slti", "sltiu", "xori", "ori", "andi"]
SH_OPS = ["slli", "srli", "srai"]


def reg_op_aliasing(b, op, a, c, second):
    """A register-register op with aliased operands (rd = rs1, rd = rs2,
    rs1 = rs2 = rd), x0 as either source, and rd = x0 (the result is dropped
    and must not be forwarded either)."""
    b.li("a3", a); b.li("a4", c)
    b.asm(f"{op} a3, a3, a4")
    b.sig("a3", f"{op} rd=rs1 {hx(a)}, {hx(c)}")
    b.li("a3", a); b.li("a4", c)
    b.asm(f"{op} a4, a3, a4")
    b.sig("a4", f"{op} rd=rs2 {hx(a)}, {hx(c)}")
    b.li("a5", a)
    b.asm(f"{op} a5, a5, a5")
    b.sig("a5", f"{op} rd=rs1=rs2 {hx(a)}")
    b.li("a5", a)
    b.asm(f"{op} a6, x0, a5")
    b.sig("a6", f"{op} x0, {hx(a)}")
    b.asm(f"{op} a6, a5, x0")
    b.sig("a6", f"{op} {hx(a)}, x0")
    b.li("a0", 0x1234567); b.li("a1", second)
    b.asm(f"{op} x0, a0, a1", "add a2, x0, x0")
    b.sig("a2", f"{op} rd=x0 then read x0")


def gen_alu(rng):
    b = Body("rv32i_alu", doc="RV32I ALU: all register-register and register-immediate operations, "
                              "lui, auipc; edge operands, random operands, register aliasing, x0")
    for op in R_OPS:
        pairs = [(a, c) for a in EDGE for c in EDGE]
        pairs += [(rand_value(rng), rand_value(rng)) for _ in range(24)]
        for a, c in pairs:
            b.li("a0", a)
            b.li("a1", c)
            b.asm(f"{op} a2, a0, a1")
            b.sig("a2", f"{op} {hx(a)}, {hx(c)}", model=alu_ref(op, a, c))
        reg_op_aliasing(b, op, rand_value(rng), rand_value(rng), 0x89abcde)
    for op in I_OPS:
        pairs = [(a, i) for a in EDGE for i in IMM12]
        pairs += [(rand_value(rng), rng.randrange(-2048, 2048)) for _ in range(24)]
        for a, i in pairs:
            b.li("a0", a)
            b.asm(f"{op} a1, a0, {i}")
            b.sig("a1", f"{op} {hx(a)}, {i}", model=alu_ref(op, a, i))
        a, i = rand_value(rng), rng.randrange(-2048, 2048)
        b.li("a2", a)
        b.asm(f"{op} a2, a2, {i}")
        b.sig("a2", f"{op} rd=rs1 {hx(a)}, {i}")
        b.asm(f"{op} a3, x0, {i}")
        b.sig("a3", f"{op} x0, {i}")
        b.asm(f"{op} x0, a2, {i}", "mv a3, x0")
        b.sig("a3", f"{op} rd=x0 then read x0")
    for op in SH_OPS:
        pairs = [(a, s) for a in EDGE for s in SHAMT]
        pairs += [(rand_value(rng), rng.randrange(32)) for _ in range(16)]
        for a, s in pairs:
            b.li("a0", a)
            b.asm(f"{op} a1, a0, {s}")
            b.sig("a1", f"{op} {hx(a)}, {s}", model=alu_ref(op, a, s))
        b.li("a2", 0x80000001)
        b.asm(f"{op} a2, a2, 7")
        b.sig("a2", f"{op} rd=rs1 0x80000001, 7")
    # register-register shifts take only rs2[4:0]: amounts with upper bits set
    for op in ("sll", "srl", "sra"):
        for amount in (0x20, 0x21, 0x3F, 0xFFFFFFE0, 0xFFFFFFFF, 0x80000004):
            b.li("a0", 0x87654321); b.li("a1", amount)
            b.asm(f"{op} a2, a0, a1")
            b.sig("a2", f"{op} 0x87654321, {hx(amount)}", model=alu_ref(op, 0x87654321, amount))
    # every register as destination and source (x31, the signature pointer, too)
    for i in range(1, 32):
        r = f"x{i}"
        v = rand_value(rng)
        b.li(r, v)
        b.asm(f"addi {r}, {r}, 3", f"slli {r}, {r}, 1")
        if r == "x31":
            b.asm("mv x30, x31")
            b.restore_sig_pointer()
            r = "x30"
        b.sig(r, f"register x{i}: (li {hx(v)}; addi 3; slli 1)", model=((v + 3) << 1))
    # lui: the upper 20 bits, low 12 zero; lui + addi builds any constant
    for imm in [0, 1, 0x7FFFF, 0x80000, 0xFFFFF, 0x12345, 0xABCDE] + [rng.getrandbits(20) for _ in range(8)]:
        b.asm(f"lui a0, {imm}")
        b.sig("a0", f"lui {imm:#x}", model=imm << 12)
    for v in [0x800, 0xFFFFF800, 0x7FFFF7FF, rng.getrandbits(32)]:
        b.asm(f"lui a0, %hi({s32(v)})", f"addi a0, a0, %lo({s32(v)})")
        b.sig("a0", f"lui+addi {hx(v)}", model=v)
    b.asm("lui x0, 0x12345", "mv a0, x0")
    b.sig("a0", "lui rd=x0")
    # auipc: pc + (imm << 12); the link address is the same in both worlds
    for imm in [0, 1, 0x7FFFF, 0x80000, 0xFFFFF, 0x12345] + [rng.getrandbits(20) for _ in range(4)]:
        b.asm(f"auipc a0, {imm}")
        b.sig("a0", f"auipc {imm:#x}")
    l = b.label()
    b.asm(f"{l}:", f"auipc a0, 0", f"la a1, {l}", "sub a0, a0, a1")
    b.sig("a0", "auipc 0 - its own address (0)")
    # fence is a no-op for a single hart with no caches
    b.li("a0", 5)
    b.asm("fence", "fence rw, rw", "fence iorw, iorw", "addi a0, a0, 1")
    b.sig("a0", "fence; addi")
    return b


# ---------------------------------------------------------------------------
# RV32I: control transfer

BRANCHES = ["beq", "bne", "blt", "bge", "bltu", "bgeu"]


def branch_taken(op, a, c):
    a, c = a & M32, c & M32
    return {"beq": a == c, "bne": a != c, "blt": s32(a) < s32(c), "bge": s32(a) >= s32(c),
            "bltu": a < c, "bgeu": a >= c}[op]


def gen_ctrl(rng):
    b = Body("rv32i_ctrl", doc="RV32I control transfer: every branch forwards and backwards on edge "
                               "operands, jal/jalr link values, offsets, bit 0 of the jalr target")

    # branches: a2 = 1 when not taken, 2 when taken
    def branch(op, ra, rb, a, c, backward):
        b.li(ra, a)
        b.li(rb, c)
        b.asm("li a2, 0")
        taken, done = b.label(), b.label()
        if backward:
            start = b.label()
            b.asm(f"j {start}", f"{taken}:", "ori a2, a2, 2", f"j {done}",
                  f"{start}:", f"{op} {ra}, {rb}, {taken}", "ori a2, a2, 1", f"{done}:")
        else:
            b.asm(f"{op} {ra}, {rb}, {taken}", "ori a2, a2, 1", f"j {done}",
                  f"{taken}:", "ori a2, a2, 2", f"{done}:")
        b.sig("a2", f"{op} {hx(a)}, {hx(c)} {'backward' if backward else 'forward'} (1 not taken, 2 taken)",
              model=2 if branch_taken(op, a, c) else 1)

    for op in BRANCHES:
        pairs = [(a, c) for a in BRANCH_VALUES for c in BRANCH_VALUES]
        pairs += [(rand_value(rng), rand_value(rng)) for _ in range(8)]
        for a, c in pairs:
            branch(op, "a0", "a1", a, c, backward=False)
        for a, c in pairs[::3]:
            branch(op, "a0", "a1", a, c, backward=True)
        branch(op, "a3", "a3", 0x80000000, 0x80000000, backward=False)   # rs1 = rs2
        # x0 as an operand
        for v in (0, 1, M32):
            b.li("a0", v)
            b.asm("li a2, 0")
            t, d = b.label(), b.label()
            b.asm(f"{op} a0, x0, {t}", "ori a2, a2, 1", f"j {d}", f"{t}:", "ori a2, a2, 2", f"{d}:")
            b.sig("a2", f"{op} {hx(v)}, x0", model=2 if branch_taken(op, v, 0) else 1)
            b.asm("li a2, 0")
            t, d = b.label(), b.label()
            b.asm(f"{op} x0, a0, {t}", "ori a2, a2, 1", f"j {d}", f"{t}:", "ori a2, a2, 2", f"{d}:")
            b.sig("a2", f"{op} x0, {hx(v)}", model=2 if branch_taken(op, 0, v) else 1)
        # a branch right after the instruction producing its operand (bypass)
        b.li("a0", 41)
        b.asm("li a2, 0", "addi a1, a0, 1", "addi a0, a0, 1")
        t, d = b.label(), b.label()
        b.asm(f"{op} a0, a1, {t}", "ori a2, a2, 1", f"j {d}", f"{t}:", "ori a2, a2, 2", f"{d}:")
        b.sig("a2", f"{op} 42, 42 operands produced just before")

    # a long forward and backward branch (offset ~ +-3.5 KiB)
    far, back, done = b.label(), b.label(), b.label()
    b.asm("li a2, 0", "li a0, 1", f"bnez a0, {far}", "ori a2, a2, 1", f"{back}:", "ori a2, a2, 4",
          f"j {done}", ".skip 3500", f"{far}:", "ori a2, a2, 2", f"bnez a0, {back}", "ori a2, a2, 8",
          f"{done}:")
    b.sig("a2", "bnez far forward then far backward (6)")

    # jal: link = pc + 4 (raw addresses: the same in both worlds), target reached
    for rd in ("ra", "a0", "t0", "s11"):
        t = b.label()
        b.asm("li a2, 0", f"jal {rd}, {t}", "ori a2, a2, 1", f"{t}:", "ori a2, a2, 2")
        b.sig(rd, f"jal {rd}: link value")
        b.sig("a2", f"jal {rd}: path (2)")
        b.asm(f"la a3, {t}", f"sub a3, {rd}, a3")
        b.sig("a3", f"jal {rd}: link - target (0: the next instruction is the target)")
    # jal x0 (j), backwards, and a far jal (over 300 KiB)
    t, back, d = b.label(), b.label(), b.label()
    b.asm("li a2, 0", f"jal x0, {t}", f"{back}:", "ori a2, a2, 4", f"j {d}", f"{t}:", "ori a2, a2, 2",
          f"jal a5, {back}", f"{d}:")
    b.sig("a2", "j forward then jal backward (6)")
    b.sig("a5", "jal backward: link value")
    t = b.label()
    b.asm("li a2, 0", f"jal a5, {t}", "ori a2, a2, 1", ".skip 300000", f"{t}:", "ori a2, a2, 2")
    b.sig("a2", "jal over 300 KB: path (2)")
    b.sig("a5", "jal over 300 KB: link value")

    # jalr: offsets, bit 0 of the target ignored, rd = rs1, rd = x0
    for off in (0, 4, -4, 8, 2047, -2048, 1, -1, 3):
        t = b.label()
        # target must end up 4-byte aligned after clearing bit 0
        # rs1 = target - off  (for odd off, rs1 + off = target or target + 1)
        adj = off if off % 2 == 0 else off - 1
        b.asm("li a2, 0", f"la a0, {t}")
        b.li("a1", adj)
        b.asm("sub a0, a0, a1")
        b.asm(f"jalr a4, {off}(a0)", "ori a2, a2, 1", f"{t}:", "ori a2, a2, 2")
        b.sig("a2", f"jalr offset {off}: path (2)")
        b.asm(f"la a3, {t}", "sub a3, a4, a3")
        b.sig("a3", f"jalr offset {off}: link - target (0)")
    t = b.label()
    b.asm("li a2, 0", f"la a0, {t}", "jalr a0, 0(a0)", "ori a2, a2, 1", f"{t}:", "ori a2, a2, 2",
          f"la a3, {t}", "sub a3, a0, a3")
    b.sig("a2", "jalr rd=rs1: path (2)")
    b.sig("a3", "jalr rd=rs1: link - target (0)")
    t = b.label()
    b.asm("li a2, 0", f"la a0, {t}", "jalr x0, 0(a0)", "ori a2, a2, 1", f"{t}:", "ori a2, a2, 2",
          "mv a3, x0")
    b.sig("a2", "jalr x0: path (2)")
    b.sig("a3", "jalr x0: x0 stays 0")
    # call/return through a small function, with the target computed just before
    fn, d = b.label(), b.label()
    b.asm("li a0, 3", f"jal ra, {fn}", f"jal ra, {fn}", f"j {d}",
          f"{fn}:", "slli a0, a0, 1", "addi a0, a0, 1", "ret", f"{d}:")
    b.sig("a0", "call a function twice: (3*2+1)*2+1 = 15")
    t = b.label()
    b.asm("li a2, 0", f"la a0, {t}", "addi a0, a0, 0", "jalr a1, a0", "ori a2, a2, 1", f"{t}:", "ori a2, a2, 2")
    b.sig("a2", "jalr on a just-computed target: path (2)")
    return b


# ---------------------------------------------------------------------------
# RV32I: loads and stores (aligned accesses: the core traps misaligned ones)

LOAD_BYTES = [0x00, 0x7F, 0x80, 0xFF, 0x01, 0xFE, 0x81, 0x7E,
              0x12, 0x34, 0xF6, 0x78, 0x9A, 0xBC, 0xDE, 0xF0]


def gen_mem(rng):
    b = Body("rv32i_mem", doc="RV32I loads (lb/lh/lw/lbu/lhu) at every aligned offset and immediate "
                              "extremes, stores (sb/sh/sw) at every aligned offset, load-use and "
                              "store-load ordering")
    data = LOAD_BYTES + [rng.getrandbits(8) for _ in range(16)]
    b.data += ["isa_ldata:", "    .byte " + ", ".join(f"{x:#04x}" for x in data),
               "    .balign 16", "isa_scratch:", "    .fill 16, 4, 0", "isa_far_lo:", "    .fill 2048, 1, 0xa5",
               "isa_far_mid:", "    .fill 2064, 1, 0x5a"]
    loads = [("lb", 1), ("lbu", 1), ("lh", 2), ("lhu", 2), ("lw", 4)]
    for op, size in loads:
        for off in range(0, len(data), size):
            # base at the start, immediate = offset; and base past it, negative immediate
            b.asm("la a0, isa_ldata", f"{op} a1, {off}(a0)")
            b.sig("a1", f"{op} isa_ldata+{off}")
            b.asm(f"la a0, isa_ldata + {off + 32}", f"{op} a1, -32(a0)")
            b.sig("a1", f"{op} (isa_ldata+{off + 32})-32")
        # immediate extremes: -2048 and the largest aligned positive one
        pos = 2048 - size
        b.asm(f"la a0, isa_ldata + 2048", f"{op} a1, -2048(a0)")
        b.sig("a1", f"{op} -2048(base)")
        b.asm(f"la a0, isa_ldata + {size} - {pos}", f"{op} a1, {pos}(a0)")
        b.sig("a1", f"{op} {pos}(base)")
        # rd = rs1
        b.asm("la a2, isa_ldata + 4", f"{op} a2, 0(a2)")
        b.sig("a2", f"{op} rd=rs1")
        # rd = x0: no write, no forwarding
        b.asm("la a2, isa_ldata + 4", f"{op} x0, 0(a2)", "add a3, x0, x0")
        b.sig("a3", f"{op} rd=x0 then read x0")
        # load-use: the next instruction consumes the value
        b.asm(f"la a2, isa_ldata + {max(size, 2)}", f"{op} a3, {4 - max(size, 2)}(a2)",
              "addi a4, a3, 1", "add a5, a3, a3")
        b.sig("a4", f"{op} then addi (load-use)")
        b.sig("a5", f"{op} then add rd,rs,rs (load-use)")
        # a load whose address was just computed
        b.asm("la a2, isa_ldata", "addi a2, a2, 8", f"{op} a3, 0(a2)")
        b.sig("a3", f"{op} address just computed")
    # stores: fill the scratch with a pattern, store, read both words back
    stores = [("sb", 1), ("sh", 2), ("sw", 4)]
    values = [0x89ABCDEF, 0x7F80FF01, rng.getrandbits(32), 0]
    for op, size in stores:
        for off in range(0, 8, size):
            for v in values:
                b.asm("la a0, isa_scratch")
                b.li("a1", 0xA5A5A5A5)
                b.asm("sw a1, 0(a0)", "sw a1, 4(a0)")
                b.li("a2", v)
                if v == 0:
                    b.asm(f"{op} x0, {off}(a0)")
                else:
                    b.asm(f"{op} a2, {off}(a0)")
                b.asm("lw a3, 0(a0)", "lw a4, 4(a0)")
                src = "x0" if v == 0 else hx(v)
                b.sig("a3", f"{op} {src} at +{off}: word 0")
                b.sig("a4", f"{op} {src} at +{off}: word 1")
        # negative immediate, then the load of the same bytes right after
        b.asm("la a0, isa_scratch + 64")
        b.li("a2", 0x13579BDF)
        b.asm(f"{op} a2, -60(a0)", f"lw a3, -60(a0)", f"lbu a4, -60(a0)")
        b.sig("a3", f"{op} -60(base) then lw same address")
        b.sig("a4", f"{op} -60(base) then lbu same address")
        # store immediate extremes
        b.asm("la a0, isa_far_mid")
        b.li("a2", 0xC3C3C3C3)
        b.asm(f"{op} a2, -2048(a0)", "la a1, isa_far_lo", "lw a3, 0(a1)")
        b.sig("a3", f"{op} -2048(base)")
        pos = 2048 - size
        b.asm(f"la a0, isa_far_mid - {pos - 4}", f"{op} a2, {pos}(a0)", "la a1, isa_far_mid + 4", "lw a3, 0(a1)")
        b.sig("a3", f"{op} {pos}(base)")
        # the stored value produced by the previous instruction
        b.asm("la a0, isa_scratch", "sw x0, 0(a0)")
        b.li("a2", 0x11223344)
        b.asm("addi a2, a2, 0x55", f"{op} a2, 0(a0)", "lw a3, 0(a0)")
        b.sig("a3", f"{op} value just computed")
    # back-to-back stores and loads of different sizes to one word
    b.asm("la a0, isa_scratch")
    b.li("a1", 0x01020304)
    b.asm("sw a1, 8(a0)", "sb a1, 9(a0)", "sh a1, 10(a0)", "lw a2, 8(a0)", "lh a3, 10(a0)", "lb a4, 11(a0)")
    b.sig("a2", "sw/sb/sh one word: lw")
    b.sig("a3", "sw/sb/sh one word: lh +2")
    b.sig("a4", "sw/sb/sh one word: lb +3")
    # a copy loop (loads and stores interleaved)
    b.asm("la a0, isa_ldata", "la a1, isa_scratch", "li a2, 8")
    loop = b.label()
    b.asm(f"{loop}:", "lw a3, 0(a0)", "xori a3, a3, 0x5a", "sw a3, 0(a1)", "addi a0, a0, 4",
          "addi a1, a1, 4", "addi a2, a2, -1", f"bnez a2, {loop}")
    for i in range(8):
        b.asm(f"la a0, isa_scratch", f"lw a3, {4 * i}(a0)")
        b.sig("a3", f"copy loop word {i}")
    return b


# ---------------------------------------------------------------------------
# fence.i (Zifencei; part of RV32I in the 2.2 spec): self-modifying code.
# link.ld makes the one segment writable and executable so qemu-user runs it too.

def enc_i(rd, rs1, imm, funct3=0, opcode=0x13):
    return ((imm & 0xFFF) << 20) | (rs1 << 15) | (funct3 << 12) | (rd << 7) | opcode


def _patch_after_fencei(b, rng, gap, trials):
    A2 = 12
    for _ in range(trials):
        old, new = rng.randrange(-2048, 2048), rng.randrange(-2048, 2048)
        patch = b.label()
        b.asm(f"la a0, {patch}")
        b.li("a1", enc_i(A2, 0, new))
        b.asm("li a2, 0", "sw a1, 0(a0)", "fence.i", *["nop"] * gap, f"{patch}:", f"addi a2, x0, {old}")
        b.sig("a2", f"store 'addi a2,x0,{new}' over 'addi a2,x0,{old}' {gap} after fence.i",
              model=new)


def gen_fencei_adjacent(rng):
    b = Body("zifencei_adjacent", doc="fence.i: the instruction right after fence.i patched by a "
                                      "store just before it (the core fails this: see README.md)")
    _patch_after_fencei(b, rng, 0, 4)
    return b


def gen_fencei(rng):
    b = Body("zifencei", doc="fence.i: an instruction patched by a store just before fence.i, "
                             "1..3 instructions after it, and a function rewritten in a data "
                             "buffer and called after fence.i")
    A0 = 10
    for gap in (1, 2, 3):
        _patch_after_fencei(b, rng, gap, 3)
    # a routine in the data buffer: addi a0,a0,K; slli a0,a0,S; ret
    b.data += ["    .balign 16", "isa_codebuf:", "    .fill 4, 4, 0x00000013"]
    for trial in range(6):
        k, sh = rng.randrange(-2048, 2048), rng.randrange(32)
        b.asm("la a3, isa_codebuf")
        b.li("a1", enc_i(A0, A0, k))
        b.asm("sw a1, 0(a3)")
        b.li("a1", enc_i(A0, A0, sh, funct3=1))
        b.asm("sw a1, 4(a3)")
        b.li("a1", 0x00008067)                   # ret
        b.asm("sw a1, 8(a3)", "fence.i")
        v = rand_value(rng)
        b.li("a0", v)
        b.asm("jalr ra, 0(a3)")
        b.sig("a0", f"call rewritten routine (addi {k}; slli {sh}) on {hx(v)}",
              model=((v + k) << sh))
    return b


# ---------------------------------------------------------------------------
# RV32M

M_OPS = ["mul", "mulh", "mulhsu", "mulhu", "div", "divu", "rem", "remu"]


def gen_m(rng):
    b = Body("rv32m", doc="RV32M: every operation on edge operand pairs (division by zero, "
                          "INT_MIN / -1) and random pairs, aliasing, fused mulh/mul and div/rem "
                          "sequences, results used at once")
    extra = [0x00010000, 0xFFFF0000, 3, 0xFFFFFFFD, 7]
    for op in M_OPS:
        vals = EDGE + extra
        pairs = [(a, c) for a in vals for c in vals]
        pairs += [(rand_value(rng), rand_value(rng)) for _ in range(32)]
        for a, c in pairs:
            b.li("a0", a)
            b.li("a1", c)
            b.asm(f"{op} a2, a0, a1")
            b.sig("a2", f"{op} {hx(a)}, {hx(c)}", model=alu_ref(op, a, c))
        a, c = rand_value(rng), rand_value(rng) | 1
        reg_op_aliasing(b, op, a, c, 0x89)
        # the result consumed by the next instruction, and operands just produced
        b.li("a0", a); b.li("a1", c)
        b.asm("addi a0, a0, 1", "addi a1, a1, 2", f"{op} a2, a0, a1", "addi a3, a2, 1", f"{op} a4, a2, a3")
        b.sig("a3", f"{op} result used at once")
        b.sig("a4", f"{op} chained")
    # recommended fused sequences
    for a, c in [(0x80000000, M32), (rand_value(rng), rand_value(rng)), (0x7FFFFFFF, 0x7FFFFFFF)]:
        b.li("a0", a); b.li("a1", c)
        b.asm("mulh a2, a0, a1", "mul a3, a0, a1")
        b.sig("a2", f"mulh;mul {hx(a)}, {hx(c)}: high")
        b.sig("a3", f"mulh;mul {hx(a)}, {hx(c)}: low")
        b.asm("mulhu a2, a0, a1", "mul a3, a0, a1")
        b.sig("a2", f"mulhu;mul {hx(a)}, {hx(c)}: high")
        b.sig("a3", f"mulhu;mul {hx(a)}, {hx(c)}: low")
        b.asm("div a2, a0, a1", "rem a3, a0, a1")
        b.sig("a2", f"div;rem {hx(a)}, {hx(c)}: quotient")
        b.sig("a3", f"div;rem {hx(a)}, {hx(c)}: remainder")
        b.asm("divu a2, a0, a1", "remu a3, a0, a1")
        b.sig("a2", f"divu;remu {hx(a)}, {hx(c)}: quotient")
        b.sig("a3", f"divu;remu {hx(a)}, {hx(c)}: remainder")
    return b


# ---------------------------------------------------------------------------
# Random instruction streams: every RV32IM computational instruction plus
# loads/stores and short forward branches, dependent back to back, then every
# register and the scratch memory go to the signature.

STREAM_R = R_OPS + M_OPS
STREAM_I = I_OPS


def gen_random(rng, blocks=16, length=100):
    b = Body("random_streams", doc=f"{blocks} random RV32IM instruction streams of {length} "
                                   f"instructions (seed {SEED}): dependencies back to back, "
                                   "loads/stores, short branches; all registers dumped")
    b.data += ["    .balign 16", "isa_rscratch:", "    .fill 32, 4, 0"]
    regs = [f"x{i}" for i in range(1, 30)]    # x30 = memory base, x31 = signature
    for blk in range(blocks):
        b.asm("la x30, isa_rscratch + 64")
        for i in range(32):
            b.li("x1", rng.getrandbits(32))
            b.asm(f"sw x1, {4 * i - 64}(x30)")
        for r in regs:
            b.li(r, rand_value(rng))
        recent = []

        def src():
            # favour the registers written just before (forwarding paths) and x0
            k = rng.random()
            if recent and k < 0.5:
                return rng.choice(recent[-3:])
            if k < 0.55:
                return "x0"
            return rng.choice(regs)

        def dst():
            r = "x0" if rng.random() < 0.03 else rng.choice(regs)
            recent.append(r)
            return r

        for _ in range(length):
            k = rng.random()
            if k < 0.35:
                op = rng.choice(STREAM_R)
                s1, s2 = src(), src()
                b.asm(f"{op} {dst()}, {s1}, {s2}")
            elif k < 0.55:
                op = rng.choice(STREAM_I)
                s1 = src()
                b.asm(f"{op} {dst()}, {s1}, {rng.randrange(-2048, 2048)}")
            elif k < 0.62:
                op = rng.choice(SH_OPS)
                s1 = src()
                b.asm(f"{op} {dst()}, {s1}, {rng.randrange(32)}")
            elif k < 0.65:
                b.asm(f"lui {dst()}, {rng.getrandbits(20)}")
            elif k < 0.77:
                op, size = rng.choice([("lb", 1), ("lbu", 1), ("lh", 2), ("lhu", 2), ("lw", 4)])
                off = rng.randrange(-64, 64) // size * size
                b.asm(f"{op} {dst()}, {off}(x30)")
            elif k < 0.87:
                op, size = rng.choice([("sb", 1), ("sh", 2), ("sw", 4)])
                off = rng.randrange(-64, 64) // size * size
                b.asm(f"{op} {src()}, {off}(x30)")
            else:
                op = rng.choice(BRANCHES)
                s1, s2 = src(), src()
                skip = b.label()
                b.asm(f"{op} {s1}, {s2}, {skip}")
                for _ in range(rng.randrange(1, 3)):
                    b.asm(f"addi {dst()}, {src()}, {rng.randrange(-2048, 2048)}")
                b.asm(f"{skip}:")
        for r in regs:
            b.sig(r, f"stream {blk}: {r}")
        for i in range(32):
            b.asm(f"lw x1, {4 * i - 64}(x30)")
            b.sig("x1", f"stream {blk}: scratch word {i}")
    return b


# ---------------------------------------------------------------------------
# Machine-mode CSRs and traps: not available under qemu-user, so this test
# carries its expected values (computed here from the privileged spec and the
# documented configuration of the clint variant, cores/README.md).

def gen_csr(rng, variant="clint"):
    b = Body("machine_csr", qemu=False,
             doc="Machine-mode CSRs (mscratch read-modify-write forms, mtvec, mepc, mcause, mtval, "
                 "mstatus.MIE, ID registers, misa, counters) and synchronous traps (ecall, ebreak, "
                 "illegal instruction, misaligned load/store/jump); expected values in this file")
    model = {"mscratch": 0}

    def csr_op(op, rd, csr, src, label):
        """Emit a CSR instruction on mscratch and model it. src: register (with
        its value) or an immediate for the *i forms."""
        old = model[csr]
        if op.endswith("i"):
            v, srcs = src, str(src)
        else:
            srcs, v = src
        kind = op[4]                      # csrr[w|s|c][i]
        # csrrs/csrrc with rs1 = x0 or uimm = 0 do not write
        writes = kind == "w" or (srcs != "x0" and not (op.endswith("i") and v == 0))
        new = {"w": v, "s": old | v, "c": old & ~v}[kind]
        if writes:
            model[csr] = new & M32
        b.asm(f"{op} {rd}, {csr}, {srcs}")
        if rd != "x0":
            b.sig(rd, f"{label}: old value", old)

    b.li("a0", 0x12345678)
    b.asm("csrw mscratch, a0", "csrr a1, mscratch")
    model["mscratch"] = 0x12345678
    b.sig("a1", "csrw/csrr mscratch", 0x12345678)
    for v in [0xFFFFFFFF, 0x80000001, 0x0F0F0F0F, rng.getrandbits(32)]:
        b.li("a2", v)
        csr_op("csrrw", "a1", "mscratch", ("a2", v), f"csrrw {hx(v)}")
        val = rng.getrandbits(32)
        b.li("a2", val)
        csr_op("csrrs", "a1", "mscratch", ("a2", val), f"csrrs {hx(val)}")
        val = rng.getrandbits(32)
        b.li("a2", val)
        csr_op("csrrc", "a1", "mscratch", ("a2", val), f"csrrc {hx(val)}")
        b.asm("csrr a3, mscratch")
        b.sig("a3", "csrr mscratch", model["mscratch"])
    for imm in (0, 1, 0x1F, 0x15):
        csr_op("csrrwi", "a1", "mscratch", imm, f"csrrwi {imm}")
        csr_op("csrrsi", "a1", "mscratch", 0x0A, "csrrsi 10")
        csr_op("csrrci", "a1", "mscratch", 0x03, "csrrci 3")
        csr_op("csrrsi", "a1", "mscratch", 0, "csrrsi 0 (no write)")
        csr_op("csrrci", "a1", "mscratch", 0, "csrrci 0 (no write)")
    b.li("a2", 0xCAFEF00D)
    csr_op("csrrw", "x0", "mscratch", ("a2", 0xCAFEF00D), "csrrw rd=x0")
    csr_op("csrrs", "a1", "mscratch", ("x0", 0), "csrrs rs1=x0 (no write)")
    csr_op("csrrc", "a1", "mscratch", ("x0", 0), "csrrc rs1=x0 (no write)")
    # rd = rs1: the old value lands in rd, the write uses the old rs1
    b.li("a4", 0x00FF00FF)
    b.asm("csrrw a4, mscratch, a4", "csrr a5, mscratch")
    b.sig("a4", "csrrw rd=rs1: old value", model["mscratch"])
    model["mscratch"] = 0x00FF00FF
    b.sig("a5", "csrrw rd=rs1: new value", 0x00FF00FF)
    # a CSR value used by the next instruction, a CSR write from a just-computed value
    b.li("a0", 100)
    b.asm("addi a0, a0, 1", "csrw mscratch, a0", "csrr a1, mscratch", "addi a1, a1, 1")
    b.sig("a1", "addi; csrw; csrr; addi (bypass through CSR)", 102)

    # read-only identification and misa
    for csr, v in (("mvendorid", 0), ("marchid", 0), ("mimpid", 0), ("mhartid", 0),
                   ("misa", 0x40001100)):
        b.asm(f"csrr a0, {csr}")
        b.sig("a0", f"{csr}", v)
    # mtvec: direct and vectored mode, then restore the stub's handler
    b.asm("csrr s0, mtvec")
    clic = variant == "clic"
    for v in (0x00012340, 0x00012341, 0x7FFFFFC0):
        b.li("a0", v)
        b.asm("csrw mtvec, a0", "csrr a1, mtvec")
        # CLIC: mode hardwired to 11 (CLIC mode), base 64-byte aligned
        b.sig("a1", f"mtvec write {hx(v)}", (v & ~63) | 3 if clic else v)
    b.asm("csrw mtvec, s0")
    if clic:
        gen_clic_csrs(b)
    for v in (0x00001234 & ~3, 0x7FFFFFFC, 0x80000000):
        b.li("a0", v)
        b.asm("csrw mepc, a0", "csrr a1, mepc")
        b.sig("a1", f"mepc write {hx(v)}", v)
    # mstatus.MIE and mie without pending interrupts
    b.asm("csrsi mstatus, 8", "csrr a0, mstatus", "andi a0, a0, 8")
    b.sig("a0", "csrsi mstatus,MIE: MIE", 8)
    b.asm("csrci mstatus, 8", "csrr a0, mstatus", "andi a0, a0, 8")
    b.sig("a0", "csrci mstatus,MIE: MIE", 0)
    # counters
    b.asm("csrr a0, mcycle", "nop", "nop", "csrr a1, mcycle", "sltu a2, a0, a1")
    b.sig("a2", "mcycle increases", 1)
    b.asm("rdcycle a0", "nop", "rdcycle a1", "sltu a2, a0, a1")
    b.sig("a2", "cycle (0xC00) increases", 1)
    b.asm("csrr a0, minstret", "nop", "nop", "nop", "nop", "nop", "csrr a1, minstret", "sub a2, a1, a0")
    b.sig("a2", "minstret: csrr; 5 x nop; csrr -> difference 6", 6)
    b.li("a0", 1000)
    b.asm("csrw mcycle, a0", "csrr a1, mcycle", "sltiu a2, a1, 1000", "sltiu a3, a1, 1100")
    b.sig("a2", "mcycle written 1000, read back < 1000?", 0)
    b.sig("a3", "mcycle written 1000, read back < 1100?", 1)

    # synchronous traps: a handler records mcause/mepc/mtval and skips the instruction
    b.data += ["    .balign 4", "isa_trap_save:", "    .fill 4, 4, 0"]
    handler, after = "isa_csr_trap", b.label()
    b.asm(f"j {after}", "    .balign 64", f"{handler}:", "la t0, isa_trap_save",
          "csrr t1, mcause", "sw t1, 0(t0)", "csrr t1, mepc", "sw t1, 4(t0)",
          "csrr t1, mtval", "sw t1, 8(t0)", "lw t1, 12(t0)", "addi t1, t1, 1", "sw t1, 12(t0)",
          "csrr t1, mepc", "addi t1, t1, 4", "csrw mepc, t1", "mret", f"{after}:",
          f"la t0, {handler}", "csrw mtvec, t0")

    def trap(name, code, cause, tval, tval_name=None):
        """`code` traps at its last line. tval: the mtval the spec asks for, an
        int, or (label, offset) for an address (label None: the trapping
        instruction), checked as mtval - address = 0 since the generator does
        not know the link addresses; tval_name says what that address is."""
        at = b.label()
        b.asm("la t0, isa_trap_save", "sw x0, 12(t0)", "li a7, 0x77")
        b.asm(*code[:-1])
        b.asm(f"{at}:", code[-1])
        b.asm("addi a7, a7, 1")          # executed after the handler returns
        b.asm("la t0, isa_trap_save", "lw a0, 0(t0)", "lw a1, 4(t0)", "lw a2, 8(t0)", "lw a3, 12(t0)",
              f"la a4, {at}", "sub a1, a1, a4")
        # CLIC mcause also shows mpp (always M: 11) and mpie (MIE was 0)
        b.sig("a0", f"{name}: mcause", cause | (0x30000000 if clic else 0))
        b.sig("a1", f"{name}: mepc - trapping instruction (0)", 0)
        b.sig("a3", f"{name}: handler entered once", 1)
        b.sig("a7", f"{name}: resumed after it (0x78)", 0x78)
        if isinstance(tval, int):
            b.sig("a2", f"{name}: mtval {hx(tval)}", tval)
        else:
            label, off = tval
            b.asm(f"la a4, {label or at}{off:+d}", "sub a2, a2, a4")
            b.sig("a2", f"{name}: mtval - ({tval_name or 'its pc'}) (0)", 0)

    # mtval per trap kind (privileged spec 3.1.16; the choices where the spec
    # leaves one are the same on every variant, cores/README.md):
    #  - ecall: 0 (the spec allows nothing else)
    #  - ebreak: the pc of the ebreak (the spec allows 0 or the pc)
    #  - illegal instruction: the instruction's bits (the spec allows 0 or the bits)
    #  - misaligned load/store: the effective address rs1 + imm
    #  - misaligned fetch: the target of the jump/branch (the instruction traps, mepc = its pc)
    trap("ecall", ["ecall"], 11, 0)
    trap("ebreak", ["ebreak"], 3, (None, 0))
    a0 = 10
    for name, line, bits in (
            ("illegal (0x00000000)", ".word 0", 0),
            ("illegal (0xffffffff)", ".word 0xffffffff", 0xFFFFFFFF),
            ("illegal fadd.s (no F)", f".word {hx(enc_r(0x53, 7, 0, 1, 2, 3))}", enc_r(0x53, 7, 0, 1, 2, 3)),
            ("illegal sret (no S mode)", f".word {hx(0x10200073)}", 0x10200073),
            ("csrw to read-only mvendorid", "csrw mvendorid, x0", enc_csr(1, 0, 0, 0xF11)),
            ("csrrsi 1 on read-only mhartid", "csrrsi x0, mhartid, 1", enc_csr(6, 0, 1, 0xF14)),
            ("csrr of a non-existent CSR 0x8ff", "csrr a0, 0x8ff", enc_csr(2, a0, 0, 0x8FF))):
        trap(name, [line], 2, bits)
    # misaligned load/store: mtval = rs1 + imm (a5 = base + 5, so positive
    # and negative immediates both land misaligned)
    size = {"lw": 4, "lh": 2, "lhu": 2, "sw": 4, "sh": 2}
    for op, imm, cause in (("lw", -4, 4), ("lw", -3, 4), ("lw", -2, 4), ("lw", 1, 4), ("lh", -4, 4),
                           ("lh", 2, 4), ("lhu", -2, 4),
                           ("sw", -3, 6), ("sw", 1, 6), ("sw", 2, 6), ("sh", -4, 6), ("sh", -2, 6)):
        assert (5 + imm) % size[op], (op, imm)
        instr = f"{op} a6, {imm}(a5)"
        trap(f"misaligned {instr}", ["la a5, isa_trap_save + 5", instr], cause, ("isa_trap_save", 5 + imm),
             f"a5 {imm:+d}")
    # a load that traps must not write its destination
    b.li("a6", 0x5555)
    trap("misaligned lw keeps rd", ["la a5, isa_trap_save", "lw a6, 1(a5)"], 4, ("isa_trap_save", 1), "a5 + 1")
    b.sig("a6", "misaligned lw: rd unchanged", 0x5555)
    # jump to a 2-byte aligned target (no C extension): the jump traps, mepc =
    # the jump, mtval = the target ((rs1 + imm) & ~1 for jalr), rd unchanged
    for name, base, instr in (("jalr to +2", 2, "jalr a6, 0(a5)"), ("jalr 2(rs1)", 0, "jalr a6, 2(a5)"),
                              ("jalr odd: (+1) + 1", 1, "jalr a6, 1(a5)"),
                              ("jalr odd: (+5) - 3", 5, "jalr a6, -3(a5)")):
        tgt = b.label()
        b.li("a6", 0x6666)
        imm = int(instr.split(", ")[1].split("(")[0])
        trap(name, [f"la a5, {tgt}", f"addi a5, a5, {base}", instr], 0, (tgt, (base + imm) & ~1),
             "(a5 + imm) & ~1")
        b.sig("a6", f"{name}: rd unchanged", 0x6666)
        b.asm(f"j {tgt}", f"{tgt}:", "nop")
    # taken branch / jal to a target 2 mod 4: trap at the branch, mtval = the
    # target (a7 = 0x77 when each of these runs)
    b.li("a6", 0x6666)
    for name, code in (("taken beq to +6", "beq x0, x0, .+6"), ("jal to +6", "jal a6, .+6"),
                       ("taken bltu to -2", "bltu x0, a7, .-2"), ("taken bne to +10", "bne x0, a7, .+10"),
                       ("taken blt to -6", "blt x0, a7, .-6"), ("taken bge to +2050", "bge a7, x0, .+2050"),
                       ("taken bgeu to -2046", "bgeu a7, x0, .-2046"), ("jal to -1030", "jal x0, .-1030")):
        here = b.label()
        trap(name, [f"{here}:", code], 0, (here, int(code.split(".")[-1])), "its pc + offset")
    b.sig("a6", "jal to +6: rd unchanged", 0x6666)
    b.asm("li a2, 0", "li a7, 0x77", "bne x0, x0, .+6", "addi a7, a7, 1", "addi a2, a2, 1")
    b.sig("a7", "branch not taken to +6: no trap (0x78)", 0x78)
    b.asm("la t0, isa_trap_save", "lw a3, 12(t0)")
    b.sig("a3", "branch not taken to +6: handler count unchanged (1)", 1)
    b.asm("csrw mtvec, s0")
    return b


def gen_clic_csrs(b):
    """The CLIC variant's own CSRs (docs/CLIC.md), with no interrupt pending."""
    for v in (0x00012345, 0xFFFFFFFF):
        b.li("a0", v)
        b.asm("csrw 0x307, a0", "csrr a1, 0x307")
        b.sig("a1", f"mtvt write {hx(v)}: 64-byte aligned", v & ~63)
    b.asm("csrw 0x307, x0")
    b.li("a0", 0x1FF)
    b.asm("csrw 0x347, a0", "csrr a1, 0x347", "csrw 0x347, x0")
    b.sig("a1", "mintthresh write 0x1ff: 8 bits", 0xFF)
    b.asm("csrr a0, 0x346")
    b.sig("a0", "mintstatus at level 0", 0)
    b.asm("csrr a0, 0x345", "csrrsi a1, 0x345, 0")
    b.sig("a0", "mnxti read, nothing pending", 0)
    b.sig("a1", "csrrsi mnxti 0, nothing pending", 0)
    b.asm("csrsi mstatus, 8", "csrrci a0, 0x345, 8", "csrr a1, mstatus", "andi a1, a1, 8")
    b.sig("a0", "csrrci mnxti, MIE: nothing pending", 0)
    b.sig("a1", "csrrci mnxti, MIE clears mstatus.MIE", 0)
    b.asm("csrr a0, mstatus", "li a1, 0x1800", "and a0, a0, a1")
    b.sig("a0", "mstatus.MPP reads M (11)", 0x1800)
    b.asm("csrr s1, mcause")
    b.li("a0", 0xC8AB0123)
    b.asm("csrw mcause, a0", "csrr a1, mcause", "csrr a2, mstatus", "andi a2, a2, 0x80", "csrw mcause, s1")
    b.sig("a1", "mcause write: interrupt, minhv, mpp, mpie, mpil, exccode", 0xC8AB0123 | (3 << 28))
    b.sig("a2", "mcause.mpie aliases mstatus.MPIE", 0x80)
    for csr in ("mie", "mip"):
        b.li("a0", 0xFFFFFFFF)
        b.asm(f"csrw {csr}, a0", f"csrr a1, {csr}")
        b.sig("a1", f"{csr}: inactive in CLIC mode (reads 0)", 0)
    b.li("a0", 0x12345678)
    b.asm("csrw misa, a0", "csrr a1, misa")
    b.sig("a1", "misa write ignored", 0x40001100)
    b.asm("csrwi mcountinhibit, 1", "csrr a0, mcycle", "nop", "csrr a1, mcycle", "sub a2, a1, a0",
          "csrr a3, mcountinhibit", "csrwi mcountinhibit, 0")
    b.sig("a2", "mcountinhibit.CY stops mcycle", 0)
    b.sig("a3", "mcountinhibit reads back", 1)


# test name -> generator (the name is also the body's)
GENERATORS = {"rv32i_alu": gen_alu, "rv32i_ctrl": gen_ctrl, "rv32i_mem": gen_mem,
              "zifencei": gen_fencei, "zifencei_adjacent": gen_fencei_adjacent, "rv32m": gen_m,
              "random_streams": gen_random, "machine_csr": gen_csr}


def generate(out_dir, names=None, variant="clint"):
    """Write the tests' (default: all) .S and .json into out_dir; return the manifests."""
    os.makedirs(out_dir, exist_ok=True)
    manifests = []
    for name, g in GENERATORS.items():
        if names is not None and name not in names:
            continue
        rng = random.Random(f"{SEED}:{name}")
        body = g(rng, variant=variant) if g is gen_csr else g(rng)
        assert body.name == name, (body.name, name)
        with open(os.path.join(out_dir, body.name + ".S"), "w") as f:
            f.write(body.source())
        m = body.manifest()
        with open(os.path.join(out_dir, body.name + ".json"), "w") as f:
            json.dump(m, f, indent=0)
        manifests.append(m)
    return manifests


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for m in generate(sys.argv[1]):
        print(f"{m['name']}: {len(m['labels'])} words{'' if m['qemu'] else ' (core only)'}")
