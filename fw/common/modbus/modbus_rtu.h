/* Modbus-RTU slave: the frame assembler and the request handler, with no
 * hardware behind them (the firmware feeds bytes and time from its UART's
 * interrupt and a timer; the host build feeds them from a script or a fuzzer).
 *
 * Written from the Modbus specifications' facts (Modbus over Serial Line
 * V1.02: RTU framing, t1.5/t3.5, CRC-16; Modbus Application Protocol V1.1b3:
 * function codes, quantities, exception codes).
 *
 *   mb_rx_*     bytes + time (timer ticks) -> frames; a frame ends after a
 *               silence of t3.5; a gap over t1.5 inside a frame spoils it.
 *   mb_slave_*  a frame -> checks (length, CRC, address) -> the function ->
 *               the response ADU (or none), every drop counted.
 *   mb_tx_*     when an answer may start: t3.5 after the end of its request
 *               and after the end of the slave's own previous transmission.
 *
 * Time is a free-running 32-bit tick counter (wraps; only differences are
 * used, so polls must come at least every 2^31 ticks).
 */
#ifndef MODBUS_RTU_H
#define MODBUS_RTU_H

#include <stdint.h>

#define MB_ADU_MAX 256          /* address + PDU (253) + CRC */
#define MB_ADU_MIN 4            /* address + function + CRC */
#define MB_BROADCAST 0

/* Function codes this slave implements. */
#define MB_FC_READ_COILS 0x01
#define MB_FC_READ_DISCRETE 0x02
#define MB_FC_READ_HOLDING 0x03
#define MB_FC_READ_INPUT 0x04
#define MB_FC_WRITE_COIL 0x05
#define MB_FC_WRITE_REGISTER 0x06
#define MB_FC_WRITE_COILS 0x0F
#define MB_FC_WRITE_REGISTERS 0x10
#define MB_FC_READ_WRITE_REGISTERS 0x17

/* Exception codes. */
#define MB_EX_ILLEGAL_FUNCTION 0x01
#define MB_EX_ILLEGAL_ADDRESS 0x02
#define MB_EX_ILLEGAL_VALUE 0x03
#define MB_EX_DEVICE_FAILURE 0x04

/* Why a frame was dropped without an answer: one counter each. */
enum mb_drop {
    MB_DROP_CRC,        /* CRC mismatch */
    MB_DROP_SHORT,      /* fewer than MB_ADU_MIN bytes */
    MB_DROP_LONG,       /* more than MB_ADU_MAX bytes */
    MB_DROP_ADDRESS,    /* for another slave (silent by the spec, counted here) */
    MB_DROP_GAP,        /* a silence over t1.5 inside the frame */
    MB_DROP_OVERRUN,    /* the UART lost bytes (the slave could not keep up) */
    MB_DROP_BUSY,       /* a frame completed while the previous one was still being handled */
    MB_DROP_BROADCAST,  /* a broadcast of a function that may not be broadcast (reads, unknown codes) */
    MB_DROP_CHAR,       /* a character with a parity or stop-bit error */
    MB_DROP_REFUSED,    /* a broadcast write that fails its checks (what a request addressed to
                         * this slave would get an exception for): not executed, nothing written */
    MB_DROP_COUNT
};
/* Their names, in the enum's order ("crc", "short", ...). The demo's
 * register map (trace/modbus.py DROPS, the input registers MB_IN_DROP_*)
 * lists them in the same order: tests/test_modbus_host.py compares the
 * names, fw/modbus/main.c checks every MB_IN_DROP_* against the enum when
 * it compiles. */
extern const char *const mb_drop_names[MB_DROP_COUNT];

/* Every frame the assembler completes lands in exactly one counter:
 *   frames == requests + broadcasts + the sum of drops[]
 * (and requests == responses + exceptions once each is answered). */
typedef struct {
    uint32_t frames;            /* frames completed by the assembler (good or not) */
    uint32_t requests;          /* requests for this slave that passed length, CRC and address */
    uint32_t responses;         /* normal responses sent */
    uint32_t exceptions;        /* exception responses sent */
    uint32_t broadcasts;        /* broadcast writes executed */
    uint32_t noise;             /* bytes before the first t3.5 silence (discarded) */
    uint32_t drops[MB_DROP_COUNT];
} mb_counters_t;

/* ---- CRC-16 (poly 0xA001 reflected, init 0xFFFF; sent low byte first) ---- */
uint16_t mb_crc16(const uint8_t *buf, unsigned len);

/* ---- timing ---- */
typedef struct {
    uint32_t t15;               /* inter-character limit, ticks */
    uint32_t t35;               /* inter-frame silence, ticks */
    uint32_t tchar;             /* one 11-bit character, ticks */
} mb_timing_t;

/* t1.5 and t3.5 of 11-bit characters at `baud`, fixed at 750 us and 1750 us
 * above 19200 baud, in ticks of `tick_hz` rounded up. */
mb_timing_t mb_timing(uint32_t baud, uint32_t tick_hz);

/* ---- frame assembler ---- */
enum { MB_RX_INIT, MB_RX_IDLE, MB_RX_RECEIVING };

typedef struct {
    mb_timing_t timing;
    mb_counters_t *counters;
    uint8_t state;
    uint8_t spoiled;            /* 0, or the mb_drop that spoils the frame being received */
    uint16_t len;               /* bytes of the frame being received (kept: up to MB_ADU_MAX) */
    uint32_t last;              /* tick of the last byte (or of init) */
    uint8_t buf[MB_ADU_MAX];
    /* The completed frame, for the handler; `ready` is set by the assembler
     * and cleared by mb_rx_release(). */
    volatile uint8_t ready;
    uint16_t frame_len;
    uint32_t frame_end;         /* tick of its last character: the end of the request */
    uint8_t frame[MB_ADU_MAX];
} mb_rx_t;

void mb_rx_init(mb_rx_t *rx, mb_timing_t timing, mb_counters_t *counters, uint32_t now);
/* A byte received at tick `now` (the end of its stop bit). */
void mb_rx_byte(mb_rx_t *rx, uint8_t byte, uint32_t now);
/* The UART reports lost characters (MB_DROP_OVERRUN) or a bad one
 * (MB_DROP_CHAR): the frame being received (or starting now) is spoiled. */
void mb_rx_error(mb_rx_t *rx, enum mb_drop why, uint32_t now);
/* Time passes: ends the frame after t3.5 of silence. Returns 1 when a frame
 * is ready (rx->frame, rx->frame_len). */
int mb_rx_poll(mb_rx_t *rx, uint32_t now);
/* Ticks from `now` until the frame being received ends if no byte comes
 * (0: nothing pending), for a one-shot timer. */
uint32_t mb_rx_ticks_to_end(const mb_rx_t *rx, uint32_t now);
void mb_rx_release(mb_rx_t *rx);

/* ---- register map ---- */
/* Each table is addresses 0..n-1. Writes are checked for every address of a
 * request before any is made (commit 0), then made (commit 1): a refused value
 * (return MB_EX_ILLEGAL_VALUE) leaves nothing half-written. */
typedef struct {
    uint16_t n_coils, n_discrete, n_holding, n_input;
    void *ctx;
    int (*coil_get)(void *ctx, uint16_t addr);
    int (*coil_set)(void *ctx, uint16_t addr, int on, int commit);
    int (*discrete_get)(void *ctx, uint16_t addr);
    uint16_t (*holding_get)(void *ctx, uint16_t addr);
    int (*holding_set)(void *ctx, uint16_t addr, uint16_t value, int commit);
    uint16_t (*input_get)(void *ctx, uint16_t addr);
} mb_map_t;

/* ---- the slave ---- */
typedef struct {
    uint8_t address;            /* 1..247 */
    const mb_map_t *map;
    mb_counters_t *counters;
} mb_slave_t;

/* Handles one received ADU (address, PDU, CRC). Writes the response ADU into
 * `resp` (MB_ADU_MAX bytes) and returns its length; 0: no response (dropped,
 * counted, or a broadcast). */
unsigned mb_slave_handle(mb_slave_t *s, const uint8_t *adu, unsigned len, uint8_t *resp);

/* ---- the slave's own transmissions ----
 * t3.5 separates every two frames on the line, the slave's own too: an answer
 * starts only when t3.5 has passed since the end of its request and since
 * the end of the slave's previous transmission (a request that arrives while
 * the slave still sends must not get an answer glued to the previous one).
 * The transmitter's state belongs to whoever sends (the receive side does
 * not touch it). */
typedef struct {
    uint32_t t35;               /* ticks, from mb_timing() */
    uint32_t end;               /* tick the last transmission ends (the end of its final stop bit) */
    uint8_t busy;               /* 1: end + t3.5 may still lie ahead; 0: nothing pending */
} mb_tx_t;

void mb_tx_init(mb_tx_t *tx, mb_timing_t timing);
/* Ticks from `now` until an answer to the request that ended at
 * `request_end` (mb_rx_t.frame_end) may start; 0: now. */
uint32_t mb_tx_wait(mb_tx_t *tx, uint32_t request_end, uint32_t now);
/* A transmission of `ticks` (its characters times the UART's character time)
 * was queued, its last character at `now` or before: it starts at once, or
 * back to back after the previous one if that still goes. */
void mb_tx_sent(mb_tx_t *tx, uint32_t ticks, uint32_t now);
/* Time passes: forgets a transmission whose t3.5 is over. Like the receive
 * side's polls, it must come at least every 2^31 ticks (mb_tx_wait does it
 * too), or an old end would look like one ahead. */
void mb_tx_poll(mb_tx_t *tx, uint32_t now);

#endif
