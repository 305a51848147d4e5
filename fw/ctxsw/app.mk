# The context-switch suite: RTOSBench-style routines on
# the same FreeRTOS build as fw/freertos (kernel, port, glue: kernel.mk).
# Its FreeRTOSConfig.h (this folder, found first) sets the suite's options
# and includes fw/freertos's.
APP_KERNEL := freertos
APP_SRCS := main.c marks.c
APP_INCLUDES := .
RTOS := ../freertos/
include $(HERE)freertos/kernel.mk
