/* Whether the interrupt entries (fw/common/irq/clic/entry.S) use the core's
 * fast-interrupt extension (cores/: FastIrqPlugin): on a SoC that has it,
 * unless the application keeps the software save (IRQLAB_NO_FASTIRQ: the
 * CLIC directed tests, fw/clictest). The FreeRTOS CLIC port branches on it
 * too (fw/freertos/port-clic/). C and assembly. Include after
 * irqlab_features.h. */
#ifndef FASTIRQ_ENTRY_H
#define FASTIRQ_ENTRY_H
#if IRQLAB_HAS_FASTIRQ && !defined(IRQLAB_NO_FASTIRQ)
#define IRQLAB_FASTIRQ_ENTRY 1
#else
#define IRQLAB_FASTIRQ_ENTRY 0
#endif
#endif
