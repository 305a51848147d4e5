/* What every interrupt model shares: the weak default handlers. */
#include "irqlab.h"

void irq_unexpected(void) {
    console_printf("irqlab: unexpected interrupt, mcause=%x\n", CSRR(mcause));
    irqlab_exit(101);
}

#define WEAK_HANDLER(n) void irq_handler_##n(void) __attribute__((weak, alias("irq_unexpected")));
IRQ_EACH(WEAK_HANDLER)
