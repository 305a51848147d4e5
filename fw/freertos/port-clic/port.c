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

static UBaseType_t critical_nesting = 0xaaaaaaaa;   /* counts from 0 once the scheduler runs */
static uint64_t next_tick;
static StackType_t isr_stack[configISR_STACK_SIZE_WORDS] __attribute__((aligned(16)));
const StackType_t port_isr_stack_top = (StackType_t)&isr_stack[configISR_STACK_SIZE_WORDS];

/* The pointer table the core reads: the HAL's, with the tick and the yield
 * pointing at the port's entries (in RAM: the HAL's table is in the code memory). */
extern const uint32_t clic_vector_table[];
static uint32_t vector_table[IRQLAB_CLIC_SOURCES] __attribute__((aligned(64)));

void vPortEnterCritical(void) {
    portDISABLE_INTERRUPTS();
    critical_nesting++;
}

void vPortExitCritical(void) {
    if (--critical_nesting == 0)
        portENABLE_INTERRUPTS();
}

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

#if IRQLAB_FASTIRQ_CONTEXTS > 1
/* With task contexts (portasm.S says how they are used): each task's record
 * at the top of its stack, pxTopOfStack its address. Contexts 1 .. N-1 go
 * to the first tasks (a deleted task's context to the next one created);
 * the others share context 0 with the boot code and keep their registers
 * in memory between runs. */
struct port_record {
    uint32_t context;
    StackType_t *saved;              /* the context in memory, or 0 */
    uint32_t fast;                   /* context << 8 once its registers are in it (own context only) */
    uint32_t unused;                 /* 16 bytes: the stack's alignment */
};

/* The layouts portmacro.h's yield reads by offset. */
#include <stddef.h>
_Static_assert(offsetof(StaticTask_t, xDummy3) == 4, "the TCB's state list item");
_Static_assert(offsetof(ListItem_t, pxNext) == 4 && offsetof(ListItem_t, pvOwner) == 12 &&
               offsetof(ListItem_t, pxContainer) == 16, "ListItem_t");
_Static_assert(offsetof(List_t, xListEnd) == 8 && offsetof(MiniListItem_t, pxNext) == 4, "List_t");
_Static_assert(offsetof(struct port_record, fast) == 8, "portmacro.h reads the record's word 8");
static uint32_t contexts_free = ((1u << IRQLAB_FASTIRQ_CONTEXTS) - 1) & ~1u;

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

void vPortTaskDeleted(void *tcb) {
    struct port_record *r = *(struct port_record **)tcb;     /* pxTopOfStack */
    if (r->context) {
        vPortEnterCritical();
        contexts_free |= 1u << r->context;
        vPortExitCritical();
    }
}
#endif

StackType_t *pxPortInitialiseStack(StackType_t *top, TaskFunction_t code, void *params) {
    top = (StackType_t *)((uintptr_t)top & ~(uintptr_t)15);
#if IRQLAB_FASTIRQ_CONTEXTS > 1
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
#if IRQLAB_FASTIRQ_CONTEXTS > 1
    record->context = context_take();
    record->saved = sp;
    record->fast = 0;
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
    next_tick = mtime_read() + TICK_CYCLES;
    mtimecmp_write(next_tick);
    irq_enable(TICK_SOURCE);
    irq_enable(YIELD_SOURCE);

    critical_nesting = 0;
    port_start_first_task();                 /* threshold 0, mret into the first task */
    return pdFALSE;
}

void vPortEndScheduler(void) {}
