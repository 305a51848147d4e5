/* What FreeRTOS's RISC-V port and kernel ask of the application, on this
 * SoC: interrupts other than the tick go to the interrupt HAL's software
 * dispatch (fw/common/irq/<model>/), exceptions and kernel failures end the
 * run with a message the tests read. */
#include "irqlab.h"
#include "FreeRTOS.h"
#include "task.h"

void freertos_risc_v_application_interrupt_handler(uint32_t mcause) {
    IRQLAB_TRACE_ISR_ENTER();
    int unhandled = irq_dispatch(mcause);
    IRQLAB_TRACE_ISR_EXIT();
    if (unhandled) {
        console_printf("freertos: FAILED: interrupt mcause=%x has no handler\n", mcause);
        irqlab_exit(101);
    }
}

void freertos_risc_v_application_exception_handler(uint32_t mcause) {
    irq_exception(mcause);
}

__attribute__((noinline)) void irqlab_freertos_assert(void) {
    uint32_t after = (uint32_t)__builtin_return_address(0);
    taskDISABLE_INTERRUPTS();
    console_printf("freertos: FAILED: assertion, its call returns to pc 0x%x (addr2line -e the firmware's .elf)\n",
                   after);
    irqlab_exit(102);
}

void vApplicationMallocFailedHook(void) {
    console_printf("freertos: FAILED: out of heap\n");
    irqlab_exit(103);
}

/* Weak: an application that provokes an overflow on purpose has its own. */
__attribute__((weak)) void vApplicationStackOverflowHook(TaskHandle_t task, char *name) {
    console_printf("freertos: FAILED: stack overflow in task %s\n", name);
    irqlab_exit(104);
}

/* The kernel's C library needs (no libc here). Not turned back into calls
 * of themselves by the loop-pattern optimisation. */
#define NO_LOOP_PATTERNS __attribute__((optimize("no-tree-loop-distribute-patterns")))
NO_LOOP_PATTERNS void *memset(void *d, int c, size_t n) {
    unsigned char *p = d;
    while (n--) *p++ = (unsigned char)c;
    return d;
}

/* Word by word where both addresses and the length are multiples of four
 * (the kernel's queue items usually are): byte by byte, a one-word queue
 * send spends 124 cycles in its two copies (cores/README.md, "Where the
 * other cases go"). */
NO_LOOP_PATTERNS void *memcpy(void *d, const void *s, size_t n) {
    if ((((uintptr_t)d | (uintptr_t)s | n) & 3) == 0) {
        uint32_t *w = d;
        const uint32_t *v = s;
        for (; n; n -= 4)
            *w++ = *v++;
        return d;
    }
    unsigned char *p = d;
    const unsigned char *q = s;
    while (n--) *p++ = *q++;
    return d;
}

NO_LOOP_PATTERNS int memcmp(const void *a, const void *b, size_t n) {
    const unsigned char *p = a, *q = b;
    for (; n; n--, p++, q++)
        if (*p != *q) return *p - *q;
    return 0;
}
