/* The torture test's checksum workload (workload.c): self-contained (no
 * irqlab header), so that the host test can also build it for qemu-riscv32
 * and get the reference result from an independent RISC-V model. */
#ifndef TORTURE_WORKLOAD_H
#define TORTURE_WORKLOAD_H

#include <stdint.h>

/* The state: 30 registers (x1, x3..x31 in order) then a 128-word buffer. */
#define WORK_REGS 30
#define WORK_BUF 128
#define WORK_WORDS (WORK_REGS + WORK_BUF)

/* Fill the start state from a seed (xorshift32). */
void work_init(uint32_t *state, uint32_t seed);

/* Run `iterations` (>= 1) turns of the mixing loop on `state` in place: the
 * registers and the buffer are loaded from it, and the final values of all
 * 30 registers and the buffer are written back. Assembly, workload.c.
 * `yield`: 0, or, on a core with task contexts, the mfastctx word naming
 * the context to switch into at the end of every turn (WORK_YIELD_TO). */
void work_run(uint32_t *state, uint32_t iterations, uint32_t yield);
#define WORK_YIELD_TO(ctx) ((uint32_t)(ctx) << 8 | 1u)

/* A 32-bit digest of a state (FNV-1a over its words). */
uint32_t work_digest(const uint32_t *state);

#endif
