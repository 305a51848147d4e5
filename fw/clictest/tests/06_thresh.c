#include "clictest.h"

/* mintthresh: only levels above the threshold are taken; the others stay
 * pending until the threshold drops. Level ff is blocked by th=ff only. */
/* expect: Tthresh: th=40: 19 18 ip16,17=1,1 | th=3f: 17 | th=0: 16 | th=ff: - ip20=1 | th=fe: 20 | read=fe */
CLICTEST(thresh) {
    static const uint8_t lvl[] = {0x10, 0x40, 0x80, 0xc0};
    for (unsigned i = 0; i < 4; i++) src_on(SW_SRC(i), IRQ_TRIG_EDGE, lvl[i]);
    src_on(SW_SRC(4), IRQ_TRIG_EDGE, 0xff);
    for (unsigned i = 0; i < 4; i++) pend(SW_SRC(i));
    console_printf("Tthresh:");
    irq_set_threshold(0x40);
    irq_global_enable();
    settle();
    console_printf(" th=40: ");
    print_log(0);
    console_printf(" ip%u,%u=%u,%u", SW_SRC(0), SW_SRC(1), CLIC_INTIP(SW_SRC(0)), CLIC_INTIP(SW_SRC(1)));
    static const uint8_t th[] = {0x3f, 0x00};
    for (unsigned k = 0; k < 2; k++) {
        nev = 0;
        irq_set_threshold(th[k]);
        settle();
        console_printf(" | th=%x: ", th[k]);
        print_log(0);
    }
    nev = 0;
    irq_set_threshold(0xff);
    pend(SW_SRC(4));
    settle();
    console_printf(" | th=ff: %s ip%u=%u", nev ? "taken" : "-", SW_SRC(4), CLIC_INTIP(SW_SRC(4)));
    nev = 0;
    irq_set_threshold(0xfe);
    settle();
    console_printf(" | th=fe: ");
    print_log(0);
    irq_global_disable();
    console_printf(" | read=%x\n", CSRR(CSR_MINTTHRESH));
}
