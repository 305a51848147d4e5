# What an application on FreeRTOS builds besides its own sources: the kernel
# (FreeRTOS-Kernel V11.2.0 from the cache irqlab/builders/freertos.py fills; as
# the crate ships it, or with the CLIC port's kernel.patch: builders/firmware.py
# kernel_for passes the folder), a port chosen by the interrupt model (FreeRTOS's own RISC-V port
# with the machine timer on mip.MTIP, or the project's CLIC port,
# port-clic/), the glue (port_glue.c) and the trace hooks (irqlab_trace.h).
# Included by fw/<app>/app.mk with RTOS set to this folder relative to the
# app's ("" for fw/freertos, "../freertos/" for the others).
K := $(FREERTOS_KERNEL)
APP_SRCS += $(RTOS)port_glue.c
APP_INCLUDES += $(RTOS). $(RTOS)libc
APP_EXT_SRCS += $(addprefix $(K)/,tasks.c queue.c list.c timers.c event_groups.c portable/MemMang/heap_4.c)
APP_EXT_INCLUDES += $(K)/include
# On a SoC with the fast-interrupt extension the CLIC port and the common
# entries use it (fw/common/include/fastirq_entry.h; port-clic/portasm.S).
ifeq ($(IRQ_MODEL),clic)
# The project's CLIC port (port-clic/); exceptions through the common entry.
APP_SRCS += $(RTOS)port-clic/port.c $(RTOS)port-clic/portasm.S
APP_INCLUDES += $(RTOS)port-clic
else
# FreeRTOS's own RISC-V port; every trap through its handler.
APP_TRAP_ENTRY := own
APP_SRCS += $(RTOS)trap_entry.S
APP_EXT_SRCS += $(K)/portable/GCC/RISC-V/port.c $(K)/portable/GCC/RISC-V/portASM.S
APP_EXT_INCLUDES += $(K)/portable/GCC/RISC-V
endif
# The kernel's own warnings are not this project's.
APP_CFLAGS += -Wno-unused-parameter -Wno-type-limits -Wno-sign-compare
