/* Tests that register themselves: a file defines a test function and
 * TESTCASE(fn, "name") puts a descriptor for it in the input section
 * .testcases.<source file name>. linker.ld keeps those sections (nothing
 * refers to them, --gc-sections would drop them) sorted by section name, so
 * a runner finds the descriptors as one array between __testcases_start and
 * __testcases_end, ordered by file name (e.g. a numeric prefix). Any
 * application may use it; one test per file keeps the order well defined. */
#ifndef IRQLAB_TESTCASE_H
#define IRQLAB_TESTCASE_H

struct testcase {
    const char *name;
    void (*run)(void);
};

extern const struct testcase __testcases_start[], __testcases_end[];

#define TESTCASE(fn, test_name)                                                                  \
    __attribute__((section(".testcases." __FILE_NAME__), used, aligned(4)))                      \
    static const struct testcase testcase_##fn = {test_name, fn};

#define TESTCASE_COUNT() ((unsigned)(__testcases_end - __testcases_start))

#endif
