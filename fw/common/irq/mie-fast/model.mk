# Interrupt model mie-fast (CV32E40P): vectored mtvec, one vector per local interrupt.
IRQ_SRCS := vectors.S irq.c ../level-lines.c
