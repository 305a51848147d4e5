# FreeRTOS on the SoC: the kernel (FreeRTOS-Kernel V11.2.0, unmodified, from
# the cache irqlab/freertos.py fills), FreeRTOS's own RISC-V port with the
# SoC's machine timer as the tick, and the self-checking tests (main.c).
# fw/Makefile says what an app.mk declares.
APP_KERNEL := freertos
APP_TRAP_ENTRY := own
APP_SRCS := main.c port_glue.c trap_entry.S
APP_INCLUDES := . libc
K := $(FREERTOS_KERNEL)
APP_EXT_SRCS := $(addprefix $(K)/,tasks.c queue.c list.c timers.c event_groups.c \
	portable/MemMang/heap_4.c portable/GCC/RISC-V/port.c portable/GCC/RISC-V/portASM.S)
APP_EXT_INCLUDES := $(K)/include $(K)/portable/GCC/RISC-V
# The kernel is built as shipped: its own warnings are not this project's.
APP_CFLAGS := -Wno-unused-parameter -Wno-type-limits -Wno-sign-compare
