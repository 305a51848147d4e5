/* The background workload alone, on bare metal, no interrupts: digits_step()
 * `inferences` times (configuration block of app "digits"), then the counts.
 * Every inference is one software event (CH_DIGITS); the host takes the
 * rate from their timestamps (irqlab/suites/digits.py), nothing here reads a
 * clock. The run fails if an inference differs from the host's reference.
 *
 * expect: digits: ok
 */
#include "irqlab.h"
#include "irqlab_protocol.h"
#include "digits.h"

int main(void) {
    digits_state_t s = {0};
    uint32_t n = irqlab_config.inferences;
    tracer_rise_en_write(0);          /* only the inference events: no hardware lines, no traps */
    tracer_fall_en_write(0);
    tracer_core_en_write(0);
    tracer_enable_write(1);
    for (uint32_t i = 0; i < n; i++)
        digits_step(&s);
    console_printf("digits: %u inferences, %u correct, %u differ from the reference\n",
                   s.inferences, s.correct, s.mismatches);
    if (s.inferences != n || s.mismatches) {
        console_printf("digits: FAILED\n");
        irqlab_exit(1);
    }
    console_printf("digits: ok\n");
    irqlab_exit(0);
}
