/* The suite's two marks (trace/ctxsw.py says how a sample is taken). Not
 * inlined: where the core drives the retire port, the trace unit's PC
 * comparators watch the first instruction of each, the same address for
 * every case. One store each: the mark's time on the other rows. */
#include "irqlab.h"
#include "ctxsw.h"

__attribute__((noinline, noipa)) void ctxsw_mark_a(uint32_t c) { STIM(CH_MARK_A) = c; }
__attribute__((noinline, noipa)) void ctxsw_mark_b(uint32_t c) { STIM(CH_MARK_B) = c; }
