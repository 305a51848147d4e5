/* CV32E40P: CLINT vectored mode. Each fast interrupt (mcause 16..31, wired to
 * core inputs 0..15) has its own vector that saves the caller-saved registers
 * and calls its C handler irq_handler_<n> directly. */
#include "entry_macros.S"
    .section .text.vectors
    .balign 256
    .global vector_table
    .option push
    .option norvc       /* every vector must be one 4-byte jump */
vector_table:
    .rept 16
    j trap_entry_direct
    .endr
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    j irq_vector_\n
    .endr
    .option pop

    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
irq_vector_\n:
    SAVE_CALLER
    call irq_handler_\n
    RESTORE_CALLER_MRET
    .endr
