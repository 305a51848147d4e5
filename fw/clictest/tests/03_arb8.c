#include "clictest.h"

/* Arbitration with nlbits=8 (clicintctl is all level): five sources pended
 * with MIE=0 are served by level, equal levels highest ID first. */
/* expect: Tarb8: 19(mil=90) 17(mil=90) 18(mil=60) 16(mil=30) 20(mil=10) */
CLICTEST(arb8) {
    static const uint8_t lvl[] = {0x30, 0x90, 0x60, 0x90, 0x10};
    for (unsigned i = 0; i < 5; i++) src_on(SW_SRC(i), IRQ_TRIG_EDGE, lvl[i]);
    for (unsigned i = 0; i < 5; i++) pend(SW_SRC(i));
    open_window();
    print_log_line("Tarb8", F_MIL);
}
