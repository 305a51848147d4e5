#include "clictest.h"

/* What a handler's MIE is: the shv build enters handlers with MIE=0, so a
 * higher level pended by handler 16 (level 40) waits until it returns; the
 * nv build's trampoline re-enables interrupts before calling the handler,
 * so 17 (level 80) preempts at once. */
/* expect[clic]: Tmie: 16(mil=40,mie=0) /16(mil=40) 17(mil=80,mie=0) */
/* expect[clic-nv]: Tmie: 16(mil=40,mie=1) 17(mil=80,mie=1) /16(mil=40) */
CLICTEST(mie) {
    src_on(SW_SRC(0), IRQ_TRIG_EDGE, 0x40);
    src_on(SW_SRC(1), IRQ_TRIG_EDGE, 0x80);
    act_pend[SW_SRC(0)] = SRC_BIT(SW_SRC(1));
    pend(SW_SRC(0));
    open_window();
    print_log_line("Tmie", F_MIL | F_MIE);
}
