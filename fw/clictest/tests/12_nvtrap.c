#include "clictest.h"

/* A non-vectored interrupt (shv=0) goes to mtvec (here: a handler of this
 * test, replacing the build's entry). The entry itself does not clear the
 * edge pending bit (only a vectored entry or an mnxti claim does): the
 * handler reads 1 and clears it by software. mcause = interrupt | mpp=11 |
 * mpie=1 | mpil=0 | id 16, mil = 50. */
/* expect: Tnvtrap: mcause=b8000010 mil=50 ip=1 mie=0 runs=1 mil_after=0 ip_after=0 */
static volatile uint32_t nvt_cause, nvt_mil, nvt_ip, nvt_mie, nvt_runs;

__attribute__((interrupt("machine"), aligned(64))) static void nvtrap_entry(void) {
    nvt_cause = CSRR(mcause);
    nvt_mil = mil();
    nvt_ip = CLIC_INTIP(SW_SRC(0));
    nvt_mie = mie_bit();
    nvt_runs++;
    irq_clear(SW_SRC(0));
    clic_sync(SW_SRC(0));
}

CLICTEST(nvtrap) {
    uint32_t old = CSRR(mtvec);
    CSRW(mtvec, (uint32_t)nvtrap_entry);
    src_shv(SW_SRC(0), IRQ_TRIG_EDGE, 0x50, 0);
    pend(SW_SRC(0));
    open_window();
    CSRW(mtvec, old);
    console_printf("Tnvtrap: mcause=%x mil=%x ip=%u mie=%u runs=%u mil_after=%x ip_after=%u\n",
                   nvt_cause, nvt_mil, nvt_ip, nvt_mie, nvt_runs, mil(), CLIC_INTIP(SW_SRC(0)));
}
