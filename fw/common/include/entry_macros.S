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

    .macro RESTORE_CALLER_MRET
    RESTORE_CALLER
    mret
    .endm
