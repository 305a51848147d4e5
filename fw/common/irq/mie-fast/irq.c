/* Interrupt model mie-fast: core inputs 0..15 are the local interrupts
 * 16..31 of mie/mip (CV32E40P), each with its own vector (vectors.S). Level
 * lines, no levels. */
#include "irqlab.h"

extern char vector_table[];
#define FIRST_LOCAL 16

void trap_dispatch(void) {
    uint32_t cause = CSRR(mcause);
    if (!(cause & MCAUSE_INTERRUPT)) irq_exception(cause);
    console_printf("irqlab: non-vectored interrupt %x\n", cause);
    irqlab_exit(102);
}

/* Local interrupt n has cause 16 + n; the table's entries are the handlers'
 * stubs, so software dispatch calls the handlers directly. */
#define DISPATCH_ENTRY_(n) irq_handler_##n,
static void (*const handlers[16])(void) = { IRQ_EACH8(DISPATCH_ENTRY_, 0, 1, 2, 3, 4, 5, 6, 7)
                                            IRQ_EACH8(DISPATCH_ENTRY_, 8, 9, 10, 11, 12, 13, 14, 15) };

int irq_dispatch(uint32_t mcause) {
    uint32_t code = mcause & ~MCAUSE_INTERRUPT;
    if (!(mcause & MCAUSE_INTERRUPT) || code < FIRST_LOCAL || code >= FIRST_LOCAL + 16)
        return -1;
    handlers[code - FIRST_LOCAL]();
    return 0;
}

/* The local interrupts' enables in mie are 0 from reset. */
void irq_init(void) { CSRW(mtvec, (uint32_t)vector_table | 1); }

void irq_enable(unsigned irq) { CSRS(mie, 1u << (FIRST_LOCAL + irq)); }
void irq_disable(unsigned irq) { CSRC(mie, 1u << (FIRST_LOCAL + irq)); }
