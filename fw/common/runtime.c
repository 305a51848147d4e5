/* Console, exit, generator set-up and the run-time configuration block. */
#include <stdarg.h>
#include "irqlab.h"

__attribute__((section(".config"), used))
const volatile struct irqlab_config irqlab_config = IRQLAB_CONFIG_DEFAULTS;

void console_putc(char c) {
    while (uart_txfull_read())
        ;
    uart_rxtx_write((unsigned char)c);
}

int console_getc(void) {
    while (uart_rxempty_read())
        ;
    int c = uart_rxtx_read();
    uart_ev_pending_write(2);   /* pops the RX FIFO */
    return c;
}

void console_puts(const char *s) {
    while (*s) {
        if (*s == '\n') console_putc('\r');
        console_putc(*s++);
    }
}

static void put_uint(uint64_t v, unsigned base, int width) {
    char buf[24];
    int n = 0;
    do {
        unsigned d = v % base;
        buf[n++] = d < 10 ? '0' + d : 'a' + d - 10;
        v /= base;
    } while (v);
    while (n < width) buf[n++] = '0';
    while (n) console_putc(buf[--n]);
}

/* %d %u %x %08x %s %c %llu: all the firmware needs. */
void console_printf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    for (; *fmt; fmt++) {
        if (*fmt != '%') {
            if (*fmt == '\n') console_putc('\r');
            console_putc(*fmt);
            continue;
        }
        int width = 0, lng = 0;
        fmt++;
        if (*fmt == '0') fmt++;
        while (*fmt >= '0' && *fmt <= '9') width = width * 10 + (*fmt++ - '0');
        while (*fmt == 'l') { lng++; fmt++; }
        switch (*fmt) {
        case 'd': {
            int64_t v = lng >= 2 ? va_arg(ap, int64_t) : va_arg(ap, int);
            if (v < 0) { console_putc('-'); v = -v; }
            put_uint((uint64_t)v, 10, width);
            break;
        }
        case 'u': put_uint(lng >= 2 ? va_arg(ap, uint64_t) : va_arg(ap, unsigned), 10, width); break;
        case 'x': put_uint(lng >= 2 ? va_arg(ap, uint64_t) : va_arg(ap, unsigned), 16, width); break;
        case 's': console_puts(va_arg(ap, const char *)); break;
        case 'c': console_putc((char)va_arg(ap, int)); break;
        default: console_putc(*fmt); break;
        }
    }
    va_end(ap);
}

void irqlab_exit(int code) {
    console_printf("irqlab: exit %d\n", code);
    for (;;) {
#ifdef CSR_SIMCTRL_BASE
        simctrl_exit_write(0x100 | (code & 0xff));
#endif
    }
}

#define GEN_REG(line, name) (CSR_IRQGEN_L0_##name##_ADDR + (line) * (CSR_IRQGEN_L1_MODE_ADDR - CSR_IRQGEN_L0_MODE_ADDR))

void gen_config(unsigned line, const struct gen_pattern *p) {
    csr_write_simple(p->mode, GEN_REG(line, MODE));
    csr_write_simple(p->delay, GEN_REG(line, DELAY));
    csr_write_simple(p->high, GEN_REG(line, HIGH));
    csr_write_simple(p->low, GEN_REG(line, LOW));
    csr_write_simple(p->count, GEN_REG(line, COUNT));
    csr_write_simple(p->burst, GEN_REG(line, BURST));
    csr_write_simple(p->jitter, GEN_REG(line, JITTER));
    csr_write_simple(p->seed, GEN_REG(line, SEED));
}

/* IRQLAB_HAS_CACHES: VexRiscv's cache plugins (the stock core, the own
 * core's clic-cache). The data cache is write-through, so invalidating it
 * loses nothing: VexRiscv's data-cache management instruction is MISC-MEM
 * with funct3 5, rs1 = rd = 0 (0x0000500F); fence.i empties the
 * instruction cache. The fence.i must never sit in decode unless it runs
 * (the instruction cache flushes from there): the nops keep it out of reach
 * of a fetch running on behind the previous function's return. */
__attribute__((noinline, section(".text_tail"))) void cache_invalidate_all(void) {
#if IRQLAB_HAS_CACHES
    __asm__ volatile("nop\n\tnop\n\tnop\n\t.insn i 0x0F, 5, x0, x0, 0\n\tfence.i" ::: "memory");
#endif
}
