/* Interrupt model clic: the memory-mapped CLIC (soc/clic.py) and the core's
 * CLIC CSRs (docs/CLIC.md). irq_init sets nlbits = 8, so clicintctl is all
 * level. Sources are entered through the pointer table (IRQLAB_HW_VECTORING:
 * clicintattr.shv = 1) or the mnxti trampoline (entry.S). */
#include "irqlab.h"
#include "clic.h"
#include "fastirq_entry.h"

extern const uint32_t clic_vector_table[];
extern char clic_trampoline[];
extern char trap_entry_direct[];

void trap_dispatch(void) {
    uint32_t cause = CSRR(mcause);
    if (!(cause & MCAUSE_INTERRUPT)) irq_exception(cause);
    console_printf("irqlab: interrupt %u through the exception entry\n", cause & 0xfffu);
    irqlab_exit(102);
}

void irq_init(void) {
    CLIC_CFG = CLIC_CFG_NLBITS(8);
    for (unsigned i = 0; i < IRQLAB_CLIC_SOURCES; i++)
        irq_configure(i, IRQ_TRIG_LEVEL, IRQ_DEFAULT_LEVEL);
    CSRW(CSR_MINTTHRESH, 0);
    CSRW(CSR_MTVT, clic_vector_table);
    CSRW(mtvec, IRQLAB_HW_VECTORING ? trap_entry_direct : clic_trampoline);
#if IRQLAB_FASTIRQ_ENTRY
    /* entry.S's entries expect the bank switch and the hardware frame */
    CSRW(CSR_MFASTIRQ, MFASTIRQ_EN | (IRQLAB_ABI_RV32E ? MFASTIRQ_E : 0));
#endif
}

int irq_configure(unsigned irq, enum irq_trigger trig, unsigned level) {
    CLIC_INTIE(irq) = 0;
    CLIC_INTATTR(irq) = (uint8_t)((trig << 1) | (IRQLAB_HW_VECTORING ? 1u : 0u));
    CLIC_INTCTL(irq) = (uint8_t)level;
    CLIC_INTIP(irq) = 0;
    return 0;
}

void irq_enable(unsigned irq) { CLIC_INTIE(irq) = 1; }

void irq_disable(unsigned irq) { CLIC_INTIE(irq) = 0; }
int irq_pend(unsigned irq) { CLIC_INTIP(irq) = 1; return 0; }
int irq_clear(unsigned irq) { CLIC_INTIP(irq) = 0; return 0; }
void irq_set_threshold(unsigned level) { CSRW(CSR_MINTTHRESH, level); }

/* The vectored entry saves no CSRs; the trampoline keeps mepc/mcause and
 * re-enables interrupts itself. */
void irq_nest_begin(struct irq_nest *n) {
#if IRQLAB_HW_VECTORING
    n->epc = CSRR(mepc);
    n->cause = CSRR(mcause);
    irq_global_enable();
#endif
}

void irq_nest_end(const struct irq_nest *n) {
#if IRQLAB_HW_VECTORING
    irq_global_disable();
    CSRW(mcause, n->cause);
    CSRW(mepc, n->epc);
#endif
}

/* The CLIC enters each handler itself (vectored, or through mnxti); an RTOS
 * port for it enters through the CLIC too, not through this. */
int irq_dispatch(uint32_t mcause) { return -1; }
