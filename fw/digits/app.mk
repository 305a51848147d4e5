# The background workload alone (fw/common/digits/): fw/Makefile says what an app.mk declares.
APP_SRCS := main.c
APP_USES := digits
