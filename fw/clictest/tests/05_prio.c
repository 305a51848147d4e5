#include "clictest.h"

/* Priority does not preempt, level does (nlbits=2): handler 16 (level 7f,
 * priority 0) pends 17 (same level, top priority) and 18 (level ff) and
 * enables interrupts: 18 preempts, 17 runs only after 16 returned. */
/* expect: Tprio: 16(mil=7f) 18(mil=ff) /16(mil=7f) 17(mil=7f) */
CLICTEST(prio) {
    CLIC_CFG = CLIC_CFG_NLBITS(2);
    src_on(SW_SRC(0), IRQ_TRIG_EDGE, 0x40);
    src_on(SW_SRC(1), IRQ_TRIG_EDGE, 0x7f);
    src_on(SW_SRC(2), IRQ_TRIG_EDGE, 0xc0);
    act_pend[SW_SRC(0)] = SRC_BIT(SW_SRC(1)) | SRC_BIT(SW_SRC(2));
    act_nest[SW_SRC(0)] = 1;
    pend(SW_SRC(0));
    open_window();
    print_log_line("Tprio", F_MIL);
}
