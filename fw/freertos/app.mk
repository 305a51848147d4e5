# FreeRTOS on the SoC: the self-checking tests (main.c) on the kernel and the
# row's port (kernel.mk). fw/Makefile says what an app.mk declares.
APP_KERNEL := freertos
APP_SRCS := main.c regtest.S
RTOS :=
# The bus SoCs' ROM holds the kernel, the CLIC port and every check only
# with the prologues' register saves shared (libgcc's millicode); the
# context-switch suite (fw/ctxsw) is built without it, so its figures are not.
APP_CFLAGS := -msave-restore
include $(HERE)freertos/kernel.mk
