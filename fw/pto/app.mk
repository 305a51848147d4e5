# The PTO demo: a pulse train from the PTO timer (soc/pto.py),
# its next interval computed by a plain interrupt handler on the row's
# interrupt HAL, under FreeRTOS with an unrelated background task. Its
# FreeRTOSConfig.h (this folder, found first) includes fw/freertos's.
APP_KERNEL := freertos
APP_SRCS := main.c profile.c background.c
APP_INCLUDES := .
RTOS := ../freertos/
include $(HERE)freertos/kernel.mk
