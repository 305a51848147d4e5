# The Modbus-RTU demo: a Modbus-RTU slave on the SoC's Modbus UART
# (soc/modbus_uart.py) with a receive interrupt per character, beside a
# background task; the protocol code is fw/common/modbus/ (also built for the
# host: tests/test_modbus_host.py, tests/test_modbus_fuzz.py).
APP_KERNEL := freertos
APP_SRCS := main.c ../common/modbus/mb_crc.c ../common/modbus/mb_rx.c ../common/modbus/mb_slave.c ../common/modbus/mb_tx.c
APP_USES := digits
APP_INCLUDES := . ../common/modbus
RTOS := ../freertos/
include $(HERE)freertos/kernel.mk
