/* The CLIC port's C side (portmacro.h says how the port works). */
#include "irqlab.h"
#include "fastirq_entry.h"
#include "clic.h"
#include "irqlab_timer.h"
#include "FreeRTOS.h"
#include "task.h"

#define TICK_SOURCE   IRQLAB_IRQ_MTIMER
#define YIELD_SOURCE  IRQLAB_IRQ_FIRST_FREE          /* a source no device drives (portmacro.h vPortYield) */
#define TICK_CYCLES   (configCPU_CLOCK_HZ / configTICK_RATE_HZ)
/* The task's mcause at its start (CLIC layout): mpp = M, mpie = 1, mpil = 0. */
#define INITIAL_MCAUSE 0x38000000u

/* portasm.S */
void port_tick_entry(void);
void port_yield_entry(void);
void port_start_first_task(void);

UBaseType_t uxPortCriticalNesting = 0xaaaaaaaa;    /* portmacro.h; counts from 0 once the scheduler runs */
static uint64_t next_tick;
static StackType_t isr_stack[configISR_STACK_SIZE_WORDS] __attribute__((aligned(16)));
const StackType_t port_isr_stack_top = (StackType_t)&isr_stack[configISR_STACK_SIZE_WORDS];

/* The pointer table the core reads: the HAL's, with the tick and the yield
 * pointing at the port's entries (in RAM: the HAL's table is in the code memory). */
extern const uint32_t clic_vector_table[];
static uint32_t vector_table[IRQLAB_CLIC_SOURCES] __attribute__((aligned(64)));

#if configUSE_PORT_OPTIMISED_TASK_SELECTION == 1
/* The highest set bit of each byte (portmacro.h ulPortHighestBit); entry 0 is never asked for. */
#define HB2(n)  (n), (n)
#define HB4(n)  HB2(n), HB2(n)
#define HB8(n)  HB4(n), HB4(n)
#define HB16(n) HB8(n), HB8(n)
#define HB32(n) HB16(n), HB16(n)
#define HB64(n) HB32(n), HB32(n)
#define HB128(n) HB64(n), HB64(n)
const uint8_t port_highest_bit[256] = {0, 0, HB2(1), HB4(2), HB8(3), HB16(4), HB32(5), HB64(6), HB128(7)};
#endif

static void task_exit_error(void) {
    console_printf("freertos: FAILED: a task returned from its function\n");
    irqlab_exit(105);
}

/* A task's first context, as portasm.S loads it (pxTopOfStack: its address). */
#if IRQLAB_FASTIRQ_ENTRY
/* The callee-saved registers (CALLEE bytes), then the core's frame
 * (entry_macros.S): ra, t0-t2, a0.., t3-t6 (not with E), mepc, mcause. */
#ifdef __riscv_abi_rve
#define CALLER_REGS 10
#define CALLEE_WORDS 4
#else
#define CALLER_REGS 16
#define CALLEE_WORDS 12
#endif
#define FRAME_WORDS (CALLEE_WORDS + (CALLER_REGS + 2 + 3) / 4 * 4)
#define SLOT_RA   CALLEE_WORDS
#define SLOT_A0   (CALLEE_WORDS + 4)
#define SLOT_EPC  (CALLEE_WORDS + CALLER_REGS)
#define SLOT_CAUSE (SLOT_EPC + 1)
#else
/* mepc, mcause, x1, then x5.. (x15 on RV32E, x31 otherwise). */
#ifdef __riscv_abi_rve
#define FRAME_REGS 12
#else
#define FRAME_REGS 28
#endif
#define FRAME_WORDS (((2 + FRAME_REGS) * 4 + 15) / 16 * 4)
#define SLOT_RA   2
#define SLOT_A0   (3 + 10 - 5)
#define SLOT_EPC  0
#define SLOT_CAUSE 1
#endif

#if PORT_CONTEXTS > 1
/* With task contexts (portasm.S says how they are used): each task's record
 * at the top of its stack, pxTopOfStack its address. Contexts 1 .. N-1 go
 * to the first tasks (a deleted task's context to the next one created);
 * the others share context 0 with the boot code and keep their registers
 * in memory between runs. */
struct port_record {
    uint32_t context;
    StackType_t *saved;              /* the context in memory, or 0 */
    uint32_t counted;                /* shared context: 1 + the priority it is counted ready at, 0: not */
    uint32_t ready;                  /* own context: mfastready's word for it but the priority; 0: shared */
};
static uint32_t contexts_free = ((1u << PORT_CONTEXTS) - 1) & ~1u;
extern void *volatile pxCurrentTCB;

static uint32_t context_take(void) {
    uint32_t c = 0;
    vPortEnterCritical();
    if (contexts_free) {
        c = __builtin_ctz(contexts_free);
        contexts_free &= ~(1u << c);
    }
    vPortExitCritical();
    return c;
}

static void bound_forget(void *tcb, uint32_t context);

/* The core's view of the ready tasks (portmacro.h vPortYieldTask; the
 * kernel's hooks call these in its critical sections). A task with a
 * context of its own: its ready bit and priority in the core (mfastready);
 * its TCB the core learns when the task first runs (port_context_load:
 * mfasttcb). A task sharing context 0 is counted per priority, and at a
 * priority where one is ready a yield defers to the kernel (mfastdefer),
 * whose round robin then reaches it too. */
#include <stddef.h>
_Static_assert(offsetof(StaticListItem_t, pvDummy3[3]) == offsetof(ListItem_t, pxContainer) &&
               sizeof(StaticList_t) == sizeof(List_t), "FreeRTOS's public layouts");
_Static_assert(offsetof(StaticTask_t, xDummy3[0].pvDummy3[3]) == 20, "portasm.S TCB_STATE_CONTAINER");
_Static_assert(offsetof(StaticTask_t, uxDummy5) == PORT_TCB_PRIORITY, "portmacro.h reads the TCB's priority");
_Static_assert(offsetof(struct port_record, ready) == PORT_RECORD_READY, "portmacro.h reads the record");
static uint8_t shared_ready[configMAX_PRIORITIES];
static uint32_t defer_mask;
/* The kernel's ready lists (its pxReadyTasksLists, static in tasks.c),
 * learned as the scheduler starts from the task it starts with, and their
 * size: portasm.S port_switch tests a task against them. */
extern uintptr_t port_ready_lists, port_ready_bytes;      /* portasm.S: port_switch tests a shared task */

static inline void *state_container(void *tcb) {
    return ((StaticTask_t *)tcb)->xDummy3[0].pvDummy3[3];       /* xStateListItem.pxContainer */
}

static void shared_count(struct port_record *r, uint32_t counted) {
    if (r->counted == counted)
        return;
    if (r->counted && --shared_ready[r->counted - 1] == 0)
        defer_mask &= ~(1u << (r->counted - 1));
    if (counted && shared_ready[counted - 1]++ == 0)
        defer_mask |= 1u << (counted - 1);
    r->counted = counted;
    CSRW(CSR_MFASTDEFER, defer_mask);
}

void vPortSharedTaskReady(void *tcb) {
    shared_count(*(struct port_record **)tcb, ((StaticTask_t *)tcb)->uxDummy5 + 1);
}

void vPortTaskNotReady(void *tcb) {
    struct port_record *r = *(struct port_record **)tcb;
    if (r->context)
        CSRW(CSR_MFASTREADY, r->context << MFASTREADY_CONTEXT_SHIFT);
    else
        shared_count(r, 0);
}


void vPortTaskDeleted(void *tcb) {
    struct port_record *r = *(struct port_record **)tcb;     /* pxTopOfStack */
    vPortEnterCritical();
    bound_forget(tcb, r->context);
    vPortTaskNotReady(tcb);
    if (r->context) {
        CSRW(CSR_MFASTREADY, MFASTREADY_FORGET | r->context << MFASTREADY_CONTEXT_SHIFT);
        contexts_free |= 1u << r->context;
    }
    vPortExitCritical();
}

/* Bound interrupts (portmacro.h vPortBoundWait). A binding per source in
 * use: the task that waits for it (NULL: none) and whether one came while
 * none waited. The core keeps the armed binding of each context
 * (mfastbind); a switch by it disarms it. */
struct port_bound {
    uint32_t irq;                    /* the source + 1; 0: a free entry */
    void *owner;                     /* the task that waits for it */
    TaskHandle_t waiter;
    uint32_t kept;
};
#define PORT_BOUND_MAX (2 * PORT_CONTEXTS)       /* a delay channel and a bound source a task */
static struct port_bound bound[PORT_BOUND_MAX];

static inline uint32_t record_context(void *tcb) {
    return (*(struct port_record **)tcb)->context;
}

/* The entry of `irq` (new ones only if `take`), NULL if there is none. */
static struct port_bound *bound_entry(uint32_t irq, int take) {
    struct port_bound *free_entry = NULL;
    for (int i = 0; i < PORT_BOUND_MAX; i++) {
        if (bound[i].irq == irq + 1)
            return &bound[i];
        if (!bound[i].irq && !free_entry)
            free_entry = &bound[i];
    }
    if (take && free_entry)
        free_entry->irq = irq + 1;
    return take ? free_entry : NULL;
}

static inline void bind(uint32_t context, uint32_t irq, uint32_t armed) {
    CSRW(CSR_MFASTBIND, armed | context << MFASTBIND_CONTEXT_SHIFT | irq);
}

/* After a switch by the core: the kernel still runs the interrupted task
 * (pxCurrentTCB), this one is suspended in its view, and the threshold is
 * the interrupt's level, so no kernel ISR runs. Made ready as an ISR would
 * (xTaskResumeFromISR), this task becomes the kernel's current one if it is
 * above the interrupted one and the scheduler runs; otherwise the core goes
 * back into the interrupted task (tyield, mfastctx's next: the core set it
 * to the interrupted context), and this task goes on when the kernel
 * switches into it. It becomes the current task before the kernel resumes
 * it: resumed above the current task, the kernel would pend a yield, and
 * the next tick would switch from this task to itself (110 cycles). */
static inline UBaseType_t tcb_priority(void *tcb) {
    return ((StaticTask_t *)tcb)->uxDummy5;
}

static void bound_learn(void *self) {
    void *interrupted = pxCurrentTCB;
    if (tcb_priority(self) > tcb_priority(interrupted) &&
        xTaskGetSchedulerState() == taskSCHEDULER_RUNNING) {
        pxCurrentTCB = self;
        xTaskResumeFromISR(self);
        portENABLE_INTERRUPTS();
        return;
    }
    xTaskResumeFromISR(self);
    __asm volatile("csrci mstatus, 8" ::: "memory");  /* tyield sets it again, in the interrupted task */
    CSRW(CSR_MFASTCTX, record_context(interrupted) << MFASTCTX_NEXT_SHIFT);
    portENABLE_INTERRUPTS();
    __asm volatile(FASTCTX_TYIELD(0) ::: "memory");
}

/* The wait; `delay` (0: none) is a load of the tick countdown's channel
 * (soc/taskdelay.py), written once the binding is armed, in the same
 * critical section: its interrupt cannot come before the wait. */
static void bound_wait(uint32_t irq, void (*first)(void *), void *arg, uint32_t delay) {
    void *self = pxCurrentTCB;
    uint32_t context = record_context(self);
    vPortEnterCritical();
    struct port_bound *b = bound_entry(irq, 1);
    configASSERT(b != NULL);
    b->owner = self;
    if (b->kept) {
        b->kept = 0;
        vPortExitCritical();
    } else {
        b->waiter = self;
        if (context)
            bind(context, irq, MFASTBIND_ARMED);
        if (delay)
            taskdelay_load_write(delay);
        vTaskSuspend(NULL);                  /* pends the yield: taken as the critical section ends */
        vPortExitCritical();
    }
    /* Here again: the core switched into this task (the kernel does not
     * know yet), or the kernel did (the handler's way, or the kept one). */
    if (first)
        first(arg);
    if (pxCurrentTCB != self) {
        b->waiter = NULL;
        bound_learn(self);
    }
}

void vPortBoundWait(uint32_t irq, void (*first)(void *), void *arg) {
    bound_wait(irq, first, arg, 0);
}

#if portHAS_HARDWARE_DELAYS
/* Delays in hardware (portmacro.h xPortTaskDelay): context c's channel of
 * the tick countdown is CLIC source IRQLAB_IRQ_TASKDELAY + c - 1, enabled
 * at the kernel's level as the scheduler starts; the task waits for it as
 * for any bound interrupt. Where the core cannot switch (the interrupted
 * task shares context 0, a handler or a critical section runs) the
 * channel's handler wakes it through the kernel. */
#ifndef IRQLAB_IRQ_TASKDELAY
#error "IRQLAB_TASK_DELAYS without the tick countdown's sources (soc/taskdelay.py)"
#endif
#ifndef IRQLAB_IRQ_TASKDELAY_COUNT
#define IRQLAB_IRQ_TASKDELAY_COUNT 1
#define IRQLAB_IRQ_TASKDELAY_0 IRQLAB_IRQ_TASKDELAY
#endif
#define DELAY_CONTEXT_SHIFT 28                    /* soc/taskdelay.py: the load's fields */
#define DELAY_MAX_TICKS ((1u << DELAY_CONTEXT_SHIFT) - 1)

static UBaseType_t hardware_delays;

BaseType_t xPortTaskDelay(TickType_t ticks) {
    if (ticks == 0 || ticks > DELAY_MAX_TICKS || xTaskGetSchedulerState() != taskSCHEDULER_RUNNING)
        return pdFALSE;
    uint32_t context = record_context(pxCurrentTCB);
    if (!context || context > IRQLAB_IRQ_TASKDELAY_COUNT)
        return pdFALSE;
    hardware_delays++;
    bound_wait(IRQLAB_IRQ_TASKDELAY + context - 1, NULL, NULL, context << DELAY_CONTEXT_SHIFT | ticks);
    return pdTRUE;
}

UBaseType_t uxPortHardwareDelays(void) {
    return hardware_delays;
}

static void delay_channels_start(void) {
    for (unsigned i = 0; i < IRQLAB_IRQ_TASKDELAY_COUNT; i++) {
        irq_configure(IRQLAB_IRQ_TASKDELAY + i, IRQ_TRIG_EDGE, configKERNEL_INTERRUPT_LEVEL);
        irq_enable(IRQLAB_IRQ_TASKDELAY + i);
    }
}

/* The channels' handlers, one per channel the SoC has. */
#define DELAY_HANDLER(i) \
    void IRQ_HANDLER(IRQLAB_PASTE(IRQLAB_IRQ_TASKDELAY_, i))(void) { \
        portYIELD_FROM_ISR(xPortBoundIrqFromISR(IRQLAB_IRQ_TASKDELAY + (i))); \
    }
DELAY_HANDLER(0)
#if IRQLAB_IRQ_TASKDELAY_COUNT > 1
DELAY_HANDLER(1)
#endif
#if IRQLAB_IRQ_TASKDELAY_COUNT > 2
DELAY_HANDLER(2)
#endif
#if IRQLAB_IRQ_TASKDELAY_COUNT > 3
DELAY_HANDLER(3)
#endif
#if IRQLAB_IRQ_TASKDELAY_COUNT > 4
DELAY_HANDLER(4)
#endif
#if IRQLAB_IRQ_TASKDELAY_COUNT > 5
DELAY_HANDLER(5)
#endif
#if IRQLAB_IRQ_TASKDELAY_COUNT > 6
DELAY_HANDLER(6)
#endif
#if IRQLAB_IRQ_TASKDELAY_COUNT > 7
#error "more tick countdown channels than handlers here"
#endif
#endif /* portHAS_HARDWARE_DELAYS */

/* A deleted task's bindings end (in a critical section): its context
 * disarmed, its entries freed (a kept interrupt with them). */
static void bound_forget(void *tcb, uint32_t context) {
    if (context)
        bind(context, 0, 0);
    for (int i = 0; i < PORT_BOUND_MAX; i++)
        if (bound[i].owner == tcb)
            bound[i] = (struct port_bound){0};
}

BaseType_t xPortBoundIrqFromISR(uint32_t irq) {
    UBaseType_t saved = portSET_INTERRUPT_MASK_FROM_ISR();
    BaseType_t yield = pdFALSE;
    struct port_bound *b = bound_entry(irq, 0);
    if (b && b->waiter) {
        void *waiter = b->waiter;
        b->waiter = NULL;
        uint32_t context = record_context(waiter);
        if (context)
            bind(context, irq, 0);
        yield = xTaskResumeFromISR(waiter);
    } else if (b) {
        b->kept = 1;
    }
    portCLEAR_INTERRUPT_MASK_FROM_ISR(saved);
    return yield;
}
#endif

#if !portHAS_HARDWARE_DELAYS
UBaseType_t uxPortHardwareDelays(void) {
    return 0;
}
#endif

StackType_t *pxPortInitialiseStack(StackType_t *top, TaskFunction_t code, void *params) {
    top = (StackType_t *)((uintptr_t)top & ~(uintptr_t)15);
#if PORT_CONTEXTS > 1
    struct port_record *record = (struct port_record *)top - 1;
    top = (StackType_t *)record;
#endif
    StackType_t *sp = top - FRAME_WORDS;
    for (int i = 0; i < FRAME_WORDS; i++)
        sp[i] = 0;
    sp[SLOT_EPC] = (StackType_t)code;
    sp[SLOT_CAUSE] = INITIAL_MCAUSE;
    sp[SLOT_RA] = (StackType_t)task_exit_error;
    sp[SLOT_A0] = (StackType_t)params;
#if PORT_CONTEXTS > 1
    record->context = context_take();
    record->saved = sp;
    record->counted = 0;
    record->ready = record->context ? MFASTREADY_READY | record->context << MFASTREADY_CONTEXT_SHIFT : 0;
    return (StackType_t *)record;
#else
    return sp;
#endif
}

/* The tick: called on the ISR stack by port_tick_entry. Returns nonzero when
 * a task switch is due (port_tick_entry then completes the frame and switches). */
uint32_t port_tick(void) {
    IRQLAB_TRACE_ISR_ENTER();
    next_tick += TICK_CYCLES;
    mtimecmp_write(next_tick);               /* lowers the timer's level line */
    uint32_t switching = xTaskIncrementTick() != pdFALSE;
    IRQLAB_TRACE_ISR_EXIT();
    return switching;
}

BaseType_t xPortStartScheduler(void) {
    for (unsigned i = 0; i < IRQLAB_CLIC_SOURCES; i++)
        vector_table[i] = clic_vector_table[i];
    vector_table[TICK_SOURCE] = (uint32_t)port_tick_entry;
    vector_table[YIELD_SOURCE] = (uint32_t)port_yield_entry;
    CSRW(CSR_MTVT, vector_table);

    /* Both vectored (shv) whatever the row's other sources are. */
    irq_configure(TICK_SOURCE, IRQ_TRIG_LEVEL, configKERNEL_INTERRUPT_LEVEL);
    irq_configure(YIELD_SOURCE, IRQ_TRIG_EDGE, configKERNEL_INTERRUPT_LEVEL);
    CLIC_INTATTR(TICK_SOURCE) |= 1;
    CLIC_INTATTR(YIELD_SOURCE) |= 1;
#if PORT_CONTEXTS > 1
    port_ready_lists = (uintptr_t)state_container(pxCurrentTCB) -
                       ((StaticTask_t *)pxCurrentTCB)->uxDummy5 * sizeof(StaticList_t);
    port_ready_bytes = configMAX_PRIORITIES * sizeof(StaticList_t);
#endif
#if portHAS_HARDWARE_DELAYS
    delay_channels_start();
#endif
    next_tick = mtime_read() + TICK_CYCLES;
    mtimecmp_write(next_tick);
    irq_enable(TICK_SOURCE);
    irq_enable(YIELD_SOURCE);

    uxPortCriticalNesting = 0;
    port_start_first_task();                 /* threshold 0, mret into the first task */
    return pdFALSE;
}

void vPortEndScheduler(void) {}
