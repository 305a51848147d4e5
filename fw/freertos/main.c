/* FreeRTOS on the SoC: the kernel's services, each checked by a test that
 * prints one line; tests/test_freertos.py runs it on every row (FreeRTOS's
 * own RISC-V port where the core has the machine timer on mip.MTIP, the
 * project's CLIC port on the CLIC rows) and compares.
 * A failure prints "freertos: FAILED: ..." and ends the run (exit 1..104).
 *
 * expect: freertos: scheduler started
 * expect: freertos: registers: ok
 * expect: freertos: priorities: ok
 * expect: freertos: delays: ok
 * expect: freertos: time slicing: ok
 * expect: freertos: queue: ok
 * expect: freertos: counting semaphore: ok
 * expect: freertos: mutex priority inheritance: ok
 * expect: freertos: software timers: ok
 * expect: freertos: notification from an ISR: ok
 * expect: freertos: binary semaphore: ok
 * expect: freertos: nested interrupts: ok
 * expect: freertos: nesting into the switch: ok
 * expect: freertos: critical sections: ok
 * expect: freertos: stack overflow detected: ok
 * expect: freertos: ok
 *
 * Where the port lets interrupts above configKERNEL_INTERRUPT_LEVEL nest and
 * run inside critical sections (portHAS_NESTED_INTERRUPTS: the CLIC port),
 * the nesting and critical-section checks assert that they do (and that
 * such an interrupt comes into the port's own task switch); elsewhere
 * (FreeRTOS's own port: one ISR at a time, critical sections mask all) they
 * assert that they do not. The stack-overflow check is the last: the kernel's
 * hook ends the run.
 */
#include "irqlab.h"
#include "FreeRTOS.h"
#include "task.h"
#include "port_trap.h"
#include "queue.h"
#include "semphr.h"
#include "timers.h"

#if !IRQLAB_HAS_MTIP && !IRQLAB_IRQ_MODEL_CLIC
#error "FreeRTOS's own RISC-V port needs the machine timer on mip.MTIP"
#endif

#define PRIO_RUNNER 1
#define STACK configMINIMAL_STACK_SIZE

static TaskHandle_t runner;

static void fail_at(const char *test, const char *what, int line, uint32_t a, uint32_t b) {
    taskDISABLE_INTERRUPTS();
    console_printf("freertos: FAILED: %s: %s (main.c line %d; %u, %u)\n", test, what, line, a, b);
    irqlab_exit(1);
}
#define fail(test, what, a, b) fail_at(test, what, __LINE__, a, b)

/* A failed check names its line, not its text: the bus SoCs' ROM holds
 * the kernel, the port and every check only without the condition strings. */
#define CHECK(test, cond, a, b) do { if (!(cond)) fail(test, "check failed", (uint32_t)(a), (uint32_t)(b)); } while (0)

static void passed(const char *test) { console_printf("freertos: %s: ok\n", test); }

static void must_create(TaskFunction_t f, const char *name, void *arg, UBaseType_t prio, TaskHandle_t *h) {
    if (xTaskCreate(f, name, STACK, arg, prio, h) != pdPASS)
        fail("create", name, prio, 0);
}

/* ------------------------------------------------ a higher priority preempts */
static SemaphoreHandle_t go;
static volatile int high_ran;

static void high_task(void *arg) {
    xSemaphoreTake(go, portMAX_DELAY);
    high_ran = 1;
    vTaskDelete(NULL);
}

static void test_priorities(void) {
    go = xSemaphoreCreateBinary();
    must_create(high_task, "high", NULL, PRIO_RUNNER + 2, NULL);
    CHECK("priorities", !high_ran, high_ran, 0);     /* it blocked on `go` */
    xSemaphoreGive(go);
    /* The give made a higher-priority task ready: it ran before this line. */
    CHECK("priorities", high_ran, high_ran, 1);
    vTaskDelay(1);                                   /* the idle task frees it */
    vSemaphoreDelete(go);
    passed("priorities");
}

/* --------------------------------------------------------------- delays */
static void test_delays(void) {
#ifdef portHAS_HARDWARE_DELAYS
    UBaseType_t by_hardware = uxPortHardwareDelays();
#endif
    TickType_t t0 = xTaskGetTickCount();
    vTaskDelay(5);
    TickType_t d = xTaskGetTickCount() - t0;
    CHECK("delays", d == 5, d, 5);
#ifdef portHAS_HARDWARE_DELAYS
    /* This task owns a task context where the core has them: on a SoC with
     * the tick countdown the port (through the kernel's patch) handed its
     * delay to it, and the kernel's tick count still moved by exactly 5. */
    by_hardware = uxPortHardwareDelays() - by_hardware;
    CHECK("delays", by_hardware == portHAS_HARDWARE_DELAYS, by_hardware, portHAS_HARDWARE_DELAYS);
#endif
    TickType_t last = xTaskGetTickCount();
    TickType_t start = last;
    for (int i = 1; i <= 3; i++) {
        xTaskDelayUntil(&last, 4);
        CHECK("delays", xTaskGetTickCount() == start + 4 * i, xTaskGetTickCount() - start, 4 * i);
    }
    passed("delays");
}

/* ---------------------------------- equal priorities share the processor */
static volatile uint32_t spins[2];
static volatile int stop_spinning;

static void spinner(void *arg) {
    volatile uint32_t *n = arg;
    while (!stop_spinning)
        (*n)++;
    vTaskSuspend(NULL);
}

static void test_time_slicing(void) {
    TaskHandle_t a, b;
    UBaseType_t mine = uxTaskPriorityGet(NULL);
    vTaskPrioritySet(NULL, PRIO_RUNNER + 3);         /* above the spinners: this task still wakes */
    must_create(spinner, "spinA", (void *)&spins[0], PRIO_RUNNER + 1, &a);
    must_create(spinner, "spinB", (void *)&spins[1], PRIO_RUNNER + 1, &b);
    vTaskDelay(20);
    stop_spinning = 1;
    uint32_t s0 = spins[0], s1 = spins[1];
    vTaskDelay(2);
    vTaskDelete(a);
    vTaskDelete(b);
    vTaskPrioritySet(NULL, mine);
    /* 20 ticks, one slice each: both ran, neither took all of it. */
    CHECK("time slicing", s0 > 0 && s1 > 0, s0, s1);
    CHECK("time slicing", s0 < 4 * s1 && s1 < 4 * s0, s0, s1);
    passed("time slicing");
}

/* ---------------------------------------------------------------- queue */
#define ITEMS 50
static QueueHandle_t queue;

static void producer(void *arg) {
    for (uint32_t i = 0; i < ITEMS; i++) {
        uint32_t v = i * 7 + 1;
        xQueueSend(queue, &v, portMAX_DELAY);
    }
    vTaskDelete(NULL);
}

static void test_queue(void) {
    queue = xQueueCreate(4, sizeof(uint32_t));
    must_create(producer, "prod", NULL, PRIO_RUNNER + 1, NULL);
    for (uint32_t i = 0; i < ITEMS; i++) {
        uint32_t v = 0;
        CHECK("queue", xQueueReceive(queue, &v, 10) == pdPASS, i, 0);
        CHECK("queue", v == i * 7 + 1, v, i * 7 + 1);
    }
    uint32_t v;
    CHECK("queue", xQueueReceive(queue, &v, 2) == errQUEUE_EMPTY, 0, 0);
    vTaskDelay(1);
    vQueueDelete(queue);
    passed("queue");
}

/* ---------------------------------------------------- counting semaphore */
static SemaphoreHandle_t counting;

static void giver(void *arg) {
    for (int i = 0; i < 3; i++)
        xSemaphoreGive(counting);
    vTaskDelete(NULL);
}

static void test_counting(void) {
    counting = xSemaphoreCreateCounting(5, 0);
    must_create(giver, "giver", NULL, PRIO_RUNNER + 1, NULL);
    for (int i = 0; i < 3; i++)
        CHECK("counting semaphore", xSemaphoreTake(counting, 0) == pdTRUE, i, 0);
    CHECK("counting semaphore", xSemaphoreTake(counting, 0) == pdFALSE, 3, 0);
    CHECK("counting semaphore", uxSemaphoreGetCount(counting) == 0, uxSemaphoreGetCount(counting), 0);
    vTaskDelay(1);
    vSemaphoreDelete(counting);
    passed("counting semaphore");
}

/* ----------------------------------------- mutex with priority inheritance */
#define PRIO_LOW (PRIO_RUNNER + 1)
#define PRIO_HIGH (PRIO_RUNNER + 3)
static SemaphoreHandle_t mutex, mutex_done;
static volatile UBaseType_t inherited, restored;
static volatile int high_got;

static void mutex_high(void *arg) {
    xSemaphoreTake(mutex, portMAX_DELAY);            /* blocks: `low` holds it */
    high_got = 1;
    xSemaphoreGive(mutex);
    vTaskDelete(NULL);
}

static void mutex_low(void *arg) {
    xSemaphoreTake(mutex, portMAX_DELAY);
    must_create(mutex_high, "mhigh", NULL, PRIO_HIGH, NULL);   /* runs, blocks on the mutex */
    inherited = uxTaskPriorityGet(NULL);
    xSemaphoreGive(mutex);                           /* `high` takes it and runs first */
    restored = uxTaskPriorityGet(NULL);
    xSemaphoreGive(mutex_done);
    vTaskDelete(NULL);
}

static void test_mutex(void) {
    mutex = xSemaphoreCreateMutex();
    mutex_done = xSemaphoreCreateBinary();
    must_create(mutex_low, "mlow", NULL, PRIO_LOW, NULL);
    CHECK("mutex priority inheritance", xSemaphoreTake(mutex_done, 50) == pdTRUE, 0, 0);
    CHECK("mutex priority inheritance", inherited == PRIO_HIGH, inherited, PRIO_HIGH);
    CHECK("mutex priority inheritance", restored == PRIO_LOW, restored, PRIO_LOW);
    CHECK("mutex priority inheritance", high_got, high_got, 1);
    vTaskDelay(1);
    vSemaphoreDelete(mutex);
    vSemaphoreDelete(mutex_done);
    passed("mutex priority inheritance");
}

/* ------------------------------------------------------- software timers */
static volatile TickType_t oneshot_at;
static volatile uint32_t reloads;

static void oneshot_cb(TimerHandle_t t) { oneshot_at = xTaskGetTickCount(); }

static void reload_cb(TimerHandle_t t) {
    if (++reloads == 5)
        xTimerStop(t, 0);
}

static void test_timers(void) {
    TimerHandle_t once = xTimerCreate("once", 7, pdFALSE, NULL, oneshot_cb);
    TimerHandle_t every = xTimerCreate("every", 3, pdTRUE, NULL, reload_cb);
    TickType_t t0 = xTaskGetTickCount();
    xTimerStart(once, 0);
    xTimerStart(every, 0);
    vTaskDelay(30);
    CHECK("software timers", oneshot_at == t0 + 7, oneshot_at - t0, 7);
    CHECK("software timers", reloads == 5, reloads, 5);
    xTimerDelete(once, 0);
    xTimerDelete(every, 0);
    passed("software timers");
}

/* Generator line `line` on source `irq`, level-triggered at `level`, enabled. */
static void setup_line(unsigned irq, unsigned line, unsigned level, const struct gen_pattern *p) {
    irq_configure(irq, IRQ_TRIG_LEVEL, level);
    irq_enable(irq);
    gen_config(line, p);
}

/* --------------------------------- an interrupt wakes a task (deferred work) */
static volatile uint32_t isr_runs;

void IRQ_HANDLER(IRQLAB_IRQ_GEN_0)(void) {
    BaseType_t woken = pdFALSE;
    gen_ack(1u << 0);                                /* lowers the level line */
    isr_runs++;
    vTaskNotifyGiveFromISR(runner, &woken);
    portYIELD_FROM_ISR(woken);
}

static void test_isr_notification(void) {
    struct gen_pattern p = { .mode = GEN_LEVEL, .delay = 3000, .high = 1, .low = 1, .count = 1 };
    setup_line(IRQLAB_IRQ_GEN_0, 0, configKERNEL_INTERRUPT_LEVEL, &p);
    gen_start(1u << 0);
    CHECK("notification from an ISR", ulTaskNotifyTake(pdTRUE, 20) == 1, isr_runs, 1);
    CHECK("notification from an ISR", isr_runs == 1, isr_runs, 1);
    irq_disable(IRQLAB_IRQ_GEN_0);
    passed("notification from an ISR");
}

/* ------------------------------------------ a binary semaphore holds one give */
static SemaphoreHandle_t binary;
static volatile int binary_woken;

static void binary_taker(void *arg) {
    xSemaphoreTake(binary, portMAX_DELAY);
    binary_woken = 1;
    vTaskDelete(NULL);
}

static void test_binary(void) {
    binary = xSemaphoreCreateBinary();
    CHECK("binary semaphore", xSemaphoreTake(binary, 0) == pdFALSE, 0, 0);   /* created empty */
    CHECK("binary semaphore", xSemaphoreGive(binary) == pdTRUE, 0, 0);
    CHECK("binary semaphore", xSemaphoreGive(binary) == pdFALSE, 0, 0);      /* full: no second give */
    CHECK("binary semaphore", uxSemaphoreGetCount(binary) == 1, uxSemaphoreGetCount(binary), 1);
    CHECK("binary semaphore", xSemaphoreTake(binary, 0) == pdTRUE, 0, 0);
    CHECK("binary semaphore", xSemaphoreTake(binary, 0) == pdFALSE, 0, 0);
    must_create(binary_taker, "btake", NULL, PRIO_RUNNER + 1, NULL);        /* blocks on it */
    CHECK("binary semaphore", !binary_woken, binary_woken, 0);
    xSemaphoreGive(binary);                          /* the taker is higher: it ran before this line */
    CHECK("binary semaphore", binary_woken, binary_woken, 1);
    vTaskDelay(1);
    vSemaphoreDelete(binary);
    passed("binary semaphore");
}

/* ----------- ISRs at two levels: a kernel ISR defers to a task, a higher one nests */
#ifndef portHAS_NESTED_INTERRUPTS
#define portHAS_NESTED_INTERRUPTS 0
#endif
#define LEVEL_ABOVE_KERNEL 0xC0u                      /* a non-RTOS ISR: never calls the kernel */
#define SPIN_LIMIT 20000
static const struct gen_pattern one_pulse = { .mode = GEN_LEVEL, .delay = 40, .high = 1, .low = 1, .count = 1 };
static volatile uint32_t high_isr_runs;
static QueueHandle_t deferred;

#if portHAS_NESTED_INTERRUPTS
extern const char port_entries_begin[], port_entries_end[];   /* the port's tick and switch code */
static volatile uint32_t high_in_port;              /* runs that came into them */
#endif

void IRQ_HANDLER(IRQLAB_IRQ_GEN_2)(void) {        /* above the kernel level */
    gen_ack(1u << 2);
    high_isr_runs++;
#if portHAS_NESTED_INTERRUPTS
    uintptr_t pc = CSRR(mepc);
    high_in_port += pc >= (uintptr_t)port_entries_begin && pc < (uintptr_t)port_entries_end;
#endif
}

void IRQ_HANDLER(IRQLAB_IRQ_GEN_1)(void) {        /* at the kernel level */
    BaseType_t woken = pdFALSE;
    gen_ack(1u << 1);
    uint32_t before = high_isr_runs;
    gen_start(1u << 2);                             /* the higher line fires 40 cycles from now */
#if portHAS_NESTED_INTERRUPTS
    struct irq_nest n;
    irq_nest_begin(&n);
    for (int i = 0; i < SPIN_LIMIT && high_isr_runs == before; i++)
        ;
    irq_nest_end(&n);
#endif
    uint32_t nested = high_isr_runs - before;        /* ran inside this handler */
    xQueueSendFromISR(deferred, &nested, &woken);
    portYIELD_FROM_ISR(woken);
}

static void test_nesting(void) {
    deferred = xQueueCreate(2, sizeof(uint32_t));
    setup_line(IRQLAB_IRQ_GEN_1, 1, configKERNEL_INTERRUPT_LEVEL, &one_pulse);
    setup_line(IRQLAB_IRQ_GEN_2, 2, LEVEL_ABOVE_KERNEL, &one_pulse);
    gen_start(1u << 1);
    uint32_t nested = 99;
    CHECK("nested interrupts", xQueueReceive(deferred, &nested, 20) == pdPASS, 0, 0);
    vTaskDelay(1);                                   /* without nesting, the higher one runs after */
    CHECK("nested interrupts", nested == portHAS_NESTED_INTERRUPTS, nested, portHAS_NESTED_INTERRUPTS);
    CHECK("nested interrupts", high_isr_runs == 1, high_isr_runs, 1);
    irq_disable(IRQLAB_IRQ_GEN_1);
    vQueueDelete(deferred);
    passed("nested interrupts");
}

/* ---- with the CLIC port, interrupts above the kernel's level come into its
 * own switch too (portasm.S: interrupts on in its entries but for the CSR
 * writes): a task yields again and again while such a line fires at random. */
static void test_nesting_into_the_switch(void) {
    enum { PULSES = 300 };
    struct gen_pattern p = { .mode = GEN_LEVEL, .delay = 50, .high = 1, .low = 300, .count = PULSES,
                             .jitter = 127, .seed = 0x5eed };
    uint32_t runs0 = high_isr_runs;
    setup_line(IRQLAB_IRQ_GEN_2, 2, LEVEL_ABOVE_KERNEL, &p);
    gen_start(1u << 2);
    for (int i = 0; i < SPIN_LIMIT && (gen_running() & (1u << 2)); i++)
        taskYIELD();
    setup_line(IRQLAB_IRQ_GEN_2, 2, LEVEL_ABOVE_KERNEL, &one_pulse);     /* as the next test wants it */
#if portHAS_NESTED_INTERRUPTS
    /* Every pulse served, none merged into the next by a wait for the switch. */
    CHECK("nesting into the switch", high_isr_runs - runs0 == PULSES, high_isr_runs - runs0, PULSES);
    CHECK("nesting into the switch", high_in_port > 0, high_in_port, 1);
#else
    CHECK("nesting into the switch", high_isr_runs != runs0, high_isr_runs - runs0, PULSES);
#endif
    passed("nesting into the switch");
}

/* ---- a critical section holds kernel ISRs; with the CLIC port, not the ones above */
static void test_critical_sections(void) {
    uint32_t high0 = high_isr_runs, kernel0 = isr_runs;
    setup_line(IRQLAB_IRQ_GEN_0, 0, configKERNEL_INTERRUPT_LEVEL, &one_pulse);   /* notifies this task */
    taskENTER_CRITICAL();
    gen_start((1u << 0) | (1u << 2));
    for (int i = 0; i < SPIN_LIMIT && high_isr_runs == high0; i++)
        ;
    uint32_t high_inside = high_isr_runs - high0, kernel_inside = isr_runs - kernel0;
    taskEXIT_CRITICAL();
    CHECK("critical sections", kernel_inside == 0, kernel_inside, 0);
    CHECK("critical sections", high_inside == portHAS_NESTED_INTERRUPTS, high_inside, portHAS_NESTED_INTERRUPTS);
    CHECK("critical sections", ulTaskNotifyTake(pdTRUE, 20) == 1, isr_runs - kernel0, 1);   /* ran on exit */
    CHECK("critical sections", high_isr_runs - high0 == 1, high_isr_runs - high0, 1);
    irq_disable(IRQLAB_IRQ_GEN_0);
    irq_disable(IRQLAB_IRQ_GEN_2);
    passed("critical sections");
}

/* ------------- a task that reaches the end of its stack is caught at its next switch */
#define STACK_FILL 0xa5a5a5a5u                       /* the kernel's fill byte, in every byte */
static TaskHandle_t victim;

/* The lowest word of the running task's stack: the end of the long run of
 * never-written words below the frame (the word below it is the heap's
 * header of the stack's block, never the fill). Short runs are unwritten
 * slots of older frames; a trap may push a frame below sp at any time (the
 * stock port saves on the task's stack), so the run is found, not counted. */
#define LONG_RUN 32
static StackType_t *stack_bottom(void) {
    StackType_t *frame = __builtin_frame_address(0);
    StackType_t *p = frame - 1;
    for (UBaseType_t run = 0; run < LONG_RUN; p--) {
        if (p <= frame - STACK)
            fail("stack overflow detected", "no run of unwritten words below the frame", uxTaskGetStackHighWaterMark(NULL), 0);
        run = *p == STACK_FILL ? run + 1 : 0;
    }
    while (*p == STACK_FILL)
        p--;
    return p + 1;
}

static void overflowing_task(void *arg) {
    volatile StackType_t *bottom = stack_bottom();
    for (int i = 0; i < 8; i++)                     /* what a runaway recursion writes last */
        bottom[i] = 0;
    taskYIELD();                                     /* the switch checks the stack's end */
    fail("stack overflow detected", "the switch did not report it", 0, 0);
}

void vApplicationStackOverflowHook(TaskHandle_t task, char *name) {
    if (task != victim) {
        console_printf("freertos: FAILED: stack overflow in task %s\n", name);
        irqlab_exit(104);
    }
    passed("stack overflow detected");
    console_printf("freertos: ok\n");
    taskDISABLE_INTERRUPTS();
    irqlab_exit(0);
}

static void test_stack_overflow(void) {
    if (xTaskCreate(overflowing_task, "victim", STACK, NULL, PRIO_RUNNER + 1, &victim) != pdPASS)
        fail("create", "victim", 0, 0);
    fail("stack overflow detected", "the victim returned", 0, 0);
}

/* ----------------------------------------------------------------- runner */
/* The register test (regtest.S): tasks of equal priority fill every
 * register they own with a pattern, yield to each other and check it (a
 * tick may preempt them anywhere; the rounds are few, so that the kernel's
 * share of the application's timeline stays small: tests/test_rtos_timeline.py).
 * With the runner, the idle and the timer task more tasks
 * than a core with task contexts holds (8), so some share a context and keep
 * their registers in memory between runs. */
#define REG_TASKS 8
#define REG_ROUNDS 10
#define REG_STACK 96                   /* words: the test's frame, an entry's, the record */
uint32_t regtest_rounds(uint32_t seed, uint32_t rounds, uint32_t pend);
static volatile uint32_t reg_result[REG_TASKS];
static volatile uint32_t reg_done;

static void reg_task(void *arg) {
    uint32_t i = (uint32_t)arg;
#if IRQLAB_IRQ_MODEL_CLIC
    uint32_t pend = (uint32_t)&CLIC_INTIP(IRQLAB_IRQ_FIRST_FREE);    /* the port's yield source */
#else
    uint32_t pend = 0;                                             /* ecall: FreeRTOS's own port */
#endif
    reg_result[i] = regtest_rounds(0x9e3779b9u * (i + 1), REG_ROUNDS, pend);
    taskENTER_CRITICAL();
    reg_done++;
    taskEXIT_CRITICAL();
    vTaskDelete(NULL);
}

static void test_registers(void) {
    reg_done = 0;
    for (uint32_t i = 0; i < REG_TASKS; i++)
        if (xTaskCreate(reg_task, "reg", REG_STACK, (void *)i, PRIO_RUNNER + 1, NULL) != pdPASS)
            fail("registers", "create", i, 0);
    while (reg_done < REG_TASKS)
        vTaskDelay(1);
    for (uint32_t i = 0; i < REG_TASKS; i++)
        if (reg_result[i] != 0)
            fail("registers", "a register changed across a switch", i, reg_result[i]);
    vTaskDelay(2);                     /* the idle task frees the tasks' memory */
    passed("registers");
}

static void run_tests(void *arg) {
    console_printf("freertos: scheduler started\n");
    test_registers();
    test_priorities();
    test_delays();
    test_time_slicing();
    test_queue();
    test_counting();
    test_mutex();
    test_timers();
    test_isr_notification();
    test_binary();
    test_nesting();
    test_nesting_into_the_switch();
    test_critical_sections();
    test_stack_overflow();             /* its hook prints the verdict and ends the run */
}

int main(void) {
    irq_init();
    port_trap_install();               /* fw/freertos/port_trap.h */
    /* The trace hooks' events (irqlab_trace.h, configIRQLAB_TRACE): a
     * timeline of tasks, ISRs and kernel objects (`irqlab decode`). */
    tracer_rise_en_write(0);
    tracer_fall_en_write(0);
    tracer_core_en_write(3);           /* trap entries and mrets: each handler's cost (own core) */
#ifdef portTICK_SWITCH_PC
    if (tracer_has_retire_read() & 1)  /* the tick's callee-saved stores: only in ticks that switch */
        tracer_match0_write(portTICK_SWITCH_PC | 1u);
#endif
    tracer_enable_write(1);
    if (xTaskCreate(run_tests, "runner", 2 * STACK, NULL, PRIO_RUNNER, &runner) != pdPASS)
        fail("create", "runner", 0, 0);
    vTaskStartScheduler();
    fail("start", "the scheduler returned", 0, 0);
    return 1;
}
