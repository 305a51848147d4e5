/* libFuzzer target of the Modbus-RTU slave (tests/test_modbus_fuzz.py builds it
 * with clang -fsanitize=fuzzer,address,undefined and runs it for a bounded time).
 *
 * Input byte 0 picks the mode:
 *   odd   one request straight to the handler: address = byte 1, PDU = the
 *         rest, with its CRC appended (so the fuzzer reaches every function)
 *   even  a serial line: byte 1 picks the baud rate, then (control, byte)
 *         pairs; the control's low 3 bits pick the time before the byte
 *         (back to back, a gap over t1.5, a silence of t3.5, an overrun, a
 *         poll, a random delay from its high bits), a poll follows each byte
 *         and every completed frame is handled.
 * Every response is checked: length, CRC, address, function code or its
 * exception with a defined code. Every handled frame must land in exactly
 * one counter, and in stream mode every completed one (frames == requests +
 * broadcasts + drops). Each response goes out when mb_tx_wait() lets it: t3.5
 * after its request and after the previous response. A failed check aborts
 * (a finding).
 */
#include <stddef.h>
#include <stdlib.h>
#include "modbus_rtu.h"
#include "testmap.h"

#define ME 17

static mb_counters_t counters;
static mb_slave_t slave = { .address = ME, .map = &testmap, .counters = &counters };

static void check(const uint8_t *req, unsigned req_len, const uint8_t *resp, unsigned n)
{
    if (n == 0)
        return;
    if (n < 5 || n > MB_ADU_MAX || req_len < MB_ADU_MIN)
        abort();
    uint16_t crc = mb_crc16(resp, n - 2);
    if (resp[n - 2] != (uint8_t)crc || resp[n - 1] != (uint8_t)(crc >> 8))
        abort();
    if (resp[0] != ME || req[0] != ME)
        abort();                                    /* answers only its own address */
    if (resp[1] == (req[1] | 0x80)) {
        if (n != 5 || resp[2] < MB_EX_ILLEGAL_FUNCTION || resp[2] > MB_EX_ILLEGAL_VALUE)
            abort();
    } else if (resp[1] != req[1]) {
        abort();
    }
}

/* Frames the handler counted somewhere. */
static uint32_t accounted(void)
{
    uint32_t n = counters.requests + counters.broadcasts;
    for (int i = 0; i < MB_DROP_COUNT; i++)
        n += counters.drops[i];
    return n;
}

static unsigned handle(const uint8_t *adu, unsigned len)
{
    uint8_t resp[MB_ADU_MAX + 8];
    uint32_t before = accounted();
    unsigned n = mb_slave_handle(&slave, adu, len, resp);
    if (accounted() != before + 1)
        abort();                                    /* counted nowhere, or twice */
    check(adu, len, resp, n);
    return n;
}

/* Stream mode's transmitter: the response to a request that ended at
 * `request_end`, handled at `now`, starts when mb_tx_wait() says. Like the
 * firmware's slave task, which waits before it sends, the handler takes a
 * frame no earlier than its previous answer started. */
static mb_tx_t tx;
static int sent_before;
static uint32_t last_start, last_end;

static void answer(const mb_timing_t *t, unsigned n, uint32_t request_end, uint32_t now)
{
    if (!n)
        return;
    if (sent_before && (int32_t)(now - last_start) < 0)
        now = last_start;
    uint32_t wait = mb_tx_wait(&tx, request_end, now), start = now + wait;
    if ((int32_t)(start - (request_end + t->t35)) < 0)
        abort();                                    /* less than t3.5 after the request */
    if (sent_before && (int32_t)(start - (last_end + t->t35)) < 0)
        abort();                                    /* less than t3.5 after the previous answer */
    if (wait > t->t35 + MB_ADU_MAX * t->tchar)
        abort();                                    /* longer than the previous answer could make it */
    mb_tx_sent(&tx, n * t->tchar, start);
    last_start = start;
    last_end = start + n * t->tchar;
    sent_before = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint32_t bauds[] = { 1200, 9600, 19200, 115200, 500000, 2000000 };
    testmap_reset();
    if (size < 2)
        return 0;
    if (data[0] & 1) {
        uint8_t adu[MB_ADU_MAX + 2];
        size_t pdu = size - 2;
        if (pdu > MB_ADU_MAX - 3)
            pdu = MB_ADU_MAX - 3;
        adu[0] = data[1];
        for (size_t i = 0; i < pdu; i++)
            adu[1 + i] = data[2 + i];
        uint16_t crc = mb_crc16(adu, 1 + (unsigned)pdu);
        adu[1 + pdu] = (uint8_t)crc;
        adu[2 + pdu] = (uint8_t)(crc >> 8);
        handle(adu, 3 + (unsigned)pdu);
        return 0;
    }
    static mb_rx_t rx;
    mb_timing_t t = mb_timing(bauds[data[1] % 6], 50000000);
    uint32_t now = 0xFFFF0000u;                     /* wraps during the run */
    mb_rx_init(&rx, t, &counters, now);
    mb_tx_init(&tx, t);
    sent_before = 0;
    uint32_t frames0 = counters.frames, accounted0 = accounted();
    now += t.t35;
    for (size_t i = 2; i + 1 < size; i += 2) {
        uint8_t ctl = data[i], byte = data[i + 1];
        switch (ctl & 7) {
        case 4: now += t.tchar + t.t15 + 1; break;
        case 5: now += t.tchar + t.t35; break;
        case 6: mb_rx_error(&rx, (ctl & 8) ? MB_DROP_CHAR : MB_DROP_OVERRUN, now); now += t.tchar; break;
        case 7: now += (uint32_t)(ctl >> 3) * t.tchar; break;
        default: now += t.tchar; break;
        }
        mb_rx_byte(&rx, byte, now);
        if (rx.len > MB_ADU_MAX || rx.state == MB_RX_IDLE)   /* a byte starts, continues or is noise */
            abort();
        uint32_t at = now + ((ctl & 7) == 3 ? t.t35 : 0);
        if (mb_rx_poll(&rx, at)) {
            if (rx.frame_len == 0 || rx.frame_len > MB_ADU_MAX)
                abort();
            answer(&t, handle(rx.frame, rx.frame_len), rx.frame_end, at);
            mb_rx_release(&rx);
        }
    }
    if (mb_rx_poll(&rx, now + t.t35)) {
        answer(&t, handle(rx.frame, rx.frame_len), rx.frame_end, now + t.t35);
        mb_rx_release(&rx);
    }
    if (mb_rx_ticks_to_end(&rx, now + t.t35) != 0)
        abort();                                    /* after a silence nothing is pending */
    if (counters.frames - frames0 != accounted() - accounted0)
        abort();                                    /* a completed frame counted nowhere, or twice */
    return 0;
}
