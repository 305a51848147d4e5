/* Save and restore what the C ABI lets a function clobber: after SAVE_CALLER
 * a handler may call C. Used by every entry file.
 *   ilp32  (standard ABI): ra, t0-t6, a0-a7 = 16 registers, 64-byte frame
 *   ilp32e (RV32E):        ra, t0-t2, a0-a5 = 10 registers, 40-byte frame
 * CALLER_FRAME is the frame size; the words past CALLER_REGS*4 in a larger
 * frame belong to the caller of the macros (the CLIC trampoline keeps mepc
 * and mcause there). */
#ifdef __riscv_abi_rve
#define CALLER_REGS 10
#else
#define CALLER_REGS 16
#endif

    .macro SAVE_CALLER frame=CALLER_REGS*4
    addi sp, sp, -\frame
    sw ra,  0(sp)
    sw t0,  4(sp)
    sw t1,  8(sp)
    sw t2, 12(sp)
    sw a0, 16(sp)
    sw a1, 20(sp)
    sw a2, 24(sp)
    sw a3, 28(sp)
    sw a4, 32(sp)
    sw a5, 36(sp)
#ifndef __riscv_abi_rve
    sw a6, 40(sp)
    sw a7, 44(sp)
    sw t3, 48(sp)
    sw t4, 52(sp)
    sw t5, 56(sp)
    sw t6, 60(sp)
#endif
    .endm

    .macro RESTORE_CALLER frame=CALLER_REGS*4
    lw ra,  0(sp)
    lw t0,  4(sp)
    lw t1,  8(sp)
    lw t2, 12(sp)
    lw a0, 16(sp)
    lw a1, 20(sp)
    lw a2, 24(sp)
    lw a3, 28(sp)
    lw a4, 32(sp)
    lw a5, 36(sp)
#ifndef __riscv_abi_rve
    lw a6, 40(sp)
    lw a7, 44(sp)
    lw t3, 48(sp)
    lw t4, 52(sp)
    lw t5, 56(sp)
    lw t6, 60(sp)
#endif
    addi sp, sp, \frame
    .endm

    /* The CLIC frame: the caller-saved registers in SAVE_CALLER's order,
     * then mepc and mcause, 16-byte aligned. The mnxti trampoline builds it
     * in software; FastIrqPlugin (cores/) stores the same frame in hardware
     * (80 bytes with ilp32, 48 with ilp32e). */
    .equ FRAME, (CALLER_REGS * 4 + 8 + 15) & ~15
    .equ OFF_EPC, CALLER_REGS * 4
    .equ OFF_CAUSE, CALLER_REGS * 4 + 4

    /* emret (FastIrqPlugin): return switching the register bank back, or
     * chain to a pending interrupt, or (after a nested entry) fall through.
     * custom-0, unknown to the assembler. */
    .macro EMRET
    .insn i 0x0B, 0, x0, x0, 0
    .endm

    .macro RESTORE_CALLER_MRET
    RESTORE_CALLER
    mret
    .endm
