/* Start/finish stub for qemu-riscv32 (Linux user mode): run the test body,
 * write the signature [isa_sig_begin, isa_sig_end) to stdout (write(2)), exit(0). */
    .section .text.start, "ax"
    .globl _start
_start:
    j isa_body

    .globl isa_finish
isa_finish:
    li a0, 1                      /* fd: stdout */
    la a1, isa_sig_begin
    la a2, isa_sig_end
    sub a2, a2, a1
    li a7, 64                     /* write */
    ecall
    la a1, isa_sig_begin
    la a2, isa_sig_end
    sub a2, a2, a1
    li a3, 1                      /* exit code 1 on a short write */
    bne a0, a2, 1f
    li a3, 0
1:  mv a0, a3
    li a7, 93                     /* exit */
    ecall
2:  j 2b
