/* The CLIC's memory-mapped registers (soc/clic.py; RISC-V CLIC draft v0.9
 * memory map): per source i, four bytes at 0x1000 + 4*i: pending, enable,
 * attributes, control. Only in SoCs with a CLIC (IRQLAB_CLIC_BASE). */
#ifndef IRQLAB_CLIC_H
#define IRQLAB_CLIC_H

#include <stdint.h>
#include <generated/soc.h>

#ifdef IRQLAB_CLIC_BASE
#define CLIC_CFG          (*(volatile uint8_t *)((uint32_t)IRQLAB_CLIC_BASE + 0x0))
#define CLIC_INFO         (*(volatile uint32_t *)((uint32_t)IRQLAB_CLIC_BASE + 0x4))
#define CLIC_INTIP(i)     (*(volatile uint8_t *)((uint32_t)IRQLAB_CLIC_BASE + 0x1000 + 4u * (i)))
#define CLIC_INTIE(i)     (*(volatile uint8_t *)((uint32_t)IRQLAB_CLIC_BASE + 0x1001 + 4u * (i)))
#define CLIC_INTATTR(i)   (*(volatile uint8_t *)((uint32_t)IRQLAB_CLIC_BASE + 0x1002 + 4u * (i)))
#define CLIC_INTCTL(i)    (*(volatile uint8_t *)((uint32_t)IRQLAB_CLIC_BASE + 0x1003 + 4u * (i)))
#define CLIC_CFG_NLBITS(n) ((uint8_t)((n) << 1))
#endif

#endif
