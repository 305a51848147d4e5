/* What the clictest tests share: source set-up, the event log, the common
 * handler of every source and the reset between tests (clictest.h). */
#include "clictest.h"

void fail(const char *what) {
    console_printf("clictest: internal check failed: %s\n", what);
    irqlab_exit(103);
}

/* ------------------------------------------------------------ sources */

/* Sources the running test set up: an interrupt from any other is unexpected. */
static uint8_t armed[IRQLAB_CLIC_SOURCES];

void src_off(unsigned id, enum irq_trigger trig, unsigned level) {
    armed[id] = 1;
    irq_configure(id, trig, level);
    clic_sync(id);
}

void src_on(unsigned id, enum irq_trigger trig, unsigned level) {
    armed[id] = 1;
    irq_configure(id, trig, level);
    irq_enable(id);
    clic_sync(id);
}

void src_shv(unsigned id, enum irq_trigger trig, unsigned ctl, unsigned shv) {
    armed[id] = 1;
    CLIC_INTIE(id) = 0;
    CLIC_INTATTR(id) = (uint8_t)((trig << 1) | shv);
    CLIC_INTCTL(id) = (uint8_t)ctl;
    CLIC_INTIP(id) = 0;
    CLIC_INTIE(id) = 1;
    clic_sync(id);
}

void src_enable(unsigned id) { irq_enable(id); clic_sync(id); }
void src_disable(unsigned id) { irq_disable(id); clic_sync(id); }
void pend(unsigned id) { irq_pend(id); clic_sync(id); }

void settle(void) {
    for (volatile int i = 0; i < 20; i++)
        ;
}

void open_window(void) {
    irq_global_enable();
    settle();
    irq_global_disable();
}

/* ---------------------------------------------------------- event log */

volatile struct ev evlog[NEV];
volatile unsigned nev;
volatile unsigned hits[IRQLAB_CLIC_SOURCES];
volatile uint32_t last_cause;

/* Appends with MIE=0: a handler of the nv build (MIE=1) may be preempted. */
void record(unsigned kind, unsigned id, unsigned l, unsigned pl, unsigned ip, unsigned ie) {
    uint32_t st = irq_save();
    unsigned n = nev;
    if (n >= NEV) fail("event log full");
    evlog[n].kind = (uint8_t)kind;
    evlog[n].id = (uint8_t)id;
    evlog[n].mil = (uint8_t)l;
    evlog[n].mpil = (uint8_t)pl;
    evlog[n].ip = (uint8_t)ip;
    evlog[n].mie = (uint8_t)ie;
    nev = n + 1;
    irq_restore(st);
}

void print_log(unsigned fields) {
    for (unsigned i = 0; i < nev; i++) {
        volatile struct ev *e = &evlog[i];
        const char *sep = "(";
        if (i) console_putc(' ');
        if (e->kind == EV_BACK) console_putc('/');
        if (e->kind == EV_MAIN) console_printf("main");
        else console_printf("%u", e->id);
        if (e->kind == EV_ENTER) {
            if (fields & F_MIL) { console_printf("%smil=%x", sep, e->mil); sep = ","; }
            if (fields & F_MPIL) { console_printf("%smpil=%x", sep, e->mpil); sep = ","; }
            if (fields & F_IP) { console_printf("%sip=%u", sep, e->ip); sep = ","; }
            if (fields & F_MIE) { console_printf("%smie=%u", sep, e->mie); sep = ","; }
            if (*sep == ',') console_putc(')');
        } else if (fields & F_MIL) {
            console_printf("(mil=%x)", e->mil);
        }
    }
}

void print_log_line(const char *name, unsigned fields) {
    console_printf("%s: ", name);
    print_log(fields);
    console_printf("\n");
}

/* ------------------------------------------------- the common handler */

uint64_t act_pend[IRQLAB_CLIC_SOURCES];
uint8_t act_nest[IRQLAB_CLIC_SOURCES];
uint8_t act_self_disable[IRQLAB_CLIC_SOURCES];
uint8_t act_quiet[IRQLAB_CLIC_SOURCES];
void (*hook)(unsigned id, unsigned phase);

/* Pends `mask`, then, if asked, lets those sources preempt the handler. The
 * shv build's handlers run with MIE=0: the HAL's nesting window saves mepc and
 * mcause (a nested trap overwrites them; mcause.mpil is the level mret returns
 * to) around MIE=1. The nv build's handlers already run with MIE=1 (the
 * trampoline saved mepc/mcause): the pended sources preempt at once, in any case. */
static void pend_and_nest(uint64_t mask, unsigned nest) {
    for (unsigned i = 0; i < IRQLAB_CLIC_SOURCES; i++)
        if (mask >> i & 1) pend(i);
    if (IRQLAB_HW_VECTORING && !nest) return;
    struct irq_nest n;
    irq_nest_begin(&n);
    settle();
    irq_nest_end(&n);
}

static void on_irq(unsigned id) {
    if (!armed[id]) irq_unexpected();
    if (act_quiet[id]) {
        hits[id]++;
        return;
    }
    uint32_t cause = CSRR(mcause);
    last_cause = cause;
    record(EV_ENTER, id, mil(), mpil_of(cause), CLIC_INTIP(id), mie_bit());
    hits[id]++;
    if (act_self_disable[id]) src_disable(id);
    if (hook) hook(id, 0);
    if (act_pend[id]) {
        pend_and_nest(act_pend[id], act_nest[id]);
        record(EV_BACK, id, mil(), 0, 0, mie_bit());
        if (hook) hook(id, 1);
    }
}

/* Every source's handler is the common one (interrupt numbers: irqlab_irq.h). */
#define CLICTEST_HANDLER(n) void IRQ_HANDLER(n)(void) { on_irq(n); }
IRQ_EACH(CLICTEST_HANDLER)

/* ------------------------------------------------------------- helpers */

void mret_here(uint32_t cause) {
    __asm__ volatile(
        "csrw mcause, %0\n"
        "la t0, 1f\n"
        "csrw mepc, t0\n"
        "mret\n"
        "1:\n" :: "r"(cause) : "t0", "memory");
}

/* Interrupts off, every source from the generator's on disabled and
 * level-triggered (edge first, so that its pending bit can be cleared),
 * nlbits 8, no threshold, no actions, empty log. mil is 0 here unless a test
 * broke it (checked). */
void clictest_reset(void) {
    irq_global_disable();
    for (unsigned i = IRQLAB_IRQ_GEN; i < IRQLAB_CLIC_SOURCES; i++) {
        CLIC_INTIE(i) = 0;
        CLIC_INTATTR(i) = IRQ_TRIG_EDGE << 1;
        CLIC_INTIP(i) = 0;
        CLIC_INTATTR(i) = 0;
        CLIC_INTCTL(i) = 0;
        act_pend[i] = 0;
        act_nest[i] = act_self_disable[i] = act_quiet[i] = 0;
        hits[i] = 0;
        armed[i] = 0;
    }
    CLIC_CFG = CLIC_CFG_NLBITS(8);
    irq_set_threshold(0);
    hook = 0;
    nev = 0;
    if (mil() != 0) fail("mil not 0 between tests");
}
