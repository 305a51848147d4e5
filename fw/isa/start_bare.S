/* Start/finish stub for the core in cores/tb/harness.cpp: an unexpected trap
 * ends the run with status 3 (mcause, mepc and mtval are printed through the
 * putchar word); the finish hands the signature range to the harness. */
    .equ MAGIC_DONE,      0xF0000000
    .equ MAGIC_SIG_BEGIN, 0xF0000004
    .equ MAGIC_SIG_END,   0xF0000008
    .equ MAGIC_PUTC,      0xF000000C

    .section .text.start, "ax"
    .globl _start
_start:
    la t0, isa_unexpected_trap
    csrw mtvec, t0
    j isa_body

    .globl isa_finish
isa_finish:
    li t0, MAGIC_SIG_BEGIN
    la t1, isa_sig_begin
    sw t1, 0(t0)
    li t0, MAGIC_SIG_END
    la t1, isa_sig_end
    sw t1, 0(t0)
    li t0, MAGIC_DONE
    sw zero, 0(t0)
1:  j 1b

    .balign 64
    .globl isa_unexpected_trap
isa_unexpected_trap:
    csrr a0, mcause
    jal ra, puthex
    csrr a0, mepc
    jal ra, puthex
    csrr a0, mtval
    jal ra, puthex
    li t0, MAGIC_DONE
    li t1, 3
    sw t1, 0(t0)
1:  j 1b

/* print a0 as "xxxxxxxx\n" */
puthex:
    li t0, MAGIC_PUTC
    li t1, 8
1:  srli t2, a0, 28
    addi t2, t2, '0'
    li t3, '9'
    ble t2, t3, 2f
    addi t2, t2, 'a' - '9' - 1
2:  sw t2, 0(t0)
    slli a0, a0, 4
    addi t1, t1, -1
    bnez t1, 1b
    li t2, '\n'
    sw t2, 0(t0)
    ret
