/* The register test's task body (main.c test_registers):
 *     uint32_t regtest_rounds(uint32_t seed, uint32_t rounds, uint32_t pend)
 * Each round fills every register the task owns (x1, x5 and up; not sp, gp,
 * tp, which the ABI gives every task alike) with a pattern from a new seed,
 * yields (pend != 0: a store of 1 to the CLIC's pending byte of the port's
 * yield source at address `pend`, read back; pend == 0: ecall, the yield of
 * FreeRTOS's own port), and checks every register against its pattern. Ticks
 * and other tasks' yields preempt it at any instruction. Returns 0 after
 * `rounds` rounds, or at the first round that found a register changed: the
 * OR of every register's difference from its pattern (nonzero). */
    .equ STEP, 65                   /* pattern of xk: seed + STEP * k */

#ifdef __riscv_abi_rve
#define FILLED 1,5,6,7,8,9,13,14,15
#else
#define FILLED 1,5,6,7,8,9,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
#endif
#define CALLEE 8,9,18,19,20,21,22,23,24,25,26,27

    .section .text.regtest_rounds, "ax"
    .global regtest_rounds
regtest_rounds:
    addi sp, sp, -64
    sw ra, 0(sp)
#ifdef __riscv_abi_rve
    sw s0, 4(sp)
    sw s1, 8(sp)
#else
    .set slot, 1
    .irp n, CALLEE
    sw x\n, (4 * slot)(sp)
    .set slot, slot + 1
    .endr
#endif
    sw a1, 52(sp)                   /* rounds left */
    sw a2, 56(sp)                   /* pend */
round:
    slli a1, a0, 2                  /* seed := 5 * seed + 1 */
    add a0, a0, a1
    addi a0, a0, 1
    sw a0, 60(sp)
    .irp n, FILLED
    addi x\n, a0, STEP * \n
    .endr
    lw a1, 56(sp)                   /* a1 = pend, a2 = 1: checked as well */
    li a2, 1
    beqz a1, 1f
    sb a2, 0(a1)
    lb zero, 0(a1)
    j 2f
1:  ecall
2:  nop
    nop
    nop
    nop
    .irp n, FILLED
    addi x\n, x\n, -STEP * \n
    sub x\n, x\n, a0
    .endr
    .irp n, FILLED
    or x1, x1, x\n
    .endr
    lw a3, 60(sp)
    xor a3, a3, a0
    or x1, x1, a3
    lw a3, 56(sp)
    xor a3, a3, a1
    or x1, x1, a3
    addi a2, a2, -1
    or x1, x1, a2
    bnez x1, done
    lw a1, 52(sp)
    addi a1, a1, -1
    sw a1, 52(sp)
    bnez a1, round
done:
    mv a0, x1
    lw ra, 0(sp)
#ifdef __riscv_abi_rve
    lw s0, 4(sp)
    lw s1, 8(sp)
#else
    .set slot, 1
    .irp n, CALLEE
    lw x\n, (4 * slot)(sp)
    .set slot, slot + 1
    .endr
#endif
    addi sp, sp, 64
    ret
