/* clictest's runner: every registered test (one file each in tests/, CLICTEST in
 * clictest.h) in file-name order, each from a clean state. The line
 * "clictest: run T<name>" before each test attributes a crash to it. */
#include "clictest.h"

int main(void) {
    irq_init();
    console_printf("clictest: %s build\n",
                   IRQLAB_HW_VECTORING ? "shv (vectored)" : "non-vectored (mnxti trampoline)");
    for (const struct testcase *t = __testcases_start; t < __testcases_end; t++) {
        clictest_reset();
        console_printf("clictest: run %s\n", t->name);
        t->run();
    }
    clictest_reset();
    console_printf("clictest: done, %u tests\n", TESTCASE_COUNT());
    return 0;
}
