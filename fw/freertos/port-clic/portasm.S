/* The CLIC port's entries (portmacro.h says how the port works), in two
 * builds: the software save below, and the fast-interrupt save (the SoC has
 * FastIrqPlugin: IRQLAB_FASTIRQ_ENTRY) after it. */
#include <generated/soc.h>
#include "irqlab_features.h"
#include "fastirq_entry.h"

/* The registers of the C ABI in use, by number (both builds). */
#ifdef __riscv_abi_rve
#define SAVED 5,6,7,8,9,10,11,12,13,14,15
#define CALLER_SAVED 5,6,7,10,11,12,13,14,15      /* with x1: what a C call may change */
#define CALLEE_SAVED 8,9
    .equ CALLEE_REGS, 2
#else
#define SAVED 5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
#define CALLER_SAVED 5,6,7,10,11,12,13,14,15,16,17,28,29,30,31
#define CALLEE_SAVED 8,9,18,19,20,21,22,23,24,25,26,27
    .equ CALLEE_REGS, 12
#endif

#if !IRQLAB_FASTIRQ_ENTRY
/* A task's context lives on its stack, in a frame of FRAME bytes:
 *     0 mepc   4 mcause   8 x1   12.. x5, x6, ... (x15 on RV32E, x31 otherwise)
 * and the frame's address in the task's TCB (its first word, pxTopOfStack).
 * gp and tp are the same for every task; sp is the frame's address. */
#ifdef __riscv_abi_rve
    .equ FRAME_REGS, 12
#else
    .equ FRAME_REGS, 28
#endif
    .equ FRAME, ((2 + FRAME_REGS) * 4 + 15) & ~15
    .equ MINHV, 0x40000000

    /* Registers xn (n in regs) to or from their slots of the frame at sp. */
    .macro STORE_REGS regs:vararg
    .irp n, \regs
    sw x\n, (12 + 4 * (\n - 5))(sp)
    .endr
    .endm
    .macro LOAD_REGS regs:vararg
    .irp n, \regs
    lw x\n, (12 + 4 * (\n - 5))(sp)
    .endr
    .endm

    /* The task's frame with x1 and the registers in regs, mepc and mcause;
     * its address in the TCB; then onto the ISR stack. */
    .macro SAVE_TASK regs:vararg
    addi sp, sp, -FRAME
    sw x1, 8(sp)
    STORE_REGS \regs
    csrr t0, mepc
    sw t0, 0(sp)
    csrr t0, mcause
    sw t0, 4(sp)
    lw t0, pxCurrentTCB
    sw sp, 0(t0)
    lw sp, port_isr_stack_top
    .endm

    /* Back into pxCurrentTCB's task: its mepc and mcause (mret restores
     * MIE from mpie and the level from mpil; minhv cleared: the task was
     * not stopped in the middle of a table read). */
    .macro RESTORE_TASK
    lw t0, pxCurrentTCB
    lw sp, 0(t0)
    lw t1, 0(sp)
    lw t2, 4(sp)
    li t0, ~MINHV
    lw x1, 8(sp)
    and t2, t2, t0
    csrw mepc, t1                   /* (loaded early: no load-use stall) */
    csrw mcause, t2
    LOAD_REGS SAVED
    addi sp, sp, FRAME
    mret
    .endm

    .section .text.port_entries, "ax"
    /* The tick saves what the C call may change (x1 and the caller-saved
     * registers, mepc, mcause) into the task's frame, and the callee-saved
     * ones only when it switches: the C ABI kept them, so they are still the
     * task's after the call. A tick that does not switch returns to the
     * same task without them (and with mepc and mcause untouched: no other
     * trap can come in between, interrupts stay off in the port's entries). */
    .balign 4
    .global port_tick_entry
port_tick_entry:
    SAVE_TASK CALLER_SAVED
    call port_tick                  /* a0: switch tasks */
    lw t0, pxCurrentTCB
    lw sp, 0(t0)
    bnez a0, port_tick_switch
    lw x1, 8(sp)
    LOAD_REGS CALLER_SAVED
    addi sp, sp, FRAME
    mret
    .global port_tick_switch        /* traced by the tests: retires only in ticks that switch */
port_tick_switch:
    STORE_REGS CALLEE_SAVED
    lw sp, port_isr_stack_top
    call vTaskSwitchContext
    RESTORE_TASK

    .balign 4
    .global port_yield_entry
port_yield_entry:
    SAVE_TASK SAVED
    call vTaskSwitchContext
    RESTORE_TASK

    .balign 4
    .global port_start_first_task
port_start_first_task:
    csrw 0x347, zero                /* mintthresh: nothing held */
    RESTORE_TASK

#else   /* IRQLAB_FASTIRQ_ENTRY */
#include "entry_macros.S"
/* The fast-interrupt build. A tick or yield arrives with the core's work
 * done: the caller-saved registers switched to the other bank, sp moved
 * below the hardware frame (entry_macros.S FRAME: ra, t0.., a0.., mepc,
 * mcause) and that frame being stored in the background. A task's context
 * is that frame with its callee-saved registers below it (CALLEE bytes):
 *     0 s0   4 s1   8.. s2-s11 (ilp32)   CALLEE.. the hardware frame
 * and pxTopOfStack (the TCB's first word) is its address. A tick that does
 * not switch returns with emret (the bank switches back, sp moves up: no
 * register is loaded); one that switches, and the yield, complete the
 * context with the callee-saved registers (the C ABI kept them, they are
 * still the task's), switch, and load the next task's context into the
 * current bank. */
    .equ CALLEE, (CALLEE_REGS * 4 + 15) & ~15

    .macro SAVE_CALLEE              /* below the frame at sp */
    addi sp, sp, -CALLEE
    .set slot, 0
    .irp n, CALLEE_SAVED
    sw x\n, (4 * slot)(sp)
    .set slot, slot + 1
    .endr
    .endm

    .section .text.port_entries, "ax"
    .balign 4
    .global port_tick_entry
port_tick_entry:
    csrw mscratch, sp               /* the task's frame (interrupts stay off here) */
    lw sp, port_isr_stack_top
    call port_tick                  /* a0: switch tasks */
    csrr sp, mscratch
    bnez a0, port_tick_switch
    EMRET                           /* back to the task's bank, or on to a pending interrupt */
    j port_restore_frame            /* not reached: nothing nests into the port's entries */
    .global port_tick_switch        /* traced by the tests: retires only in ticks that switch */
port_tick_switch:
    lw t0, pxCurrentTCB
    SAVE_CALLEE
    j port_switch

    .balign 4
    .global port_start_first_task
port_start_first_task:
    csrw 0x347, zero                /* mintthresh: nothing held */
    j port_restore_task

    .balign 4
    .global port_yield_entry
port_yield_entry:
    lw t0, pxCurrentTCB             /* first: its use is 13 instructions on */
    SAVE_CALLEE
port_switch:                        /* t0: pxCurrentTCB */
    sw sp, 0(t0)
    lw sp, port_isr_stack_top
    call vTaskSwitchContext
port_restore_task:                  /* into pxCurrentTCB's task */
    lw t0, pxCurrentTCB
    lw sp, 0(t0)
    lw t1, CALLEE + OFF_EPC(sp)     /* early, for the CSR writes below (no load-use stall) */
    lw t2, CALLEE + OFF_CAUSE(sp)
    .set slot, 0
    .irp n, CALLEE_SAVED
    lw x\n, (4 * slot)(sp)
    .set slot, slot + 1
    .endr
    addi sp, sp, CALLEE
restore_frame_csrs:                 /* t1, t2: the frame's mepc and mcause */
    csrw mepc, t1
    csrw mcause, t2                 /* mpil, mpie: what mret restores (minhv: clear in every frame) */
    RESTORE_CALLER FRAME
    mret

port_restore_frame:                 /* the frame at sp into the current bank */
    lw t1, OFF_EPC(sp)
    lw t2, OFF_CAUSE(sp)
    j restore_frame_csrs
#endif
