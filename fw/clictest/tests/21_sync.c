#include "clictest.h"

/* A pend made visible by its read-back (clic_sync) is taken before the
 * instruction after the read-back has any effect: the promise the FreeRTOS
 * port's yield relies on (store to clicintip, read it back; the switch
 * happens before the code after the yield runs). With MIE=1, right after
 * the read-back comes
 *  load:  a load of the source's handler count, which must see the run;
 *  store: a store of a marker, which the handler must not see at its entry.
 * The three instructions are one asm block, so nothing comes between them.
 * On a core with a data cache the load or store behind the read-back
 * already stands in memory when the read-back's answer comes back in
 * writeBack (cores/README.md, clic-cache): the take must drop it there. */
/* expect: Tsync: load: seen=16/16 | store: unseen=16/16 | runs=32 */
#define ROUNDS 16

static volatile uint32_t marker, marker_at_entry;

static void note_marker(unsigned id, unsigned phase) {
    if (phase == 0) marker_at_entry = marker;
}

CLICTEST(sync) {
    const unsigned s = SW_SRC(0);
    volatile uint8_t *ip = &CLIC_INTIP(s);
    volatile unsigned *count = &hits[s];
    unsigned seen = 0, unseen = 0, tmp, after;
    src_on(s, IRQ_TRIG_EDGE, 0x80);

    act_quiet[s] = 1;                           /* the handler only counts */
    irq_global_enable();
    for (unsigned i = 0; i < ROUNDS; i++) {
        unsigned before = *count;
        __asm__ volatile("sb %[one], 0(%[ip])\n\t"
                         "lbu %[tmp], 0(%[ip])\n\t"
                         "lw %[after], 0(%[count])"
                         : [tmp] "=&r"(tmp), [after] "=&r"(after)
                         : [one] "r"(1), [ip] "r"(ip), [count] "r"(count)
                         : "memory");
        seen += after == before + 1;
    }
    irq_global_disable();
    act_quiet[s] = 0;

    hook = note_marker;
    for (unsigned i = 0; i < ROUNDS; i++) {
        marker = 0;
        marker_at_entry = 9;
        nev = 0;                                /* one entry a round in the log */
        irq_global_enable();
        __asm__ volatile("sb %[one], 0(%[ip])\n\t"
                         "lbu %[tmp], 0(%[ip])\n\t"
                         "sw %[one], 0(%[marker])"
                         : [tmp] "=&r"(tmp)
                         : [one] "r"(1), [ip] "r"(ip), [marker] "r"(&marker)
                         : "memory");
        irq_global_disable();
        unseen += marker_at_entry == 0;
    }
    hook = 0;
    console_printf("Tsync: load: seen=%u/%u | store: unseen=%u/%u | runs=%u\n",
                   seen, ROUNDS, unseen, ROUNDS, hits[s]);
}
