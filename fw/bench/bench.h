/* What the bench firmware's two halves share: main.c (the headline tests)
 * and matrix.c (seed 004's test cases, run_matrix()). */
#ifndef BENCH_H
#define BENCH_H
#include "irqlab.h"

#define LINE 0                    /* the measured generator line */
#define IRQ IRQLAB_IRQ_GEN_0

extern volatile uint32_t handled;  /* line 0's handler runs */
extern int b_pc_match_off;         /* a matrix case with several lines on a shared entry */
extern volatile int invalidate_caches; /* T3: line 0's handler invalidates the caches */

uint32_t background_work(uint32_t x);
void b_setup(void);
void stats_setup(void);
void report_stats(uint32_t test);

/* matrix.c */
void stress_handler(unsigned line);
void run_matrix(const volatile struct irqlab_config *c);

#endif
