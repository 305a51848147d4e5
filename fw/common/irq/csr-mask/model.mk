# Interrupt model csr-mask (LiteX VexRiscv's convention): software dispatch from the direct vector.
IRQ_SRCS := irq.c ../level-lines.c
