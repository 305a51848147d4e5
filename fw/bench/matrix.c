/* The measurement matrix: seed 004's test cases T3-T7 and the benchmarks
 * B-Lmax and B-Tmax (trace/benchmarks.py, whose STRESSORS and BENCH_CASES
 * reach this file through irqlab_protocol.h). Each case is the latency (or
 * throughput) procedure on line 0 with stressors around it; what is measured
 * is line 0's, from the trace, as in the headline tests (main.c). */
#include "bench.h"

volatile int invalidate_caches;

/* Lines 1..7 are the matrix's stress lines: their handlers only acknowledge. */
#define STRESS_FIRST 1u
#define STRESS_LAST 7u
static volatile uint32_t stress_handled;
void stress_handler(unsigned line) {
    stim(CH_STRESS_ENTRY, line);             /* T6's throughput counts every line */
    gen_ack(1u << line);
    stress_handled++;
}
#define STRESS_HANDLER(n) \
    void IRQ_HANDLER(IRQLAB_PASTE(IRQLAB_IRQ_GEN_, n))(void) { stress_handler(n); }
STRESS_HANDLER(2) STRESS_HANDLER(3) STRESS_HANDLER(4) STRESS_HANDLER(5) STRESS_HANDLER(6) STRESS_HANDLER(7)

/* ------------------------------------------------------------ the matrix */
/* T7's window: the top quarter of main RAM, shared by the bus-stress master
 * and the background loop's random loads and stores. A firmware linked into
 * main RAM (a board run) must end below it. */
#define TRAFFIC_BYTES (MAIN_RAM_SIZE / 4)
#define TRAFFIC_BASE (MAIN_RAM_BASE + MAIN_RAM_SIZE - TRAFFIC_BYTES)
extern char _data_lma[], _data_start[], _data_end[];

static int traffic_possible(void) {
#ifdef CSR_BUSSTRESS_BASE  /* the target has the bus-stress master */
    uintptr_t image_end = (uintptr_t)_data_lma + (uintptr_t)(_data_end - _data_start);
    return !(image_end > TRAFFIC_BASE && (uintptr_t)_data_lma < MAIN_RAM_BASE + MAIN_RAM_SIZE);
#else
    return 0;
#endif
}

static void traffic_start(uint32_t intensity, uint32_t seed) {
#ifdef CSR_BUSSTRESS_BASE
    busstress_base_write(TRAFFIC_BASE);
    busstress_mask_write(TRAFFIC_BYTES / 4 - 1);
    busstress_intensity_write(intensity);
    busstress_write_share_write(128);          /* half reads, half writes */
    busstress_seed_write(seed);
    busstress_clear_write(1);
    busstress_enable_write(1);
#endif
}

static void traffic_stop(void) {
#ifdef CSR_BUSSTRESS_BASE
    busstress_enable_write(0);
    console_printf("  bus-stress master: %u reads, %u writes, %u wait cycles\n",
                   busstress_reads_read(), busstress_writes_read(), busstress_wait_cycles_read());
#endif
}

/* The background loop of T7: random loads and stores in the window, then the
 * usual mix. */
static uint32_t traffic_work(uint32_t x) {
    volatile uint32_t *w = (volatile uint32_t *)TRAFFIC_BASE;
    for (int i = 0; i < 16; i++) {
        x = x * 1664525u + 1013904223u;
        uint32_t j = (x >> 8) & (TRAFFIC_BYTES / 4 - 1);
        if (x & 0x80000000u)
            w[j] = x;
        else
            x ^= w[j];
    }
    return background_work(x);
}

/* Levels where the controller has them: line 0 above every stress line. */
#define LEVEL_TOP 0xC0u
#define LEVEL_LOWEST 0x10u
#define IRQ_GEN(line) (IRQLAB_IRQ_GEN + (line))

static void stress_line(unsigned line, unsigned level, const struct gen_pattern *p) {
    irq_configure(IRQ_GEN(line), IRQ_TRIG_LEVEL, level);
    irq_enable(IRQ_GEN(line));
    gen_config(line, p);
}

/* One test case of the matrix: line 0 runs the latency procedure (one
 * request per phase, randomized gap) or, with `tp`, the throughput procedure
 * (held for tp_high cycles, then a pause), with the stressors of `stress`
 * around it. What is measured is line 0's, as in the headline tests. */
static void run_case(const volatile struct irqlab_config *c, uint32_t test, uint32_t stress, int tp) {
    uint32_t n = c->lat_count / 4 ? c->lat_count / 4 : 1;
    struct gen_pattern p0 = tp
        ? (struct gen_pattern){ .mode = GEN_LEVEL, .delay = 400, .high = c->tp_high, .low = c->tp_low,
                                .count = c->tp_phases, .burst = 1, .jitter = 0, .seed = c->seed }
        : (struct gen_pattern){ .mode = GEN_LEVEL, .delay = 400, .high = 1, .low = c->lat_period,
                                .count = n, .burst = 1, .jitter = c->lat_jitter, .seed = c->seed };
    uint32_t lines = 1u << LINE;
    irq_configure(IRQ, IRQ_TRIG_LEVEL, LEVEL_TOP);
    irq_enable(IRQ);
    if (stress & STRESS_ENABLED) {
        /* Every source nothing drives, enabled at the lowest level... */
        for (unsigned irq = IRQLAB_IRQ_FIRST_FREE; irq < IRQLAB_IRQ_LINES; irq++) {
#ifdef IRQLAB_IRQ_MODBUS
            if (irq == IRQLAB_IRQ_MODBUS)
                continue;                        /* a peripheral's line, not a free one */
#endif
            irq_configure(irq, IRQ_TRIG_LEVEL, LEVEL_LOWEST);
            irq_enable(irq);
        }
        /* ...and the stress lines requesting at random, at the lowest level. */
        for (unsigned k = STRESS_FIRST; k <= STRESS_LAST; k++) {
            struct gen_pattern p = { .mode = GEN_LEVEL, .delay = 100 + 37 * k, .high = 1,
                                     .low = c->stress_gap, .count = 0, .burst = 1, .jitter = 0x3FF,
                                     .seed = c->seed ^ (0x9E3779B9u * k) };
            stress_line(k, LEVEL_LOWEST, &p);
            lines |= 1u << k;
        }
    }
    if (stress & STRESS_PRIORITIES) {
        /* Ascending levels, each line its own gap: the winner keeps changing. */
        for (unsigned k = STRESS_FIRST; k <= STRESS_LAST; k++) {
            struct gen_pattern p = { .mode = GEN_LEVEL, .delay = 100 + 11 * k, .high = 1,
                                     .low = c->stress_gap / 2 + 53 * k, .count = 0, .burst = 1,
                                     .jitter = 0xFF, .seed = c->seed ^ (0x7F4A7C15u * k) };
            stress_line(k, LEVEL_LOWEST + 0x10 * k, &p);
            lines |= 1u << k;
        }
    }
    if (stress & STRESS_PARALLEL) {
        /* The same pattern and seed as line 0: the same rising cycles. */
        uint32_t last = c->parallel_lines < 1 ? 1 : c->parallel_lines > STRESS_LAST ? STRESS_LAST
                                                                                    : c->parallel_lines;
        for (unsigned k = STRESS_FIRST; k <= last; k++) {
            stress_line(k, LEVEL_TOP, &p0);
            lines |= 1u << k;
        }
    }
    int traffic = (stress & STRESS_TRAFFIC) != 0;
    if (traffic)
        traffic_start(c->traffic_intensity, c->seed);
    invalidate_caches = (stress & STRESS_INVALIDATE) != 0;
    /* Where one entry serves every line, its B does not say which line it
     * is for: with other lines requesting, B is line 0's software event. */
    b_pc_match_off = !IRQLAB_B_PER_LINE && (lines & ~(1u << LINE));
    if (b_pc_match_off)
        tracer_match0_write(0);

    handled = 0;
    stress_handled = 0;
    stats_setup();
    gen_config(LINE, &p0);
    stim(CH_TEST_BEGIN, test);
    uint32_t x = 1;
    gen_start(lines);
    while (gen_running() & (1u << LINE))
        x = traffic ? traffic_work(x) : background_work(x);
    irqgen_stop_write(lines & ~(1u << LINE));
    for (int i = 0; i < 64; i++)
        x = background_work(x);
    stim(CH_TEST_END, test);
    invalidate_caches = 0;
    if (traffic)
        traffic_stop();
    report_stats(test);
    console_printf("  line 0: %u handled; stress lines: %u handled\n", handled, stress_handled);
    if (b_pc_match_off) {
        b_pc_match_off = 0;
        b_setup();
    }

    /* Back to irq_init()'s state for what follows. */
    for (unsigned irq = IRQLAB_IRQ_FIRST_FREE; irq < IRQLAB_IRQ_LINES; irq++)
        irq_configure(irq, IRQ_TRIG_LEVEL, IRQ_DEFAULT_LEVEL);
    for (unsigned k = STRESS_FIRST; k <= STRESS_LAST; k++)
        irq_configure(IRQ_GEN(k), IRQ_TRIG_LEVEL, IRQ_DEFAULT_LEVEL);
    irq_configure(IRQ, IRQ_TRIG_LEVEL, IRQ_DEFAULT_LEVEL);
    irq_enable(IRQ);
    if (!tp && handled != n) {
        console_printf("  handled %u interrupts, expected %u\n", handled, n);
        irqlab_exit(10);
    }
    (void)x;
}

static const struct { uint32_t test, stress, tp; } bench_cases[] = BENCH_CASES;

void run_matrix(const volatile struct irqlab_config *c) {
    for (unsigned i = 0; i < sizeof bench_cases / sizeof bench_cases[0]; i++) {
        uint32_t test = bench_cases[i].test, stress = bench_cases[i].stress;
        if (!(c->tests & test))
            continue;
        if ((stress & STRESS_TRAFFIC) && !traffic_possible()) {
            /* A board: no bus-stress master (or the firmware in its window). A
             * case of other stressors too (B-Lmax) runs without the traffic. */
            console_printf("test %u: no bus-stress master, or the firmware lies in its window: %s\n", test,
                           stress == STRESS_TRAFFIC ? "skipped" : "run without the traffic");
            if (stress == STRESS_TRAFFIC)
                continue;
            stress &= ~STRESS_TRAFFIC;
        }
        if ((stress & STRESS_INVALIDATE) && !IRQLAB_HAS_CACHES) {
            console_printf("test %u: no caches to invalidate: skipped\n", test);
            continue;
        }
        console_printf("test %u: stressors 0x%x, %s\n", test, stress,
                       bench_cases[i].tp ? "throughput" : "latency");
        run_case(c, test, stress, bench_cases[i].tp);
    }
}

