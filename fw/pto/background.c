/* The background workload, unrelated to the train: a checksum over an LCG's
 * output, one step per call. Kept behind this one function so a real
 * workload (the digits network) can take its place. */
#include "pto.h"

uint32_t background_step(uint32_t state) {
    uint32_t sum = state;
    for (int i = 0; i < 16; i++) {
        state = state * 1664525u + 1013904223u;
        sum = (sum << 5 | sum >> 27) ^ state;
    }
    return sum;
}
