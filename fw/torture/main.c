/* torture: the random interrupt torture test of the CLIC rows (clic: hardware
 * vectoring; clic-nv: the mnxti trampoline; the fastirq rows: the same two
 * entries with the core's bank switch, background save and emret, which
 * claims by mnxti where non-vectored). tests/test_torture.py runs it
 * and checks the trace; this program checks what it can itself.
 *
 *  1. Quiet pass: the checksum workload (workload.c: every register x1..x31
 *     live, sp-relative data) runs with interrupts off.
 *  2. Storm pass: the same workload from the same start state, while
 *       - generator lines 0..7 (CLIC sources 8..15) run random patterns:
 *         PERIODIC and BURST lines are edge-triggered with random polarity
 *         (rising or falling edge), LEVEL lines are level-triggered and
 *         acknowledged by their handler (one request per phase: high = 1);
 *       - every handler, with some probability, pends a group of 1..4 of the
 *         unconnected sources 16..63 (edge-triggered, so software can pend
 *         them) that are not pending already, each with a new random
 *         clicintctl, all at once with MIE=0;
 *       - every source has a random clicintctl, and nlbits is random in 1..4,
 *         so clicintctl holds both a level and a priority;
 *       - one handler in eight sets a random mintthresh until its exit;
 *       - handlers nest: the clic build's handlers (entered with MIE=0) save
 *         mepc/mcause and enable MIE; the clic-nv build's run with MIE=1 (the
 *         trampoline's mnxti). Higher levels preempt at once.
 *     On a core with task contexts the storm runs two workloads: the
 *     second, from the same start state, in context 1, and each yields into
 *     the other (tyield) at the end of every turn with all its registers
 *     live, so hardware switches and interrupts meet in both contexts; both
 *     final states must equal the quiet pass's. With a third context, one
 *     edge-triggered generator source, at the top level, is bound to it
 *     (mfastbind): an edge that comes while context 1's workload runs
 *     switches the core straight into context 2 at whatever instruction it
 *     was, with no trap; the bound task there counts it as a handler would,
 *     re-arms the binding and yields back into the interrupted context.
 *     Elsewhere (context 0, a handler, the binding not armed) the source's
 *     handler takes it.
 *     The generator patterns are finite (about five quiet-pass lengths) so
 *     that even a storm that starves the workload ends. When the workload is
 *     done the generator is stopped, every pending interrupt is served, and
 *     the final state must equal the quiet pass's, word for word.
 *
 * Run-time parameters: struct irqlab_config of app "torture" (trace/protocol.py:
 * seed, turns, gap, jitter, pend_chance), patched into the ROM image by the host.
 *
 * Trace: software events on the application's own channels CH_CFG ..
 * CH_ERRORS, with the phase markers M_* and the configuration kinds CFG_*
 * (each with its payload: trace/protocol.py, APP_PROTOCOLS["torture"], which
 * generates them into irqlab_protocol.h; the host reads the same definition).
 * The trace unit also records the core's trap entries and mrets (core event
 * kinds 1, 2) and, in the non-vectored builds, retirements of the entry's
 * mnxti instructions (PC comparators 0..2; CH_CFG gives each one's pc
 * and instruction word): the host takes claim times from these.
 */
#include "irqlab.h"
#include "clic.h"
#include "workload.h"
#include "fastirq_entry.h"
#include "fastctx.h"


#define SHV IRQLAB_HW_VECTORING
#define MINTSTATUS CSR_MINTSTATUS
#define MINTTHRESH CSR_MINTTHRESH
#define N_LINES IRQLAB_N_GEN_LINES
#define GEN_SRC(line) (IRQLAB_IRQ_GEN + (line))
#define SW_FIRST IRQLAB_IRQ_FIRST_FREE       /* the sources no peripheral drives */
#define SW_LAST (IRQLAB_CLIC_SOURCES - 1)
#define TURN_CYCLES 720      /* about one workload turn without interrupts */
#define STORM_SPAN 5
/* A second workload in a context of its own where the core has them, and
 * a bound task in a third. */
#define OTHER_CTX (IRQLAB_FASTIRQ_CONTEXTS > 1)
#define BOUND_CTX (IRQLAB_FASTIRQ_CONTEXTS > 2)
#define WORKLOADS (1 + OTHER_CTX)

_Static_assert(IRQLAB_CLIC_SOURCES == 64, "torture expects 64 CLIC sources");
_Static_assert(IRQLAB_IRQ_GEN == 8 && N_LINES == 8, "generator lines are expected on sources 8..15");
_Static_assert(SW_FIRST >= GEN_SRC(N_LINES), "the software-pended sources follow the generator's");

#if IRQLAB_HAS_TCM && defined(MAIN_RAM_BASE)
/* Behind the bus (main RAM, unused on these SoCs): the workload reads the
 * state while it runs (workload.c MEMF), so its loads wait on the bus in
 * memory as interrupts arrive, the loads a fastirq entry leaves behind. */
static uint32_t *const quiet = (uint32_t *)MAIN_RAM_BASE;
static uint32_t *const storm = (uint32_t *)MAIN_RAM_BASE + WORK_WORDS;
static uint32_t *const other = (uint32_t *)MAIN_RAM_BASE + 2 * WORK_WORDS;
#else
static uint32_t quiet[WORK_WORDS], storm[WORK_WORDS], other[WORK_WORDS];
#endif
static volatile uint32_t handled[64], pended[64];
static volatile uint32_t errors;
static uint32_t seed, pend_chance;
static uint8_t level_line[64];     /* 1 + generator line for the level-triggered sources */

static inline uint32_t mix32(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static void error(uint32_t what) {
    errors++;
    stim(CH_ERRORS, what);
}

/* Pend 1..4 of the sources 16..63 that are not pending, each with a new
 * random clicintctl, at once with MIE=0; one CH_PEND event each afterwards
 * (the CLIC has them all by then: the read-back below waits for the writes). */
static void pend_group(uint32_t r, unsigned by) {
    unsigned want = 1 + (r & 3), n = 0;
    uint32_t list[4];
    uint32_t s = irq_save();
    for (unsigned tries = 0; tries < 8 && n < want; tries++) {
        r = mix32(r + 0x9e3779b9u);
        unsigned id = SW_FIRST + (r >> 8) % (SW_LAST - SW_FIRST + 1);
        if (CLIC_INTIP(id))
            continue;
        int dup = 0;
        for (unsigned k = 0; k < n; k++)
            dup |= (list[k] & 0xff) == id;
        if (dup)
            continue;
        uint32_t ctl = r & 0xff;
        CLIC_INTCTL(id) = (uint8_t)ctl;
        CLIC_INTIP(id) = 1;
        pended[id]++;
        list[n++] = id | ctl << 8;
    }
    if (n) {
        (void)CLIC_INTIP(list[n - 1] & 0xff);
        for (unsigned k = 0; k < n; k++)
            stim(CH_PEND, list[k] | n << 16 | k << 20 | by << 24);
    }
    irq_restore(s);
}

/* Write garbage into every register the handler may use (the compiler saves
 * and restores the callee-saved ones): whatever the entry code or the core
 * fails to restore shows in the workload's result. */
static void __attribute__((noinline)) clobber(uint32_t v) {
    register uint32_t a0 __asm__("a0") = v;
    __asm__ volatile(
        "addi t0, a0, 1\n  addi t1, a0, 2\n  addi t2, a0, 3\n  addi s0, a0, 4\n"
        "addi s1, a0, 5\n  addi a1, a0, 6\n  addi a2, a0, 7\n  addi a3, a0, 8\n"
        "addi a4, a0, 9\n  addi a5, a0, 10\n addi a6, a0, 11\n addi a7, a0, 12\n"
        "addi s2, a0, 13\n addi s3, a0, 14\n addi s4, a0, 15\n addi s5, a0, 16\n"
        "addi s6, a0, 17\n addi s7, a0, 18\n addi s8, a0, 19\n addi s9, a0, 20\n"
        "addi s10, a0, 21\n addi s11, a0, 22\n addi t3, a0, 23\n addi t4, a0, 24\n"
        "addi t5, a0, 25\n addi t6, a0, 26\n not a0, a0\n"
        : "+r"(a0)
        :
        : "t0", "t1", "t2", "s0", "s1", "a1", "a2", "a3", "a4", "a5", "a6", "a7",
          "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11",
          "t3", "t4", "t5", "t6", "memory");
}

/* The common handler. */
static void __attribute__((noinline)) serve(unsigned id) {
    /* mil, mcause and the entry event in one MIE=0 window (clic-nv handlers
     * start with MIE=1), so the host knows which traps came before the reads. */
    uint32_t s = irq_save();
    uint32_t mil = CSRR(MINTSTATUS) >> 24;
    uint32_t cause = CSRR(mcause);
    uint32_t mpil = (cause >> 16) & 0xff;
    stim(CH_ENTRY, id | mil << 8 | mpil << 16 | (cause & 0xff) << 24);
    uint32_t n = handled[id]++;
    irq_restore(s);
#if SHV
    uint32_t epc = CSRR(mepc);
#endif
#if SHV
    /* (clic-nv: mcause is what the trampoline and nested trampolines left,
     * not necessarily this handler's: the host models it.) */
    if ((cause & 0xfff) != id || !(cause >> 31))
        error(0x100 | id);
    if (mil <= mpil)
        error(0x200 | id);
#endif
    uint32_t r = mix32(seed ^ (id * 0x9e3779b9u) ^ (n * 0x85ebca6bu));
#if SHV
    irq_global_enable();                       /* nesting from here: mepc and mcause are saved */
#endif
    if (level_line[id]) {
        gen_ack(1u << (level_line[id] - 1));
        (void)gen_running();        /* the acknowledge has reached the generator */
    }
    /* Sometimes a random mintthresh for the rest of the handler (restored
     * before the exit): interrupts at or below it wait, even above mil. */
    uint32_t r2 = mix32(r ^ 0x5bd1e995u), thresh = 0, old_thresh = 0;
    if ((r2 & 7) == 0) {
        uint32_t s2 = irq_save();
        old_thresh = CSRR(MINTTHRESH);
        thresh = (r2 >> 8) & 0xff;
        CSRW(MINTTHRESH, thresh);
        stim(CH_THRESH, thresh | old_thresh << 8 | id << 16);
        irq_restore(s2);
    }
    if ((r & 0xff) < pend_chance)
        pend_group(r >> 8, id);
    for (volatile uint32_t i = (r >> 28); i; i--)
        ;
    clobber(r);
    irq_save();
    if ((r2 & 7) == 0) {
        CSRW(MINTTHRESH, old_thresh);
        stim(CH_THRESH, old_thresh | thresh << 8 | id << 16 | 1u << 24);
    }
#if SHV
    CSRW(mepc, epc);
    CSRW(mcause, cause);
#endif
    stim(CH_EXIT, id | mil << 8);
}

#define H(n) void irq_handler_##n(void) { serve(n); }
IRQ_EACH8(H, 8, 9, 10, 11, 12, 13, 14, 15)
IRQ_EACH8(H, 16, 17, 18, 19, 20, 21, 22, 23)
IRQ_EACH8(H, 24, 25, 26, 27, 28, 29, 30, 31)
IRQ_EACH8(H, 32, 33, 34, 35, 36, 37, 38, 39)
IRQ_EACH8(H, 40, 41, 42, 43, 44, 45, 46, 47)
IRQ_EACH8(H, 48, 49, 50, 51, 52, 53, 54, 55)
IRQ_EACH8(H, 56, 57, 58, 59, 60, 61, 62, 63)

/* The non-vectored entry's mnxti instructions (csrrsi/csrrci a0, 0x345, 8):
 * PC comparators 0..2, so that the host sees each claim. The software
 * trampoline has three (entry, loop, exit); the fastirq entry one (it claims
 * once, then emret returns or chains to the next interrupt). */
#if !SHV
#define N_MNXTI (IRQLAB_FASTIRQ_ENTRY ? 1 : 3)
extern const uint32_t clic_trampoline[];
static void watch_mnxti(void) {
    unsigned k = 0;
    for (unsigned i = 0; i < 64 && k < 3; i++) {
        uint32_t w = clic_trampoline[i];
        if ((w >> 20) == 0x345 && (w & 0x7f) == 0x73 && ((w >> 12) & 7) >= 6) {
            uint32_t pc = (uint32_t)&clic_trampoline[i];
            if (k == 0) tracer_match0_write(pc | 1);
            if (k == 1) tracer_match1_write(pc | 1);
            if (k == 2) tracer_match2_write(pc | 1);
            stim(CH_CFG, CFG_MNXTI << 24 | k);
            stim(CH_CFG, pc);
            stim(CH_CFG, w);
            k++;
        }
    }
    if (k != N_MNXTI)
        error(0x300 | k);
}
#endif

#if OTHER_CTX
/* The second workload, in context 1: it starts at other_entry with a stack
 * of its own (a fresh context's registers hold nothing), runs as many turns
 * as the first, yielding into context 0 after each, and then only yields
 * back. Context 0 hands the core over until it is done. */
uint32_t other_stack[1024] __attribute__((aligned(16)));   /* global: named by other_entry */
static uint32_t other_turns;
static volatile uint32_t other_done;

static void switch_to(uint32_t ctx) {
    __asm__ volatile("csrci mstatus, 8\n"
                     "csrw " FASTCTX_STR(CSR_MFASTCTX) ", %0\n"
                     FASTCTX_TYIELD(0) :: "r"(WORK_YIELD_TO(ctx)) : "memory");
}

void other_main(void) {
    work_run(other, other_turns, WORK_YIELD_TO(0));
    other_done = 1;
    for (;;)
        switch_to(0);
}

void other_entry(void);
__asm__(".section .text.other_entry, \"ax\"\n"
        ".balign 4\n"
        "other_entry:\n"
        "    la sp, other_stack + 4096\n"
        "    j other_main\n"
        ".text\n");

/* Context 1 starts at other_entry on its first switch (interrupts off:
 * an entry would reset the next context between the two writes). */
static void other_prepare(uint32_t turns) {
    other_turns = turns;
    CSRW(CSR_MFASTCTX, 1u << MFASTCTX_NEXT_SHIFT);
    CSRW(CSR_MFASTCTXPC, (uint32_t)other_entry);
}
#endif

#if BOUND_CTX
/* The bound task, context 2. Every switch into it starts at bound_top (its
 * tyield goes on there: skip = back to bound_top), which PC comparator 0
 * watches: the host takes the claim from that retirement. The core set
 * mintthresh to the source's level and the next context to the interrupted
 * one (an interrupt entry here sets it to this one again); it yields back
 * with MIE=0 and mintthresh 0, tyield sets MIE. */
#define BOUND_CONTEXT 2
/* As deep as context 1's: handlers nest on it four levels and more. */
uint32_t bound_stack[1024] __attribute__((aligned(16)));  /* global: named by bound_top */
static uint32_t bound_src;

static void bound_arm(void) {
    CSRW(CSR_MFASTBIND, MFASTBIND_ARMED | BOUND_CONTEXT << MFASTBIND_CONTEXT_SHIFT | bound_src);
}

void bound_serve(void) {
    uint32_t s = irq_save();
    uint32_t mil = CSRR(MINTSTATUS) >> 24, thresh = CSRR(MINTTHRESH);
    stim(CH_ENTRY, bound_src | mil << 8 | thresh << 16 | 0xffu << 24);
    uint32_t n = handled[bound_src]++;
    irq_restore(s);
    uint32_t r = mix32(seed ^ (bound_src * 0x9e3779b9u) ^ (n * 0x85ebca6bu) ^ 0x626f756eu);
    if ((r & 0xff) < pend_chance)
        pend_group(r >> 8, bound_src);
    clobber(r);
    irq_save();
    bound_arm();
    /* Back into context 1, the one context a bound switch interrupts (not
     * 0, the shared one; not this one): named again, since an interrupt
     * taken here set the next context to this one. */
    CSRW(CSR_MFASTCTX, 1u << MFASTCTX_NEXT_SHIFT);
    CSRW(MINTTHRESH, 0);
    stim(CH_EXIT, bound_src | mil << 8);
}

void bound_top(void);
__asm__(".section .text.bound_top, \"ax\"\n"
        ".balign 4\n"
        ".option push\n"
        ".option norelax\n"
        "bound_top:\n"
        "    la sp, bound_stack + 4096\n"
        "    call bound_serve\n"
        "1:  " FASTCTX_TYIELD(-20) "\n"          /* goes on 20 bytes back: at bound_top */
        ".if 1b - bound_top != 16\n"
        ".error \"bound_top: the tyield's skip no longer leads back to it\"\n"
        ".endif\n"
        ".option pop\n"
        ".text\n");

/* The bound source: the first edge-triggered generator line's, at the top
 * level, so that no interrupt nests before the bound task's first
 * instruction retires (the host takes the claim from that retirement; a
 * handler run in between would hide it). */
static void bound_choose(const uint8_t *modes) {
    unsigned line = 0;
    while (modes[line] == GEN_LEVEL)
        line++;
    bound_src = GEN_SRC(line);
    CLIC_INTCTL(bound_src) = 0xff;
}

/* Context 2 starts at bound_top (interrupts off: an entry would reset the
 * next context between the two writes); the binding is armed from here on. */
static void bound_prepare(void) {
    CSRW(CSR_MFASTCTX, BOUND_CONTEXT << MFASTCTX_NEXT_SHIFT);
    CSRW(CSR_MFASTCTXPC, (uint32_t)bound_top);
    tracer_match0_write((uint32_t)bound_top | 1);
    stim(CH_CFG, CFG_BOUND << 24 | bound_src);
    stim(CH_CFG, (uint32_t)bound_top);
    bound_arm();
}
#endif

static unsigned any_pending(void) {
    for (unsigned i = GEN_SRC(0); i <= SW_LAST; i++)
        if (CLIC_INTIP(i))
            return i;
    return 0;
}

static uint32_t total_handled(void) {
    uint32_t t = 0;
    for (unsigned i = 0; i < 64; i++)
        t += handled[i];
    return t;
}

int main(void) {
    const volatile struct irqlab_config *c = &irqlab_config;
    seed = c->seed;
    pend_chance = c->pend_chance;
    uint32_t iters = c->turns ? c->turns : 1;
    uint32_t rng = mix32(seed ^ 0x746f7274u);
#define RAND() (rng = mix32(rng + 0x6d2b79f5u))
    console_printf("torture: seed %x, %u turns, gap %u, jitter %x, pend chance %u/256\n",
                   seed, iters, c->gap, c->jitter, pend_chance);

    irq_init();
    unsigned nlbits = 1 + RAND() % 4;
    CLIC_CFG = (uint8_t)(nlbits << 1);
    tracer_rise_en_write(0xff);          /* generator lines only */
    tracer_fall_en_write(0xff);
    tracer_core_en_write(3);             /* trap entries and mrets */
    tracer_enable_write(1);
    stim(CH_CFG, CFG_SEED << 24);
    stim(CH_CFG, seed);
    stim(CH_CFG, CFG_ITERS << 24);
    stim(CH_CFG, iters);
    stim(CH_CFG, CFG_NLBITS << 24 | nlbits);
    stim(CH_CFG, CFG_VECTORS << 24);
    stim(CH_CFG, CSRR(mtvec));
    stim(CH_CFG, CSRR(CSR_MTVT));           /* mtvt */
#if !SHV
    watch_mnxti();
#endif

    /* 1. quiet */
    work_init(quiet, seed);
    stim(CH_MARK, M_QUIET_BEGIN);
    work_run(quiet, iters, 0);
    stim(CH_MARK, M_QUIET_END);

    /* 2. storm: the generator patterns (three PERIODIC, two BURST and three
     * LEVEL lines, in random order) ... */
    static const uint8_t modes[N_LINES] = {
        GEN_PERIODIC, GEN_PERIODIC, GEN_PERIODIC, GEN_BURST, GEN_BURST, GEN_LEVEL, GEN_LEVEL, GEN_LEVEL,
    };
    uint8_t order[N_LINES];
    for (unsigned i = 0; i < N_LINES; i++)
        order[i] = modes[i];
    for (unsigned i = N_LINES - 1; i > 0; i--) {
        unsigned j = RAND() % (i + 1);
        uint8_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    uint32_t period = c->gap ? c->gap : 1;
    for (unsigned line = 0; line < N_LINES; line++) {
        struct gen_pattern p = {
            .mode = order[line], .delay = 50 + RAND() % 1024, .high = 1,
            .low = period + RAND() % period, .count = 0, .burst = 1,
            .jitter = c->jitter, .seed = RAND() | 1,
        };
        if (p.mode == GEN_PERIODIC)
            p.high = 1 + RAND() % 24;
        if (p.mode == GEN_BURST) {
            p.high = 1 + RAND() % 8;         /* pulses 2*high apart: edges merge */
            p.burst = 2 + RAND() % 3;
        }
        /* A finite storm: enough repetitions for STORM_SPAN quiet-pass
         * lengths, so that the run ends even if the storm is heavy enough to
         * starve the workload (normally the workload ends first and the
         * lines are stopped); as long again for a second workload. */
        uint64_t span = (uint64_t)iters * TURN_CYCLES * STORM_SPAN * WORKLOADS;
        uint32_t rep = 2 * p.high * p.burst + p.low + c->jitter / 2;
        p.count = (uint32_t)(span / rep) + 1;
        gen_config(line, &p);
        stim(CH_CFG, CFG_LINE << 24 | line << 16 | p.mode << 8 | p.high);
        unsigned trig = p.mode == GEN_LEVEL ? IRQ_TRIG_LEVEL
                      : (RAND() & 1) ? IRQ_TRIG_EDGE_FALLING : IRQ_TRIG_EDGE;
        level_line[GEN_SRC(line)] = p.mode == GEN_LEVEL ? line + 1 : 0;
        irq_configure(GEN_SRC(line), trig, RAND() & 0xff);
        irq_enable(GEN_SRC(line));
    }
    /* ... and the software sources (edge-triggered, random polarity: the
     * unconnected line never makes an edge). */
    for (unsigned id = SW_FIRST; id <= SW_LAST; id++) {
        irq_configure(id, (RAND() & 1) ? IRQ_TRIG_EDGE_FALLING : IRQ_TRIG_EDGE, RAND() & 0xff);
        irq_enable(id);
    }
#if BOUND_CTX
    bound_choose(order);
#endif
    for (unsigned id = GEN_SRC(0); id <= SW_LAST; id++)
        stim(CH_CFG, CFG_SOURCE << 24 | id | CLIC_INTCTL(id) << 8 | CLIC_INTATTR(id) << 16);

    work_init(storm, seed);
#if BOUND_CTX
    bound_prepare();
#endif
#if OTHER_CTX
    work_init(other, seed);
    other_prepare(iters);
#endif
    gen_start((1u << N_LINES) - 1);
    irq_global_enable();
    stim(CH_MARK, M_STORM_BEGIN);
#if OTHER_CTX
    work_run(storm, iters, WORK_YIELD_TO(1));
    while (!other_done)
        switch_to(1);
#else
    work_run(storm, iters, 0);
#endif
    stim(CH_MARK, M_STOP);
    irqgen_stop_write((1u << N_LINES) - 1);
    /* Serve what is left: until nothing is pending and no handler ran for a while. */
    for (;;) {
        uint32_t before = total_handled();
        for (volatile int i = 0; i < 300; i++)
            ;
        if (total_handled() == before && !any_pending())
            break;
    }
    stim(CH_MARK, M_DRAINED);
    irq_global_disable();
    unsigned left = any_pending();
    if (left)
        error(0x400 | left);

    uint32_t total = 0, total_pended = 0;
    for (unsigned id = GEN_SRC(0); id <= SW_LAST; id++) {
        stim(CH_COUNT, id | handled[id] << 8);
        stim(CH_COUNT_PEND, id | pended[id] << 8);
        total += handled[id];
        total_pended += pended[id];
        if (id >= SW_FIRST && handled[id] != pended[id])
            error(0x500 | id);
    }
    unsigned diffs = 0, first = 0;
    for (unsigned i = 0; i < WORK_WORDS; i++) {
        stim(CH_RESULT, quiet[i]);
        stim(CH_RESULT_STORM, storm[i]);
        if (quiet[i] != storm[i] && !diffs++)
            first = i;
    }
    if (diffs)
        error(0x600 | first);
#if OTHER_CTX
    unsigned other_diffs = 0;
    for (unsigned i = 0; i < WORK_WORDS; i++) {
        stim(CH_RESULT_OTHER, other[i]);
        if (quiet[i] != other[i] && !other_diffs++)
            first = i;
    }
    if (other_diffs)
        error(0x700 | first);
    diffs += other_diffs;
#endif
    stim(CH_ERRORS, 0xffffffffu);
    stim(CH_ERRORS, errors);
    stim(CH_MARK, M_DONE);
    console_printf("torture: %u interrupts handled (%u software-pended), quiet %x storm %x, %u words differ, %u errors\n",
                   total, total_pended, work_digest(quiet), work_digest(storm), diffs, errors);
    tracer_enable_write(0);
    return errors ? 1 : 0;
}
