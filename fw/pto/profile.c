#include "pto.h"

void pto_profile_start(struct pto_profile *p, const struct pto_spec *s) {
    p->q8 = s->start_q8;
    p->left = s->pulses - 1;
    p->accel = 0;
    p->cruise_q8 = s->delta_q8 ? s->cruise_q8 : s->start_q8;   /* no ramp: a square wave */
    p->delta_q8 = s->delta_q8;
}
