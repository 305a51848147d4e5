#include "clictest.h"

/* mscratchcswl swaps with mscratch only when the level crosses zero
 * ((mcause.mpil == 0) != (mil == 0)): not in main (mil 0, mpil 0), yes in
 * handler 16 (level 40, interrupted level 0), not in 17 (level 80) nested in
 * 16. csrrw without swap returns the written value and keeps mscratch. */
/* expect: Tcswl: main: got=cccc | 16: got=1234 | 17 (nested): got=bbbb | mscratch=aaaa */
static volatile uint32_t got[2];   /* in the outer, the nested handler */

static uint32_t cswl(uint32_t v) {
    uint32_t r;
    __asm__ volatile("csrrw %0, " CSR_STR(CSR_MSCRATCHCSWL) ", %1" : "=r"(r) : "r"(v) : "memory");
    return r;
}

static void swap_at_entry(unsigned id, unsigned phase) {
    unsigned nested = id == SW_SRC(1);
    if (phase == 0) got[nested] = cswl(nested ? 0xbbbb : 0xaaaa);
}

CLICTEST(cswl) {
    const unsigned outer = SW_SRC(0), inner = SW_SRC(1);
    CSRW(mscratch, 0x1234);
    CSRW(mcause, 0);
    uint32_t got_main = cswl(0xcccc);
    src_on(outer, IRQ_TRIG_EDGE, 0x40);
    src_on(inner, IRQ_TRIG_EDGE, 0x80);
    act_pend[outer] = SRC_BIT(inner);
    act_nest[outer] = 1;
    hook = swap_at_entry;
    pend(outer);
    open_window();
    if (hits[outer] != 1 || hits[inner] != 1) fail("Tcswl: handlers did not run once each");
    console_printf("Tcswl: main: got=%x | %u: got=%x | %u (nested): got=%x | mscratch=%x\n", got_main,
                   outer, got[0], inner, got[1], CSRR(mscratch));
    CSRW(mscratch, 0);
}
