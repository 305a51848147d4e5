#include "clictest.h"

/* Taking an interrupt clears an edge source's pending bit (shv build: the
 * vectored entry does it in hardware; nv build: the trampoline's mnxti
 * claim), so the handler reads 0. A level source stays pending inside its
 * handler (level-low 17 on an idle input: asserted; the handler disables it,
 * else it would be taken again at once). */
/* expect: Tclaim: 16(ip=0) 17(ip=1) runs16=1 runs17=1 ip17=1 */
CLICTEST(claim) {
    const unsigned edge = SW_SRC(0), levlow = SW_SRC(1);
    src_on(edge, IRQ_TRIG_EDGE, 0x80);
    pend(edge);
    open_window();
    src_off(levlow, IRQ_TRIG_LEVEL_LOW, 0x80);
    act_self_disable[levlow] = 1;
    src_enable(levlow);
    open_window();
    console_printf("Tclaim: ");
    print_log(F_IP);
    console_printf(" runs%u=%u runs%u=%u ip%u=%u\n", edge, hits[edge], levlow, hits[levlow], levlow,
                   CLIC_INTIP(levlow));
}
