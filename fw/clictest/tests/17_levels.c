#include "clictest.h"

/* Level 0 is never taken (it is the level of non-interrupt code, and a
 * source needs a level above mil): clicintctl 0 with nlbits 8 stays pending
 * with MIE=1, and mnxti does not return it. With nlbits 0 every source is
 * at level ff (all clicintctl bits are priority). */
/* expect: Tlevels: ctl0: runs=0 ip=1 nxti=0 | nlbits0: 16(mil=ff) */
CLICTEST(levels) {
    const unsigned s = SW_SRC(0);
    src_on(s, IRQ_TRIG_EDGE, 0x00);
    pend(s);
    open_window();
    unsigned runs = hits[s], ip = CLIC_INTIP(s);
    src_shv(s, IRQ_TRIG_EDGE, 0x00, 0);
    pend(s);
    CSRW(mcause, 0);
    uint32_t p;
    __asm__ volatile("csrrsi %0, " CSR_STR(CSR_MNXTI) ", 0" : "=r"(p) :: "memory");
    console_printf("Tlevels: ctl0: runs=%u ip=%u nxti=%x", runs, ip, p);
    irq_disable(s);
    CLIC_CFG = CLIC_CFG_NLBITS(0);
    src_on(s, IRQ_TRIG_EDGE, 0x00);
    pend(s);
    open_window();
    console_printf(" | nlbits0: ");
    print_log(F_MIL);
    console_printf("\n");
}
