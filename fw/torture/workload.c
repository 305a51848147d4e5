/* The torture test's checksum workload: a long deterministic mixing loop, in
 * assembly, that keeps live values in every register x1, x3..x31 (ra, gp,
 * tp, t0-t6, s0-s11, a0-a7) and uses sp as the base of its own data: a
 * 128-word buffer and scratch slots in its stack frame. Each turn runs about
 * 200 instructions: add/sub/xor/shift/rotate mixing, all eight RV32M
 * operations (division by zero and overflow included when the data produce
 * them), word/half/byte loads and stores at data-dependent addresses (and
 * loads of the caller's state array, which it only reads), taken
 * and not-taken data-dependent branches, and a part that runs with sp moved
 * down by 16 bytes (so interrupt frames land at varying depths).
 *
 * Almost every step is invertible (x op= f(y, z) with x not in {y, z}, or a
 * rotation), so a register or buffer word corrupted at any point changes
 * the final state: the state after N turns must be the same with and
 * without interrupts, and the same as under qemu-riscv32 (the host test
 * builds this file for Linux user mode).
 *
 * Temporaries: an operation that needs one saves a register to a scratch
 * slot, uses it, and reloads it, so no register is ever dead.
 *
 * Self-contained on purpose (no irqlab header). */
#include "workload.h"

void work_init(uint32_t *state, uint32_t seed) {
    uint32_t x = seed ? seed : 0x2545f491u;
    for (int i = 0; i < WORK_WORDS; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        state[i] = x;
    }
}

uint32_t work_digest(const uint32_t *state) {
    uint32_t h = 2166136261u;
    for (int i = 0; i < WORK_WORDS; i++)
        for (int b = 0; b < 32; b += 8)
            h = (h ^ ((state[i] >> b) & 0xff)) * 16777619u;
    return h;
}

/* Frame (offsets from sp outside the sp-shifted part): buffer, turn counter,
 * two scratch slots, the state pointer, the callee-saved registers, the
 * yield word. */
__asm__(
"    .equ W_BUF, 0\n"
"    .equ W_CNT, 512\n"
"    .equ W_T0, 516\n"
"    .equ W_T1, 520\n"
"    .equ W_OUT, 524\n"
"    .equ W_SAVE, 528\n"
"    .equ W_YIELD, 588\n"
"    .equ W_FRAME, 592\n"

/* a += b; c ^= a */
"    .macro ARX a, b, c\n"
"    add \\a, \\a, \\b\n"
"    xor \\c, \\c, \\a\n"
"    .endm\n"
/* a -= b; c += a */
"    .macro SUBX a, b, c\n"
"    sub \\a, \\a, \\b\n"
"    add \\c, \\c, \\a\n"
"    .endm\n"
/* x = rotl(x, s), t as temporary */
"    .macro ROT x, s, t, o=0\n"
"    sw \\t, (W_T0+\\o)(sp)\n"
"    srli \\t, \\x, (32-\\s)\n"
"    slli \\x, \\x, \\s\n"
"    or \\x, \\x, \\t\n"
"    lw \\t, (W_T0+\\o)(sp)\n"
"    .endm\n"
/* x ^= op(y, z) */
"    .macro FEI op, x, y, z, t, o=0\n"
"    sw \\t, (W_T0+\\o)(sp)\n"
"    \\op \\t, \\y, \\z\n"
"    xor \\x, \\x, \\t\n"
"    lw \\t, (W_T0+\\o)(sp)\n"
"    .endm\n"
/* x += op(y, z) */
"    .macro FEA op, x, y, z, t, o=0\n"
"    sw \\t, (W_T0+\\o)(sp)\n"
"    \\op \\t, \\y, \\z\n"
"    add \\x, \\x, \\t\n"
"    lw \\t, (W_T0+\\o)(sp)\n"
"    .endm\n"
/* x *= K (odd) */
"    .macro MULK x, t, k, o=0\n"
"    sw \\t, (W_T0+\\o)(sp)\n"
"    li \\t, \\k\n"
"    mul \\x, \\x, \\t\n"
"    lw \\t, (W_T0+\\o)(sp)\n"
"    .endm\n"
/* word: x ^= buf[y]; buf[y] += z */
"    .macro MEMW x, y, z, t, u, o=0\n"
"    sw \\t, (W_T0+\\o)(sp)\n"
"    sw \\u, (W_T1+\\o)(sp)\n"
"    andi \\t, \\y, 0x1fc\n"
"    add \\t, \\t, sp\n"
"    lw \\u, (W_BUF+\\o)(\\t)\n"
"    xor \\x, \\x, \\u\n"
"    add \\u, \\u, \\z\n"
"    sw \\u, (W_BUF+\\o)(\\t)\n"
"    lw \\u, (W_T1+\\o)(sp)\n"
"    lw \\t, (W_T0+\\o)(sp)\n"
"    .endm\n"
/* halfword (signed load): x += buf16[y]; buf16[y] -= z */
"    .macro MEMH x, y, z, t, u, o=0\n"
"    sw \\t, (W_T0+\\o)(sp)\n"
"    sw \\u, (W_T1+\\o)(sp)\n"
"    andi \\t, \\y, 0x1fe\n"
"    add \\t, \\t, sp\n"
"    lh \\u, (W_BUF+\\o)(\\t)\n"
"    add \\x, \\x, \\u\n"
"    sub \\u, \\u, \\z\n"
"    sh \\u, (W_BUF+\\o)(\\t)\n"
"    lw \\u, (W_T1+\\o)(sp)\n"
"    lw \\t, (W_T0+\\o)(sp)\n"
"    .endm\n"
/* byte: x ^= buf8[y] (unsigned) and x += buf8[y+1] (signed); buf8[y] += z */
"    .macro MEMB x, y, z, t, u, o=0\n"
"    sw \\t, (W_T0+\\o)(sp)\n"
"    sw \\u, (W_T1+\\o)(sp)\n"
"    andi \\t, \\y, 0x1fe\n"
"    add \\t, \\t, sp\n"
"    lb \\u, (W_BUF+1+\\o)(\\t)\n"
"    add \\x, \\x, \\u\n"
"    lbu \\u, (W_BUF+\\o)(\\t)\n"
"    xor \\x, \\x, \\u\n"
"    add \\u, \\u, \\z\n"
"    sb \\u, (W_BUF+\\o)(\\t)\n"
"    lw \\u, (W_T1+\\o)(sp)\n"
"    lw \\t, (W_T0+\\o)(sp)\n"
"    .endm\n"
/* far: the caller's state array, which the run only reads (its first 32
 * words): x += far16[y] (signed), x ^= far8[y] (unsigned), x -= far[y]. On
 * SoCs with TCMs the torture firmware keeps the state behind the bus, so
 * these loads still wait in memory when an interrupt arrives (the loads a
 * fastirq entry leaves behind); u is their destination. */
"    .macro MEMF x, y, t, u\n"
"    sw \\t, W_T0(sp)\n"
"    sw \\u, W_T1(sp)\n"
"    andi \\t, \\y, 0x7c\n"
"    lw \\u, W_OUT(sp)\n"
"    add \\t, \\t, \\u\n"
"    lh \\u, 2(\\t)\n"
"    add \\x, \\x, \\u\n"
"    lbu \\u, 1(\\t)\n"
"    xor \\x, \\x, \\u\n"
"    lw \\u, 0(\\t)\n"
"    sub \\x, \\x, \\u\n"
"    lw \\u, W_T1(sp)\n"
"    lw \\t, W_T0(sp)\n"
"    .endm\n"
/* if (a cond b) c += k2 else c ^= k1 */
"    .macro BR cond, a, b, c, k1, k2\n"
"    \\cond \\a, \\b, 1f\n"
"    xori \\c, \\c, \\k1\n"
"    j 2f\n"
"1:  addi \\c, \\c, \\k2\n"
"2:\n"
"    .endm\n"

"    .section .text.work_run, \"ax\"\n"
"    .balign 4\n"
"    .global work_run\n"
"    .type work_run, @function\n"
"work_run:\n"
"    addi sp, sp, -W_FRAME\n"
"    sw ra, (W_SAVE+0)(sp)\n"
"    sw gp, (W_SAVE+4)(sp)\n"
"    sw tp, (W_SAVE+8)(sp)\n"
"    sw s0, (W_SAVE+12)(sp)\n"
"    sw s1, (W_SAVE+16)(sp)\n"
"    sw s2, (W_SAVE+20)(sp)\n"
"    sw s3, (W_SAVE+24)(sp)\n"
"    sw s4, (W_SAVE+28)(sp)\n"
"    sw s5, (W_SAVE+32)(sp)\n"
"    sw s6, (W_SAVE+36)(sp)\n"
"    sw s7, (W_SAVE+40)(sp)\n"
"    sw s8, (W_SAVE+44)(sp)\n"
"    sw s9, (W_SAVE+48)(sp)\n"
"    sw s10, (W_SAVE+52)(sp)\n"
"    sw s11, (W_SAVE+56)(sp)\n"
"    sw a0, W_OUT(sp)\n"
"    sw a1, W_CNT(sp)\n"
"    sw a2, W_YIELD(sp)\n"
     /* the buffer: state[30..157] -> frame */
"    addi t0, a0, 120\n"
"    addi t1, sp, W_BUF\n"
"    addi t2, sp, W_BUF+512\n"
"1:  lw t3, 0(t0)\n"
"    sw t3, 0(t1)\n"
"    addi t0, t0, 4\n"
"    addi t1, t1, 4\n"
"    bltu t1, t2, 1b\n"
     /* the registers: state[0..29] = x1, x3..x31 (a0 = x10 last) */
"    lw ra, 0(a0)\n"
"    lw gp, 4(a0)\n"
"    lw tp, 8(a0)\n"
"    lw t0, 12(a0)\n"
"    lw t1, 16(a0)\n"
"    lw t2, 20(a0)\n"
"    lw s0, 24(a0)\n"
"    lw s1, 28(a0)\n"
"    lw a1, 36(a0)\n"
"    lw a2, 40(a0)\n"
"    lw a3, 44(a0)\n"
"    lw a4, 48(a0)\n"
"    lw a5, 52(a0)\n"
"    lw a6, 56(a0)\n"
"    lw a7, 60(a0)\n"
"    lw s2, 64(a0)\n"
"    lw s3, 68(a0)\n"
"    lw s4, 72(a0)\n"
"    lw s5, 76(a0)\n"
"    lw s6, 80(a0)\n"
"    lw s7, 84(a0)\n"
"    lw s8, 88(a0)\n"
"    lw s9, 92(a0)\n"
"    lw s10, 96(a0)\n"
"    lw s11, 100(a0)\n"
"    lw t3, 104(a0)\n"
"    lw t4, 108(a0)\n"
"    lw t5, 112(a0)\n"
"    lw t6, 116(a0)\n"
"    lw a0, 32(a0)\n"

".Lwork_loop:\n"
     /* add/xor chains across all registers */
"    ARX ra, gp, tp\n"
"    ARX t0, t1, t2\n"
"    ARX s0, s1, a0\n"
"    ARX a1, a2, a3\n"
"    ARX a4, a5, a6\n"
"    ARX a7, s2, s3\n"
"    ARX s4, s5, s6\n"
"    ARX s7, s8, s9\n"
"    ARX s10, s11, t3\n"
"    ARX t4, t5, t6\n"
     /* rotations */
"    ROT tp, 7, ra\n"
"    ROT t2, 13, t0\n"
"    ROT a0, 9, s0\n"
"    ROT a3, 18, a1\n"
"    ROT a6, 5, a4\n"
"    ROT s3, 22, a7\n"
"    ROT s6, 11, s4\n"
"    ROT s9, 3, s7\n"
"    ROT t3, 27, s10\n"
"    ROT t6, 16, t4\n"
     /* multiply, divide, shifts, logic, compares */
"    FEI mul, ra, t6, a0, gp\n"
"    FEI mulhu, gp, a1, s5, tp\n"
"    FEI divu, tp, t0, s11, t1\n"
"    FEI rem, t1, s2, a5, t2\n"
"    FEI mulh, t2, s8, t3, s0\n"
"    FEI div, s0, a4, t5, s1\n"
"    FEI mulhsu, s1, a7, ra, a0\n"
"    FEI remu, a0, s3, t4, a1\n"
"    FEA sll, a1, s6, gp, a2\n"
"    FEA srl, a2, s9, tp, a3\n"
"    FEA sra, a3, t3, t1, a4\n"
"    FEI and, a4, t6, s4, a5\n"
"    FEA or, a5, ra, s7, a6\n"
"    FEA slt, a6, s10, a3, a7\n"
"    FEA sltu, a7, t2, s2, s3\n"
     /* data-dependent branches */
"    BR bltu, a2, a6, s2, 0x5a5, -0x3c3\n"
"    BR bge, s4, t5, s5, 0x1f0, 0x37\n"
"    BR blt, s6, s8, t3, -0x100, 0x2aa\n"
"    BR bgeu, t0, a5, s11, 0x7ff, -0x800\n"
     /* memory at data-dependent addresses */
"    MEMW a0, s9, t4, a1, a2\n"
"    MEMH s4, ra, t2, a3, a4\n"
"    MEMB t5, gp, s6, a5, a6\n"
     /* the caller's state: into banked (a5, t5) and shared (s5) registers */
"    MEMF s1, a4, t0, a5\n"
"    MEMF a2, s3, t1, s5\n"
"    MEMF t3, a6, a7, t5\n"
     /* with sp 16 bytes lower */
"    addi sp, sp, -16\n"
"    MEMW s7, a7, t0, s8, s9, 16\n"
"    MEMB s10, tp, a3, s11, t3, 16\n"
"    FEI mul, t6, s1, s5, t1, 16\n"
"    ROT s2, 19, s3, 16\n"
"    MEMH gp, t5, a1, t4, s6, 16\n"
"    addi sp, sp, 16\n"
"    MEMH t1, s0, a6, t2, t3\n"
"    MULK s0, t4, 0x9e3779b1\n"
"    MULK a4, s1, 0x85ebca6b\n"
     /* cross links */
"    ARX ra, s11, a5\n"
"    ARX t0, a7, t6\n"
"    ARX s1, t3, gp\n"
"    ARX a2, s5, tp\n"
"    SUBX s8, a0, t5\n"
"    SUBX s3, a6, ra\n"
"    SUBX t4, s10, t1\n"
"    xori a1, a1, 0x4d3\n"
"    addi s6, s6, 0x2b1\n"
"    xori s9, s9, -0x55a\n"
"    addi t2, t2, -0x31f\n"
     /* The yield (a core with task contexts, the storm pass): at the end of
      * every turn, with every register live, the yield word goes to
      * mfastctx (0x7C2: the next context in 11:8; bit 0 lands in its
      * read-only part) and tyield (custom-0, funct3 1) switches into that
      * context; the other context's tyield comes back here, with MIE set.
      * With interrupts off from the write to the switch, no entry resets
      * the next context in between. The word 0: no yield (never executed
      * under qemu). The switch has a reload of its own, which the quiet
      * pass never runs (tests/test_torture.py breaks it on purpose). */
"    sw t6, W_T0(sp)\n"
"    lw t6, W_YIELD(sp)\n"
"    beqz t6, 5f\n"
"    csrci mstatus, 8\n"
"    csrw 0x7C2, t6\n"
"    .insn i 0x0B, 1, x0, x0, 0\n"
"    lw t6, W_T0(sp)\n"
"    j 6f\n"
"5:  lw t6, W_T0(sp)\n"
"6:\n"
     /* the turn counter lives in the frame */
"    sw t6, W_T0(sp)\n"
"    lw t6, W_CNT(sp)\n"
"    addi t6, t6, -1\n"
"    sw t6, W_CNT(sp)\n"
"    beqz t6, 3f\n"
"    lw t6, W_T0(sp)\n"
"    j .Lwork_loop\n"
"3:  lw t6, W_T0(sp)\n"

     /* store the registers (t6 through the scratch slot), then the buffer */
"    sw t6, W_T1(sp)\n"
"    lw t6, W_OUT(sp)\n"
"    sw ra, 0(t6)\n"
"    sw gp, 4(t6)\n"
"    sw tp, 8(t6)\n"
"    sw t0, 12(t6)\n"
"    sw t1, 16(t6)\n"
"    sw t2, 20(t6)\n"
"    sw s0, 24(t6)\n"
"    sw s1, 28(t6)\n"
"    sw a0, 32(t6)\n"
"    sw a1, 36(t6)\n"
"    sw a2, 40(t6)\n"
"    sw a3, 44(t6)\n"
"    sw a4, 48(t6)\n"
"    sw a5, 52(t6)\n"
"    sw a6, 56(t6)\n"
"    sw a7, 60(t6)\n"
"    sw s2, 64(t6)\n"
"    sw s3, 68(t6)\n"
"    sw s4, 72(t6)\n"
"    sw s5, 76(t6)\n"
"    sw s6, 80(t6)\n"
"    sw s7, 84(t6)\n"
"    sw s8, 88(t6)\n"
"    sw s9, 92(t6)\n"
"    sw s10, 96(t6)\n"
"    sw s11, 100(t6)\n"
"    sw t3, 104(t6)\n"
"    sw t4, 108(t6)\n"
"    sw t5, 112(t6)\n"
"    lw t5, W_T1(sp)\n"
"    sw t5, 116(t6)\n"
"    addi t0, t6, 120\n"
"    addi t1, sp, W_BUF\n"
"    addi t2, sp, W_BUF+512\n"
"4:  lw t3, 0(t1)\n"
"    sw t3, 0(t0)\n"
"    addi t0, t0, 4\n"
"    addi t1, t1, 4\n"
"    bltu t1, t2, 4b\n"
"    lw ra, (W_SAVE+0)(sp)\n"
"    lw gp, (W_SAVE+4)(sp)\n"
"    lw tp, (W_SAVE+8)(sp)\n"
"    lw s0, (W_SAVE+12)(sp)\n"
"    lw s1, (W_SAVE+16)(sp)\n"
"    lw s2, (W_SAVE+20)(sp)\n"
"    lw s3, (W_SAVE+24)(sp)\n"
"    lw s4, (W_SAVE+28)(sp)\n"
"    lw s5, (W_SAVE+32)(sp)\n"
"    lw s6, (W_SAVE+36)(sp)\n"
"    lw s7, (W_SAVE+40)(sp)\n"
"    lw s8, (W_SAVE+44)(sp)\n"
"    lw s9, (W_SAVE+48)(sp)\n"
"    lw s10, (W_SAVE+52)(sp)\n"
"    lw s11, (W_SAVE+56)(sp)\n"
"    addi sp, sp, W_FRAME\n"
"    ret\n"
"    .size work_run, . - work_run\n"
"    .text\n"
);
