#include "clictest.h"

/* Registers as the CLIC presents them (cliccfg, clicinfo, attr/ctl). */
/* expect: Tregs: nvbits=1 nlbits=8 nmbits=0 num_int=64 ctlbits=8 attr=c3 ctl=5a nlbits(w9)=8 nlbits(w3)=3 */
CLICTEST(regs) {
    unsigned s = SW_SRC(0);
    uint32_t cfg = CLIC_CFG, info = CLIC_INFO;
    CLIC_INTATTR(s) = (IRQ_TRIG_EDGE << 1) | 1;   /* edge, shv (mode bits read 11) */
    CLIC_INTCTL(s) = 0x5a;
    unsigned attr = CLIC_INTATTR(s), ctl = CLIC_INTCTL(s);
    CLIC_CFG = CLIC_CFG_NLBITS(9);
    unsigned w9 = (CLIC_CFG >> 1) & 0xf;
    CLIC_CFG = CLIC_CFG_NLBITS(3);
    unsigned w3 = (CLIC_CFG >> 1) & 0xf;
    console_printf("Tregs: nvbits=%u nlbits=%u nmbits=%u num_int=%u ctlbits=%u attr=%x ctl=%x "
                   "nlbits(w9)=%u nlbits(w3)=%u\n",
                   cfg & 1, (cfg >> 1) & 0xf, (cfg >> 5) & 3, info & 0x1fff, (info >> 21) & 0xf,
                   attr, ctl, w9, w3);
}
