/* FreeRTOS port for the irqlab core with the CLIC (the project's own; the
 * kernel stays unmodified). How it works (port.c, portasm.S):
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

void vPortEnterCritical(void);
void vPortExitCritical(void);
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
#if IRQLAB_FASTIRQ_CONTEXTS > 1
/* A task's own yield (taskYIELD) with task contexts: the next ready task of
 * the same priority (the one after this task in its ready list, as the
 * kernel's round robin takes it), if its registers are in its own context,
 * is switched into by `tyield` with no trap and no kernel code; otherwise,
 * in a critical section, and from the shared context 0 (whose task's
 * registers must go to memory first), the yield source is pended as above. With
 * interrupts off from the look-up to the switch, nothing changes the ready
 * list in between. pxCurrentTCB follows; the list's round-robin index does
 * not (the kernel's next choice stays a ready task of that priority). The
 * offsets are FreeRTOS's public layouts (StaticTask_t, ListItem_t, List_t),
 * checked in port.c; the record's word 8 is the context, shifted as
 * mfastctx takes it, once the task's registers are in it (portasm.S). The
 * kernel's own yields (a task blocking, an ISR's) take the pend. tyield's
 * immediate makes this task go on past the pend when switched back into,
 * with interrupts on (tyield sets MIE for the task it switches into). */
static inline void vPortYieldTask(void) {
    uint32_t pend = (uint32_t)&CLIC_INTIP(IRQLAB_IRQ_FIRST_FREE);
    __asm volatile(
        "lw t0, pxCurrentTCB\n"
        "csrr t2, " FASTCTX_STR(CSR_MFASTCTX) "\n" /* the running context: 0 is shared, */
        "csrr t1, 0x347\n"              /* mintthresh: in a critical section, */
        "csrci mstatus, 8\n"
        "andi t2, t2, 15\n"
        "seqz t2, t2\n"
        "or t2, t2, t1\n"
        "bnez t2, 7f\n"                 /* pend (a shared context's registers go to memory in the trap) */
        "lw t1, 8(t0)\n"                /* its ready-list item's pxNext */
        "lw t2, 20(t0)\n"               /* ... pxContainer: the ready list */
        "addi t2, t2, 8\n"              /* the list's end marker */
        "bne t1, t2, 1f\n"
        "lw t1, 4(t1)\n"                /* past it: the first item */
        "1: lw t1, 12(t1)\n"            /* pvOwner: the next task */
        "beq t1, t0, 7f\n"              /* none other: pend (the kernel's no-op) */
        "lw t2, 0(t1)\n"                /* its record */
        "lw t2, 8(t2)\n"
        "beqz t2, 7f\n"                 /* its registers are not in its context */
        "sw t1, pxCurrentTCB, t0\n"
        "csrw " FASTCTX_STR(CSR_MFASTCTX) ", t2\n"
        FASTCTX_TYIELD(16) "\n"  /* on in the next task; this one goes on at 9 (16 bytes on) */
        "7: csrsi mstatus, 8\n"
        "li t0, 1\n"                    /* the pend, as vPortYield */
        "sb t0, 0(%0)\n"
        "lbu t0, 0(%0)\n"
        "9:\n"
        :: "r"(pend) : "t0", "t1", "t2", "memory");
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
#if IRQLAB_FASTIRQ_CONTEXTS > 1
void vPortTaskDeleted(void *tcb);
#define portCLEAN_UP_TCB(tcb)         vPortTaskDeleted(tcb)

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

#define portHAS_NESTED_INTERRUPTS     1
/* The tick saves the callee-saved registers only when it switches tasks,
 * from this label on (portasm.S); the application traces it. */
void port_tick_switch(void);
#define portTICK_SWITCH_PC            ((uint32_t)port_tick_switch)
#define portTASK_FUNCTION_PROTO(f, p) void f(void *p)
#define portTASK_FUNCTION(f, p)       void f(void *p)

#endif
