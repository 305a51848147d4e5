# The background workload as a FreeRTOS task, the kernel's tick its only
# interruption (fw/common/digits/; kernel, port and glue: fw/freertos/kernel.mk
# with fw/freertos's FreeRTOSConfig.h). fw/Makefile says what an app.mk declares.
APP_KERNEL := freertos
APP_SRCS := main.c
APP_USES := digits
RTOS := ../freertos/
include $(HERE)freertos/kernel.mk
