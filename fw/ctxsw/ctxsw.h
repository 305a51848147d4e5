#ifndef CTXSW_H
#define CTXSW_H
#include <stdint.h>
void ctxsw_mark_a(uint32_t c);   /* a sample of case c starts: just before the switching call */
void ctxsw_mark_b(uint32_t c);   /* it ends: the next task's first thing */
#endif
