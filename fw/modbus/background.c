/* The placeholder background unit: a 32-bit mixing loop over a small table,
 * about 20,000 cycles, with a result that depends on every step (so the
 * compiler keeps all of it). */
#include "background.h"

#define WORDS 64
#define ROUNDS 24

static uint32_t table[WORDS];

uint32_t background_unit(uint32_t n)
{
    uint32_t h = 0x811C9DC5u ^ n;
    for (unsigned r = 0; r < ROUNDS; r++)
        for (unsigned i = 0; i < WORDS; i++) {
            h = (h ^ table[i]) * 0x01000193u;
            table[i] = h ^ (h >> 15);
        }
    return h;
}
