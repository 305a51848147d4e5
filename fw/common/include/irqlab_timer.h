/* The machine timer (soc/mtimer.py): mtime and mtimecmp in the CLINT layout
 * that FreeRTOS's stock RISC-V port expects (configMTIME_BASE_ADDRESS =
 * IRQLAB_MTIME_ADDR, configMTIMECMP_BASE_ADDRESS = IRQLAB_MTIMECMP_ADDR).
 *
 * Its interrupt: on line IRQLAB_IRQ_MTIMER through the HAL (irq_enable,
 * IRQ_HANDLER(IRQLAB_IRQ_MTIMER)) on every core, the CLIC included; and where
 * IRQLAB_HAS_MTIP, also as the core's machine-timer interrupt (mie.MTIE,
 * mcause 7), for code with its own trap entry (an RTOS port). */
#ifndef IRQLAB_TIMER_H
#define IRQLAB_TIMER_H

#include <stdint.h>
#include <generated/soc.h>

#define MTIME_LO    (*(volatile uint32_t *)(IRQLAB_MTIME_ADDR))
#define MTIME_HI    (*(volatile uint32_t *)(IRQLAB_MTIME_ADDR + 4))
#define MTIMECMP_LO (*(volatile uint32_t *)(IRQLAB_MTIMECMP_ADDR))
#define MTIMECMP_HI (*(volatile uint32_t *)(IRQLAB_MTIMECMP_ADDR + 4))

static inline uint64_t mtime_read(void) {
    uint32_t hi, lo;
    do {                       /* the low word may carry into the high one between the reads */
        hi = MTIME_HI;
        lo = MTIME_LO;
    } while (MTIME_HI != hi);
    return (uint64_t)hi << 32 | lo;
}

static inline void mtimecmp_write(uint64_t t) {
    MTIMECMP_HI = 0xFFFFFFFFu;   /* no spurious interrupt between the two halves */
    MTIMECMP_LO = (uint32_t)t;
    MTIMECMP_HI = (uint32_t)(t >> 32);
}

#endif
