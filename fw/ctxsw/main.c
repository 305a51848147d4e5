/* The context-switch suite, in the style of RTOSBench:
 * each routine makes the kernel switch tasks `samples` times in one way and
 * marks, around every switch, the triggering call (ctxsw_mark_a, just before
 * it) and the first thing the next task does (ctxsw_mark_b). The trace unit
 * times the marks (trace/ctxsw.py: PC matches on the retire port, else the
 * marks' stores); nothing here reads a clock. The routines and cases are the
 * registry trace/ctxsw.py (ROUTINE_*, CASE_*: irqlab_protocol.h). Each
 * routine checks what it did and prints one line; a failure prints
 * "ctxsw: FAILED: ..." and ends the run (exit 1).
 *
 * expect: ctxsw: calib: ok
 * expect: ctxsw: yield: ok
 * expect: ctxsw: sem: ok
 * expect: ctxsw: mutex: ok
 * expect: ctxsw: queue: ok
 * expect: ctxsw: isr: ok
 * expect: ctxsw: bound: ok
 * expect: ctxsw: delay: ok
 * expect: ctxsw: calib+bg: ok
 * expect: ctxsw: yield+bg: ok
 * expect: ctxsw: sem+bg: ok
 * expect: ctxsw: mutex+bg: ok
 * expect: ctxsw: queue+bg: ok
 * expect: ctxsw: isr+bg: ok
 * expect: ctxsw: bound+bg: ok
 * expect: ctxsw: ok
 */
#include "irqlab.h"
#include "FreeRTOS.h"
#include "task.h"
#include "port_trap.h"
#include "queue.h"
#include "semphr.h"
#include "ctxsw.h"

#if !IRQLAB_HAS_MTIP && !IRQLAB_IRQ_MODEL_CLIC
#error "FreeRTOS's own RISC-V port needs the machine timer on mip.MTIP"
#endif

#define PRIO_RUNNER 1
#define PRIO_LOW    2                 /* also the yielding pair */
#define PRIO_HIGH   3
#define STACK configMINIMAL_STACK_SIZE
#define LINE 0                        /* generator line of the interrupt routine (trace/ctxsw.py GEN_LINE) */
#define IRQ IRQLAB_IRQ_GEN_0

static uint32_t samples;              /* per case, from the configuration block */
static SemaphoreHandle_t done;        /* a routine's tasks tell the runner they finished */
static volatile int stop;

static void fail(const char *routine, const char *what, uint32_t a, uint32_t b) {
    taskDISABLE_INTERRUPTS();
    console_printf("ctxsw: FAILED: %s: %s (%u, %u)\n", routine, what, a, b);
    irqlab_exit(1);
}

/* The pass: 0, or CTXSW_BACKGROUND_FLAG with the background load running.
 * The host learns it from each routine's start event (CH_ROUTINE), never
 * from the marks, which stay one store each. */
static uint32_t pass_flags;

/* A routine passed; in the pass with background load its name has the
 * cases' suffix (trace/ctxsw.py BACKGROUND_SUFFIX). */
static void ok(const char *routine) {
    console_printf("ctxsw: %s%s: ok\n", routine, pass_flags ? "+bg" : "");
}

#define CHECK(r, cond, a, b) do { if (!(cond)) fail(r, #cond, (uint32_t)(a), (uint32_t)(b)); } while (0)

static TaskHandle_t create(TaskFunction_t f, const char *name, UBaseType_t prio) {
    TaskHandle_t h;
    if (xTaskCreate(f, name, STACK, NULL, prio, &h) != pdPASS)
        fail("create", name, prio, 0);
    return h;
}

/* The runner waits for a routine's end, then removes its tasks (the idle
 * task frees them during the delay). */
static void finish(const char *routine, TaskHandle_t a, TaskHandle_t b) {
    CHECK(routine, xSemaphoreTake(done, portMAX_DELAY) == pdTRUE, 0, 0);
    if (a) vTaskDelete(a);
    if (b) vTaskDelete(b);
    vTaskDelay(1);
}

static void finished(void) {
    xSemaphoreGive(done);
    vTaskSuspend(NULL);
}

/* ------------------------------------------------------------- calib */
static void run_calib(void) {
    for (uint32_t i = 0; i < samples; i++) {
        ctxsw_mark_a(CASE_OVERHEAD);
        ctxsw_mark_b(CASE_OVERHEAD);
    }
    ok("calib");
}

/* ------------------------------------------------------------- yield */
static volatile uint32_t yields;

static void yield_task(void *arg) {
    for (;;) {
        ctxsw_mark_a(CASE_YIELD);
        taskYIELD();
        if (stop)
            break;
        ctxsw_mark_b(CASE_YIELD);
        if (++yields >= samples)
            stop = 1;
    }
    finished();
}

static void run_yield(void) {
    stop = 0;
    yields = 0;
    vTaskSuspendAll();                            /* neither starts before both exist */
    TaskHandle_t a = create(yield_task, "yieldA", PRIO_LOW);
    TaskHandle_t b = create(yield_task, "yieldB", PRIO_LOW);
    xTaskResumeAll();
    /* Both stop (each gives `done`, a binary semaphore); the runner, below
     * them, runs only once both have. */
    finish("yield", a, b);
    CHECK("yield", yields == samples, yields, samples);
    ok("yield");
}

/* ------------------------------------------------ semaphore and queue */
static SemaphoreHandle_t sem;
static QueueHandle_t queue;
static volatile uint32_t received;

static void sem_high(void *arg) {
    for (;;) {
        xSemaphoreTake(sem, portMAX_DELAY);       /* blocks until the low task gives */
        ctxsw_mark_b(CASE_SEM_SIGNAL);
        received++;
        ctxsw_mark_a(CASE_SEM_WAIT);
    }
}

static void sem_low(void *arg) {
    for (uint32_t i = 0; i < samples; i++) {
        ctxsw_mark_a(CASE_SEM_SIGNAL);
        xSemaphoreGive(sem);                      /* the high task runs at once */
        ctxsw_mark_b(CASE_SEM_WAIT);
        CHECK("sem", received == i + 1, received, i + 1);
    }
    finished();
}

static void queue_high(void *arg) {
    for (;;) {
        uint32_t v;
        xQueueReceive(queue, &v, portMAX_DELAY);  /* blocks: the queue is empty */
        ctxsw_mark_b(CASE_QUEUE_SEND);
        CHECK("queue", v == received * 3 + 1, v, received);
        received++;
        ctxsw_mark_a(CASE_QUEUE_RECEIVE);
    }
}

static void queue_low(void *arg) {
    for (uint32_t i = 0; i < samples; i++) {
        uint32_t v = i * 3 + 1;
        ctxsw_mark_a(CASE_QUEUE_SEND);
        xQueueSend(queue, &v, portMAX_DELAY);     /* the high task runs at once */
        ctxsw_mark_b(CASE_QUEUE_RECEIVE);
        CHECK("queue", received == i + 1, received, i + 1);
    }
    finished();
}

static void run_pair(const char *routine, TaskFunction_t high, TaskFunction_t low) {
    received = 0;
    TaskHandle_t h = create(high, "high", PRIO_HIGH);     /* runs and blocks */
    TaskHandle_t l = create(low, "low", PRIO_LOW);
    finish(routine, h, l);
    CHECK(routine, received == samples, received, samples);
    ok(routine);
}

/* ----------------------------------------------------------------- mutex */
static SemaphoreHandle_t mutex;
static TaskHandle_t mutex_waiter;
static volatile uint32_t mutex_rounds;

static void mutex_high(void *arg) {
    for (;;) {
        ulTaskNotifyTake(pdTRUE, portMAX_DELAY);  /* the holder wakes this task */
        ctxsw_mark_a(CASE_MUTEX_BLOCK);
        xSemaphoreTake(mutex, portMAX_DELAY);     /* held: blocks, the holder inherits */
        ctxsw_mark_b(CASE_MUTEX_RELEASE);
        mutex_rounds++;
        xSemaphoreGive(mutex);
    }
}

static void mutex_low(void *arg) {
    for (uint32_t i = 0; i < samples; i++) {
        xSemaphoreTake(mutex, portMAX_DELAY);     /* free: no switch */
        xTaskNotifyGive(mutex_waiter);            /* the high task runs, blocks on the mutex */
        ctxsw_mark_b(CASE_MUTEX_BLOCK);
        CHECK("mutex", uxTaskPriorityGet(NULL) == PRIO_HIGH, uxTaskPriorityGet(NULL), PRIO_HIGH);
        ctxsw_mark_a(CASE_MUTEX_RELEASE);
        xSemaphoreGive(mutex);                    /* back to PRIO_LOW; the high task runs */
        CHECK("mutex", uxTaskPriorityGet(NULL) == PRIO_LOW, uxTaskPriorityGet(NULL), PRIO_LOW);
        CHECK("mutex", mutex_rounds == i + 1, mutex_rounds, i + 1);
    }
    finished();
}

static void run_mutex(void) {
    mutex_rounds = 0;
    mutex_waiter = create(mutex_high, "mhigh", PRIO_HIGH);
    TaskHandle_t l = create(mutex_low, "mlow", PRIO_LOW);
    finish("mutex", mutex_waiter, l);
    CHECK("mutex", mutex_rounds == samples, mutex_rounds, samples);
    ok("mutex");
}

/* ------------------------------------------------- an ISR wakes a task */
static SemaphoreHandle_t isr_sem;
static volatile uint32_t isr_runs, isr_woken, isr_overruns;
static volatile int bound_routine;    /* the line's interrupt is the bound routine's */
static volatile uint32_t bound_woken, bound_overruns;

#if PORT_CONTEXTS > 1
/* With task contexts the handler is the bound interrupt's way through the
 * kernel (portmacro.h vPortBoundWait), taken only when the core cannot
 * switch (the interrupted task has no context of its own). */
#define BOUND_HANDLER() portYIELD_FROM_ISR(xPortBoundIrqFromISR(IRQ))
#else
/* Elsewhere the ISR lowers the line (where the interrupt model has level
 * lines only, the source stays pending while the line is high) and gives
 * the task's semaphore; a give that finds it full is an overrun, counted as
 * in the isr routine below. */
#define BOUND_HANDLER() do { BaseType_t w = pdFALSE; gen_ack(1u << LINE); \
                             if (xSemaphoreGiveFromISR(isr_sem, &w) != pdPASS) bound_overruns++; \
                             portYIELD_FROM_ISR(w); } while (0)
#endif

/* A request that comes while the task has not taken the previous give yet
 * (a tick held it up on a slow row) finds the semaphore full: an overrun,
 * counted (the host leaves such samples out: trace/ctxsw.py). */
void IRQ_HANDLER(IRQ)(void) {
    if (bound_routine) {
        BOUND_HANDLER();
        return;
    }
    BaseType_t woken = pdFALSE;
    gen_ack(1u << LINE);                          /* lowers the level line */
    isr_runs++;
    ctxsw_mark_a(CASE_ISR_GIVE);
    if (xSemaphoreGiveFromISR(isr_sem, &woken) != pdPASS)
        isr_overruns++;
    portYIELD_FROM_ISR(woken);
}

static void isr_high(void *arg) {
    for (;;) {
        xSemaphoreTake(isr_sem, portMAX_DELAY);
        ctxsw_mark_b(CASE_ISR_GIVE);
        if (++isr_woken + isr_overruns == samples)   /* an overrun comes before the take that follows it */
            xSemaphoreGive(done);
    }
}

/* Generator line 0 raises its request `samples` times, the first `delay`
 * cycles on, each next one `irq_period` (+ jitter) cycles after the line
 * was lowered; the source at the kernel's level, triggered by `trig`. */
static void start_requests(const volatile struct irqlab_config *c, uint32_t delay, enum irq_trigger trig) {
    struct gen_pattern p = {
        .mode = GEN_LEVEL, .delay = delay, .high = 1, .low = c->irq_period, .count = samples,
        .burst = 1, .jitter = c->irq_jitter, .seed = c->seed,
    };
    irq_configure(IRQ, trig, configKERNEL_INTERRUPT_LEVEL);
    irq_enable(IRQ);
    gen_config(LINE, &p);
    gen_start(1u << LINE);
}

static void run_isr(const volatile struct irqlab_config *c) {
    isr_runs = isr_woken = isr_overruns = 0;
    TaskHandle_t h = create(isr_high, "isrhigh", PRIO_HIGH);
    start_requests(c, 500, IRQ_TRIG_LEVEL);
    finish("isr", h, NULL);                       /* the runner blocks: the idle task runs */
    irq_disable(IRQ);
    CHECK("isr", isr_runs == samples && isr_woken + isr_overruns == samples, isr_runs, isr_woken);
    if (isr_overruns)
        console_printf("ctxsw: isr: %u requests came before the task took the previous one\n", isr_overruns);
    ok("isr");
}

/* ------------------------------------------- an interrupt bound to a task */
/* With task contexts the edge pends the source (edge-triggered), the core
 * switches into the task, whose first code after the switch is mark B
 * itself (vPortBoundWait's `first`, which gets the case in a0), and the
 * task lowers the line; elsewhere the ISR does (BOUND_HANDLER). The
 * generator raises it again `irq_period` (+ jitter) cycles later. */
static void bound_task(void *arg) {
    for (;;) {
#if PORT_CONTEXTS > 1
        vPortBoundWait(IRQ, (void (*)(void *))ctxsw_mark_b, (void *)CASE_IRQ_BOUND_TASK);
        gen_ack(1u << LINE);
#else
        xSemaphoreTake(isr_sem, portMAX_DELAY);
        ctxsw_mark_b(CASE_IRQ_BOUND_TASK);
#endif
        if (++bound_woken + bound_overruns == samples)   /* as isr_high */
            xSemaphoreGive(done);
    }
}

static void run_bound(const volatile struct irqlab_config *c) {
    bound_woken = bound_overruns = 0;
    bound_routine = 1;
    TaskHandle_t h = create(bound_task, "bound", PRIO_HIGH);   /* runs and waits */
    start_requests(c, c->irq_period, IRQ_TRIG_EDGE);   /* the first a period on: the runner has blocked */
    finish("bound", h, NULL);
    irq_disable(IRQ);
    bound_routine = 0;
    CHECK("bound", bound_woken + bound_overruns == samples, bound_woken, samples);
    if (bound_overruns)
        console_printf("ctxsw: bound: %u requests came before the task took the previous one\n", bound_overruns);
    ok("bound");
}

/* ------------------------------------------------- a tick wakes a task */
/* The task delays itself one tick `samples` times; the tick's edge starts
 * each sample (the trace unit sees the machine timer's line: trace/ctxsw.py
 * tick_line, its rise traced during this routine only), the task's mark B
 * after vTaskDelay ends it. Where the core has task contexts the port
 * hands the delay to the SoC's tick countdown (port-clic/port.c
 * xPortTaskDelay); elsewhere the kernel's delayed list wakes it. */
_Static_assert(IRQLAB_IRQ_MTIMER < HW_LINES_CPU_IRQ, "the trace unit sees the tick's line");
static volatile uint32_t delay_woken;

static void delay_task(void *arg) {
    for (;;) {
        vTaskDelay(1);
        ctxsw_mark_b(CASE_TICK_TO_TASK);
        if (++delay_woken == samples)
            xSemaphoreGive(done);
    }
}

static void run_delay(void) {
    delay_woken = 0;
    uint32_t rise = tracer_rise_en_read();
    tracer_rise_en_write(rise | 1u << (HW_LINE_CPU_IRQ + IRQLAB_IRQ_MTIMER));
    TaskHandle_t h = create(delay_task, "delay", PRIO_HIGH);
    finish("delay", h, NULL);
    tracer_rise_en_write(rise);
    CHECK("delay", delay_woken >= samples, delay_woken, samples);
    ok("delay");
}

/* ----------------------------------------------------------------- runner */
/* Background load: tasks at the runner's priority (below every routine's
 * tasks) doing countable work, each sleeping a few ticks now and then, so
 * that the ready and the delayed lists are not empty and the idle task no
 * longer has the core when the routines' tasks block. */
static volatile uint32_t background_work;

static void background_task(void *arg) {
    for (uint32_t n = 1;; n++) {
        background_work++;
        if ((n & 1023) == 0)
            vTaskDelay(1 + ((uint32_t)arg & 3));
    }
}

static void run_routines(const volatile struct irqlab_config *c) {
    uint32_t r = c->routines;
    if (r & ROUTINE_CALIB) {
        stim(CH_ROUTINE, ROUTINE_CALIB | pass_flags);
        run_calib();
    }
    if (r & ROUTINE_YIELD) {
        stim(CH_ROUTINE, ROUTINE_YIELD | pass_flags);
        run_yield();
    }
    if (r & ROUTINE_SEM) {
        stim(CH_ROUTINE, ROUTINE_SEM | pass_flags);
        run_pair("sem", sem_high, sem_low);
    }
    if (r & ROUTINE_MUTEX) {
        stim(CH_ROUTINE, ROUTINE_MUTEX | pass_flags);
        run_mutex();
    }
    if (r & ROUTINE_QUEUE) {
        stim(CH_ROUTINE, ROUTINE_QUEUE | pass_flags);
        run_pair("queue", queue_high, queue_low);
    }
    if (r & ROUTINE_ISR) {
        stim(CH_ROUTINE, ROUTINE_ISR | pass_flags);
        run_isr(c);
    }
    if (r & ROUTINE_BOUND) {
        stim(CH_ROUTINE, ROUTINE_BOUND | pass_flags);
        run_bound(c);
    }
    if ((r & ROUTINE_DELAY) && !pass_flags) {     /* trace/ctxsw.py: tick-to-task has no +bg */
        stim(CH_ROUTINE, ROUTINE_DELAY);
        run_delay();
    }
}

static void runner(void *arg) {
    const volatile struct irqlab_config *c = &irqlab_config;
    done = xSemaphoreCreateBinary();
    sem = xSemaphoreCreateBinary();
    queue = xQueueCreate(1, sizeof(uint32_t));
    mutex = xSemaphoreCreateMutex();
    isr_sem = xSemaphoreCreateBinary();
    run_routines(c);
    if (c->background) {
        for (uint32_t i = 0; i < c->background; i++)
            if (xTaskCreate(background_task, "bg", STACK / 2, (void *)(i + 1), PRIO_RUNNER, NULL) != pdPASS)
                fail("create", "bg", i, 0);
        pass_flags = CTXSW_BACKGROUND_FLAG;
        run_routines(c);
        CHECK("bg", background_work > 0, background_work, 0);
        console_printf("ctxsw: background work: %u\n", background_work);
    }
    console_printf("ctxsw: ok\n");
    taskDISABLE_INTERRUPTS();          /* no tick event after the end: the trace drains */
    irqlab_exit(0);
}

/* The kernel's tick: a sample with a tick inside is left out (trace/ctxsw.py). */
void vApplicationTickHook(void) {
    stim(CH_TICK, 0);
}

int main(void) {
    samples = irqlab_config.samples;
    console_printf("ctxsw: %u samples per case\n", samples);
    irq_init();
    port_trap_install();               /* fw/freertos/port_trap.h */
    /* The marks' PC matches where the core drives the retire port
     * (comparators: trace/ctxsw.py PC_A, PC_B). */
    if (tracer_has_retire_read() & 1) {
        tracer_match0_write((uint32_t)ctxsw_mark_b | 1u);
        tracer_match1_write((uint32_t)ctxsw_mark_a | 1u);
        tracer_core_en_write(2);       /* mrets: where a switch by return ends (trace/ctxsw.py) */
    }
    tracer_rise_en_write(1u << LINE);             /* hardware: only the interrupt routine's edges */
    tracer_fall_en_write(0);
    tracer_enable_write(1);
    if (xTaskCreate(runner, "runner", 2 * STACK, NULL, PRIO_RUNNER, NULL) != pdPASS)
        fail("create", "runner", 0, 0);
    vTaskStartScheduler();
    fail("start", "the scheduler returned", 0, 0);
    return 1;
}
