/* irqlab firmware runtime: console, exit, trace stimulus ports, generator,
 * the run-time configuration, and the interrupt HAL (irqlab_irq.h).
 *
 * Generated per build (irqlab/builders/firmware.py): irqlab_features.h (the row's
 * features, irqlab/rows.py) and irqlab_protocol.h (channels, test ids,
 * generator modes, the configuration block: trace/protocol.py). Branch on
 * features, never on row or core names. */
#ifndef IRQLAB_H
#define IRQLAB_H

#include <stdint.h>

/* csr.h's accessors call these; defined here so no LiteX library is needed. */
#define CSR_ACCESSORS_DEFINED
static inline void csr_write_simple(unsigned long v, unsigned long a) { *(volatile uint32_t *)a = v; }
static inline unsigned long csr_read_simple(unsigned long a) { return *(volatile uint32_t *)a; }

#include <generated/soc.h>
#include <generated/csr.h>
#include <generated/mem.h>
#include "irqlab_features.h"
#include "irqlab_protocol.h"
#include "riscv_csr.h"
#include "irqlab_irq.h"

/* Trace stimulus ports: one store = one software event with a 32-bit payload. */
#define STIM(ch) (*(volatile uint32_t *)(STIM_BASE + 4u * (ch)))
static inline void stim(unsigned ch, uint32_t v) { STIM(ch) = v; }

/* The run-time configuration of this application (struct irqlab_config,
 * generated), in the last bytes of the code memory where the host patches it. */
extern const volatile struct irqlab_config irqlab_config;

void console_putc(char c);
int console_getc(void);
void console_puts(const char *s);
void console_printf(const char *fmt, ...);
void irqlab_exit(int code) __attribute__((noreturn));

/* Generator line helpers (modes GEN_*: irqlab_protocol.h). */
struct gen_pattern {
    uint32_t mode, delay, high, low, count, burst, jitter, seed;
};
void gen_config(unsigned line, const struct gen_pattern *p);
static inline void gen_start(uint32_t mask) { irqgen_start_write(mask); }
static inline void gen_ack(uint32_t mask) { irqgen_ack_write(mask); }
static inline uint32_t gen_running(void) { return irqgen_running_read(); }

/* Invalidate the instruction and data caches (seed 004's T3): runtime.c,
 * one implementation per feature; a no-op without caches. Out of line on
 * purpose: VexRiscv's instruction cache flushes on a fence.i already in
 * decode, so an inline one behind an untaken branch would flush it anyway. */
void cache_invalidate_all(void);

#endif
