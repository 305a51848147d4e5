#include "clictest.h"

/* The shv build's own vectored entry (irq_vector_32 from the table at mtvt,
 * an entry in the table's second half): inside the handler mcause =
 * interrupt | mpp=11 | mpie=1 | mpil=0 | id 32 (minhv is 0 again after the
 * table fetch), MIE=0, the edge pending bit already cleared. */
/* expect[clic]: Tvec: mcause=b8000020 mie=0 ip=0 mil=80 */
/* expect[clic-nv]: Tvec: skip (vectored build only) */
CLICTEST(vec) {
#if IRQLAB_HW_VECTORING
    const unsigned s = SW_SRC(16);
    src_shv(s, IRQ_TRIG_EDGE, 0x80, 1);
    pend(s);
    open_window();
    if (nev != 1) fail("Tvec: the handler did not run once");
    console_printf("Tvec: mcause=%x mie=%u ip=%u mil=%x\n", last_cause, evlog[0].mie, evlog[0].ip,
                   evlog[0].mil);
#else
    console_printf("Tvec: skip (vectored build only)\n");
#endif
}
