/* The interrupt HAL: what applications call, whatever the interrupt model.
 *
 * One implementation per interrupt model (fw/common/irq/<model>/), chosen by
 * the build from the row's SoC (soc/configs.py IRQ_MODELS; the constant
 * IRQLAB_IRQ_MODEL_<MODEL> is 1 for it). `irq` is a core interrupt input, or a
 * CLIC source: take it from the SoC's interrupt map (IRQLAB_IRQ_<NAME>,
 * IRQLAB_IRQ_<NAME>_<i>, IRQLAB_IRQ_FIRST_FREE in generated/soc.h), never a
 * literal. Handlers are C functions named irq_handler_<irq>: define one with
 * `void IRQ_HANDLER(IRQLAB_IRQ_GEN_0)(void) { ... }`. Features say what a model
 * can do (irqlab_features.h): IRQLAB_HAS_IRQ_LEVELS, IRQLAB_HW_VECTORING. */
#ifndef IRQLAB_IRQ_H
#define IRQLAB_IRQ_H

#include <stdint.h>
#include "riscv_csr.h"

#define IRQLAB_PASTE_(a, b) a##b
#define IRQLAB_PASTE(a, b) IRQLAB_PASTE_(a, b)
#define IRQ_HANDLER(irq) IRQLAB_PASTE(irq_handler_, irq)

enum irq_trigger {             /* the CLIC's clicintattr.trig encoding */
    IRQ_TRIG_LEVEL = 0, IRQ_TRIG_EDGE = 1, IRQ_TRIG_LEVEL_LOW = 2, IRQ_TRIG_EDGE_FALLING = 3,
};
#define IRQ_DEFAULT_LEVEL 0x80u

/* The entry code installed; every source disabled, level-triggered, at
 * IRQ_DEFAULT_LEVEL where there are levels, nothing pending. */
void irq_init(void);
void irq_enable(unsigned irq);
void irq_disable(unsigned irq);
/* Trigger and level of a source; disables it and clears its pending bit
 * (enable it afterwards). Models without levels ignore the level; models with
 * level lines only accept IRQ_TRIG_LEVEL (-1 for anything else). */
int irq_configure(unsigned irq, enum irq_trigger trig, unsigned level);
/* Software view of the pending bit: set (where software may pend: the CLIC's
 * edge-triggered sources) and clear. Return -1 where the model cannot. */
int irq_pend(unsigned irq);
int irq_clear(unsigned irq);
/* Interrupts at or below this level are masked (models with levels; else ignored). */
void irq_set_threshold(unsigned level);

static inline void irq_global_enable(void) { __asm__ volatile("csrsi mstatus, 8" ::: "memory"); }
static inline void irq_global_disable(void) { __asm__ volatile("csrci mstatus, 8" ::: "memory"); }
static inline uint32_t irq_save(void) {
    uint32_t s;
    __asm__ volatile("csrrci %0, mstatus, 8" : "=r"(s) :: "memory");
    return s & MSTATUS_MIE;
}
static inline void irq_restore(uint32_t s) { if (s) irq_global_enable(); }

/* Let a higher level preempt the running handler: keep what a nested trap
 * overwrites (mepc, mcause) and enable interrupts; irq_nest_end undoes it
 * before the handler returns. Where the entry code does this itself (the
 * CLIC's mnxti trampoline) they only toggle nothing. */
struct irq_nest { uint32_t epc, cause; };
void irq_nest_begin(struct irq_nest *n);
void irq_nest_end(const struct irq_nest *n);

/* Weak default of every irq_handler_<n>: reports and exits 101. */
void irq_unexpected(void);
/* The entry code's C dispatcher for everything that is not vectored. */
void trap_dispatch(void);
/* For a trap entry of its own (an RTOS port saves the context itself): run
 * the handlers of interrupt cause `mcause` (the machine timer excluded);
 * returns 0, or -1 if the model does not dispatch that cause in software. */
int irq_dispatch(uint32_t mcause);
/* Exceptions: report mcause/mepc/mtval and exit 100. Inline: the dispatchers
 * keep their shape (and the benchmark its code layout). */
void console_printf(const char *fmt, ...);
void irqlab_exit(int code) __attribute__((noreturn));
static inline void __attribute__((noreturn)) irq_exception(uint32_t cause) {
    uint32_t epc = CSRR(mepc), tval = CSRR(mtval);
    console_printf("irqlab: exception mcause=%x mepc=%x mtval=%x\n", cause, epc, tval);
    irqlab_exit(100);
}

/* M(n) for eight interrupt numbers: defines handlers in rows of eight. */
#define IRQ_EACH8(M, a, b, c, d, e, f, g, h) M(a) M(b) M(c) M(d) M(e) M(f) M(g) M(h)
/* M(n) for every handler name 0..63 (the largest SoC: the CLIC's 64 sources). */
#define IRQ_EACH(M) \
    IRQ_EACH8(M, 0, 1, 2, 3, 4, 5, 6, 7) IRQ_EACH8(M, 8, 9, 10, 11, 12, 13, 14, 15) \
    IRQ_EACH8(M, 16, 17, 18, 19, 20, 21, 22, 23) IRQ_EACH8(M, 24, 25, 26, 27, 28, 29, 30, 31) \
    IRQ_EACH8(M, 32, 33, 34, 35, 36, 37, 38, 39) IRQ_EACH8(M, 40, 41, 42, 43, 44, 45, 46, 47) \
    IRQ_EACH8(M, 48, 49, 50, 51, 52, 53, 54, 55) IRQ_EACH8(M, 56, 57, 58, 59, 60, 61, 62, 63)
#define IRQ_DECLARE_HANDLER_(n) void irq_handler_##n(void);
IRQ_EACH(IRQ_DECLARE_HANDLER_)

#endif
