/* The PTO demo's FreeRTOS options; the rest is fw/freertos's. */
#ifndef PTO_FREERTOS_CONFIG_H
#define PTO_FREERTOS_CONFIG_H
/* A 1 kHz tick, as a control application would run it: the tick's ISR and
 * the kernel's critical sections are part of what the PTO handler meets. */
#define configTICK_RATE_HZ   1000
/* The kernel's trace hooks off: the trace carries the pin's edges, and
 * the hooks' stores would be load the demo does not have on a board. */
#define configIRQLAB_TRACE   0
#include "../freertos/FreeRTOSConfig.h"
#endif
