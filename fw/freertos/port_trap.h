/* Where an application on FreeRTOS sends its traps: call once, after
 * irq_init(). With FreeRTOS's own RISC-V port every trap goes through the
 * port's handler (fw/freertos/trap_entry.S): direct mode, or the same jumps
 * as a vector table where the core vectors in hardware. The CLIC port keeps
 * the HAL's entries and adds its own (port-clic/): nothing to do. Inline, so
 * that the applications' code is laid out as before. */
#ifndef PORT_TRAP_H
#define PORT_TRAP_H
#include "irqlab.h"

extern char trap_entry_direct[];

static inline void port_trap_install(void) {
#if !IRQLAB_IRQ_MODEL_CLIC
    CSRW(mtvec, (uint32_t)trap_entry_direct | (IRQLAB_HW_VECTORING ? 1 : 0));
#endif
}

#endif
