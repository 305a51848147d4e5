/* The own core's task contexts (cores/: FastIrqPlugin `contexts`; its
 * header and cores/README.md "Task contexts" say what they do): the CSR
 * numbers and fields and the tyield instruction, once, for C and assembly. */
#ifndef FASTCTX_H
#define FASTCTX_H

#define CSR_MFASTCTX    0x7C2      /* 3:0 current context (RO), 11:8 next, 23:16 count (RO) */
#define CSR_MFASTCTXPC  0x7C3      /* the saved pc of the next context */
#define CSR_MFASTBIND   0x7C4      /* write: a context's bound interrupt; read: the armed contexts, a bit each */
#define CSR_MFASTREADY  0x7C5      /* write: a context's ready bit and priority; read: ready, TCB known (bits 15:8) */
#define CSR_MFASTTCB    0x7C6      /* the current context's TCB (write-only) */
#define CSR_MFASTDEFER  0x7C7      /* priorities (a bit each) at which a yield defers to the kernel */
#define CSR_MFASTSEL    0x7C8      /* read-only: the TCB of the core's next task, 0: none */
#define MFASTCTX_CURRENT  0xF
#define MFASTCTX_NEXT_SHIFT 8
#define MFASTBIND_CONTEXT_SHIFT 16 /* bits 19:16: the context; 11:0: the CLIC id */
#define MFASTBIND_ARMED   0x80000000
#define MFASTREADY_CONTEXT_SHIFT 16 /* bits 19:16: the context; 4:0: its priority */
#define MFASTREADY_READY  0x80000000
#define MFASTREADY_FORGET 0x40000000 /* its TCB is no longer known (the task is deleted) */

#define FASTCTX_STR_(x) #x
#define FASTCTX_STR(x) FASTCTX_STR_(x)
#ifdef __ASSEMBLER__
    /* tyield: into the next context; this task goes on `skip` bytes past
     * the instruction after it. */
    .macro TYIELD skip=0
    .insn i 0x0B, 1, x0, x0, \skip
    .endm
    /* tswitch: the same into the core's choice (mfastsel), or nothing. */
    .macro TSWITCH skip=0
    .insn i 0x0B, 2, x0, x0, \skip
    .endm
#else
/* The same for inline assembly: strings. */
#define FASTCTX_TYIELD(skip) ".insn i 0x0B, 1, x0, x0, " FASTCTX_STR(skip)
#define FASTCTX_TSWITCH(skip) ".insn i 0x0B, 2, x0, x0, " FASTCTX_STR(skip)
#endif
#endif
