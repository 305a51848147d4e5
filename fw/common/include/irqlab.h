/* irqlab firmware runtime: CSR access, console, trace stimulus ports, generator. */
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

/* Trace stimulus ports: one store = one software event with a 32-bit payload. */
#define STIM(ch) (*(volatile uint32_t *)(STIM_BASE + 4u * (ch)))
static inline void stim(unsigned ch, uint32_t v) { STIM(ch) = v; }

/* Software event channels used by the benchmarks (the host reads the same numbers). */
enum {
    CH_HANDLER_ENTRY = 1,   /* B: first statement of the C handler */
    CH_TEST_BEGIN = 0x10,   /* payload: test id */
    CH_TEST_END = 0x11,     /* payload: test id */
    CH_STATS = 0xF0,        /* on-chip statistics dump, see report_stats() */
};
enum { TEST_LATENCY = 1, TEST_THROUGHPUT = 2, TEST_PREEMPT = 4 };

/* Generator modes (soc/irqgen.py). */
enum { GEN_OFF, GEN_SINGLE, GEN_PERIODIC, GEN_BURST, GEN_LEVEL };

/* Run-time configuration: a block at the end of ROM that the host may patch
 * in the memory image before a run (trace/fwconfig.py), so one firmware build
 * serves every run. */
struct bench_config {
    uint32_t magic;             /* CONFIG_MAGIC */
    uint32_t tests;             /* bit mask of TEST_* to run */
    uint32_t lat_count;         /* interrupts in the latency test */
    uint32_t lat_period;        /* cycles between arrivals (low phase) */
    uint32_t lat_jitter;        /* mask of random extra cycles per arrival */
    uint32_t seed;
    uint32_t tp_phases;         /* stimulation phases in the throughput test */
    uint32_t tp_high;           /* cycles of a stimulation phase */
    uint32_t tp_low;            /* cycles of the pause after it */
    uint32_t hist_shift;        /* on-chip histogram bin width = 2^shift */
    uint32_t flags;             /* CONFIG_* below */
};
#define CONFIG_BOOT_WAIT 1u       /* ROM image: wait for the host ('g' run, 'L' load) */
#define CONFIG_TRACE_LEAN 2u      /* trace only what the figures need (slow links) */
#define CONFIG_MAGIC 0x69726c31u  /* "irl1" */
extern const volatile struct bench_config bench_config;

void console_putc(char c);
int console_getc(void);
void console_puts(const char *s);
void console_printf(const char *fmt, ...);
void irqlab_exit(int code) __attribute__((noreturn));

/* Interrupts: trap.S, per-core vectors in entry_<core>.S, and irq.c. */
void irq_init(void);
void irq_enable(unsigned irq);   /* irq = core interrupt input; handler: irq_handler_<irq>() */
static inline void irq_global_enable(void) { __asm__ volatile("csrs mstatus, 8"); }
static inline void irq_global_disable(void) { __asm__ volatile("csrc mstatus, 8"); }

void irq_unexpected(void);
/* M(n) for eight interrupt numbers: defines handlers in rows of eight. */
#define IRQ_EACH8(M, a, b, c, d, e, f, g, h) M(a) M(b) M(c) M(d) M(e) M(f) M(g) M(h)

#ifdef IRQLAB_CLIC_BASE
/* The CLIC's registers (soc/clic.py; RISC-V CLIC draft v0.9 memory map):
 * per source i, four bytes at 0x1000 + 4*i: pending, enable, attributes,
 * control (level: nlbits is set to 8 by irq_init, so control = level). */
#define CLIC_CFG          (*(volatile uint8_t *)((uint32_t)IRQLAB_CLIC_BASE + 0x0))
#define CLIC_INFO         (*(volatile uint32_t *)((uint32_t)IRQLAB_CLIC_BASE + 0x4))
#define CLIC_INTIP(i)     (*(volatile uint8_t *)((uint32_t)IRQLAB_CLIC_BASE + 0x1000 + 4u * (i)))
#define CLIC_INTIE(i)     (*(volatile uint8_t *)((uint32_t)IRQLAB_CLIC_BASE + 0x1001 + 4u * (i)))
#define CLIC_INTATTR(i)   (*(volatile uint8_t *)((uint32_t)IRQLAB_CLIC_BASE + 0x1002 + 4u * (i)))
#define CLIC_INTCTL(i)    (*(volatile uint8_t *)((uint32_t)IRQLAB_CLIC_BASE + 0x1003 + 4u * (i)))
/* clicintattr.trig */
enum { CLIC_TRIG_LEVEL = 0, CLIC_TRIG_EDGE = 1, CLIC_TRIG_LEVEL_LOW = 2, CLIC_TRIG_EDGE_FALLING = 3 };
#define CLIC_DEFAULT_LEVEL 0x80
/* Configure source `irq` (trigger, level) and enable it; shv as the build's. */
void clic_setup(unsigned irq, unsigned trig, unsigned level);
#endif

/* Generator line helpers. */
struct gen_pattern {
    uint32_t mode, delay, high, low, count, burst, jitter, seed;
};
void gen_config(unsigned line, const struct gen_pattern *p);
static inline void gen_start(uint32_t mask) { irqgen_start_write(mask); }
static inline void gen_ack(uint32_t mask) { irqgen_ack_write(mask); }
static inline uint32_t gen_running(void) { return irqgen_running_read(); }

#endif
