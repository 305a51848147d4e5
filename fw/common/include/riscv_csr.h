/* RISC-V machine CSRs the firmware uses: numbers, bits and accessors, once.
 * The CLIC CSRs (draft v0.9; docs/CLIC.md) have numbers the assembler in
 * Debian's toolchain does not know by name. */
#ifndef RISCV_CSR_H
#define RISCV_CSR_H

#include <stdint.h>

#define CSR_MTVT        0x307
#define CSR_MNXTI       0x345
#define CSR_MINTSTATUS  0x346
#define CSR_MINTTHRESH  0x347
#define CSR_MSCRATCHCSW 0x348
#define CSR_MSCRATCHCSWL 0x349
/* The own core's fast-interrupt extension (cores/: FastIrqPlugin). */
#define CSR_MFASTIRQ        0x7C0
#define CSR_MFASTIRQSTATUS  0x7C1
#define MFASTIRQ_EN   0x1u       /* interrupts switch banks and save in the background */
#define MFASTIRQ_E    0x2u       /* the save set of ilp32e */
#define MFASTIRQSTATUS_BANK      0x1u
#define MFASTIRQSTATUS_LIVE      0x2u
#define MFASTIRQSTATUS_DRAINING  0x4u
/* LiteX VexRiscv's external-interrupt lines (interrupt model csr-mask). */
#define CSR_LITEX_IRQ_MASK    0xBC0
#define CSR_LITEX_IRQ_PENDING 0xFC0

#define MSTATUS_MIE   0x8u
#define MSTATUS_MPIE  0x80u
#define MCAUSE_INTERRUPT 0x80000000u
#define MIE_MEIE      (1u << 11)
/* CLIC mode (docs/CLIC.md): mcause's extra fields, mintstatus.mil. */
#define MCAUSE_MINHV  (1u << 30)
#define MCAUSE_MPIE   (1u << 27)      /* an alias of mstatus.MPIE */
#define MCAUSE_MPIL_SHIFT 16
#define MINTSTATUS_MIL_SHIFT 24

#define CSR_STR_(x) #x
#define CSR_STR(x) CSR_STR_(x)
/* csr: a name (mstatus) or a number (CSR_MTVT). */
#define CSRR(csr) ({ uint32_t v_; __asm__ volatile("csrr %0, " CSR_STR(csr) : "=r"(v_) :: "memory"); v_; })
/* "rJ" and %z: a constant 0 is written from the zero register. */
#define CSRW(csr, v) __asm__ volatile("csrw " CSR_STR(csr) ", %z0" :: "rJ"((uint32_t)(v)) : "memory")
#define CSRS(csr, v) __asm__ volatile("csrs " CSR_STR(csr) ", %z0" :: "rJ"((uint32_t)(v)) : "memory")
#define CSRC(csr, v) __asm__ volatile("csrc " CSR_STR(csr) ", %z0" :: "rJ"((uint32_t)(v)) : "memory")

#endif
