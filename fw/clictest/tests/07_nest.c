#include "clictest.h"

/* Preemption, 5 levels deep: A=20 (level 20) pends B=22 (40) and enables
 * interrupts; B pends S=23 (40, same level), L=24 (30, lower) and C=25 (60);
 * C pends D=26 (80), D pends E=27 (a0). Each higher level preempts at once;
 * S and L do not preempt B, and run when B returns (S first: higher level),
 * still above A's level, before A resumes. mil = own level in each handler,
 * mcause.mpil = the interrupted level; mil is back to 0 in main. */
/* expect: Tnest: 20(mil=20,mpil=0) 22(mil=40,mpil=20) 25(mil=60,mpil=40) 26(mil=80,mpil=60) 27(mil=a0,mpil=80) /26(mil=80) /25(mil=60) /22(mil=40) 23(mil=40,mpil=20) 24(mil=30,mpil=20) /20(mil=20) main(mil=0) */
CLICTEST(nest) {
    const unsigned a = SW_SRC(4), b = SW_SRC(6), s = SW_SRC(7), l = SW_SRC(8), c = SW_SRC(9),
                   d = SW_SRC(10), e = SW_SRC(11);
    src_on(a, IRQ_TRIG_EDGE, 0x20);
    src_on(b, IRQ_TRIG_EDGE, 0x40);
    src_on(s, IRQ_TRIG_EDGE, 0x40);
    src_on(l, IRQ_TRIG_EDGE, 0x30);
    src_on(c, IRQ_TRIG_EDGE, 0x60);
    src_on(d, IRQ_TRIG_EDGE, 0x80);
    src_on(e, IRQ_TRIG_EDGE, 0xa0);
    act_pend[a] = SRC_BIT(b);
    act_pend[b] = SRC_BIT(s) | SRC_BIT(l) | SRC_BIT(c);
    act_pend[c] = SRC_BIT(d);
    act_pend[d] = SRC_BIT(e);
    act_nest[a] = act_nest[b] = act_nest[c] = act_nest[d] = 1;
    irq_global_enable();
    pend(a);
    settle();
    record(EV_MAIN, 0, mil(), 0, 0, mie_bit());
    irq_global_disable();
    print_log_line("Tnest", F_MIL | F_MPIL);
}
