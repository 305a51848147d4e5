/* crt0 points mtvec at trap_entry_direct; with FreeRTOS every trap (the
 * tick, ecall yields, interrupts, exceptions) goes to the port's trap
 * handler. The same 32 jumps serve as a vector table where the core vectors
 * interrupts in hardware (mtvec mode 1: base + 4 * cause; CV32E40P only has
 * that mode), so main() may set either mode. */
    .section .text.vectors
    .balign 256
    .global trap_entry_direct
trap_entry_direct:
    .rept 32
    j freertos_risc_v_trap_handler
    .endr
