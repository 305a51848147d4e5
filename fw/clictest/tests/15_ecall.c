#include "clictest.h"

/* An exception inside a handler (ecall in handler 16, level 50) is taken
 * with mil unchanged (50), mcause = exception 11 with mpil = 50 and mpie =
 * the handler's MIE; its mret returns after the ecall with mil 50 and the
 * handler's MIE. The handler saves mepc/mcause around the ecall (the trap
 * overwrites them); main is back at level 0. */
/* expect[clic]: Tecall: exc: mcause=3050000b mil=50 | handler after: mil=50 mie=0 | main: mil=0 runs=1 */
/* expect[clic-nv]: Tecall: exc: mcause=3850000b mil=50 | handler after: mil=50 mie=1 | main: mil=0 runs=1 */
static volatile uint32_t ecall_cause, ecall_mil, after_mil, after_mie, ecall_count;

/* The exception entry during the ecall: records it and skips the ecall. */
__attribute__((interrupt("machine"), aligned(64))) static void ecall_entry(void) {
    ecall_cause = CSRR(mcause);
    ecall_mil = mil();
    ecall_count++;
    CSRW(mepc, CSRR(mepc) + 4);
}

/* In the handler, at entry. */
static void do_ecall(unsigned id, unsigned phase) {
    if (phase != 0) return;
    uint32_t tvec = CSRR(mtvec), epc = CSRR(mepc), cause = CSRR(mcause);
    CSRW(mtvec, (uint32_t)ecall_entry);
    __asm__ volatile("ecall" ::: "memory");
    after_mil = mil();
    after_mie = mie_bit();
    CSRW(mtvec, tvec);
    CSRW(mepc, epc);
    CSRW(mcause, cause);
}

CLICTEST(ecall) {
    const unsigned s = SW_SRC(0);
    src_on(s, IRQ_TRIG_EDGE, 0x50);
    hook = do_ecall;
    pend(s);
    open_window();
    if (ecall_count != 1) fail("Tecall: ecall trap not taken once");
    console_printf("Tecall: exc: mcause=%x mil=%x | handler after: mil=%x mie=%u | main: mil=%x runs=%u\n",
                   ecall_cause, ecall_mil, after_mil, after_mie, mil(), hits[s]);
}
