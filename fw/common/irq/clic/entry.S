/* irqlab core with the CLIC (docs/CLIC.md). Two builds:
 *
 * IRQLAB_HW_VECTORING=1  selective hardware vectoring: mtvt points to
 *   clic_vector_table, a table of handler ADDRESSES (the CLIC pointer table);
 *   the core loads entry <id> and jumps to it. Entry n is irq_vector_n: save
 *   the caller-saved registers, call irq_handler_n, restore, mret. Exceptions
 *   go to mtvec = trap_entry_direct (trap.S).
 *
 * IRQLAB_FASTIRQ_ENTRY (fastirq_entry.h), vectored: the core switches the caller-saved
 *   registers to a second bank, moves sp below the frame and stores the
 *   interrupted context there in the background (cores/: FastIrqPlugin), so
 *   entry n calls irq_handler_n at once (B is its first instruction) and
 *   returns with emret; after a nested entry emret falls through and the
 *   context comes back from the frame (fastirq_restore).
 *
 * IRQLAB_HW_VECTORING=0  one entry for everything (mtvec = clic_trampoline): the
 *   spec's C-ABI trampoline. It saves the caller-saved registers, mepc and
 *   mcause, then serves interrupts through mnxti (which returns a pointer to
 *   the table entry of the next interrupt above mcause.mpil, claims it and
 *   re-enables interrupts) until none is left; back-to-back interrupts cost
 *   one loop turn, not an exit and entry. The table holds the C handlers.
 */
#include <generated/soc.h>
#include "irqlab_features.h"
#include "fastirq_entry.h"
#include "entry_macros.S"
    .equ MIE, 8
    .equ CSR_MNXTI, 0x345

#ifndef IRQLAB_HW_VECTORING
#error "IRQLAB_HW_VECTORING must be 0 or 1 (the row's hw_vectoring, irqlab/rows.py)"
#endif

    .section .text.vectors, "ax"
    .balign 64
    .global clic_vector_table
clic_vector_table:
#if IRQLAB_HW_VECTORING
#if IRQLAB_CLIC_SOURCES != 64
#error "entry_clic.S has vectors for 64 CLIC sources"
#endif
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63
    .word irq_vector_\n
    .endr

#if IRQLAB_FASTIRQ_ENTRY
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63
irq_vector_\n:
    /* the core saved what a C call needs: B is the first instruction */
    .global irq_context_saved_\n
irq_context_saved_\n:
    call irq_handler_\n
    .global irq_return_\n
irq_return_\n:
    EMRET
    j fastirq_restore
    .endr

#else
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63
irq_vector_\n:
    SAVE_CALLER
    /* everything a C call needs is saved: B of the latency measurement */
    .global irq_context_saved_\n
irq_context_saved_\n:
    call irq_handler_\n
    RESTORE_CALLER
    .global irq_return_\n
irq_return_\n:
    mret
    .endr
#endif

#else
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63
    .word irq_handler_\n
    .endr

    /* The frame (FRAME, OFF_EPC, OFF_CAUSE: entry_macros.S). */
#if IRQLAB_FASTIRQ_ENTRY
    /* One entry for every interrupt (and exception). An interrupt arrives
     * with the core's bank switch and frame, so a C call may follow at once;
     * an exception (no bank switch) saves in software. */
    .balign 64
    .global clic_trampoline
clic_trampoline:
    /* everything a C call needs is saved: B of the latency measurement */
    .global clic_context_saved
clic_context_saved:
    csrrw a0, mscratch, a0         /* an exception's a0 is live: keep it */
    csrr a0, mcause
    bgez a0, fastirq_exception
    csrrci a0, CSR_MNXTI, MIE      /* claim the highest interrupt (clears an edge) */
    beqz a0, 1f                    /* it went away */
    lw a0, 0(a0)
    csrsi mstatus, MIE             /* nesting, as in the trampoline */
    jalr a0
1:  EMRET                          /* return, or on to the next interrupt */
    j fastirq_restore

fastirq_exception:
    csrrw a0, mscratch, a0
    SAVE_CALLER FRAME
    call trap_dispatch
    RESTORE_CALLER FRAME
    mret
#else
    .balign 64
    .global clic_trampoline
clic_trampoline:
    SAVE_CALLER FRAME
    csrr a1, mcause
    csrr a0, mepc
    bgez a1, trampoline_exception
    sw a0, OFF_EPC(sp)
    sw a1, OFF_CAUSE(sp)
    /* everything a C call needs is saved: B of the latency measurement */
    .global clic_context_saved
clic_context_saved:
    csrrsi a0, CSR_MNXTI, MIE      /* claim the highest interrupt, enable nesting */
    beqz a0, trampoline_exit       /* it went away */
trampoline_loop:
    lw a1, 0(a0)
    csrsi mstatus, MIE
    jalr a1
    csrrsi a0, CSR_MNXTI, MIE
    bnez a0, trampoline_loop
trampoline_exit:
    csrci mstatus, MIE
    lw a1, OFF_CAUSE(sp)
    lw a0, OFF_EPC(sp)
    csrw mcause, a1                /* mpil: the level mret returns to */
    csrw mepc, a0
    csrrci a0, CSR_MNXTI, MIE      /* one last look with interrupts off */
    bnez a0, trampoline_loop
    RESTORE_CALLER FRAME
    mret

trampoline_exception:
    call trap_dispatch
    RESTORE_CALLER FRAME
    mret
#endif
#endif

#if IRQLAB_FASTIRQ_ENTRY
    /* emret fell through: a nested entry used the bank, and the context is
     * in the frame (mepc and mcause too). */
fastirq_restore:
    csrci mstatus, MIE
    lw a1, OFF_CAUSE(sp)
    lw a0, OFF_EPC(sp)
    csrw mcause, a1                /* mpil, mpie: what mret restores */
    csrw mepc, a0
    RESTORE_CALLER FRAME
    mret
#endif
