/* The suite's two marks (trace/ctxsw.py says how a sample is taken). Not
 * inlined: where the core drives the retire port, the trace unit's PC
 * comparators watch the first instruction of each, the same address for
 * every case. One store each: the mark's time on the other rows (the
 * flags' load before it is in every sample of mark A, and so in the
 * calibration case that is subtracted). */
#include "irqlab.h"
#include "ctxsw.h"

uint32_t ctxsw_case_flags;         /* CTXSW_BACKGROUND_FLAG in the pass with background load */

__attribute__((noinline, noipa)) void ctxsw_mark_a(uint32_t c) { STIM(CH_MARK_A) = c | ctxsw_case_flags; }
__attribute__((noinline, noipa)) void ctxsw_mark_b(uint32_t c) { STIM(CH_MARK_B) = c | ctxsw_case_flags; }
