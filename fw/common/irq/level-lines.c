/* What the models without levels share (csr-mask, mie-fast): every line is a
 * level line the core only masks, so there is no trigger to choose, no
 * pending bit for software, no threshold and nothing to keep for nesting. */
#include "irqlab.h"

int irq_configure(unsigned irq, enum irq_trigger trig, unsigned level) {
    irq_disable(irq);
    return trig == IRQ_TRIG_LEVEL ? 0 : -1;
}

int irq_pend(unsigned irq) { return -1; }
int irq_clear(unsigned irq) { return -1; }
void irq_set_threshold(unsigned level) {}
void irq_nest_begin(struct irq_nest *n) {}
void irq_nest_end(const struct irq_nest *n) {}
