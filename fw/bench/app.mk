# The bench firmware: its sources (fw/Makefile says what an app.mk declares).
APP_SRCS := main.c matrix.c
