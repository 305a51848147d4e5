#include "clictest.h"

/* The core's CLIC-mode CSRs: mtvec mode reads 11 (CLIC mode, hardwired),
 * mtvec and mtvt keep only [31:6] (64-byte aligned), mintthresh is 8 bits,
 * mie/mip are inactive (read 0), mintstatus is read-only (a write is an
 * illegal instruction, mcause 2, mil unchanged). */
/* expect: Tcsrs: mtvec=..0c3 mtvt=..0c0 thresh(w1ff)=ff mie=0 mip=0 mintstatus_write: mcause=2 mil=0 */
static volatile uint32_t ill_cause, ill_count;

/* The exception entry while the test runs: skips the illegal instruction. */
__attribute__((interrupt("machine"), aligned(64))) static void illegal_entry(void) {
    ill_cause = CSRR(mcause);
    ill_count++;
    CSRW(mepc, CSRR(mepc) + 4);
}

CLICTEST(csrs) {
    uint32_t tvec = CSRR(mtvec), tvt = CSRR(CSR_MTVT);
    CSRW(mtvec, 0x10000c0u | 0x3f);
    uint32_t v1 = CSRR(mtvec);
    CSRW(CSR_MTVT, 0x10000c0u | 0x3f);
    uint32_t v2 = CSRR(CSR_MTVT);
    CSRW(CSR_MTVT, tvt);
    CSRW(CSR_MINTTHRESH, 0x1ff);
    uint32_t th = CSRR(CSR_MINTTHRESH);
    CSRW(CSR_MINTTHRESH, 0);
    uint32_t ie = CSRR(mie), ip = CSRR(mip);
    CSRW(mtvec, (uint32_t)illegal_entry);
    CSRW(CSR_MINTSTATUS, 0x55000000u);
    CSRW(mtvec, tvec);
    if (ill_count != 1) fail("Tcsrs: no trap on the mintstatus write");
    console_printf("Tcsrs: mtvec=..%03x mtvt=..%03x thresh(w1ff)=%x mie=%x mip=%x mintstatus_write: mcause=%x mil=%x\n",
                   v1 & 0xfff, v2 & 0xfff, th, ie, ip, ill_cause & 0xfff, mil());
}
