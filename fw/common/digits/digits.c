/* The digits network's integer inference (digits.h; the arithmetic is
 * irqlab/builders/digits_net.py's docstring, this is its C twin). */
#include "digits.h"
#include "digits_model.h"

/* In firmware (digits.mk), one software event per inference: the host counts
 * them and takes the rate from their timestamps (trace/protocol.py: CH_DIGITS). */
#ifdef DIGITS_TRACE
#include "irqlab.h"
#include "irqlab_protocol.h"
#define TRACE(n, c, label, differs) \
    stim(CH_DIGITS, (uint32_t)(n) | (uint32_t)(c) << DIGITS_EV_CLASS_SHIFT | \
                    (uint32_t)(label) << DIGITS_EV_LABEL_SHIFT | ((differs) ? DIGITS_EV_DIFFERS : 0u))
#else
#define TRACE(n, c, label, differs) ((void)0)
#endif

#if DIGITS_INPUTS != DIGITS_PIXELS
#error "digits_model.h was generated for another image size"
#endif

int digits_classify(const uint8_t img[DIGITS_PIXELS]) {
    uint8_t hidden[DIGITS_HIDDEN];
    for (int j = 0; j < DIGITS_HIDDEN; j++) {
        int32_t acc = digits_b1[j];
        for (int i = 0; i < DIGITS_INPUTS; i++)
            acc += (int32_t)digits_w1[j][i] * (int32_t)img[i];
        /* ReLU, then back to 0..HIDDEN_MAX with a rounding shift. */
        acc = acc > 0 ? (acc + (1 << (DIGITS_HIDDEN_SHIFT - 1))) >> DIGITS_HIDDEN_SHIFT : 0;
        hidden[j] = (uint8_t)(acc > DIGITS_HIDDEN_MAX ? DIGITS_HIDDEN_MAX : acc);
    }
    int best = 0;
    int32_t best_acc = 0;
    for (int k = 0; k < DIGITS_CLASSES; k++) {
        int32_t acc = digits_b2[k];
        for (int j = 0; j < DIGITS_HIDDEN; j++)
            acc += (int32_t)digits_w2[k][j] * (int32_t)hidden[j];
        if (k == 0 || acc > best_acc) {       /* the first of equal maxima, as numpy's argmax */
            best = k;
            best_acc = acc;
        }
    }
    return best;
}

int digits_step(digits_state_t *s) {
    uint32_t n = s->next < DIGITS_TEST_IMAGES ? s->next : 0;
    int c = digits_classify(digits_test_images[n]);
    s->next = n + 1 < DIGITS_TEST_IMAGES ? n + 1 : 0;
    if (c == digits_test_labels[n])
        s->correct = s->correct + 1;
    int differs = c != digits_test_expected[n];
    if (differs)
        s->mismatches = s->mismatches + 1;
    s->inferences = s->inferences + 1;        /* last: a reader sees correct <= inferences */
    TRACE(n, c, digits_test_labels[n], differs);
    return c;
}

uint32_t digits_image_count(void) { return DIGITS_TEST_IMAGES; }
uint32_t digits_reference_correct(void) { return DIGITS_TEST_CORRECT; }
