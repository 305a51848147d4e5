/* Included by LiteX's generated csr.h; irqlab's firmware needs nothing from it. */
#ifndef IRQLAB_SYSTEM_H
#define IRQLAB_SYSTEM_H
#endif
