/* The benchmark firmware: interrupt latency, then throughput, on generator
 * line 0. What is measured comes from the trace unit; the firmware only sets
 * the stage, marks handler entry on a stimulus port, and acknowledges.
 *
 * Latency:    LEVEL requests with a random gap (irqlab_config.lat_*); the
 *             handler marks entry (B) and acknowledges. A = generator edge.
 * Throughput: LEVEL line held for a stimulation phase, then a pause; each
 *             acknowledge raises the next request at once, so handler
 *             completions per phase is the throughput.
 * Preemption: (cores with interrupt levels: the CLIC) line 1 fires once; its
 *             handler, at a lower level, re-enables interrupts and works
 *             until the test ends; line 0's requests (as in the latency test,
 *             at a higher level) all preempt it.
 * The matrix: (irqlab bench --suite matrix) seed 004's test cases T3-T7,
 *             each the latency (or throughput) procedure on line 0 with
 *             stressors around it: the table BENCH_CASES and the STRESS_*
 *             bits come from trace/benchmarks.py; run_case() in matrix.c.
 */
#include "bench.h"

volatile uint32_t handled;

/* The C handler of generator line 0, behind the core's usual entry code. */
void IRQ_HANDLER(IRQ)(void) {
    /* On a board, this mark and the acknowledge also bound the handler
     * GPIO's high time (boards/common.py HandlerWindow). */
    stim(CH_HANDLER_ENTRY, handled);
    gen_ack(1u << LINE);
    handled++;
#if IRQLAB_HAS_CACHES
    /* T3 (matrix.c): the next interrupt meets cold caches. Only rows with
     * caches have the test, after the handler's work (B and the ack). */
    if (invalidate_caches)
        cache_invalidate_all();
#endif
}

#define PREEMPT_LINE 1
#define PREEMPT_IRQ IRQLAB_IRQ_GEN_1
#define LEVEL_LOW 0x40
#define LEVEL_HIGH 0xC0
static volatile int preempt_running;

/* Line 1: a stress line, or in the preemption test the running lower-level
 * handler that line 0 preempts. */
void IRQ_HANDLER(PREEMPT_IRQ)(void) {
#if IRQLAB_HAS_IRQ_LEVELS
    if (preempt_running) {
        gen_ack(1u << PREEMPT_LINE);
        struct irq_nest nest;
        irq_nest_begin(&nest);                 /* let line 0's higher level in */
        uint32_t x = 1;
        while (gen_running() & (1u << LINE))   /* until line 0's last request */
            x = background_work(x);
        irq_nest_end(&nest);
        return;
    }
#endif
    stress_handler(PREEMPT_LINE);
}

/* Work the core does while waiting, so that arrivals meet the pipeline in
 * every state that can delay an interrupt: loads (and load-use interlocks),
 * stores, multiplies, taken and not-taken branches, calls and returns, and
 * one divide per call (a real one: the divisor is a volatile load, so the
 * compiler cannot turn it into a multiply; iterative dividers take ~34
 * cycles). The caller's loop adds a load from a peripheral (the generator's
 * status, through the bus). */
static volatile uint32_t work_buf[16];
uint32_t background_work(uint32_t x) {
    for (int i = 0; i < 16; i++) {
        x = x * 1664525u + 1013904223u;
        work_buf[i] ^= x;
        if (x & 0x100) x += work_buf[(i + 3) & 15];
    }
    x ^= x / (work_buf[x & 15] | 1u);
    return x;
}

/* The first handler instruction with the caller-saved context stored, on
 * the way to line 0's handler: the row's B symbol (irqlab/rows.py). */
extern char IRQLAB_B_SYMBOL(IRQ)[];
#define BENCH_CONTEXT_SAVED IRQLAB_B_SYMBOL(IRQ)

/* B = a PC match on irq_context_saved where the core drives the trace unit's
 * retire port (comparator 0), else the handler's software event. The software
 * event is sent either way. */
int b_pc_match_off;
static int b_is_pc_match(void) {
    return (tracer_has_retire_read() & 1) && !b_pc_match_off;
}

#if IRQLAB_HAS_RET_SYMBOL
/* The return instruction of line 0's handler (comparator 1): where the
 * hand-over to the next handler starts in the back-to-back test. */
extern char IRQLAB_RET_SYMBOL(IRQ)[];
#endif

void b_setup(void) {
    if (b_is_pc_match()) {
        tracer_match0_write((uint32_t)BENCH_CONTEXT_SAVED | 1u);
#if IRQLAB_HAS_RET_SYMBOL
        tracer_match1_write((uint32_t)IRQLAB_RET_SYMBOL(IRQ) | 1u);
#endif
    }
}

void stats_setup(void) {
    /* A = rising edge of generator line 0, B = see b_setup(). */
    tracer_stats0_start_sel_write(SEL_HW_RISE(0));
    tracer_stats0_stop_sel_write(b_is_pc_match() ? SEL_PC_MATCH(0) : SEL_SW(CH_HANDLER_ENTRY));
    tracer_stats0_hist_shift_write(irqlab_config.hist_shift);
    tracer_stats0_hist_offset_write(0);
    tracer_stats0_clear_write(1);
    for (volatile int i = 0; i < 80; i++)
        ;
}

/* Dump the on-chip statistics into the trace, so the host can compare them
 * with what it computed from the event stream. */
void report_stats(uint32_t test) {
    /* The words of trace/protocol.py STATS_WORDS, in order. */
    stim(CH_STATS + 0, test);
    stim(CH_STATS + 1, tracer_stats0_count_read());
    uint64_t sum = tracer_stats0_sum_read();
    stim(CH_STATS + 2, (uint32_t)sum);
    stim(CH_STATS + 3, (uint32_t)(sum >> 32));
    stim(CH_STATS + 4, tracer_stats0_min_read());
    stim(CH_STATS + 5, tracer_stats0_max_read());
    for (unsigned b = 0; b < 64; b++) {
        tracer_stats0_hist_index_write(b);
        (void)tracer_stats0_hist_index_read();
        uint32_t v = tracer_stats0_hist_data_read();
        if (v) {
            stim(CH_STATS + 6, b);
            stim(CH_STATS + 7, v);
        }
    }
    console_printf("  on-chip: count=%u min=%u max=%u\n", tracer_stats0_count_read(),
                   tracer_stats0_min_read(), tracer_stats0_max_read());
}

static uint32_t run_pattern(uint32_t test, const struct gen_pattern *p, uint32_t expect) {
    handled = 0;
    stats_setup();
    gen_config(LINE, p);
    stim(CH_TEST_BEGIN, test);
    uint32_t x = 1;
    gen_start(1u << LINE);
    while (gen_running() & (1u << LINE))
        x = background_work(x);
    /* Let the last request be served. */
    for (int i = 0; i < 64; i++)
        x = background_work(x);
    stim(CH_TEST_END, test);
    report_stats(test);
    if (expect && handled != expect) {
        console_printf("  handled %u interrupts, expected %u\n", handled, expect);
        irqlab_exit(10 + test);
    }
    return x;
}

#if IRQLAB_HAS_IRQ_LEVELS
static void run_preempt(const volatile struct irqlab_config *c) {
    uint32_t n = c->lat_count / 4 ? c->lat_count / 4 : 1;
    console_printf("preempt: %u interrupts at level 0x%x into a level-0x%x handler\n",
                   n, LEVEL_HIGH, LEVEL_LOW);
    irq_configure(IRQ, IRQ_TRIG_LEVEL, LEVEL_HIGH);
    irq_configure(PREEMPT_IRQ, IRQ_TRIG_LEVEL, LEVEL_LOW);
    irq_enable(IRQ);
    irq_enable(PREEMPT_IRQ);
    struct gen_pattern low = {
        .mode = GEN_LEVEL, .delay = 20, .high = 1, .low = 1, .count = 1, .burst = 1,
    };
    gen_config(PREEMPT_LINE, &low);
    struct gen_pattern p = {
        .mode = GEN_LEVEL, .delay = 400, .high = 1, .low = c->lat_period,
        .count = n, .burst = 1, .jitter = c->lat_jitter, .seed = c->seed ^ 0x5a5a5a5a,
    };
    handled = 0;
    preempt_running = 1;
    stats_setup();
    gen_config(LINE, &p);
    stim(CH_TEST_BEGIN, TEST_PREEMPT);
    gen_start((1u << LINE) | (1u << PREEMPT_LINE));
    while (gen_running() & (1u << LINE))
        ;                                /* line 1's handler takes over at once */
    stim(CH_TEST_END, TEST_PREEMPT);
    preempt_running = 0;
    report_stats(TEST_PREEMPT);
    if (handled != n) {
        console_printf("  handled %u interrupts, expected %u\n", handled, n);
        irqlab_exit(10 + TEST_PREEMPT);
    }
}
#endif

int main(void) {
    const volatile struct irqlab_config *c = &irqlab_config;
    console_printf("irqlab bench firmware on %s\n", CONFIG_CPU_HUMAN_NAME);
    irq_init();
    irq_enable(IRQ);
    b_setup();
    if (c->flags & CONFIG_TRACE_LEAN) {
        /* A slow link (a board's UART): only A (generator line 0 rising) and
         * the phase envelope; B and the rest come from the software events
         * and the lossless on-chip statistics. */
        tracer_rise_en_write((1u << 0) | (1u << 8));
        tracer_fall_en_write(1u << 8);
    }
    tracer_enable_write(1);
    irq_global_enable();

    if (c->tests & TEST_LATENCY) {
        console_printf("latency: %u interrupts, gap %u + rand & 0x%x cycles\n",
                       c->lat_count, c->lat_period, c->lat_jitter);
        struct gen_pattern p = {
            .mode = GEN_LEVEL, .delay = 200, .high = 1, .low = c->lat_period,
            .count = c->lat_count, .burst = 1, .jitter = c->lat_jitter, .seed = c->seed,
        };
        run_pattern(TEST_LATENCY, &p, c->lat_count);
    }
    if (c->tests & TEST_THROUGHPUT) {
        console_printf("throughput: %u phases of %u cycles, pause %u\n",
                       c->tp_phases, c->tp_high, c->tp_low);
        struct gen_pattern p = {
            .mode = GEN_LEVEL, .delay = 200, .high = c->tp_high, .low = c->tp_low,
            .count = c->tp_phases, .burst = 1, .jitter = 0, .seed = c->seed,
        };
        run_pattern(TEST_THROUGHPUT, &p, 0);
        console_printf("  handled %u interrupts\n", handled);
    }
#if IRQLAB_HAS_IRQ_LEVELS
    if (c->tests & TEST_PREEMPT)
        run_preempt(c);
#endif
    run_matrix(c);
    irq_global_disable();
    tracer_enable_write(0);
    return 0;
}
