#include "clictest.h"

/* Precise interrupts under load: generator lines 0 (source 8, level 40, 40
 * pulses) and 1 (source 9, level 80, 25 pulses), periodic with random gaps,
 * interrupt a loop of multiplies, divisions, loads, stores and branches (in
 * the nv build 9 also preempts 8's handler). Every pulse is served once, and
 * the loop computes what it computes with interrupts off. */
/* expect: Tstress: runs8=40 runs9=25 work=ok */
static uint32_t __attribute__((noinline)) work(uint32_t x, unsigned n) {
    uint32_t a = x, b = x ^ 0x5a5a5a5au, c = x * 3u, d = 7, e = 11, f = 13, g = 17, h = 19;
    uint32_t buf[8];
    for (unsigned i = 0; i < 8; i++)
        buf[i] = x + i;
    for (unsigned i = 0; i < n; i++) {
        a = a * 1103515245u + 12345u;
        b ^= a >> 7;
        c += b / ((a & 0xffu) | 1u);
        d = (d << 3) | (c >> 29);
        buf[i & 7] += d ^ a;
        e += buf[(i + 3) & 7];
        if (e & 1) f += c; else g ^= b;
        h = h * 7u + (f - g) % 13u;
    }
    return a ^ b ^ c ^ d ^ e ^ f ^ g ^ h;
}

CLICTEST(stress) {
    const unsigned s0 = GEN_SRC(0), s1 = GEN_SRC(1);
    src_on(s0, IRQ_TRIG_EDGE, 0x40);
    src_on(s1, IRQ_TRIG_EDGE, 0x80);
    act_quiet[s0] = act_quiet[s1] = 1;
    struct gen_pattern p0 = {.mode = GEN_PERIODIC, .delay = 100, .high = 4, .low = 1500, .count = 40,
                             .jitter = 0x1ff, .seed = 1};
    struct gen_pattern p1 = {.mode = GEN_PERIODIC, .delay = 377, .high = 4, .low = 2300, .count = 25,
                             .jitter = 0x3ff, .seed = 7};
    gen_config(0, &p0);
    gen_config(1, &p1);
    uint32_t x = 0x1234567u;
    unsigned chunks = 0;
    irq_global_enable();
    gen_start(3);
    while (gen_running() & 3) {
        x = work(x, 16);
        chunks++;
    }
    settle();
    irq_global_disable();
    uint32_t y = 0x1234567u;
    for (unsigned i = 0; i < chunks; i++)
        y = work(y, 16);
    console_printf("Tstress: runs%u=%u runs%u=%u work=%s\n", s0, hits[s0], s1, hits[s1],
                   x == y ? "ok" : "CORRUPTED");
}
