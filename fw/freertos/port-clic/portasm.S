/* The CLIC port's entries (portmacro.h says how the port works). A task's
 * context lives on its stack, in a frame of FRAME bytes:
 *     0 mepc   4 mcause   8 x1   12.. x5, x6, ... (x15 on RV32E, x31 otherwise)
 * and the frame's address in the task's TCB (its first word, pxTopOfStack).
 * gp and tp are the same for every task; sp is the frame's address. */
#ifdef __riscv_abi_rve
    .equ FRAME_REGS, 12
#define SAVED 5,6,7,8,9,10,11,12,13,14,15
#define CALLER_SAVED 5,6,7,10,11,12,13,14,15      /* with x1: what a C call may change */
#define CALLEE_SAVED 8,9
#else
    .equ FRAME_REGS, 28
#define SAVED 5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
#define CALLER_SAVED 5,6,7,10,11,12,13,14,15,16,17,28,29,30,31
#define CALLEE_SAVED 8,9,18,19,20,21,22,23,24,25,26,27
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
    lw t0, 0(sp)
    csrw mepc, t0
    lw t0, 4(sp)
    li t1, ~MINHV
    and t0, t0, t1
    csrw mcause, t0
    lw x1, 8(sp)
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
