/* How many of the core's task contexts the port uses (cores/README.md
 * "Task contexts"): all the core has, or one where the build defines
 * IRQLAB_PORT_HW_SCHED_OFF (the firmware option hw-sched-off,
 * irqlab/builders/fwoptions.py). With one, the kernel alone switches tasks
 * as on a core without contexts, and the core's scheduler's view and bound
 * interrupts stay unused: the same row and kernel then give the software
 * figures beside the hardware's. For C and assembly. */
#ifndef PORT_CONTEXTS_H
#define PORT_CONTEXTS_H
#include "irqlab_features.h"

#if defined(IRQLAB_PORT_HW_SCHED_OFF) && IRQLAB_PORT_HW_SCHED_OFF
#define PORT_CONTEXTS 1
#else
#define PORT_CONTEXTS IRQLAB_FASTIRQ_CONTEXTS
#endif

#endif
