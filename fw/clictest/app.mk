# The clictest firmware (fw/Makefile says what an app.mk declares): the
# runner, the shared helpers and every test file in tests/, found by the
# wildcard (a new test is a new file, nothing to list; the run order is the
# file-name order, set by the linker: testcase.h).
CLICTEST_DIR := $(dir $(lastword $(MAKEFILE_LIST)))
APP_SRCS := main.c clictest.c \
	$(patsubst $(CLICTEST_DIR)%,%,$(sort $(wildcard $(CLICTEST_DIR)tests/*.c)))
APP_INCLUDES := .
# The suite tests the CLIC through the software-saving entries (it returns
# with mret and inspects mcause): no fastirq entries on a fastirq SoC.
APP_CFLAGS += -DIRQLAB_NO_FASTIRQ
