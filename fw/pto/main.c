/* The PTO demo (seed 002 Sec. 5.4): a planner task prepares a
 * pulse-train specification (a motion profile: initial half-period, per-pulse
 * change, pulse count) and starts the PTO timer (soc/pto.py); the timer
 * toggles the pin in hardware at each compare and interrupts; the handler,
 * a plain C handler on the row's interrupt HAL, computes the next interval
 * and writes it before the next edge is due. An unrelated background task
 * runs all along. The figures come from the trace of the pin (trace line
 * HW_PTO): the host measures every interval (irqlab/demos/pto/sim.py). A late
 * write is counted by the timer (`misses`); the firmware reports the count
 * (CH_MISSES) and the host also finds each late edge in the trace.
 *
 * Parameters: the configuration block "pto" (trace/protocol.py). With
 * `from_host` the host sends each train's specification over the console
 * instead (a board: one load runs a whole sweep, since the boot code takes one
 * load per reset), and says per train whether the pin's edges are traced: a
 * serial trace link carries far fewer records a second than a fast train
 * makes edges, so the host traces only trains whose edges fit the trace
 * unit's FIFO and judges the others by the timer's counts alone.
 *
 * expect: pto: ok
 */
#include "irqlab.h"
#include "FreeRTOS.h"
#include "task.h"
#include "port_trap.h"
#include "pto.h"

#if !IRQLAB_HAS_PTO
#error "the PTO demo needs a SoC with the pulse-train output (soc/configs.py pto)"
#endif

#define IRQ IRQLAB_IRQ_PTO
#define PRIO_BACKGROUND 1
#define PRIO_PLANNER    2
/* Above the kernel's level where there are levels: the handler never calls
 * the kernel, so the kernel's critical sections need not hold it off. */
#define PTO_LEVEL 0xC0u

/* The handler's state: the profile and the edges still to program. */
static struct pto_profile profile;
static uint32_t edges_left;       /* edges the handler has still to program */
static uint32_t interval;         /* the current pulse's half-period (cycles) */
static volatile uint32_t train_done;

/* One edge has come: program the next one, or stop after the last. Edge j
 * (1-based) programs edge j + 1: the same half-period after a rise (the
 * pulse's second half), the profile's next one after a fall. */
void IRQ_HANDLER(IRQ)(void) {
    uint32_t left = edges_left;
    if (left == 0) {
        pto_ctrl_write(0);                        /* the last fall: stop, interrupt cleared */
        train_done = 1;
        return;
    }
    edges_left = left - 1;
    if ((left & 1) == 0)                          /* an even count left: a pulse ended */
        interval = pto_profile_next(&profile);
    pto_next_write(interval);                     /* arms the edge, acknowledges */
#if !IRQLAB_IRQ_MODEL_CLIC
    /* A level line: the store may still be on its way when the handler
     * returns (a fast return would take the same edge twice); a load from
     * the timer waits for it. */
    (void)pto_status_read();
#endif
}

static volatile uint32_t background_work;

static void background_task(void *arg) {
    uint32_t state = irqlab_config.seed;
    for (;;) {
        state = background_step(state);
        background_work++;
    }
}

static void run_train(const struct pto_spec *s, int traced) {
    tracer_rise_en_write(traced ? 1u << PTO_TRACE_LINE : 0);   /* hardware: the pin's edges only */
    tracer_fall_en_write(traced ? 1u << PTO_TRACE_LINE : 0);
    pto_profile_start(&profile, s);
    interval = profile.q8 >> 8;
    edges_left = 2 * s->pulses - 1;               /* the first edge is programmed here */
    train_done = 0;
    uint32_t work0 = background_work;
    stim(CH_TRAIN, s->pulses);
    irq_enable(IRQ);
    pto_next_write(interval);                     /* arms the first edge: exact from the enable */
    pto_ctrl_write(1);
    /* Asleep for the train and a tick more (an upper bound: the ramps only
     * shorten it), so no tick during the train switches tasks; then a look
     * every tick. */
    uint64_t cycles = 2ull * s->pulses * (s->start_q8 >> 8);
    vTaskDelay((TickType_t)(cycles / (configCPU_CLOCK_HZ / configTICK_RATE_HZ)) + 1);
    while (!train_done)
        vTaskDelay(1);
    irq_disable(IRQ);
    uint32_t edges = pto_edges_read(), misses = pto_misses_read(), work = background_work - work0;
    /* The train's edges out of the trace unit before its report: on a
     * serial link they may still fill the FIFO, and the report comes after
     * every edge of its train (the next train starts with the FIFO empty). */
    while (tracer_level_read() != 0)
        vTaskDelay(1);
    stim(CH_DONE, edges);
    stim(CH_MISSES, misses);
    stim(CH_WORK, work);
    console_printf("pto: %u pulses, %u edges, %u late, background work %u\n", s->pulses, edges, misses, work);
    if (edges != 2 * s->pulses) {
        console_printf("pto: FAILED: %u edges, %u expected\n", edges, 2 * s->pulses);
        irqlab_exit(1);
    }
}

static struct pto_spec make_spec(uint32_t pulses, uint32_t start, uint32_t cruise, uint32_t delta_q8) {
    if (pulses == 0 || start < 2 || (delta_q8 && cruise < 2)) {
        console_printf("pto: FAILED: bad specification\n");
        irqlab_exit(1);
    }
    return (struct pto_spec){.pulses = pulses, .start_q8 = start << 8, .cruise_q8 = cruise << 8,
                             .delta_q8 = delta_q8};
}

/* from_host: the next byte from the console, the other tasks running meanwhile. */
static uint32_t host_byte(void) {
    while (uart_rxempty_read())
        vTaskDelay(1);
    return (uint32_t)console_getc() & 0xFF;
}

static uint32_t host_word(void) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= host_byte() << (8 * i);
    return v;
}

/* from_host: trains as the host specifies them, until PTO_CMD_END. */
static void trains_from_host(void) {
    console_printf("pto: ready\n");
    for (;;) {
        uint32_t cmd = host_byte();
        if (cmd == PTO_CMD_END)
            return;
        if (cmd != PTO_CMD_TRAIN)
            continue;                             /* line noise before a command */
        uint32_t w[PTO_CMD_WORDS];
        for (int i = 0; i < PTO_CMD_WORDS; i++)
            w[i] = host_word();
        struct pto_spec s = make_spec(w[0], w[1], w[2], w[3]);
        run_train(&s, w[4] != 0);
    }
}

/* The planner: prepares the specification from the configuration (or the
 * host's) and runs it. */
static void planner(void *arg) {
    const volatile struct irqlab_config *c = &irqlab_config;
    struct pto_spec s = make_spec(c->pulses, c->start_interval, c->cruise_interval, c->delta_q8);
    if (c->background &&
        xTaskCreate(background_task, "bg", configMINIMAL_STACK_SIZE, NULL, PRIO_BACKGROUND, NULL) != pdPASS) {
        console_printf("pto: FAILED: no background task\n");
        irqlab_exit(1);
    }
    vTaskDelay(2);                                /* the background task is under way */
    if (c->from_host)
        trains_from_host();
    else
        for (uint32_t i = 0; i < c->trains; i++)
            run_train(&s, 1);
    console_printf("pto: ok\n");
    taskDISABLE_INTERRUPTS();                     /* no tick event after the end: the trace drains */
    irqlab_exit(0);
}

int main(void) {
    irq_init();
    port_trap_install();               /* fw/freertos/port_trap.h */
    /* The CLIC: edge-triggered, its pending bit cleared as the handler is
     * taken, so the handler's store needs not land before it returns. */
    irq_configure(IRQ, IRQLAB_IRQ_MODEL_CLIC ? IRQ_TRIG_EDGE : IRQ_TRIG_LEVEL, PTO_LEVEL);
    tracer_enable_write(1);                       /* the pin's edges: run_train */
    if (xTaskCreate(planner, "plan", 2 * configMINIMAL_STACK_SIZE, NULL, PRIO_PLANNER, NULL) != pdPASS) {
        console_printf("pto: FAILED: no planner task\n");
        irqlab_exit(1);
    }
    vTaskStartScheduler();
    console_printf("pto: FAILED: the scheduler returned\n");
    irqlab_exit(1);
}
