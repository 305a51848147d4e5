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

/* The local interrupts' enables in mie are 0 from reset. */
void irq_init(void) { CSRW(mtvec, (uint32_t)vector_table | 1); }

void irq_enable(unsigned irq) { CSRS(mie, 1u << (FIRST_LOCAL + irq)); }
void irq_disable(unsigned irq) { CSRC(mie, 1u << (FIRST_LOCAL + irq)); }
