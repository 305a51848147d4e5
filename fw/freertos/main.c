/* FreeRTOS on the SoC: the kernel's services, each checked by a test that
 * prints one line; tests/test_freertos.py runs it on every row (FreeRTOS's
 * own RISC-V port where the core has the machine timer on mip.MTIP, the
 * project's CLIC port on the CLIC rows) and compares.
 * A failure prints "freertos: FAILED: ..." and ends the run (exit 1..104).
 *
 * expect: freertos: scheduler started
 * expect: freertos: priorities: ok
 * expect: freertos: delays: ok
 * expect: freertos: time slicing: ok
 * expect: freertos: queue: ok
 * expect: freertos: counting semaphore: ok
 * expect: freertos: mutex priority inheritance: ok
 * expect: freertos: software timers: ok
 * expect: freertos: notification from an ISR: ok
 * expect: freertos: ok
 */
#include "irqlab.h"
#include "FreeRTOS.h"
#include "task.h"
#include "queue.h"
#include "semphr.h"
#include "timers.h"

#if !IRQLAB_HAS_MTIP && !IRQLAB_IRQ_MODEL_CLIC
#error "FreeRTOS's own RISC-V port needs the machine timer on mip.MTIP"
#endif

#define PRIO_RUNNER 1
#define STACK configMINIMAL_STACK_SIZE

static TaskHandle_t runner;

static void fail(const char *test, const char *what, uint32_t a, uint32_t b) {
    taskDISABLE_INTERRUPTS();
    console_printf("freertos: FAILED: %s: %s (%u, %u)\n", test, what, a, b);
    irqlab_exit(1);
}

#define CHECK(test, cond, a, b) do { if (!(cond)) fail(test, #cond, (uint32_t)(a), (uint32_t)(b)); } while (0)

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
    TickType_t t0 = xTaskGetTickCount();
    vTaskDelay(5);
    TickType_t d = xTaskGetTickCount() - t0;
    CHECK("delays", d == 5, d, 5);
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
    irq_configure(IRQLAB_IRQ_GEN_0, IRQ_TRIG_LEVEL, configKERNEL_INTERRUPT_LEVEL);
    irq_enable(IRQLAB_IRQ_GEN_0);
    gen_config(0, &p);
    gen_start(1u << 0);
    CHECK("notification from an ISR", ulTaskNotifyTake(pdTRUE, 20) == 1, isr_runs, 1);
    CHECK("notification from an ISR", isr_runs == 1, isr_runs, 1);
    irq_disable(IRQLAB_IRQ_GEN_0);
    passed("notification from an ISR");
}

/* ----------------------------------------------------------------- runner */
static void run_tests(void *arg) {
    console_printf("freertos: scheduler started\n");
    test_priorities();
    test_delays();
    test_time_slicing();
    test_queue();
    test_counting();
    test_mutex();
    test_timers();
    test_isr_notification();
    console_printf("freertos: ok\n");
    taskDISABLE_INTERRUPTS();          /* no tick event after the end: the trace drains */
    irqlab_exit(0);
}

extern char trap_entry_direct[];

int main(void) {
    irq_init();
#if !IRQLAB_IRQ_MODEL_CLIC
    /* Every trap through FreeRTOS's port: direct mode, or the same jumps as a
     * vector table where the core vectors in hardware. (The CLIC port keeps
     * the HAL's entries and adds its own: port-clic/.) */
    CSRW(mtvec, (uint32_t)trap_entry_direct | (IRQLAB_HW_VECTORING ? 1 : 0));
#endif
    /* The trace hooks' events (irqlab_trace.h, configIRQLAB_TRACE): a
     * timeline of tasks, ISRs and kernel objects (`irqlab decode`). */
    tracer_rise_en_write(0);
    tracer_fall_en_write(0);
    tracer_enable_write(1);
    if (xTaskCreate(run_tests, "runner", 2 * STACK, NULL, PRIO_RUNNER, &runner) != pdPASS)
        fail("create", "runner", 0, 0);
    vTaskStartScheduler();
    fail("start", "the scheduler returned", 0, 0);
    return 1;
}
