#include "clictest.h"

/* mret (from main, to the next instruction): mil <- mcause.mpil, MIE <-
 * mcause.mpie (= mstatus.MPIE, the same bit: written through one, read
 * through the other), MPIE <- 1. With mcause.minhv=1, mret treats mepc as the
 * address of a pointer-table entry and jumps to the address stored there. */
/* expect: Tmret: mpil=33: mil=33 mie=0 mpie=1 | mpil=0,mpie=1: mil=0 mie=1 | alias: mstatus->mcause=1,0 mcause->mstatus=1,0 | minhv: jump=ok minhv_after=0 mil=0 */
static unsigned bit(uint32_t v, uint32_t mask) { return (v & mask) ? 1 : 0; }

CLICTEST(mret) {
    mret_here(0x33u << MCAUSE_MPIL_SHIFT);
    uint32_t l = mil(), st = CSRR(mstatus);
    console_printf("Tmret: mpil=33: mil=%x mie=%u mpie=%u", l, bit(st, MSTATUS_MIE), bit(st, MSTATUS_MPIE));
    mret_here(MCAUSE_MPIE);
    st = CSRR(mstatus);
    l = mil();
    irq_global_disable();
    console_printf(" | mpil=0,mpie=1: mil=%x mie=%u", l, bit(st, MSTATUS_MIE));

    CSRS(mstatus, MSTATUS_MPIE);
    unsigned a1 = bit(CSRR(mcause), MCAUSE_MPIE);
    CSRC(mstatus, MSTATUS_MPIE);
    unsigned a2 = bit(CSRR(mcause), MCAUSE_MPIE);
    CSRW(mcause, MCAUSE_MPIE);
    unsigned a3 = bit(CSRR(mstatus), MSTATUS_MPIE);
    CSRW(mcause, 0);
    unsigned a4 = bit(CSRR(mstatus), MSTATUS_MPIE);
    console_printf(" | alias: mstatus->mcause=%u,%u mcause->mstatus=%u,%u", a1, a2, a3, a4);

    /* mret to a table entry: r = 1 if it jumped to the address stored there,
     * 2 if it executed the entry as an instruction and fell through. */
    uint32_t r;
    __asm__ volatile(
        "csrw mcause, %1\n"            /* minhv=1, mpie=0, mpil=0 */
        "la t0, 2f\n"
        "csrw mepc, t0\n"
        "li %0, 0\n"
        "mret\n"
        ".balign 4\n"
        "2: .word 3f\n"
        "li %0, 2\n"
        "j 4f\n"
        "3: li %0, 1\n"
        "4:\n"
        : "=&r"(r) : "r"(MCAUSE_MINHV) : "t0", "memory");
    console_printf(" | minhv: jump=%s minhv_after=%u mil=%x\n", r == 1 ? "ok" : r == 2 ? "fellthrough" : "?",
                   bit(CSRR(mcause), MCAUSE_MINHV), mil());
}
