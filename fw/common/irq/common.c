/* What every interrupt model shares: weak default handlers and the exception report. */
#include "irqlab.h"

void irq_unexpected(void) {
    console_printf("irqlab: unexpected interrupt, mcause=%x\n", CSRR(mcause));
    irqlab_exit(101);
}

#define WEAK_HANDLER(n) void irq_handler_##n(void) __attribute__((weak, alias("irq_unexpected")));
IRQ_EACH(WEAK_HANDLER)

void irq_exception(uint32_t cause) {
    console_printf("irqlab: exception mcause=%x mepc=%x mtval=%x\n", cause, CSRR(mepc), CSRR(mtval));
    irqlab_exit(100);
}
