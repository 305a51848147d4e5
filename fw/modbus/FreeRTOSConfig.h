/* The Modbus demo's FreeRTOS options; the rest is fw/freertos's. */
#ifndef MODBUS_FREERTOS_CONFIG_H
#define MODBUS_FREERTOS_CONFIG_H
#define configTICK_RATE_HZ   1000
/* The kernel's trace hooks off: the trace carries the demo's own events
 * (CH_MB_*) and the interrupt lines. */
#define configIRQLAB_TRACE   0
#include "../freertos/FreeRTOSConfig.h"
#endif
