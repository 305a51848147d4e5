/* The background workload : digit recognition on 8x8
 * images with a small integer network, 64 -> 32 (ReLU) -> 10, int8 weights
 * and int32 accumulators. irqlab/builders/digits_net.py trains and quantizes it at build
 * time and writes the model and a fixed set of held-out images into the
 * build's gen/digits_model.h; digits_classify() is bit-exact with that
 * module's integer reference (tests/test_digits.py).
 *
 * An application takes it with `APP_USES += digits` in its app.mk. No
 * floats, no allocation, no globals: a background task keeps a
 * digits_state_t and calls digits_step() in its loop; anyone (an interrupt
 * handler, a register map) may read the counters, each an aligned word. */
#ifndef DIGITS_H
#define DIGITS_H

#include <stdint.h>

#define DIGITS_PIXELS 64       /* 8x8, values 0..16 */

typedef struct {
    volatile uint32_t inferences;   /* images classified */
    volatile uint32_t correct;      /* ... whose class was the image's label */
    volatile uint32_t mismatches;   /* ... whose class differed from the host's reference (stays 0) */
    uint32_t next;                  /* the next test image */
} digits_state_t;

/* The class (0..9) of one image. */
int digits_classify(const uint8_t img[DIGITS_PIXELS]);

/* One unit of work: classifies the next of the built-in test images (round
 * robin) and counts it in `s` (zeroed first: digits_state_t s = {0}).
 * Returns the class. About 2.4 k multiply-accumulates. */
int digits_step(digits_state_t *s);

/* How many test images there are, and how many of them the reference
 * classifies right: the accuracy a full round should show. */
uint32_t digits_image_count(void);
uint32_t digits_reference_correct(void);

#endif
