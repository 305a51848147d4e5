#include "clictest.h"

/* Generator-driven edges (real hardware input changes):
 *  gen:  line 0 = source 8, rising edge, SINGLE pulse of EDGE_PULSE cycles:
 *        the handler runs once, during the pulse (line still high), pending
 *        already clear in it. The pulse outlasts the handler's first run
 *        from cold caches: on clic-cache (code in ROM behind the instruction
 *        cache, 8-word line refills over the bus) the trap is taken 2 cycles
 *        after the edge, but the hook reads the line ~450 cycles after it.
 *  fall: line 1 = source 9, falling edge: the handler runs once, after the
 *        pulse (line low again).
 *  levlow: line 2 = source 10, level-low: pending while the idle line is
 *        low, not while the pulse is high (enabled only then); the handler
 *        runs once the line falls, sees its pending bit still set (level)
 *        and disables itself.
 *  levhigh: line 3 = source 11, level (high), disabled: pending follows the
 *        line: 0 idle, 1 during the pulse, 0 after. */
/* expect: Tgen: rise: runs=1 in_pulse=1 ip=0 | fall: runs=1 in_pulse=0 ip=0 | levlow: idle=1 pulse=0 runs_in_pulse=0 runs=1 ip=1 | levhigh: idle=0 pulse=1 after=0 */
#define EDGE_PULSE 2000

static void pulse(unsigned line, uint32_t high) {
    struct gen_pattern p = {.mode = GEN_SINGLE, .delay = 20, .high = high, .count = 1};
    gen_config(line, &p);
    gen_start(1u << line);
}

static void wait_gen_idle(unsigned line) {
    for (unsigned i = 0; i < 100000 && (gen_running() >> line & 1); i++)
        ;
    if (gen_running() >> line & 1) fail("generator line still running");
    settle();
}

/* Whether the generator line of the handler's source was running at its entry. */
static volatile uint32_t running_at_entry;
static void note_running(unsigned id, unsigned phase) {
    if (phase == 0) running_at_entry = gen_running() >> (id - GEN_SRC(0)) & 1;
}

/* One edge-triggered line: its handler's runs, running_at_entry and ip. */
static void edge_line(const char *what, unsigned line, enum irq_trigger trig) {
    const unsigned s = GEN_SRC(line);
    nev = 0;
    running_at_entry = 9;
    src_on(s, trig, 0x80);
    irq_global_enable();
    pulse(line, EDGE_PULSE);
    wait_gen_idle(line);
    irq_global_disable();
    console_printf(" %s: runs=%u in_pulse=%u ip=%u", what, hits[s], running_at_entry, nev ? evlog[0].ip : 9);
}

CLICTEST(gen) {
    console_printf("Tgen:");
    hook = note_running;
    edge_line("rise", 0, IRQ_TRIG_EDGE);
    console_printf(" |");
    edge_line("fall", 1, IRQ_TRIG_EDGE_FALLING);
    hook = 0;

    /* level-low */
    nev = 0;
    unsigned s = GEN_SRC(2);
    src_off(s, IRQ_TRIG_LEVEL_LOW, 0x80);
    act_self_disable[s] = 1;
    unsigned idle = CLIC_INTIP(s), in_pulse = 1, runs_in_pulse = 0;
    irq_global_enable();
    pulse(2, 2000);
    for (unsigned i = 0; i < 1000 && in_pulse; i++)
        in_pulse = CLIC_INTIP(s);
    src_enable(s);
    for (;;) {                       /* hits first: a run seen before a `running` read of 1 was in the pulse */
        unsigned h = hits[s];
        if (!(gen_running() >> 2 & 1)) break;
        if (h) runs_in_pulse = 1;
    }
    settle();
    irq_global_disable();
    console_printf(" | levlow: idle=%u pulse=%u runs_in_pulse=%u runs=%u ip=%u", idle, in_pulse,
                   runs_in_pulse, hits[s], nev ? evlog[0].ip : 9);

    /* level-high, disabled: watch the pending bit */
    s = GEN_SRC(3);
    src_off(s, IRQ_TRIG_LEVEL, 0x80);
    idle = CLIC_INTIP(s);
    unsigned seen = 0;
    pulse(3, 400);
    while (gen_running() >> 3 & 1)
        if (CLIC_INTIP(s)) seen = 1;
    settle();
    console_printf(" | levhigh: idle=%u pulse=%u after=%u\n", idle, seen, CLIC_INTIP(s));
}
