# Interrupt model clic: the CLIC (draft v0.9), vectored (IRQLAB_HW_VECTORING) or the mnxti trampoline.
IRQ_SRCS := entry.S irq.c
