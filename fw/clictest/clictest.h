/* clictest: self-checking directed tests of the irqlab core's CLIC
 * (soc/clic.py, cores/.../TrapCsrPlugin.scala; docs/CLIC.md).
 *
 * One test per file in tests/, registered by CLICTEST(name) (testcase.h): the
 * runner (main.c) runs them in file-name order, hence the numeric prefixes.
 * A test records what happened (handler order in the event log, CSR values
 * seen in handlers) and prints it as lines
 *
 *     T<name>: <observations>
 *
 * Its file states the expected lines, each in its own C comment:
 *
 *     expect: T<name>: <observations>            every firmware build
 *     expect[clic]: T<name>: <observations>      the shv build only
 *     expect[clic-nv]: T<name>: <observations>   the non-vectored build only
 *
 * and tests/test_clic_fw.py compares them with the console, line by line. A
 * test that does not apply to a build prints "T<name>: skip (<why>)", and its
 * expectation for that build says so.
 *
 * The builds (fw/common/irq/clic/entry.S): IRQLAB_HW_VECTORING=1 (row clic:
 * every source hardware-vectored through the pointer table; handlers run with
 * MIE=0) and IRQLAB_HW_VECTORING=0 (clic-nv: mtvec -> the mnxti trampoline;
 * handlers run with MIE=1, so a higher level preempts them at once).
 *
 * Conventions: levels are printed in hex without 0x; a handler's entry is
 * printed as its source ID, "/<id>" marks the point in handler <id> after the
 * sources it pended had their chance to preempt it. Sources SW_SRC(k) (from
 * IRQLAB_IRQ_FIRST_FREE on) are not connected: only software pends them (edge
 * triggered); GEN_SRC(i) is generator line i. Unexpected interrupts exit 101
 * (irq_unexpected), exceptions 100, an interrupt through the exception entry
 * 102, a failed internal sanity check of this program 103. */
#ifndef CLICTEST_H
#define CLICTEST_H

#include "irqlab.h"
#include "clic.h"
#include "testcase.h"

/* CLICTEST(regs) { ... } defines and registers the test printed as "Tregs". */
#define CLICTEST(name)                       \
    static void clictest_##name(void);       \
    TESTCASE(clictest_##name, "T" #name)     \
    static void clictest_##name(void)

/* Source numbers, from the SoC's interrupt map. */
#define GEN_SRC(line) (IRQLAB_IRQ_GEN + (line))
#define SW_SRC(k) (IRQLAB_IRQ_FIRST_FREE + (k))
#define SRC_BIT(id) (1ull << (id))          /* source sets are uint64_t masks */
_Static_assert(IRQLAB_CLIC_SOURCES <= 64, "source masks are 64 bits");
_Static_assert(SW_SRC(16) < IRQLAB_CLIC_SOURCES, "the tests use 17 software-only sources");

static inline unsigned mil(void) { return CSRR(CSR_MINTSTATUS) >> MINTSTATUS_MIL_SHIFT; }
static inline unsigned mie_bit(void) { return (CSRR(mstatus) & MSTATUS_MIE) ? 1 : 0; }
static inline unsigned mpil_of(uint32_t cause) { return (cause >> MCAUSE_MPIL_SHIFT) & 0xff; }

/* Reports a broken assumption of this program and exits 103. */
__attribute__((noreturn)) void fail(const char *what);

/* ------------------------------------------------------------ sources */

/* A read from the CLIC after a write: the write has reached the CLIC, and
 * when the read's data is back the CLIC's outputs to the core reflect it
 * (soc/clic.py: a write acked in c+1 reaches the outputs in c+2). */
static inline void clic_sync(unsigned id) { (void)CLIC_INTIP(id); }

/* Set up through the HAL (the build's vectoring), pending cleared, then
 * enabled (src_on) or left disabled (src_off). */
void src_on(unsigned id, enum irq_trigger trig, unsigned level);
void src_off(unsigned id, enum irq_trigger trig, unsigned level);
/* The same at register level with clicintattr.shv as given; enabled. */
void src_shv(unsigned id, enum irq_trigger trig, unsigned ctl, unsigned shv);
void src_enable(unsigned id);
void src_disable(unsigned id);
void pend(unsigned id);

/* A short busy wait: long enough for any pending interrupt to be taken. */
void settle(void);
/* Let pending interrupts in (MIE=1 for a while), then close again. */
void open_window(void);

/* ---------------------------------------------------------- event log */

enum { EV_ENTER = 1, EV_BACK, EV_MAIN };
struct ev {
    uint8_t kind, id, mil, mpil, ip, mie;
};
#define NEV 64
extern volatile struct ev evlog[NEV];
extern volatile unsigned nev;
extern volatile unsigned hits[IRQLAB_CLIC_SOURCES];   /* handler runs per source */
extern volatile uint32_t last_cause;                  /* mcause at the last logged entry */

void record(unsigned kind, unsigned id, unsigned l, unsigned pl, unsigned ip, unsigned ie);

/* What each entry token shows besides the ID. */
enum { F_MIL = 1, F_MPIL = 2, F_IP = 4, F_MIE = 8 };
void print_log(unsigned fields);
/* "<name>: <log>\n": the line of the tests that only print their log. */
void print_log_line(const char *name, unsigned fields);

/* ------------------------------------------------- the common handler */

/* Every source's handler logs its entry, counts it, then does what the
 * running test asked for that source (cleared between tests): */
extern uint64_t act_pend[IRQLAB_CLIC_SOURCES];        /* sources the handler pends */
extern uint8_t act_nest[IRQLAB_CLIC_SOURCES];         /* ... and then lets preempt it */
extern uint8_t act_self_disable[IRQLAB_CLIC_SOURCES]; /* clears its own clicintie (level sources) */
extern uint8_t act_quiet[IRQLAB_CLIC_SOURCES];        /* only counts, no log (the stress test) */
/* Test code at entry (phase 0) and after the nesting window (phase 1). */
extern void (*hook)(unsigned id, unsigned phase);

/* mret to the next instruction with mcause = cause (mil <- mpil, MIE <- mpie). */
void mret_here(uint32_t cause);

/* Back to a clean state between tests (main.c). */
void clictest_reset(void);

#endif
