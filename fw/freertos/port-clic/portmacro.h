/* FreeRTOS port for the irqlab core with the CLIC (the project's own; the
 * kernel as the crate ships it, but with task contexts: kernel.patch, one
 * hunk in vTaskDelay). How it works (port.c, portasm.S):
 *  - the tick is the machine timer's CLIC source, the yield a software-
 *    pended CLIC source, both hardware-vectored to the port's entries at
 *    the kernel level configKERNEL_INTERRUPT_LEVEL;
 *  - critical sections raise mintthresh to that level instead of clearing
 *    mstatus.MIE, so interrupts above it (non-RTOS ISRs, which must not
 *    call the kernel) stay enabled and nest over the kernel, and over the
 *    port's own tick and switch too (their kernel calls run with MIE set at
 *    the kernel's level: portasm.S KERNEL_CALL);
 *  - ISRs at the kernel level may call the FromISR API; a switch they ask
 *    for is the pended yield, taken when they return (tail-chained by the
 *    CLIC: the yield waits at the same level; with the fast-interrupt
 *    extension the ISR's emret chains to it with the task's frame stored);
 *  - with the fast-interrupt extension (IRQLAB_FASTIRQ_ENTRY) the entries
 *    start with the task's caller-saved registers, mepc and mcause in the
 *    core's background-saved frame, and a tick that does not switch
 *    returns with emret (portasm.S).
 * RV32I (ilp32) and RV32E (ilp32e). */
#ifndef PORTMACRO_H
#define PORTMACRO_H

#include <stdint.h>
#include "irqlab_features.h"
#include "clic.h"
#include "fastctx.h"
#include "port_contexts.h"

#define portCHAR        char
#define portFLOAT       float
#define portDOUBLE      double
#define portLONG        long
#define portSHORT       short
#define portSTACK_TYPE  uint32_t
#define portBASE_TYPE   int32_t

typedef portSTACK_TYPE StackType_t;
typedef int32_t BaseType_t;
typedef uint32_t UBaseType_t;
typedef uint32_t TickType_t;
#define portMAX_DELAY ((TickType_t)0xffffffffUL)
#define portTICK_TYPE_IS_ATOMIC 1

#define portSTACK_GROWTH    (-1)
#define portTICK_PERIOD_MS  ((TickType_t)1000 / configTICK_RATE_HZ)
#define portBYTE_ALIGNMENT  16
#define portNOP()           __asm volatile("nop")
#define portMEMORY_BARRIER() __asm volatile("" ::: "memory")

/* mintthresh (CSR 0x347): interrupts at or below it are held. */
#define portSET_THRESHOLD(level) __asm volatile("csrw 0x347, %0" :: "r"(level) : "memory")

static inline uint32_t ulPortRaiseThreshold(void) {
    uint32_t old;
    __asm volatile("csrrw %0, 0x347, %1" : "=r"(old) : "r"(configKERNEL_INTERRUPT_LEVEL) : "memory");
    return old;
}

#define portDISABLE_INTERRUPTS()                 portSET_THRESHOLD(configKERNEL_INTERRUPT_LEVEL)
#define portENABLE_INTERRUPTS()                  portSET_THRESHOLD(0)
#define portSET_INTERRUPT_MASK_FROM_ISR()        ulPortRaiseThreshold()
#define portCLEAR_INTERRUPT_MASK_FROM_ISR(old)   portSET_THRESHOLD(old)

/* Critical sections: the threshold at the kernel's level and a nesting
 * count (port.c). Inline: a blocking call of the kernel enters and leaves
 * 8-10 of them, and a call and its return cost as much as the body
 * (cores/README.md, "Where the other cases go"). */
extern UBaseType_t uxPortCriticalNesting;
static inline __attribute__((always_inline)) void vPortEnterCritical(void) {
    portDISABLE_INTERRUPTS();
    uxPortCriticalNesting++;
}
static inline __attribute__((always_inline)) void vPortExitCritical(void) {
    if (--uxPortCriticalNesting == 0)
        portENABLE_INTERRUPTS();
}
#define portENTER_CRITICAL()  vPortEnterCritical()
#define portEXIT_CRITICAL()   vPortExitCritical()

/* Pend the yield source; the switch happens as soon as the threshold and
 * the current level let it (at once from a task outside a critical section). */
/* The yield pends the port's yield source (the first source no device
 * drives); the read returns once the request has reached the core, so the
 * switch is taken before the code after the yield runs. Inline: a call and
 * return would add 8 cycles to every switch. */
static inline void vPortYield(void) {
    CLIC_INTIP(IRQLAB_IRQ_FIRST_FREE) = 1;
    (void)CLIC_INTIP(IRQLAB_IRQ_FIRST_FREE);
}
#if PORT_CONTEXTS > 1
/* A task's own yield (taskYIELD) with task contexts: the core keeps which
 * contexts' tasks became ready and at what priority (the hooks below), and
 * chooses the next one of the running task's priority (mfastsel: its TCB;
 * none in a critical section, from the shared context 0, when a task of
 * that priority without a context of its own is ready (the kernel's round
 * robin then decides), or when none other is). The core's view may still
 * hold a task that has blocked since (the kernel does not say when a task
 * leaves a ready list), so the choice is checked against the kernel's: it
 * must be in the running task's ready list. Then pxCurrentTCB follows and
 * `tswitch` switches into it, with no trap and no kernel code. A stale
 * choice is cleared in the core's view, and the yield source pended as
 * above, as it is when there is no choice. With interrupts off from the
 * read to the switch nothing changes the choice in between. tswitch's
 * immediate makes this task go on past that code when switched back into,
 * with interrupts on (tswitch sets MIE for the task it switches into). The
 * kernel's own yields (a task that blocks, an ISR's) take the pend. The
 * ready lists' round-robin index does not follow such a yield: the kernel's
 * next choice is still a ready task of that priority. */
/* With the trace hooks (irqlab_trace.h) the switch is traced as the
 * kernel's: TASK_OUT of the running task, TASK_IN of the next. */
#if defined(IRQLAB_TRACE_H)
#define PORT_YIELD_TRACE "sw t0, 0(%1)\n" "sw t1, 0(%2)\n"
#define PORT_YIELD_TRACE_PORTS , "r"(IRQLAB_UL(IRQLAB_STIM_BASE) + 4u * CH_TASK_OUT), \
                                 "r"(IRQLAB_UL(IRQLAB_STIM_BASE) + 4u * CH_TASK_IN)
#else
#define PORT_YIELD_TRACE ""
#define PORT_YIELD_TRACE_PORTS
#endif
static inline void vPortYieldTask(void) {
    uint32_t pend = (uint32_t)&CLIC_INTIP(IRQLAB_IRQ_FIRST_FREE);
    __asm volatile(
        "csrci mstatus, 8\n"
        "csrr t1, " FASTCTX_STR(CSR_MFASTSEL) "\n"   /* the core's next task */
        "lw t0, pxCurrentTCB\n"
        "beqz t1, 7f\n"
        "lw t2, 20(t1)\n"              /* its xStateListItem's list */
        "lw t3, 20(t0)\n"              /* ... and the running task's */
        "bne t2, t3, 6f\n"
        PORT_YIELD_TRACE
        "sw t1, pxCurrentTCB, t0\n"
        FASTCTX_TSWITCH(32) "\n"       /* on in that task; this one goes on at 9 (32 bytes on) */
        "6: lw t2, 0(t1)\n"            /* stale: not ready any more (its record's context) */
        "lw t2, 0(t2)\n"
        "slli t2, t2, 16\n"
        "csrw " FASTCTX_STR(CSR_MFASTREADY) ", t2\n"
        "7: csrsi mstatus, 8\n"
        "li t0, 1\n"                    /* the pend, as vPortYield */
        "sb t0, 0(%0)\n"
        "lbu t0, 0(%0)\n"
        "9:\n"
        :: "r"(pend) PORT_YIELD_TRACE_PORTS : "t0", "t1", "t2", "t3", "memory");
}
#define portYIELD()                   vPortYieldTask()
#define portYIELD_WITHIN_API()        vPortYield()
#else
#define portYIELD()                   vPortYield()
#endif
#define portEND_SWITCHING_ISR(x)      do { if (x) vPortYield(); } while (0)
#define portYIELD_FROM_ISR(x)         portEND_SWITCHING_ISR(x)

/* Interrupts above configKERNEL_INTERRUPT_LEVEL nest over kernel ISRs and
 * run inside critical sections (a feature the applications test). */
/* Optimized task selection (build option opt-select, irqlab/builders/fwoptions.py):
 * the kernel keeps a bitmap of the priorities that have ready tasks and asks
 * for its highest set bit. The core has no count-leading-zeros instruction
 * (libgcc's __clzsi2 is a call and a table walk): a 256-byte table of the
 * highest set bit of a byte (port.c) answers it with one load for up to 8
 * priorities, and with two tests more for up to 32. */
#if configUSE_PORT_OPTIMISED_TASK_SELECTION == 1
#if configMAX_PRIORITIES > 32
#error "optimized task selection: at most 32 priorities"
#endif
extern const uint8_t port_highest_bit[256];
static inline uint32_t ulPortHighestBit(uint32_t x) {
#if configMAX_PRIORITIES <= 8
    return port_highest_bit[x];
#else
    uint32_t n = 0;
    if (x >> 16) { x >>= 16; n = 16; }
    if (x >> 8) { x >>= 8; n += 8; }
    return n + port_highest_bit[x];
#endif
}
#define portRECORD_READY_PRIORITY(prio, ready)  ((ready) |= (1UL << (prio)))
#define portRESET_READY_PRIORITY(prio, ready)   ((ready) &= ~(1UL << (prio)))
#define portGET_HIGHEST_PRIORITY(top, ready)    ((top) = ulPortHighestBit(ready))
#endif

/* Task contexts (port.c): a deleted task's context goes back to the pool. */
#if PORT_CONTEXTS > 1
void vPortTaskDeleted(void *tcb);
#define portCLEAN_UP_TCB(tcb)         vPortTaskDeleted(tcb)
/* The core's view of the ready tasks (port.c): a task entering a ready
 * list, a task suspended. A task that leaves the ready lists by blocking or
 * deleting itself is seen by the next yield that the core would switch into
 * it (vPortYieldTask), or, sharing context 0, when the kernel switches away
 * from it. */
#define PORT_TCB_PRIORITY 44            /* StaticTask_t uxDummy5: checked in port.c */
#define PORT_RECORD_READY 12            /* struct port_record's `ready` */
void vPortSharedTaskReady(void *tcb);
void vPortTaskNotReady(void *tcb);
static inline __attribute__((always_inline)) void vPortTaskReady(void *tcb) {
    uint32_t word = *(uint32_t *)(*(char **)tcb + PORT_RECORD_READY);   /* pxTopOfStack: the record */
    uint32_t prio = *(uint32_t *)((char *)tcb + PORT_TCB_PRIORITY);
    if (__builtin_expect(word != 0, 1))
        __asm volatile("csrw " FASTCTX_STR(CSR_MFASTREADY) ", %0" :: "r"(word | prio) : "memory");
    else
        vPortSharedTaskReady(tcb);
}
#define tracePOST_MOVED_TASK_TO_READY_STATE(tcb) vPortTaskReady(tcb)
#define traceTASK_SUSPEND(tcb)        vPortTaskNotReady(tcb)

/* Bound interrupts (docs/FREERTOS.md "Bound interrupts"). The calling task
 * waits for CLIC source `irq` (edge-triggered, enabled, at the kernel's
 * level): it blocks, and when the interrupt comes the core switches
 * straight into it (no ISR, no kernel code) if the interrupted task is in
 * a context of its own and outside a handler and a critical section; else
 * the source's handler, which must call xPortBoundIrqFromISR, wakes it
 * through the kernel. An interrupt that comes while the task does not wait
 * is kept (once, as a binary semaphore's give) for its next wait. Back in
 * the task, `first(arg)` (may be NULL) runs first: after a switch by the
 * core, before the kernel has learned it, at the interrupt's level, so it
 * may not call the kernel; then the kernel learns, and the task goes on
 * if it is above the interrupted one (else it waits its turn as any task
 * made ready by an ISR). A task without a context of its own (beyond the
 * resident ones) always takes the handler's way. */
void vPortBoundWait(uint32_t irq, void (*first)(void *), void *arg);
BaseType_t xPortBoundIrqFromISR(uint32_t irq);

#endif

/* Delays in hardware (docs/FREERTOS.md "Delays in hardware"), on a SoC
 * with the tick countdown (soc/taskdelay.py, IRQLAB_TASK_DELAYS): vTaskDelay
 * (through the port's kernel patch) of a task in a context of its own
 * waits in that context's channel, a bound wait on the channel's
 * interrupt: the core switches into the task when the channel reaches
 * zero. pdFALSE where the kernel's own delay must run (no context, 0 ticks
 * or too many, the scheduler not running). uxPortHardwareDelays counts the
 * delays the port took (0 without the countdown). */
#define portHAS_HARDWARE_DELAYS       (PORT_CONTEXTS > 1 && IRQLAB_TASK_DELAYS)
UBaseType_t uxPortHardwareDelays(void);
#if portHAS_HARDWARE_DELAYS
BaseType_t xPortTaskDelay(TickType_t ticks);
#define portTASK_DELAY(ticks) xPortTaskDelay(ticks)
#endif

#define portHAS_NESTED_INTERRUPTS     1
/* The tick saves the callee-saved registers only when it switches tasks,
 * from this label on (portasm.S); the application traces it. */
void port_tick_switch(void);
#define portTICK_SWITCH_PC            ((uint32_t)port_tick_switch)
#define portTASK_FUNCTION_PROTO(f, p) void f(void *p)
#define portTASK_FUNCTION(f, p)       void f(void *p)

#endif
