/* Modbus-RTU: when the slave may start an answer.
 *
 * The serial-line spec separates frames by a silence of at least t3.5, and
 * that holds for the slave's frames as much as for the master's: an answer
 * may start t3.5 after the end of its request and t3.5 after the end of the
 * slave's own previous transmission. A well-behaved master waits for an
 * answer before its next request, so the second bound only bites when a
 * request arrives while the slave is still sending: answered as soon as it
 * is handled, the new answer would follow the previous one with less
 * silence than t3.5 (with none when it is queued behind it), and a master
 * would read both as one frame with a bad CRC.
 *
 * Times are ticks of a free-running 32-bit counter (only differences used).
 */
#include "modbus_rtu.h"

/* Ticks from `now` until `t`; 0 when `t` is not ahead. */
static uint32_t ahead(uint32_t t, uint32_t now)
{
    int32_t d = (int32_t)(t - now);
    return d > 0 ? (uint32_t)d : 0;
}

void mb_tx_init(mb_tx_t *tx, mb_timing_t timing)
{
    tx->t35 = timing.t35;
    tx->end = 0;
    tx->busy = 0;
}

void mb_tx_poll(mb_tx_t *tx, uint32_t now)
{
    if (tx->busy && !ahead(tx->end + tx->t35, now))
        tx->busy = 0;
}

uint32_t mb_tx_wait(mb_tx_t *tx, uint32_t request_end, uint32_t now)
{
    uint32_t wait = ahead(request_end + tx->t35, now);
    mb_tx_poll(tx, now);
    if (tx->busy) {
        uint32_t own = ahead(tx->end + tx->t35, now);
        if (own > wait)
            wait = own;
    }
    return wait;
}

void mb_tx_sent(mb_tx_t *tx, uint32_t ticks, uint32_t now)
{
    uint32_t start = now;
    if (tx->busy && ahead(tx->end, now))
        start = tx->end;                /* queued behind the previous one */
    tx->end = start + ticks;
    tx->busy = 1;
}
