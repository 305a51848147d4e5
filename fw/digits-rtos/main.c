/* The background workload as a FreeRTOS task: one task just above idle runs
 * digits_step() `inferences` times (configuration block of app
 * "digits-rtos"), the kernel's tick (fw/freertos/FreeRTOSConfig.h, 10 kHz)
 * preempting it as it would any background job; then the counts. The
 * pattern of the co-location demos' background task, without their
 * interrupts: the rate here is theirs at no load. Every inference is one
 * software event (CH_DIGITS), every tick one (CH_TICK, the kernel's trace
 * hooks); the host takes the rate from their stamps (irqlab/suites/digits.py),
 * nothing here reads a clock. The run fails if an inference differs from
 * the host's reference.
 *
 * expect: digits-rtos: ok
 */
#include "irqlab.h"
#include "irqlab_protocol.h"
#include "FreeRTOS.h"
#include "task.h"
#include "port_trap.h"
#include "digits.h"

#if !IRQLAB_HAS_MTIP && !IRQLAB_IRQ_MODEL_CLIC
#error "FreeRTOS's own RISC-V port needs the machine timer on mip.MTIP"
#endif

#define PRIO_BACKGROUND (tskIDLE_PRIORITY + 1)

static digits_state_t state;           /* a demo's register map would read it */

static void background(void *arg) {
    uint32_t n = irqlab_config.inferences;
    while (state.inferences < n)
        digits_step(&state);
    taskDISABLE_INTERRUPTS();          /* no tick event after the end: the trace drains */
    console_printf("digits-rtos: %u inferences, %u correct, %u differ from the reference\n",
                   state.inferences, state.correct, state.mismatches);
    console_printf(state.mismatches ? "digits-rtos: FAILED\n" : "digits-rtos: ok\n");
    irqlab_exit(state.mismatches ? 1 : 0);
}

int main(void) {
    irq_init();
    port_trap_install();               /* fw/freertos/port_trap.h */
    tracer_rise_en_write(0);           /* the inferences and the kernel's hooks only */
    tracer_fall_en_write(0);
    tracer_core_en_write(0);
    tracer_enable_write(1);
    if (xTaskCreate(background, "digits", 2 * configMINIMAL_STACK_SIZE, NULL, PRIO_BACKGROUND, NULL) != pdPASS) {
        console_printf("digits-rtos: FAILED: no task\n");
        irqlab_exit(1);
    }
    vTaskStartScheduler();
    console_printf("digits-rtos: FAILED: the scheduler returned\n");
    irqlab_exit(1);
}
