/* The CLIC port's entries (portmacro.h says how the port works), in two
 * builds: the software save below, and the fast-interrupt save (the SoC has
 * FastIrqPlugin: IRQLAB_FASTIRQ_ENTRY) after it. */
#include <generated/soc.h>
#include "irqlab_features.h"
#include "fastirq_entry.h"
#include "fastctx.h"
#include "port_contexts.h"

/* The registers of the C ABI in use, by number (both builds). */
#ifdef __riscv_abi_rve
#define CALLEE_SAVED 8,9
    .equ CALLEE_REGS, 2
#define A_REGS 10,11,12,13,14,15                    /* with x1, t0-t2: what a C call may change */
#else
#define CALLEE_SAVED 8,9,18,19,20,21,22,23,24,25,26,27
    .equ CALLEE_REGS, 12
#define A_REGS 10,11,12,13,14,15,16,17,28,29,30,31  /* a0-a7, t3-t6; with x1, t0-t2: what a C call may change */
#endif

/* Nesting. The port's entries run at the kernel's level with interrupts on
 * (mstatus.MIE) from the moment the task's mepc and mcause are safe in its
 * frame until the few instructions that write them back before mret (eight
 * in the software build, seven with the fast-interrupt extension): so an
 * interrupt above the kernel's level (an ISR that never calls the kernel, a
 * pulse train's say) waits for neither the tick nor a task switch, as with
 * Cortex-M's BASEPRI. A nested handler keeps every register but the CSRs,
 * and sp is a valid stack at every instruction. */
    .equ MSTATUS_MIE, 8
    .equ MSTATUS_MPIE, 0x80

    /* sp := the word at sym, through t0 (free wherever this is used): the
     * assembler's `lw sp, sym` goes through sp itself (auipc sp first), and a
     * handler nesting in between would store its frame at a code address. */
    .macro SET_SP sym
    lw t0, \sym
    mv sp, t0
    .endm
    .equ MINHV, 0x40000000

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

    /* The task's frame: mepc and mcause first, then interrupts on, then x1
     * and the registers in regs (t0 is stored first: the CSRs pass through
     * it); its address in the TCB; then onto the ISR stack. */
    .macro SAVE_TASK regs:vararg
    addi sp, sp, -FRAME
    sw t0, 12(sp)
    csrr t0, mepc
    sw t0, 0(sp)
    csrr t0, mcause
    sw t0, 4(sp)
    csrsi mstatus, MSTATUS_MIE
    sw x1, 8(sp)
    STORE_REGS \regs
    lw t0, pxCurrentTCB
    sw sp, 0(t0)
    SET_SP port_isr_stack_top
    .endm

    /* Back into the task of the frame at sp, whose x1 and registers but t0,
     * t1, t2 are loaded already: its mepc and mcause into t1 and t2 (minhv
     * cleared: the task was not stopped in the middle of a table read), then
     * interrupts off for the CSR writes, t0-t2 and mret (which restores MIE
     * from mpie and the level from mpil): eight instructions. */
    .macro RETURN_TO_TASK
    lw t1, 0(sp)
    lw t2, 4(sp)
    li t0, ~MINHV
    and t2, t2, t0
    csrci mstatus, MSTATUS_MIE
    csrw mepc, t1
    csrw mcause, t2
    lw t0, 12(sp)
    lw t1, 16(sp)
    lw t2, 20(sp)
    addi sp, sp, FRAME
    mret
    .endm

    /* Into pxCurrentTCB's task, its whole context. */
    .macro RESTORE_TASK
    lw t0, pxCurrentTCB
    lw sp, 0(t0)
    lw x1, 8(sp)
    LOAD_REGS CALLEE_SAVED,A_REGS
    RETURN_TO_TASK
    .endm

    .section .text.port_entries, "ax"
    .global port_entries_begin         /* the entries' code lies in [begin, end) */
port_entries_begin:
    /* The tick saves what the C call may change (x1 and the caller-saved
     * registers, mepc, mcause) into the task's frame, and the callee-saved
     * ones only when it switches: the C ABI kept them, so they are still the
     * task's after the call. A tick that does not switch returns to the
     * same task without them. */
    .balign 4
    .global port_tick_entry
port_tick_entry:
    SAVE_TASK 6,7,A_REGS
    call port_tick                  /* a0: switch tasks */
    lw t0, pxCurrentTCB
    lw sp, 0(t0)
    bnez a0, port_tick_switch
    lw x1, 8(sp)
    LOAD_REGS A_REGS
    RETURN_TO_TASK
    .global port_tick_switch        /* traced by the tests: retires only in ticks that switch */
port_tick_switch:
    STORE_REGS CALLEE_SAVED
    SET_SP port_isr_stack_top
    call vTaskSwitchContext
    RESTORE_TASK

    .balign 4
    .global port_yield_entry
port_yield_entry:
    SAVE_TASK 6,7,CALLEE_SAVED,A_REGS
    call vTaskSwitchContext
    RESTORE_TASK

    .balign 4
    .global port_start_first_task
port_start_first_task:
    csrci mstatus, MSTATUS_MIE      /* nothing comes in before the first task runs */
    csrw 0x347, zero                /* mintthresh: nothing held */
    RESTORE_TASK
    .global port_entries_end
port_entries_end:

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
 * register is loaded; after an interrupt nested into it, from the frame);
 * one that switches, and the yield, complete the
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

    .macro LOAD_CALLEE              /* SAVE_CALLEE's registers back, sp above them */
    .set slot, 0
    .irp n, CALLEE_SAVED
    lw x\n, (4 * slot)(sp)
    .set slot, slot + 1
    .endr
    addi sp, sp, CALLEE
    .endm

    /* The hardware frame at sp into the current bank: ra, t0 and the a
     * registers (and t3-t6), entry_macros.S's order; t1 and t2 last, by
     * the caller, since they carry mepc and mcause first. */
    .macro LOAD_FRAME_REGS
    lw ra, 0(sp)
    lw t0, 4(sp)
    .set slot, 4
    .irp n, A_REGS
    lw x\n, (4 * slot)(sp)
    .set slot, slot + 1
    .endr
    .endm

#if PORT_CONTEXTS > 1
/* With task contexts (FastIrqPlugin `contexts`; docs/FREERTOS.md "Task
 * contexts"): a task that owns a context keeps its registers there, and a
 * switch is a return into the next task's context (mfastctx), which moves
 * no register through memory. pxTopOfStack points at the task's record
 * (port.c struct port_record) at the top of its stack:
 *     REC_CTX   the task's context (0: shared by the tasks beyond the
 *               hardware's, whose registers live in memory between runs)
 *     REC_SAVED the address of its context in memory (the layout above),
 *               or 0 when its registers are in its context.
 * A context whose task's registers are in memory is switched into at
 * port_context_load, which loads them and tells the core the task's TCB
 * (mfasttcb): from then on the core may choose it for a yield
 * (portmacro.h vPortYieldTask). */
    .equ REC_CTX, 0
    .equ REC_SAVED, 4
    .equ TCB_STATE_CONTAINER, 20    /* xStateListItem.pxContainer (port.c checks it) */

    .macro RECORD reg               /* reg := pxCurrentTCB's record */
    lw \reg, pxCurrentTCB
    lw \reg, 0(\reg)
    .endm

    /* The next return goes on at the loader, with interrupts off (an entry
     * before the load would store its frame below whatever sp the context
     * held); tmp: a free register. */
    .macro AT_LOADER tmp
    la \tmp, port_context_load
    csrw CSR_MFASTCTXPC, \tmp
    li \tmp, MSTATUS_MPIE
    csrc mstatus, \tmp
    .endm
#endif

    .section .text.port_entries, "ax"
    .global port_entries_begin         /* the entries' code lies in [begin, end) */
port_entries_begin:
    .balign 4
    .global port_tick_entry
port_tick_entry:
    csrsi mstatus, MSTATUS_MIE      /* the frame holds mepc and mcause (nested
                                       entries wait for its drain) */
    sw sp, port_task_frame, t0      /* the task's frame (not in mscratch: a
                                       nested non-vectored entry uses it) */
    SET_SP port_isr_stack_top
    call port_tick                  /* a0: switch tasks */
    SET_SP port_task_frame
    bnez a0, port_tick_switch
    EMRET                           /* back to the task's bank, or on to a pending interrupt */
    j port_restore_frame            /* an interrupt nested into the tick used the bank */
    .global port_tick_switch        /* traced by the tests: retires only in ticks that switch */
port_tick_switch:
#if PORT_CONTEXTS > 1
    j port_switch

    .balign 4
    .global port_yield_entry
port_yield_entry:
    csrsi mstatus, MSTATUS_MIE
port_switch:                        /* sp: the running task's frame */
    RECORD t0
    lw t1, REC_SAVED(t0)
    lw t2, REC_CTX(t0)
    bnez t1, 1f                     /* not loaded yet: its copy in memory stands */
    bnez t2, 1f                     /* in its own context: nothing to save */
    SAVE_CALLEE                     /* the shared context: into memory (the */
    sw sp, REC_SAVED(t0)            /* drain completes the frame) */
    /* A shared task in no ready list any more blocked, suspended or
     * deleted itself: the count of ready shared tasks follows (port.c). */
    lw a0, pxCurrentTCB
    la t2, port_ready_lists
    lw t1, TCB_STATE_CONTAINER(a0)
    lw t3, 4(t2)                    /* port_ready_bytes */
    lw t2, 0(t2)
    sub t1, t1, t2
    bltu t1, t3, 1f
    sw sp, port_task_frame, t1
    SET_SP port_isr_stack_top
    call vPortTaskNotReady
    SET_SP port_task_frame
1:  sw sp, port_task_frame, t1
    SET_SP port_isr_stack_top
    call vTaskSwitchContext
    SET_SP port_task_frame
    RECORD t0                       /* the next task's */
    lw t1, REC_SAVED(t0)
    lw t2, REC_CTX(t0)
    csrr a0, CSR_MFASTCTX
    csrci mstatus, MSTATUS_MIE      /* from here to the return: one decision */
    andi a0, a0, 15                 /* the current context */
    beq t2, a0, port_same_context
    slli t2, t2, 8
    csrw CSR_MFASTCTX, t2           /* the return goes into the next context */
    beqz t1, 2f
    AT_LOADER a1                    /* ... at the loader: its registers are in memory */
2:  EMRET                           /* the switch */
    /* An interrupt nested into this handler used the task's bank: its
     * registers are in its frame. Load them into this bank, which becomes
     * the task's, and switch with mret. */
    LOAD_FRAME_REGS
    lw t1, OFF_EPC(sp)
    lw t2, OFF_CAUSE(sp)
    csrw mepc, t1                   /* saved as the task's pc by the switch */
    csrw mcause, t2
    csrr t1, CSR_MFASTCTXPC
    la t2, port_context_load
    bne t1, t2, 3f
    li t1, MSTATUS_MPIE             /* into the loader: interrupts off */
    csrc mstatus, t1
3:  lw t1, 8(sp)
    lw t2, 12(sp)
    mret                            /* the switch (sp stays: the task's frame) */

port_same_context:                  /* t1: REC_SAVED of the next task */
    bnez t1, port_context_load      /* the shared context: load the next task */
    EMRET                           /* the same task in its context */
    j port_restore_frame

    .balign 4
    .global port_start_first_task
port_start_first_task:
    csrci mstatus, MSTATUS_MIE      /* nothing comes in before the first task runs */
    csrw 0x347, zero                /* mintthresh: nothing held */
    RECORD t0
    lw t2, REC_CTX(t0)
    beqz t2, port_context_load      /* the boot code's context */
    slli t2, t2, 8
    csrw CSR_MFASTCTX, t2
    AT_LOADER t1
    mret                            /* into the task's context, at the loader */

    /* Into pxCurrentTCB's task from its context in memory: entered in the
     * context it runs in, with interrupts off (AT_LOADER). */
    .global port_context_load
port_context_load:
    lw t0, pxCurrentTCB
    csrw CSR_MFASTTCB, t0           /* its registers are in its context now */
    lw t0, 0(t0)                    /* its record */
    lw sp, REC_SAVED(t0)
    sw zero, REC_SAVED(t0)
    LOAD_CALLEE
    j port_restore_frame

#else
    lw t0, pxCurrentTCB
    SAVE_CALLEE
    j port_switch

    .balign 4
    .global port_start_first_task
port_start_first_task:
    csrci mstatus, MSTATUS_MIE      /* nothing comes in before the first task runs */
    csrw 0x347, zero                /* mintthresh: nothing held */
    j port_restore_task

    .balign 4
    .global port_yield_entry
port_yield_entry:
    csrsi mstatus, MSTATUS_MIE
    lw t0, pxCurrentTCB             /* first: its use is 13 instructions on */
    SAVE_CALLEE
port_switch:                        /* t0: pxCurrentTCB */
    sw sp, 0(t0)
    SET_SP port_isr_stack_top
    call vTaskSwitchContext
port_restore_task:                  /* into pxCurrentTCB's task */
    lw t0, pxCurrentTCB
    lw sp, 0(t0)
    LOAD_CALLEE
#endif
port_restore_frame:                 /* the hardware frame at sp into the current bank */
    LOAD_FRAME_REGS
    lw t1, OFF_EPC(sp)
    lw t2, OFF_CAUSE(sp)
    csrci mstatus, MSTATUS_MIE      /* the CSRs: nothing may nest from here */
    csrw mepc, t1
    csrw mcause, t2                 /* mpil, mpie: what mret restores (minhv: clear in every frame) */
    lw t1, 8(sp)
    lw t2, 12(sp)
    addi sp, sp, FRAME
    mret
    .global port_entries_end
port_entries_end:

    .section .sbss.port_task_frame, "aw", @nobits
    .balign 4
port_task_frame:                    /* the running task's frame while a tick or a switch runs */
    .word 0
#if PORT_CONTEXTS > 1
    .global port_ready_lists        /* the kernel's ready lists (port.c), */
port_ready_lists:
    .word 0
    .global port_ready_bytes        /* ... their size */
port_ready_bytes:
    .word 0
#endif
#endif
