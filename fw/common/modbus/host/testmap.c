/* The host build's register map: see testmap.h. */
#include "testmap.h"

static uint8_t coils[100];
static uint16_t holding[200];

void testmap_reset(void)
{
    for (unsigned i = 0; i < 100; i++)
        coils[i] = 0;
    for (unsigned i = 0; i < 200; i++)
        holding[i] = (uint16_t)(i * 3 + 1);
}

static int coil_get(void *ctx, uint16_t a) { return coils[a]; }

static int coil_set(void *ctx, uint16_t a, int on, int commit)
{
    if (commit)
        coils[a] = (uint8_t)on;
    return 0;
}

static int discrete_get(void *ctx, uint16_t a) { return a % 3 == 0; }

static uint16_t holding_get(void *ctx, uint16_t a) { return holding[a]; }

static int holding_set(void *ctx, uint16_t a, uint16_t v, int commit)
{
    if (a >= 100 && v > 0xF000)
        return MB_EX_ILLEGAL_VALUE;
    if (commit)
        holding[a] = v;
    return 0;
}

static uint16_t input_get(void *ctx, uint16_t a) { return (uint16_t)(a ^ 0x5A5A); }

const mb_map_t testmap = {
    .n_coils = 100, .n_discrete = 50, .n_holding = 200, .n_input = 100,
    .coil_get = coil_get, .coil_set = coil_set, .discrete_get = discrete_get,
    .holding_get = holding_get, .holding_set = holding_set, .input_get = input_get,
};

uint16_t testmap_holding(uint16_t addr) { return holding[addr]; }
int testmap_coil(uint16_t addr) { return coils[addr]; }
