/* The context-switch suite's FreeRTOS options; the rest is fw/freertos's. */
#ifndef CTXSW_FREERTOS_CONFIG_H
#define CTXSW_FREERTOS_CONFIG_H
/* A tick every 100,000 cycles: few samples meet one (those that do are left
 * out: the tick hook marks it, trace/ctxsw.py). */
#define configTICK_RATE_HZ   1000
#define configUSE_TICK_HOOK  1
/* The kernel's trace hooks off: the switch measured is the kernel's own, as
 * in the seeds (tracing off). */
#define configIRQLAB_TRACE   0
/* As the seeds measure (seed 000 Sec. V-B4): no stack-overflow check and no
 * assertions on the switch path. The routines check their own results. */
#define configCHECK_FOR_STACK_OVERFLOW 0
#define configIRQLAB_NO_ASSERT 1
#include "../freertos/FreeRTOSConfig.h"
#endif
