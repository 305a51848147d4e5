/* Boot: a ROM image built with CONFIG_BOOT_WAIT waits for the host before
 * running its own main(). 'g' runs it; 'L' + length + CRC-32 + image loads a
 * firmware and runs that instead, so new firmware needs no new bitstream:
 * into main RAM, or on a SoC with TCMs into the ITCM (the image linked for
 * the TCMs, as the bitstream's own), through fw/common/itcm_loader.S. Images
 * linked for main RAM skip this (they are already loaded).
 *
 * The ITCM keeps a loaded image across a reset, and the reset vector is its
 * base: after a reset the loaded image starts, not the bitstream's. So the
 * host loads ITCM images with CONFIG_BOOT_WAIT too, and the loader marks its
 * own jump in the SoC's scratch register (LiteX ctrl), which a reset sets
 * back: marked, the image runs; unmarked (a reset), it waits for the host as
 * the bitstream's own image does. */
#include "irqlab.h"

static uint32_t crc32_update(uint32_t crc, uint8_t b) {
    crc ^= b;
    for (int i = 0; i < 8; i++)
        crc = (crc >> 1) ^ (0xEDB88320u & -(crc & 1));
    return crc;
}

static uint32_t get_u32(void) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)console_getc() << (8 * i);
    return v;
}

static void load_and_run(void) {
    uint32_t len = get_u32(), want = get_u32(), crc = 0xFFFFFFFFu;
    if (len > MAIN_RAM_SIZE) {
        console_printf("irqlab boot: image of %u bytes does not fit main RAM\n", len);
        return;
    }
    volatile uint8_t *dst = (volatile uint8_t *)MAIN_RAM_BASE;
    for (uint32_t i = 0; i < len; i++) {
        uint8_t b = (uint8_t)console_getc();
        dst[i] = b;
        crc = crc32_update(crc, b);
    }
    if ((crc ^ 0xFFFFFFFFu) != want) {
        console_printf("irqlab boot: CRC mismatch, image ignored\n");
        return;
    }
    console_printf("irqlab boot: loaded %u bytes\n", len);
    __asm__ volatile("fence.i" ::: "memory");
    ((void (*)(void))MAIN_RAM_BASE)();
}

#if IRQLAB_HAS_TCM
/* The block fw/common/itcm_loader.S reads (its header has the layout). */
struct itcm_load {
    uint32_t len, crc;
    uintptr_t rxtx, txfull, rxempty, ev_pending;
    uintptr_t base, size;
    uintptr_t mark_at;              /* the loader stores `mark` there before it jumps */
    uint32_t mark;
    uint32_t crc_table[256];        /* the loader builds its CRC-32 table here */
};
#define BOOT_LOADED_MARK 0x4C4F4144u   /* "LOAD"; the scratch register's reset value is LiteX's 0x12345678 */
extern const char itcm_loader_start[], itcm_loader_end[];

/* The loader overwrites the ITCM this code runs from: it runs from a copy
 * at the start of main RAM, and never returns. */
static void load_into_itcm(void) {
    static struct itcm_load p;      /* in the DTCM, which the load leaves alone */
    p.len = get_u32();
    p.crc = get_u32();
    if (p.len > ITCM_SIZE) {
        console_printf("irqlab boot: image of %u bytes does not fit the ITCM\n", p.len);
        return;
    }
    console_printf("irqlab boot: loading %u bytes into the ITCM\n", p.len);
    p.rxtx = CSR_UART_RXTX_ADDR;
    p.txfull = CSR_UART_TXFULL_ADDR;
    p.rxempty = CSR_UART_RXEMPTY_ADDR;
    p.ev_pending = CSR_UART_EV_PENDING_ADDR;
    p.base = ITCM_BASE;
    p.size = ITCM_SIZE;
    p.mark_at = CSR_CTRL_SCRATCH_ADDR;
    p.mark = BOOT_LOADED_MARK;
    volatile uint32_t *dst = (volatile uint32_t *)MAIN_RAM_BASE;
    const uint32_t *src = (const uint32_t *)itcm_loader_start;
    for (uint32_t i = 0; i < (uint32_t)(itcm_loader_end - itcm_loader_start) / 4; i++)
        dst[i] = src[i];
    __asm__ volatile("fence.i" ::: "memory");
    ((void (*)(struct itcm_load *))MAIN_RAM_BASE)(&p);
}
#endif

void boot(void) {
#ifndef IRQLAB_IN_RAM
    if (!(irqlab_config.flags & CONFIG_BOOT_WAIT))
        return;
#if IRQLAB_HAS_TCM
    if (ctrl_scratch_read() == BOOT_LOADED_MARK) {   /* started by the loader: run */
        ctrl_scratch_write(0);
        return;
    }
#endif
    console_printf("irqlab boot: 'g' runs the firmware in ROM, 'L' loads one\n");
    for (;;) {
        int c = console_getc();
        if (c == 'g')
            return;
        if (c == 'L') {
#if IRQLAB_HAS_TCM
            load_into_itcm();
#else
            load_and_run();
#endif
        }
    }
#endif
}
