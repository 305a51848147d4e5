/* The ITCM loader: receives a firmware image over the console UART, writes it
 * into the ITCM and runs it (SoCs with TCMs; fw/common/boot.c calls it).
 *
 * It overwrites the code it was started from, so boot.c copies it to main
 * RAM and calls the copy. It is therefore position independent and uses
 * nothing in the ITCM: no calls out, its message inside it; only x1 and x5..x15, so it
 * runs on RV32E too, and no stack. Everything it needs comes in one block
 * (a0 = struct itcm_load, in the DTCM, which the load does not touch):
 *
 *   0 len   4 crc (CRC-32 of the image, as the host sends it)
 *   8 rxtx  12 txfull  16 rxempty  20 ev_pending   (the UART's CSR addresses)
 *  24 base  28 size                                (the ITCM)
 *  32 table[256]                                   (room for the CRC's table)
 *
 * A good image: fence.i, jump to the ITCM's base (the reset vector). A bad
 * CRC or length: "irqlab boot: image refused (CRC or length). Send it again."
 * and wait for the
 * next 'L' + length + CRC-32 + image (the ITCM no longer holds a program to
 * go back to). Only gc-sections keeps it out of images that do not use it. */

    .option norelax                 /* no gp-relative addresses: this code moves */
    .section .text.itcm_loader, "ax"
    .globl itcm_loader_start, itcm_loader_end
    .p2align 2
itcm_loader_start:
    lw      a1, 0(a0)               /* bytes to receive */
    lw      s0, 4(a0)               /* the CRC they must have */
1:  lw      a2, 24(a0)              /* destination: the ITCM */
    lw      a5, 28(a0)
    bgtu    a1, a5, .Lbad           /* too long for the ITCM: refuse */
    mv      s1, a1
    /* Receive first, check after: a byte must take fewer cycles than the
     * link's byte time (167 at 3 Mbaud and 50 MHz) with every instruction
     * fetched over the bus from main RAM, or the UART's receive FIFO
     * overflows; a CRC step per byte here did not keep up. */
2:  beqz    a1, .Lcrc
    jal     ra, .Lgetc              /* a4 = byte */
    sb      a4, 0(a2)
    addi    a2, a2, 1
    addi    a1, a1, -1
    j       2b

.Lcrc:                              /* CRC-32 (reflected, poly 0xEDB88320) */
    addi    a2, a0, 40              /* its table: entry i = the CRC step of byte i */
    li      a1, 0
    li      t0, 256
3:  mv      a3, a1
    li      t2, 8
4:  andi    a5, a3, 1
    srli    a3, a3, 1
    beqz    a5, 5f
    li      t1, 0xEDB88320
    xor     a3, a3, t1
5:  addi    t2, t2, -1
    bnez    t2, 4b
    sw      a3, 0(a2)
    addi    a2, a2, 4
    addi    a1, a1, 1
    bne     a1, t0, 3b
    lw      a2, 24(a0)              /* then the image, read back from the ITCM */
    add     t0, a2, s1
    li      a3, -1
    addi    t2, a0, 40
6:  beq     a2, t0, .Lcheck
    lbu     a4, 0(a2)
    addi    a2, a2, 1
    xor     a5, a3, a4
    andi    a5, a5, 0xff
    slli    a5, a5, 2
    add     a5, a5, t2
    lw      a5, 0(a5)
    srli    a3, a3, 8
    xor     a3, a3, a5
    j       6b

.Lcheck:
    not     a3, a3
    bne     a3, s0, .Lbad
    fence.i
    lw      a2, 32(a0)
    lw      a3, 36(a0)
    sw      a3, 0(a2)               /* the mark: this start is the load's, not a reset's */
    lw      a2, 24(a0)
    jr      a2

.Lbad:                              /* say so, then wait for the next 'L' frame */
    lla     a2, .Lrefused           /* pc-relative (relaxation is off in this file) */
9:  lbu     a4, 0(a2)
    beqz    a4, 5f
    jal     ra, .Lputc
    addi    a2, a2, 1
    j       9b
5:  jal     ra, .Lgetc
    li      a5, 'L'
    bne     a4, a5, 5b
    jal     t0, .Lget_u32
    mv      a1, a3
    jal     t0, .Lget_u32
    mv      s0, a3
    j       1b

/* a3 = four bytes, little-endian (return address in t0; clobbers t1, t2, a4, ra) */
.Lget_u32:
    li      a3, 0
    li      t2, 0
6:  jal     ra, .Lgetc
    sll     a4, a4, t2
    or      a3, a3, a4
    addi    t2, t2, 8
    li      t1, 32
    bne     t2, t1, 6b
    jr      t0

/* a4 = the next byte from the UART (clobbers a5) */
.Lgetc:
    lw      a5, 16(a0)
7:  lw      a4, 0(a5)               /* rxempty */
    bnez    a4, 7b
    lw      a5, 8(a0)
    lw      a4, 0(a5)               /* rxtx */
    andi    a4, a4, 0xff
    lw      a5, 20(a0)
    li      t1, 2                   /* ev_pending.rx: pops the RX FIFO */
    sw      t1, 0(a5)
    ret

/* sends a4 (clobbers a5, t1) */
.Lputc:
    lw      a5, 12(a0)
8:  lw      t1, 0(a5)               /* txfull */
    bnez    t1, 8b
    lw      a5, 8(a0)
    sw      a4, 0(a5)
    ret
.Lrefused:
    .asciz  "irqlab boot: image refused (CRC or length). Send it again.\r\n"
    .p2align 2
itcm_loader_end:
