#include "clictest.h"

/* An edge source pended again (by software) inside its own handler, even
 * with MIE=1 there, is not lost and does not preempt (same level): the
 * handler runs a second time after it returns. */
/* expect: Tretrig: 16(ip=0) /16 16(ip=0) runs=2 */
static void once_more(unsigned id, unsigned phase) {
    if (phase == 0 && hits[id] >= 2) act_pend[id] = 0;
}

CLICTEST(retrig) {
    const unsigned s = SW_SRC(0);
    src_on(s, IRQ_TRIG_EDGE, 0x40);
    act_pend[s] = SRC_BIT(s);
    act_nest[s] = 1;
    hook = once_more;
    pend(s);
    open_window();
    console_printf("Tretrig: ");
    print_log(F_IP);
    console_printf(" runs=%u\n", hits[s]);
}
