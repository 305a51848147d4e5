/* Interrupt plumbing shared by the cores: weak default handlers, the
 * exception report, and the per-core enable/dispatch. */
#include "irqlab.h"

#define CSR_READ(name) ({ uint32_t v_; __asm__ volatile("csrr %0, " #name : "=r"(v_)); v_; })

void irq_unexpected(void) {
    console_printf("irqlab: unexpected interrupt, mcause=%x\n", CSR_READ(mcause));
    irqlab_exit(101);
}

#define WEAK_HANDLER(n) void irq_handler_##n(void) __attribute__((weak, alias("irq_unexpected")));
/* 0..63: every source of the CLIC has a handler name (the CLINT cores use 0..15). */
IRQ_EACH8(WEAK_HANDLER, 0, 1, 2, 3, 4, 5, 6, 7)
IRQ_EACH8(WEAK_HANDLER, 8, 9, 10, 11, 12, 13, 14, 15)
IRQ_EACH8(WEAK_HANDLER, 16, 17, 18, 19, 20, 21, 22, 23)
IRQ_EACH8(WEAK_HANDLER, 24, 25, 26, 27, 28, 29, 30, 31)
IRQ_EACH8(WEAK_HANDLER, 32, 33, 34, 35, 36, 37, 38, 39)
IRQ_EACH8(WEAK_HANDLER, 40, 41, 42, 43, 44, 45, 46, 47)
IRQ_EACH8(WEAK_HANDLER, 48, 49, 50, 51, 52, 53, 54, 55)
IRQ_EACH8(WEAK_HANDLER, 56, 57, 58, 59, 60, 61, 62, 63)

static void exception(uint32_t cause) {
    console_printf("irqlab: exception mcause=%x mepc=%x mtval=%x\n",
                   cause, CSR_READ(mepc), CSR_READ(mtval));
    irqlab_exit(100);
}

#if defined(IRQLAB_CORE_VEXRISCV) || defined(IRQLAB_CORE_CLINT)
/* LiteX VexRiscv, and irqlab's own core (clint) which keeps its convention:
 * external interrupt (mie.MEIE) gated by LiteX's mask CSR. */
/* LiteX's CSRs: 0xBC0 = interrupt mask, 0xFC0 = pending lines. */
static void (*const handlers[16])(void) = {
    irq_handler_0, irq_handler_1, irq_handler_2, irq_handler_3,
    irq_handler_4, irq_handler_5, irq_handler_6, irq_handler_7,
    irq_handler_8, irq_handler_9, irq_handler_10, irq_handler_11,
    irq_handler_12, irq_handler_13, irq_handler_14, irq_handler_15,
};

void trap_dispatch(void) {
    uint32_t cause = CSR_READ(mcause);
    if (!(cause & 0x80000000u)) exception(cause);
    uint32_t p;
    __asm__ volatile("csrr %0, 0xFC0" : "=r"(p));
    uint32_t m;
    __asm__ volatile("csrr %0, 0xBC0" : "=r"(m));
    p &= m;
    while (p) {
        unsigned i = __builtin_ctz(p);
        handlers[i]();
        p &= p - 1;
    }
}

void irq_init(void) {
    __asm__ volatile("csrw 0xBC0, zero");
    __asm__ volatile("csrs mie, %0" ::"r"(1u << 11));
}

void irq_enable(unsigned irq) {
    __asm__ volatile("csrs 0xBC0, %0" ::"r"(1u << irq));
}

#elif defined(IRQLAB_CORE_CV32E40P)
/* CV32E40P: core inputs 0..15 are fast interrupts 16..31, vectored. */
extern char vector_table[];

void trap_dispatch(void) {
    uint32_t cause = CSR_READ(mcause);
    if (!(cause & 0x80000000u)) exception(cause);
    console_printf("irqlab: non-vectored interrupt %x\n", cause);
    irqlab_exit(102);
}

void irq_init(void) {
    __asm__ volatile("csrw mtvec, %0" ::"r"((uint32_t)vector_table | 1));
}

void irq_enable(unsigned irq) {
    __asm__ volatile("csrs mie, %0" ::"r"(1u << (16 + irq)));
}
#elif defined(IRQLAB_CORE_CLIC)
/* irqlab core with the CLIC (entry_clic.S, docs/CLIC.md). */
extern const uint32_t clic_vector_table[];
extern char clic_trampoline[];
extern char trap_entry_direct[];

void trap_dispatch(void) {
    uint32_t cause = CSR_READ(mcause);
    if (!(cause & 0x80000000u)) exception(cause);
    console_printf("irqlab: interrupt %u through the exception entry\n", cause & 0xfffu);
    irqlab_exit(102);
}

void irq_init(void) {
    for (unsigned i = 0; i < IRQLAB_CLIC_SOURCES; i++)
        CLIC_INTIE(i) = 0;
    CLIC_CFG = 8u << 1;                          /* nlbits = 8: clicintctl is all level */
    __asm__ volatile("csrw 0x347, zero   /* mintthresh */");
    __asm__ volatile("csrw 0x307, %0   /* mtvt */" ::"r"(clic_vector_table));
    __asm__ volatile("csrw mtvec, %0" ::"r"(IRQLAB_CLIC_SHV ? trap_entry_direct : clic_trampoline));
}

void clic_setup(unsigned irq, unsigned trig, unsigned level) {
    CLIC_INTIE(irq) = 0;
    CLIC_INTATTR(irq) = (uint8_t)((trig << 1) | (IRQLAB_CLIC_SHV ? 1u : 0u));
    CLIC_INTCTL(irq) = (uint8_t)level;
    CLIC_INTIP(irq) = 0;
    CLIC_INTIE(irq) = 1;
}

void irq_enable(unsigned irq) {
    clic_setup(irq, CLIC_TRIG_LEVEL, CLIC_DEFAULT_LEVEL);
}
#else
#error "no interrupt support for this core"
#endif
