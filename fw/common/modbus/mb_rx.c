/* Modbus-RTU frame assembler: bytes stamped with timer ticks -> frames.
 *
 * The serial-line spec's receiver: after power-up it waits for a silence of
 * t3.5 before it listens (bytes before that are line noise); a frame starts
 * with the first byte after a silence and ends with a silence of t3.5; a
 * silence over t1.5 between two of its characters makes the frame bad (it is
 * still collected to its end, then dropped). Byte stamps are taken at the end
 * of each character, so two back-to-back characters are one character time
 * apart and the silence between them is (stamp difference - tchar).
 */
#include "modbus_rtu.h"

mb_timing_t mb_timing(uint32_t baud, uint32_t tick_hz)
{
    mb_timing_t t;
    uint64_t hz = tick_hz;
    if (baud == 0)
        baud = 1;
    /* one character = 11 bits (start, 8 data, parity or a second stop, stop) */
    t.tchar = (uint32_t)((11 * hz + baud - 1) / baud);
    if (baud > 19200) {
        t.t15 = (uint32_t)((750 * hz + 999999) / 1000000);
        t.t35 = (uint32_t)((1750 * hz + 999999) / 1000000);
    } else {
        t.t15 = (uint32_t)((33 * hz + 2 * baud - 1) / (2 * (uint64_t)baud));   /* 1.5 * 11 */
        t.t35 = (uint32_t)((77 * hz + 2 * baud - 1) / (2 * (uint64_t)baud));   /* 3.5 * 11 */
    }
    return t;
}

void mb_rx_init(mb_rx_t *rx, mb_timing_t timing, mb_counters_t *counters, uint32_t now)
{
    rx->timing = timing;
    rx->counters = counters;
    rx->state = MB_RX_INIT;
    rx->spoiled = 0;
    rx->len = 0;
    rx->last = now;
    rx->ready = 0;
    rx->frame_len = 0;
    rx->frame_end = now;
}

/* The frame being received is complete (its last character stamped
 * rx->last): spoiled ones are counted and dropped, the others handed over
 * (or dropped as busy when the handler still holds the previous one). */
static void finish(mb_rx_t *rx)
{
    mb_counters_t *c = rx->counters;
    rx->state = MB_RX_IDLE;
    c->frames++;
    if (rx->spoiled) {
        c->drops[rx->spoiled - 1]++;
    } else if (rx->ready) {
        c->drops[MB_DROP_BUSY]++;
    } else {
        for (unsigned i = 0; i < rx->len; i++)
            rx->frame[i] = rx->buf[i];
        rx->frame_len = rx->len;
        rx->frame_end = rx->last;
        rx->ready = 1;
    }
    rx->len = 0;
    rx->spoiled = 0;
}

static void spoil(mb_rx_t *rx, enum mb_drop why)
{
    if (!rx->spoiled)
        rx->spoiled = (uint8_t)(why + 1);
}

/* Ticks from `then` to `now`; a stamp from the future (a caller's clock
 * read before the byte's) counts as no time. */
static uint32_t since(uint32_t then, uint32_t now)
{
    uint32_t d = now - then;
    return (int32_t)d < 0 ? 0 : d;
}

void mb_rx_byte(mb_rx_t *rx, uint8_t byte, uint32_t now)
{
    /* the silence before this character: from the end of the last one to
     * this one's start */
    uint32_t gap = since(rx->last, now);
    int silent = gap >= rx->timing.t35 + rx->timing.tchar;
    if (rx->state == MB_RX_RECEIVING && silent)
        finish(rx);                     /* the silence passed without a poll */
    rx->last = now;
    if (rx->state == MB_RX_INIT && !silent) {
        rx->counters->noise++;          /* still no silence since power-up */
        return;
    }
    if (rx->state != MB_RX_RECEIVING) {  /* the first byte after a silence */
        rx->state = MB_RX_RECEIVING;
        rx->len = 0;
        rx->spoiled = 0;
    } else if (gap > rx->timing.t15 + rx->timing.tchar) {
        spoil(rx, MB_DROP_GAP);
    }
    if (rx->len < MB_ADU_MAX)
        rx->buf[rx->len++] = byte;
    else
        spoil(rx, MB_DROP_LONG);
}

void mb_rx_error(mb_rx_t *rx, enum mb_drop why, uint32_t now)
{
    if (rx->state == MB_RX_RECEIVING && since(rx->last, now) >= rx->timing.t35)
        finish(rx);
    if (rx->state == MB_RX_INIT)
        return;
    /* the characters belonged to a frame: this one, or one that starts now */
    if (rx->state == MB_RX_IDLE) {
        rx->state = MB_RX_RECEIVING;
        rx->len = 0;
        rx->spoiled = 0;
    }
    rx->last = now;
    spoil(rx, why);
}

int mb_rx_poll(mb_rx_t *rx, uint32_t now)
{
    if (since(rx->last, now) >= rx->timing.t35) {
        if (rx->state == MB_RX_RECEIVING)
            finish(rx);
        else if (rx->state == MB_RX_INIT)
            rx->state = MB_RX_IDLE;
    }
    return rx->ready;
}

uint32_t mb_rx_ticks_to_end(const mb_rx_t *rx, uint32_t now)
{
    uint32_t d = since(rx->last, now);
    if (rx->state == MB_RX_IDLE)
        return 0;
    return d >= rx->timing.t35 ? 1 : rx->timing.t35 - d;
}

void mb_rx_release(mb_rx_t *rx)
{
    rx->ready = 0;
}
