/* The machine timer (soc/mtimer.py) as an RTOS uses it: mtime counts, a
 * compare value raises the interrupt on line IRQLAB_IRQ_MTIMER (through the
 * HAL, on every core), and where the core has a machine-timer input it shows
 * in mip.MTIP. tests/test_timer.py runs it on every SoC.
 *
 * expect: timer: mtime counts
 * expect: timer: no interrupt before the compare value
 * expect: timer: interrupt 1 after the compare value
 * expect: timer: mip.MTIP follows mtimecmp (or the core has no MTIP)
 * expect: timer: ok
 */
#include "irqlab.h"
#include "irqlab_timer.h"

#define MIP_MTIP (1u << 7)

static volatile uint32_t ticks;
static volatile uint64_t seen_at;

void IRQ_HANDLER(IRQLAB_IRQ_MTIMER)(void) {
    seen_at = mtime_read();
    ticks++;
    mtimecmp_write(~0ull);          /* the interrupt is a level: lower it */
}

static void fail(const char *what) {
    console_printf("timer: FAILED: %s\n", what);
    irqlab_exit(1);
}

int main(void) {
    uint64_t a = mtime_read(), b = mtime_read();
    if (!(b > a)) fail("mtime does not count");
    console_printf("timer: mtime counts\n");

    irq_init();
    irq_enable(IRQLAB_IRQ_MTIMER);
    irq_global_enable();
    uint64_t due = mtime_read() + 2000;
    mtimecmp_write(due);
    while (mtime_read() < due - 200)
        ;
    if (ticks) fail("interrupt before the compare value");
    console_printf("timer: no interrupt before the compare value\n");
    while (!ticks && mtime_read() < due + 2000)
        ;
    if (ticks != 1 || seen_at < due) fail("no interrupt, or too early");
    console_printf("timer: interrupt %u after the compare value\n", ticks);

    irq_global_disable();
    irq_disable(IRQLAB_IRQ_MTIMER);
#if IRQLAB_HAS_MTIP
    if (CSRR(mip) & MIP_MTIP) fail("MTIP set with mtimecmp at its maximum");
    mtimecmp_write(mtime_read());
    for (volatile int i = 0; i < 10; i++)
        ;
    if (!(CSRR(mip) & MIP_MTIP)) fail("MTIP not set when mtime >= mtimecmp");
    mtimecmp_write(~0ull);
#endif
    console_printf("timer: mip.MTIP follows mtimecmp (or the core has no MTIP)\n");
    console_printf("timer: ok\n");
    return 0;
}
