# FreeRTOS on the SoC: the self-checking tests (main.c) on the kernel and the
# row's port (kernel.mk). fw/Makefile says what an app.mk declares.
APP_KERNEL := freertos
APP_SRCS := main.c
RTOS :=
include $(HERE)freertos/kernel.mk
