/* The own core's task contexts (cores/: FastIrqPlugin `contexts`; its
 * header and cores/README.md "Task contexts" say what they do): the CSR
 * numbers and fields and the tyield instruction, once, for C and assembly. */
#ifndef FASTCTX_H
#define FASTCTX_H

#define CSR_MFASTCTX    0x7C2      /* 3:0 current context (RO), 11:8 next, 23:16 count (RO) */
#define CSR_MFASTCTXPC  0x7C3      /* the saved pc of the next context */
#define CSR_MFASTBIND   0x7C4      /* write: a context's bound interrupt; read: the armed contexts, a bit each */
#define MFASTCTX_CURRENT  0xF
#define MFASTCTX_NEXT_SHIFT 8
#define MFASTBIND_CONTEXT_SHIFT 16 /* bits 19:16: the context; 11:0: the CLIC id */
#define MFASTBIND_ARMED   0x80000000

#define FASTCTX_STR_(x) #x
#define FASTCTX_STR(x) FASTCTX_STR_(x)
#ifdef __ASSEMBLER__
    /* tyield: into the next context; this task goes on `skip` bytes past
     * the instruction after it. */
    .macro TYIELD skip=0
    .insn i 0x0B, 1, x0, x0, \skip
    .endm
#else
/* The same for inline assembly: a string. */
#define FASTCTX_TYIELD(skip) ".insn i 0x0B, 1, x0, x0, " FASTCTX_STR(skip)
#endif
#endif
