/* The little of <stdlib.h> the FreeRTOS kernel includes it for (the
 * toolchain ships no C library; GCC's freestanding headers give the rest). */
#ifndef IRQLAB_STDLIB_H
#define IRQLAB_STDLIB_H
#include <stddef.h>
#endif
