/* Boot: a ROM image built with CONFIG_BOOT_WAIT waits for the host before
 * running its own main(). 'g' runs it; 'L' + length + CRC-32 + image loads a
 * firmware into main RAM and runs that instead, so new firmware needs no new
 * bitstream. Images linked for main RAM skip this (they are already loaded). */
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

void boot(void) {
#ifndef IRQLAB_IN_RAM
    if (!(irqlab_config.flags & CONFIG_BOOT_WAIT))
        return;
    console_printf("irqlab boot: 'g' runs the firmware in ROM, 'L' loads one\n");
    for (;;) {
        int c = console_getc();
        if (c == 'g')
            return;
        if (c == 'L')
            load_and_run();
    }
#endif
}
