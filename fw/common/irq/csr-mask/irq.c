/* Interrupt model csr-mask: one external interrupt (mie.MEIE), its lines
 * masked by CSR 0xBC0 and pending in 0xFC0 (LiteX's VexRiscv convention, kept
 * by the project's `clint` core). All lines are level lines; no levels. */
#include "irqlab.h"

static void (*const handlers[16])(void) = {
    irq_handler_0, irq_handler_1, irq_handler_2, irq_handler_3,
    irq_handler_4, irq_handler_5, irq_handler_6, irq_handler_7,
    irq_handler_8, irq_handler_9, irq_handler_10, irq_handler_11,
    irq_handler_12, irq_handler_13, irq_handler_14, irq_handler_15,
};
#define N_DISPATCHED (sizeof handlers / sizeof handlers[0])

/* Inlined into both callers: trap_dispatch keeps its shape (and the
 * benchmark its code layout). */
static inline __attribute__((always_inline)) void dispatch_pending(void) {
    uint32_t p = CSRR(CSR_LITEX_IRQ_PENDING);
    p &= CSRR(CSR_LITEX_IRQ_MASK);
    while (p) {
        unsigned i = __builtin_ctz(p);
        handlers[i]();
        p &= p - 1;
    }
}

void trap_dispatch(void) {
    uint32_t cause = CSRR(mcause);
    if (!(cause & MCAUSE_INTERRUPT)) irq_exception(cause);
    dispatch_pending();
}

int irq_dispatch(uint32_t mcause) {
    if (mcause != (MCAUSE_INTERRUPT | 11))      /* the external interrupt: every line */
        return -1;
    dispatch_pending();
    return 0;
}

void irq_init(void) {
    CSRW(CSR_LITEX_IRQ_MASK, 0);
    CSRS(mie, MIE_MEIE);
}

/* Only lines below N_DISPATCHED have a handler in the table. */
void irq_enable(unsigned irq) { CSRS(CSR_LITEX_IRQ_MASK, 1u << irq); }

void irq_disable(unsigned irq) { CSRC(CSR_LITEX_IRQ_MASK, 1u << irq); }
