/* The PTO demo: the pulse-train specification and its motion profile. */
#ifndef PTO_H
#define PTO_H
#include <stdint.h>

/* What the planner task prepares: a trapezoidal motion profile in
 * half-periods (cycles from one edge to the next). Q8: 1/256 cycle. */
struct pto_spec {
    uint32_t pulses;        /* pulses in the train; two edges each */
    uint32_t start_q8;      /* the first pulse's half-period */
    uint32_t cruise_q8;     /* the acceleration stops at this half-period */
    uint32_t delta_q8;      /* per-pulse change while accelerating / decelerating; 0: square wave */
};

/* The handler's state, advanced one pulse at a time (profile.c). The host
 * recomputes the same sequence (irqlab/demos/pto/sim.py `profile`). */
struct pto_profile {
    uint32_t q8;            /* the current pulse's half-period */
    uint32_t left;          /* pulses after the current one */
    uint32_t accel;         /* pulses spent accelerating (the deceleration takes as many) */
    uint32_t cruise_q8, delta_q8;
};

void pto_profile_start(struct pto_profile *p, const struct pto_spec *s);
/* The next pulse's half-period in cycles. */
static inline uint32_t pto_profile_next(struct pto_profile *p) {
    p->left--;
    if (p->left < p->accel)
        p->q8 += p->delta_q8;                   /* decelerate: as many pulses as the ramp up took */
    else if (p->q8 > p->cruise_q8 && p->left > p->accel) {   /* room to come back down */
        p->q8 = p->q8 - p->cruise_q8 > p->delta_q8 ? p->q8 - p->delta_q8 : p->cruise_q8;
        p->accel++;
    }
    return p->q8 >> 8;
}

/* The unrelated background workload: one step of countable work. */
uint32_t background_step(uint32_t state);

#endif
