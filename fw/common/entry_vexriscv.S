/* LiteX VexRiscv: one direct trap vector; C reads LiteX's pending/mask CSRs
 * (0xFC0/0xBC0) and calls the handler of each pending line (irq_vexriscv.c). */
#include "entry_macros.S"
    .section .text.vectors
    .balign 4
    .global trap_entry_direct
trap_entry_direct:
    SAVE_CALLER
    call trap_dispatch
    RESTORE_CALLER_MRET
