/* FreeRTOS configuration of the irqlab SoC (FreeRTOS's own RISC-V port, the
 * machine timer as the tick). Only facts of the SoC and of the tests. An
 * application may set the values marked "default" before including this file
 * (fw/ctxsw/FreeRTOSConfig.h). */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#include <generated/soc.h>

/* The tick: mtime counts cycles (soc/mtimer.py). 10 kHz keeps a simulated
 * test of a few hundred ticks to a few million cycles. */
#define configCPU_CLOCK_HZ                  CONFIG_CLOCK_FREQUENCY
#ifndef configTICK_RATE_HZ                   /* default */
#define configTICK_RATE_HZ                  10000
#endif
/* soc.h's addresses are plain decimal numbers; unsigned long keeps them 32-bit. */
#define IRQLAB_UL_(x) x##UL
#define IRQLAB_UL(x) IRQLAB_UL_(x)
#define configMTIME_BASE_ADDRESS            IRQLAB_UL(IRQLAB_MTIME_ADDR)
#define configMTIMECMP_BASE_ADDRESS         IRQLAB_UL(IRQLAB_MTIMECMP_ADDR)
#define configTICK_TYPE_WIDTH_IN_BITS       TICK_TYPE_WIDTH_32_BITS

/* The interrupt level of the tick, the yield and every ISR that calls the
 * kernel (the CLIC port masks up to it in critical sections; ISRs above it
 * must not call the kernel). Level-line models have no levels and ignore it. */
#define configKERNEL_INTERRUPT_LEVEL        0x40

#define configUSE_PREEMPTION                1
#define configUSE_TIME_SLICING              1
#ifndef configUSE_PORT_OPTIMISED_TASK_SELECTION     /* 1: the build option opt-select (irqlab/builders/fwoptions.py) */
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0
#endif
#define configMAX_PRIORITIES                6
#define configMINIMAL_STACK_SIZE            192     /* words */
#define configMAX_TASK_NAME_LEN             8
#define configIDLE_SHOULD_YIELD             1

#define configSUPPORT_DYNAMIC_ALLOCATION    1
#define configSUPPORT_STATIC_ALLOCATION     0
#define configTOTAL_HEAP_SIZE               (9 * 1024)
#define configISR_STACK_SIZE_WORDS          256

#define configUSE_MUTEXES                   1
#define configUSE_RECURSIVE_MUTEXES         1
#define configUSE_COUNTING_SEMAPHORES       1
#define configUSE_TASK_NOTIFICATIONS        1
#define configQUEUE_REGISTRY_SIZE           0
#define configUSE_TIMERS                    1
#define configTIMER_TASK_PRIORITY           (configMAX_PRIORITIES - 1)
#define configTIMER_QUEUE_LENGTH            8
#define configTIMER_TASK_STACK_DEPTH        192

#define configUSE_IDLE_HOOK                 0
#ifndef configUSE_TICK_HOOK                  /* default */
#define configUSE_TICK_HOOK                 0
#endif
#define configUSE_MALLOC_FAILED_HOOK        1
#ifndef configCHECK_FOR_STACK_OVERFLOW       /* default */
#define configCHECK_FOR_STACK_OVERFLOW      2
#endif
#define configUSE_TRACE_FACILITY            0
#define configGENERATE_RUN_TIME_STATS       0
#define configUSE_CO_ROUTINES               0
#define configENABLE_BACKWARD_COMPATIBILITY 0

#define INCLUDE_vTaskPrioritySet            1
#define INCLUDE_uxTaskPriorityGet           1
#define INCLUDE_vTaskDelete                 1
#define INCLUDE_vTaskSuspend                1
#define INCLUDE_xTaskDelayUntil             1
#define INCLUDE_vTaskDelay                  1
#define INCLUDE_xTaskGetSchedulerState      1
#define INCLUDE_xTaskGetCurrentTaskHandle   1
#define INCLUDE_uxTaskGetStackHighWaterMark 1

/* The trace hooks (irqlab_trace.h): the kernel's trace macros write
 * software events to the trace unit, one store each. 0 compiles them out. */
#ifndef configIRQLAB_TRACE                   /* default */
#define configIRQLAB_TRACE                  1
#endif
#if configIRQLAB_TRACE && !defined(__ASSEMBLER__)
#include "irqlab_trace.h"
#else
#define IRQLAB_TRACE_ISR_ENTER()
#define IRQLAB_TRACE_ISR_EXIT()
#endif

/* A failed assertion ends the run with its address (port_glue.c; addr2line
 * gives file and line): one call per assertion, no file name string, so the
 * kernel with its trace hooks still fits the bus SoCs' 32 KiB ROM. */
#if !defined(__ASSEMBLER__) && !defined(configIRQLAB_NO_ASSERT)
void irqlab_freertos_assert(void);
#define configASSERT(x) do { if (!(x)) irqlab_freertos_assert(); } while (0)
#endif

#endif
