#include "clictest.h"

/* Software pending of edge sources, and level sources ignoring it.
 *  edge 16: set/clear by writes while disabled; cleared before enabling, the
 *           handler never runs; pended while enabled it runs once, and the
 *           entry clears the bit.
 *  edge 19: pended while disabled (MIE=1): latched, taken once enabled.
 *  level 17 (input 0): writing 1 is ignored, never taken.
 *  level-low 18 (input 0, i.e. asserted): pending reads 1, writing 0 ignored. */
/* expect: Tpend: edge: ip=0 set=1 clr=0 runs=0 | pend: runs=1 ip=0 | latched: ip=1 runs=0 then runs=1 | level: set=0 runs=0 | levlow: ip=1 clr=1 */
CLICTEST(pend) {
    const unsigned edge = SW_SRC(0), level = SW_SRC(1), levlow = SW_SRC(2), latched = SW_SRC(3);
    src_off(edge, IRQ_TRIG_EDGE, 0x80);
    unsigned ip0 = CLIC_INTIP(edge);
    irq_pend(edge);
    unsigned ip1 = CLIC_INTIP(edge);
    irq_clear(edge);
    unsigned ip2 = CLIC_INTIP(edge);
    src_enable(edge);
    open_window();
    console_printf("Tpend: edge: ip=%u set=%u clr=%u runs=%u", ip0, ip1, ip2, hits[edge]);
    irq_global_enable();
    pend(edge);
    settle();
    irq_global_disable();
    console_printf(" | pend: runs=%u ip=%u", hits[edge], CLIC_INTIP(edge));

    src_off(latched, IRQ_TRIG_EDGE, 0x80);
    irq_global_enable();
    pend(latched);
    settle();
    unsigned ip_l = CLIC_INTIP(latched), runs_l = hits[latched];
    src_enable(latched);
    settle();
    irq_global_disable();
    console_printf(" | latched: ip=%u runs=%u then runs=%u", ip_l, runs_l, hits[latched]);

    src_on(level, IRQ_TRIG_LEVEL, 0x80);
    irq_pend(level);
    unsigned ip_lv = CLIC_INTIP(level);
    open_window();
    console_printf(" | level: set=%u runs=%u", ip_lv, hits[level]);

    src_off(levlow, IRQ_TRIG_LEVEL_LOW, 0x80);
    unsigned ip_a = CLIC_INTIP(levlow);
    irq_clear(levlow);
    unsigned ip_b = CLIC_INTIP(levlow);
    console_printf(" | levlow: ip=%u clr=%u\n", ip_a, ip_b);
}
