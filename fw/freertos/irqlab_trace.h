/* The trace hooks: FreeRTOS's trace macros as software events of the trace
 * unit, one store to a stimulus port each (its channel says what happened,
 * the 32-bit payload which task, queue or index; a task's creation also
 * sends its name). The channels are the
 * application protocol "freertos" of trace/protocol.py, generated into
 * irqlab_protocol.h; `irqlab decode` names them. Included by
 * FreeRTOSConfig.h when configIRQLAB_TRACE is 1. The macros expand inside
 * the kernel's functions, where pxCurrentTCB, pxTCB and pxQueue are the
 * kernel's own variables. */
#ifndef IRQLAB_TRACE_H
#define IRQLAB_TRACE_H

#include <stdint.h>
#include "irqlab_protocol.h"

#define IRQLAB_TRACE_EVENT(ch, v) \
    (*(volatile uint32_t *)(IRQLAB_UL(IRQLAB_STIM_BASE) + 4u * (ch)) = (uint32_t)(v))

/* A new task: its TCB, then its name (at most `len` bytes, zero-terminated
 * within them, as the kernel keeps it), 4 characters a store, the first in
 * the low byte, up to the store that holds the zero. The host's timeline
 * (trace/rtos.py) names the task's TCB by it. */
static inline void irqlab_trace_task_create(const void *tcb, const char *name, unsigned len) {
    IRQLAB_TRACE_EVENT(CH_TASK_CREATE, tcb);
    for (unsigned i = 0; i < len; i += 4) {
        uint32_t word = 0;
        int ended = 0;
        for (unsigned k = 0; k < 4; k++) {
            unsigned char c = i + k < len ? (unsigned char)name[i + k] : 0;
            ended |= c == 0;
            word |= (uint32_t)c << (8 * k);
        }
        IRQLAB_TRACE_EVENT(CH_TASK_NAME, word);
        if (ended)
            break;
    }
}

/* An ISR's start and end: the ports' own handlers call these (port_glue.c,
 * port-clic/port.c), once each per ISR. Not the kernel's traceISR_ENTER/EXIT:
 * FreeRTOS's RISC-V port also calls traceISR_EXIT from portYIELD_FROM_ISR
 * when it does not switch, inside the handler: a second exit. */
#define IRQLAB_TRACE_ISR_ENTER()                  IRQLAB_TRACE_EVENT(CH_ISR_ENTER, 0)
#define IRQLAB_TRACE_ISR_EXIT()                   IRQLAB_TRACE_EVENT(CH_ISR_EXIT, 0)

#define traceTASK_CREATE(tcb) \
    irqlab_trace_task_create(tcb, (tcb)->pcTaskName, configMAX_TASK_NAME_LEN)
#define traceTASK_DELETE(tcb)                     IRQLAB_TRACE_EVENT(CH_TASK_DELETE, tcb)
#define traceTASK_SWITCHED_IN()                   IRQLAB_TRACE_EVENT(CH_TASK_IN, pxCurrentTCB)
#define traceTASK_SWITCHED_OUT()                  IRQLAB_TRACE_EVENT(CH_TASK_OUT, pxCurrentTCB)
#define traceMOVED_TASK_TO_READY_STATE(tcb)       IRQLAB_TRACE_EVENT(CH_TASK_READY, tcb)
#define traceTASK_INCREMENT_TICK(count)           IRQLAB_TRACE_EVENT(CH_TICK, count)
#define traceQUEUE_SEND(q)                        IRQLAB_TRACE_EVENT(CH_QUEUE_SEND, q)
#define traceQUEUE_RECEIVE(q)                     IRQLAB_TRACE_EVENT(CH_QUEUE_RECEIVE, q)
#define traceQUEUE_SEND_FROM_ISR(q)               IRQLAB_TRACE_EVENT(CH_QUEUE_SEND_ISR, q)
#define traceQUEUE_RECEIVE_FROM_ISR(q)            IRQLAB_TRACE_EVENT(CH_QUEUE_RECEIVE_ISR, q)
#define traceBLOCKING_ON_QUEUE_RECEIVE(q)         IRQLAB_TRACE_EVENT(CH_QUEUE_BLOCK, q)
#define traceBLOCKING_ON_QUEUE_SEND(q)            IRQLAB_TRACE_EVENT(CH_QUEUE_BLOCK_SEND, q)
#define traceTASK_NOTIFY(index)                   IRQLAB_TRACE_EVENT(CH_NOTIFY, index)
#define traceTASK_NOTIFY_FROM_ISR(index)          IRQLAB_TRACE_EVENT(CH_NOTIFY_ISR, index)
#define traceTASK_NOTIFY_GIVE_FROM_ISR(index)     IRQLAB_TRACE_EVENT(CH_NOTIFY_ISR, index)
#define traceTASK_NOTIFY_TAKE(index)              IRQLAB_TRACE_EVENT(CH_NOTIFY_TAKE, index)
#define traceTASK_PRIORITY_INHERIT(tcb, prio)     IRQLAB_TRACE_EVENT(CH_INHERIT, tcb)
#define traceTASK_PRIORITY_DISINHERIT(tcb, prio)  IRQLAB_TRACE_EVENT(CH_DISINHERIT, tcb)

#endif
