/* <string.h> as far as the FreeRTOS kernel uses it; port_glue.c defines them. */
#ifndef IRQLAB_STRING_H
#define IRQLAB_STRING_H
#include <stddef.h>
void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);
#endif
