/* The Modbus-RTU demo: a Modbus-RTU slave on the SoC's Modbus
 * UART beside a background task, on FreeRTOS.
 *
 *   receive ISR   one interrupt per character (the UART's `rx` event, level):
 *                 takes the characters with their hardware stamps into the
 *                 frame assembler (fw/common/modbus/mb_rx.c); at the UART's
 *                 t3.5 `silence` event the frame ends and the slave task is
 *                 woken. Written in C on the interrupt HAL, so each row's
 *                 entry path is what runs.
 *   slave task    handles the frame (mb_slave.c), queues the response in the
 *                 UART's transmit FIFO (a whole response fits) once t3.5 has
 *                 passed since the request and since its own previous
 *                 response (mb_tx.c), marks it (CH_MB_FRAME).
 *   background    digit recognition (fw/common/digits), each inference
 *                 marked (CH_MB_BG): the host times them with the trace unit.
 *
 * The register map is trace/modbus.py (MB_IN_*, MB_HOLD_*, MB_N_* in the
 * generated header). Writing MB_STOP_VALUE to MB_HOLD_STOP ends the run once
 * the response is out.
 */
#include "irqlab.h"
#include "FreeRTOS.h"
#include "task.h"
#include "port_trap.h"
#include "modbus_rtu.h"
#include "digits.h"

#if !IRQLAB_HAS_MODBUS_UART
#error "the Modbus demo needs the SoC's Modbus UART (soc/configs.py: modbus_uart)"
#endif
#if !IRQLAB_HAS_MTIP && !IRQLAB_IRQ_MODEL_CLIC
#error "FreeRTOS's own RISC-V port needs the machine timer on mip.MTIP"
#endif

#define IRQ IRQLAB_IRQ_MODBUS
#define PRIO_SLAVE 3
#define PRIO_BACKGROUND 1
#define STACK configMINIMAL_STACK_SIZE

#define RX_VALID (1u << CSR_MODBUS_RX_DATA_VALID_OFFSET)
#define RX_ERROR (1u << CSR_MODBUS_RX_DATA_ERROR_OFFSET)
#define TX_FULL (1u << CSR_MODBUS_STATUS_TX_FULL_OFFSET)
#define TX_BUSY (1u << CSR_MODBUS_STATUS_TX_BUSY_OFFSET)
#define EV_RX 1u                      /* the UART's event sources, in their order */
#define EV_SILENCE 2u
#define TX_LATENCY 2u                 /* cycles from a write of tx_data to its start bit (soc/modbus_uart.py) */
#define CYCLES_PER_TICK (CONFIG_CLOCK_FREQUENCY / configTICK_RATE_HZ)
#define TX_POLL_TICKS configTICK_RATE_HZ   /* the slave task wakes at least once a second (mb_tx_poll) */

/* The register map's drop counters (trace/modbus.py DROPS: MB_IN_DROP_*,
 * MB_N_DROPS) follow enum mb_drop, one 32-bit value (two registers) each. */
_Static_assert(MB_N_DROPS == MB_DROP_COUNT, "trace/modbus.py DROPS and enum mb_drop differ in length");
#define SAME_DROP(name) _Static_assert(MB_IN_DROP_##name == MB_IN_DROP_CRC + 2 * MB_DROP_##name, \
                                       "trace/modbus.py DROPS: " #name " is not where enum mb_drop has it")
SAME_DROP(CRC);
SAME_DROP(SHORT);
SAME_DROP(LONG);
SAME_DROP(ADDRESS);
SAME_DROP(GAP);
SAME_DROP(OVERRUN);
SAME_DROP(BUSY);
SAME_DROP(BROADCAST);
SAME_DROP(CHAR);
SAME_DROP(REFUSED);

static mb_counters_t counters;
static mb_rx_t rx;
static mb_tx_t tx;                    /* the slave task's alone */
static mb_slave_t slave;
static TaskHandle_t slave_task;
static uint32_t baud, char_cycles;   /* char_cycles: one 11-bit character of the UART */
static volatile uint32_t chars, seen_overruns, bg_count, bg_result;
static volatile int stop_requested;
static uint16_t scratch[MB_N_SCRATCH];
static uint8_t coils[MB_N_COILS];

/* ------------------------------------------------------------ the ISR */
void IRQ_HANDLER(IRQ)(void) {
    BaseType_t woken = pdFALSE;
    uint32_t d;
    while ((d = modbus_rx_data_read()) & RX_VALID) {
        uint32_t stamp = modbus_rx_stamp_read();
        modbus_rx_pop_write(1);
        chars++;
        mb_rx_byte(&rx, (uint8_t)d, stamp);
        if (d & RX_ERROR)
            mb_rx_error(&rx, MB_DROP_CHAR, stamp);
    }
    uint32_t o = modbus_overruns_read();
    if (o != seen_overruns) {                     /* characters were lost */
        seen_overruns = o;
        mb_rx_error(&rx, MB_DROP_OVERRUN, modbus_now_read());
    }
    if (modbus_ev_pending_read() & EV_SILENCE)
        modbus_ev_pending_write(EV_SILENCE);
    if (mb_rx_poll(&rx, modbus_now_read()))
        vTaskNotifyGiveFromISR(slave_task, &woken);
    portYIELD_FROM_ISR(woken);
}

/* ------------------------------------------------------ the register map */
static uint32_t input_value(unsigned index) {
    unsigned a = 2 * index;
    if (a >= MB_IN_DROP_CRC && a < MB_IN_DROP_CRC + 2 * MB_N_DROPS)
        return counters.drops[(a - MB_IN_DROP_CRC) / 2];
    switch (a) {
    case MB_IN_FRAMES: return counters.frames;
    case MB_IN_REQUESTS: return counters.requests;
    case MB_IN_RESPONSES: return counters.responses;
    case MB_IN_EXCEPTIONS: return counters.exceptions;
    case MB_IN_BROADCASTS: return counters.broadcasts;
    case MB_IN_NOISE: return counters.noise;
    case MB_IN_CHARS: return chars;
    case MB_IN_BG_COUNT: return bg_count;
    case MB_IN_BG_RESULT: return bg_result;
    case MB_IN_BAUD: return baud;
    case MB_IN_CYCLES: return modbus_now_read();
    default: return 0;
    }
}

static uint16_t input_get(void *ctx, uint16_t a) {
    uint32_t v = input_value(a / 2);
    return (uint16_t)((a & 1) ? v : v >> 16);    /* high word first */
}

static uint16_t holding_get(void *ctx, uint16_t a) {
    return a < MB_N_SCRATCH ? scratch[a] : 0;
}

static int holding_set(void *ctx, uint16_t a, uint16_t v, int commit) {
    if (a == MB_HOLD_STOP) {
        if (v != MB_STOP_VALUE)
            return MB_EX_ILLEGAL_VALUE;
        if (commit)
            stop_requested = 1;
        return 0;
    }
    if (commit)
        scratch[a] = v;
    return 0;
}

static int coil_get(void *ctx, uint16_t a) { return coils[a]; }

static int coil_set(void *ctx, uint16_t a, int on, int commit) {
    if (commit)
        coils[a] = (uint8_t)on;
    return 0;
}

static int discrete_get(void *ctx, uint16_t a) { return (bg_count >> a) & 1; }

static const mb_map_t map = {
    .n_coils = MB_N_COILS, .n_discrete = MB_N_DISCRETE, .n_holding = MB_N_HOLDING, .n_input = MB_N_INPUT,
    .coil_get = coil_get, .coil_set = coil_set, .discrete_get = discrete_get,
    .holding_get = holding_get, .holding_set = holding_set, .input_get = input_get,
};

/* ------------------------------------------------------------ the tasks */
/* Until an answer to the request that ended at `request_end` may start
 * (mb_tx_wait): whole kernel ticks asleep, the rest (under one tick) spun. */
static void wait_to_answer(uint32_t request_end) {
    uint32_t w;
    while ((w = mb_tx_wait(&tx, request_end, modbus_now_read())) != 0)
        if (w > CYCLES_PER_TICK)
            vTaskDelay(w / CYCLES_PER_TICK);   /* at most that many tick periods */
}

static void slave_main(void *arg) {
    static uint8_t resp[MB_ADU_MAX];
    irq_configure(IRQ, IRQ_TRIG_LEVEL, configKERNEL_INTERRUPT_LEVEL);
    modbus_ev_pending_write(EV_SILENCE);
    modbus_ev_enable_write(EV_RX | EV_SILENCE);
    irq_enable(IRQ);
    stim(CH_MB_READY, baud);
    for (;;) {
        ulTaskNotifyTake(pdTRUE, TX_POLL_TICKS);
        mb_tx_poll(&tx, modbus_now_read());
        while (rx.ready) {
            uint8_t fc = rx.frame_len > 1 ? rx.frame[1] : 0;
            uint32_t request_end = rx.frame_end;
            unsigned n = mb_slave_handle(&slave, rx.frame, rx.frame_len, resp);
            mb_rx_release(&rx);
            if (n) {
                wait_to_answer(request_end);
                for (unsigned i = 0; i < n; i++) {
                    while (modbus_status_read() & TX_FULL)
                        ;
                    modbus_tx_data_write(resp[i]);
                }
                /* every character was written before this read, so each
                 * starts by then + TX_LATENCY or right after the one before
                 * it: the response ends at most n characters after that */
                mb_tx_sent(&tx, n * char_cycles, modbus_now_read() + TX_LATENCY);
            }
            uint32_t exc = (n == 5 && (resp[1] & 0x80)) ? resp[2] : 0;
            stim(CH_MB_FRAME, fc | (uint32_t)n << 8 | exc << 16);
            if (stop_requested) {
                while (modbus_status_read() & TX_BUSY)   /* the response is out */
                    ;
                console_printf("modbus: stopped: %u requests, %u responses, %u exceptions\n",
                               counters.requests, counters.responses, counters.exceptions);
                irqlab_exit(0);
            }
        }
    }
}

/* The background workload: digit recognition (fw/common/digits), one
 * inference a unit; its rate is taken from the trace's marks. */
static digits_state_t digits;
static void background_main(void *arg) {
    for (uint32_t n = 1;; n++) {
        digits_step(&digits);
        bg_result = digits.correct;
        bg_count = n;
        stim(CH_MB_BG, n);
    }
}

int main(void) {
    const volatile struct irqlab_config *c = &irqlab_config;
    irq_init();
    port_trap_install();               /* fw/freertos/port_trap.h */
    baud = c->baud ? c->baud : 115200;
    mb_timing_t t = mb_timing(baud, CONFIG_CLOCK_FREQUENCY);
    uint32_t divisor = (CONFIG_CLOCK_FREQUENCY + baud / 2) / baud;
    modbus_divisor_write(divisor);
    char_cycles = 11 * divisor;
    modbus_silence_write(t.t35);
    slave.address = (c->address >= 1 && c->address <= 247) ? (uint8_t)c->address : 1;
    slave.map = &map;
    slave.counters = &counters;
    mb_rx_init(&rx, t, &counters, modbus_now_read());
    mb_tx_init(&tx, t);
    seen_overruns = modbus_overruns_read();
    console_printf("modbus: slave %u at %u baud (t3.5 %u cycles)\n", slave.address, baud, t.t35);
    tracer_rise_en_write(0);                      /* the trace: the demo's events only */
    tracer_fall_en_write(0);
    tracer_enable_write(1);
    if (xTaskCreate(slave_main, "modbus", 2 * STACK, NULL, PRIO_SLAVE, &slave_task) != pdPASS ||
        (c->background && xTaskCreate(background_main, "bg", STACK, NULL, PRIO_BACKGROUND, NULL) != pdPASS)) {
        console_printf("modbus: FAILED: task creation\n");
        irqlab_exit(1);
    }
    vTaskStartScheduler();
    console_printf("modbus: FAILED: the scheduler returned\n");
    irqlab_exit(1);
}
