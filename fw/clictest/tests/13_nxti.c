#include "clictest.h"

/* mnxti, used directly with MIE=0 on two non-vectored sources 16 (level 40)
 * and 17 (level 80); mcause is written 0 first (mpil=0). Offsets are the
 * returned pointer minus mtvt (0 = nothing returned).
 *  line 1: a read without write (csrrsi ..,0 and csrr) returns the entry of 17
 *          with no side effect; csrrsi ..,8 claims 17 (pending cleared, mil
 *          80, mcause interrupt+id 17, mpil unchanged) and sets MIE; csrrci
 *          ..,8 then claims 16 (mil 40 relative to mpil=0) and clears MIE;
 *          with nothing pending it returns 0 and changes nothing.
 *  line 2: with 16 pending: 0 when its level is <= mcause.mpil or <= the
 *          threshold, or when the winner is a vectored source (18, level c0).
 *  line 3: two claims back to back; mret restores mil from mcause.mpil. */
/* expect: Tnxti: peek=44 csrr=44 ip17=1 mil=0 | claim=44 mie=1 mil=80 mcause=b0000011 ip=0,1 | claimci=40 mie=0 mil=40 mcause=b0000010 ip16=0 | empty=0 mil=40 mcause=b0000010 */
/* expect: Tnxti: mpil40=0 mpil3f=40 th40=0 th3f=40 shvwin=0 shvoff=40 */
/* expect: Tnxti: b2b=44,40 mil=40 ip=0,0 | after mret: mil=0 */
#define MNXTI CSR_STR(CSR_MNXTI)
#define MIE_UIMM "8"        /* mstatus.MIE as the immediate of csrrsi/csrrci */

static uint32_t nxti_off(uint32_t p) { return p ? p - CSRR(CSR_MTVT) : 0; }

/* A read of mnxti that writes nothing: no side effect. */
static uint32_t nxti_peek(void) {
    uint32_t v;
    __asm__ volatile("csrrsi %0, " MNXTI ", 0" : "=r"(v) :: "memory");
    return nxti_off(v);
}

CLICTEST(nxti) {
    const unsigned lo = SW_SRC(0), hi = SW_SRC(1), vec = SW_SRC(2);
    uint32_t p, st, l, c, p2;
    src_shv(lo, IRQ_TRIG_EDGE, 0x40, 0);
    src_shv(hi, IRQ_TRIG_EDGE, 0x80, 0);
    CSRW(mcause, 0);
    pend(lo);
    pend(hi);
    uint32_t peek = nxti_peek();
    p = CSRR(CSR_MNXTI);
    console_printf("Tnxti: peek=%x csrr=%x ip%u=%u mil=%x", peek, nxti_off(p), hi, CLIC_INTIP(hi), mil());

    __asm__ volatile(
        "csrrsi %0, " MNXTI ", " MIE_UIMM "\n"
        "csrr %1, mstatus\n"
        "csrr %2, " CSR_STR(CSR_MINTSTATUS) "\n"
        "csrr %3, mcause\n"
        "csrci mstatus, " MIE_UIMM "\n"
        : "=&r"(p), "=&r"(st), "=&r"(l), "=&r"(c) :: "memory");
    console_printf(" | claim=%x mie=%u mil=%x mcause=%x ip=%u,%u", nxti_off(p), (st & MSTATUS_MIE) ? 1 : 0,
                   l >> MINTSTATUS_MIL_SHIFT, c, CLIC_INTIP(hi), CLIC_INTIP(lo));
    __asm__ volatile(
        "csrrci %0, " MNXTI ", " MIE_UIMM "\n"
        "csrr %1, mstatus\n"
        : "=&r"(p), "=&r"(st) :: "memory");
    console_printf(" | claimci=%x mie=%u mil=%x mcause=%x ip%u=%u", nxti_off(p), (st & MSTATUS_MIE) ? 1 : 0,
                   mil(), CSRR(mcause), lo, CLIC_INTIP(lo));
    __asm__ volatile("csrrci %0, " MNXTI ", " MIE_UIMM : "=r"(p) :: "memory");
    console_printf(" | empty=%x mil=%x mcause=%x\n", nxti_off(p), mil(), CSRR(mcause));

    pend(lo);
    CSRW(mcause, 0x40u << MCAUSE_MPIL_SHIFT);
    uint32_t a = nxti_peek();
    CSRW(mcause, 0x3fu << MCAUSE_MPIL_SHIFT);
    uint32_t b = nxti_peek();
    CSRW(mcause, 0);
    irq_set_threshold(0x40);
    uint32_t t1 = nxti_peek();
    irq_set_threshold(0x3f);
    uint32_t t2 = nxti_peek();
    irq_set_threshold(0);
    src_shv(vec, IRQ_TRIG_EDGE, 0xc0, 1);
    pend(vec);
    uint32_t s1 = nxti_peek();
    src_disable(vec);
    uint32_t s2 = nxti_peek();
    console_printf("Tnxti: mpil40=%x mpil3f=%x th40=%x th3f=%x shvwin=%x shvoff=%x\n", a, b, t1, t2, s1, s2);

    pend(hi);
    __asm__ volatile(
        "csrrci %0, " MNXTI ", " MIE_UIMM "\n"
        "csrrci %1, " MNXTI ", " MIE_UIMM "\n"
        : "=&r"(p), "=&r"(p2) :: "memory");
    uint32_t o1 = nxti_off(p), o2 = nxti_off(p2);
    console_printf("Tnxti: b2b=%x,%x mil=%x ip=%u,%u", o1, o2, mil(), CLIC_INTIP(hi), CLIC_INTIP(lo));
    mret_here(0);
    console_printf(" | after mret: mil=%x\n", mil());
}
