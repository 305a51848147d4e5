/* The direct trap vector every core starts with (crt0 points mtvec here):
 * save what C may clobber, let trap_dispatch (irq.c) sort it out, return.
 * Cores with hardware vectoring add their table in entry_<core>.S. */
#include "entry_macros.S"
    .section .text.vectors
    .balign 64          /* a CLIC-mode mtvec needs 64-byte alignment */
    .global trap_entry_direct
trap_entry_direct:
    SAVE_CALLER
    /* The first instruction at which everything a C call needs is saved: B of
     * the latency measurement on cores with a retire port (a PC match here). */
    .global irq_context_saved
irq_context_saved:
    call trap_dispatch
    RESTORE_CALLER_MRET
