#include "clictest.h"

/* Arbitration with nlbits=2: clicintctl[7:6] is the level (the low 6 bits read
 * as 1 in the level: 0x40 -> 7f), clicintctl[5:0] the priority within it.
 * Order: level, then priority, then (equal clicintctl: 17 and 20) highest ID. */
/* expect: Tarb2: 19(mil=bf) 20(mil=7f) 17(mil=7f) 18(mil=7f) 16(mil=7f) 21(mil=3f) */
CLICTEST(arb2) {
    static const uint8_t ctl[] = {0x40, 0x50, 0x48, 0x80, 0x50, 0x00};
    CLIC_CFG = CLIC_CFG_NLBITS(2);
    for (unsigned i = 0; i < 6; i++) src_on(SW_SRC(i), IRQ_TRIG_EDGE, ctl[i]);
    for (unsigned i = 0; i < 6; i++) pend(SW_SRC(i));
    open_window();
    print_log_line("Tarb2", F_MIL);
}
