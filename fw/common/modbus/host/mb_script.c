/* Host driver of the Modbus-RTU slave for the tests: reads a script of timed
 * line events on stdin and prints what the slave answers.
 *   C <baud> <tick_hz> <address>   configure (first); time starts at tick 0
 *   B <tick> <hex bytes> [<step>]  bytes, the first stamped <tick>, the next
 *                                  <step> ticks apart (default: one character)
 *   O <tick> / E <tick>            the UART reports an overrun / a bad character
 *   P <tick>                       time passes: a completed frame is handled;
 *                                  prints "R <hex>" (a response) or "N" (none);
 *                                  a response goes out when mb_tx_wait() lets it
 *                                  (at <tick> or later), one character a tchar
 *   A                              prints "A <start> <end>": the ticks the last
 *                                  response starts and ends on the line
 *   S                              prints "S name=value ..." (the counters)
 *   H <addr> / K <addr>            prints "H <value>" / "K <0|1>" (holding / coil)
 *   T                              prints "T <tchar> <t15> <t35>"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "modbus_rtu.h"
#include "testmap.h"

static mb_counters_t counters;
static mb_rx_t rx;
static mb_tx_t tx;
static mb_slave_t slave = { .map = &testmap, .counters = &counters };
static uint32_t answer_start, answer_end;

static void handle_ready(uint32_t now)
{
    uint8_t resp[MB_ADU_MAX];
    uint32_t request_end = rx.frame_end;
    unsigned n = mb_slave_handle(&slave, rx.frame, rx.frame_len, resp);
    mb_rx_release(&rx);
    if (!n) {
        puts("N");
        return;
    }
    answer_start = now + mb_tx_wait(&tx, request_end, now);
    answer_end = answer_start + n * rx.timing.tchar;
    mb_tx_sent(&tx, n * rx.timing.tchar, answer_start);
    printf("R ");
    for (unsigned i = 0; i < n; i++)
        printf("%02x", resp[i]);
    putchar('\n');
}

int main(void)
{
    char line[4096];
    testmap_reset();
    while (fgets(line, sizeof line, stdin)) {
        char *p = line;
        char cmd = *p++;
        if (cmd == 'C') {
            unsigned long baud = strtoul(p, &p, 0), hz = strtoul(p, &p, 0);
            slave.address = (uint8_t)strtoul(p, &p, 0);
            mb_rx_init(&rx, mb_timing(baud, hz), &counters, 0);
            mb_tx_init(&tx, rx.timing);
        } else if (cmd == 'B') {
            uint32_t t = (uint32_t)strtoul(p, &p, 0);
            while (*p == ' ')
                p++;
            char *hex = p;
            while (*p && *p != ' ' && *p != '\n')
                p++;
            size_t nhex = (size_t)(p - hex);
            unsigned long step = strtoul(p, NULL, 0);
            if (!step)
                step = rx.timing.tchar;
            for (size_t i = 0; i + 1 < nhex; i += 2) {
                char two[3] = { hex[i], hex[i + 1], 0 };
                mb_rx_byte(&rx, (uint8_t)strtoul(two, NULL, 16), t);
                t += (uint32_t)step;
            }
        } else if (cmd == 'O') {
            mb_rx_error(&rx, MB_DROP_OVERRUN, (uint32_t)strtoul(p, NULL, 0));
        } else if (cmd == 'E') {
            mb_rx_error(&rx, MB_DROP_CHAR, (uint32_t)strtoul(p, NULL, 0));
        } else if (cmd == 'P') {
            uint32_t t = (uint32_t)strtoul(p, NULL, 0);
            if (mb_rx_poll(&rx, t))
                handle_ready(t);
            else
                puts("-");
        } else if (cmd == 'S') {
            printf("S frames=%u requests=%u responses=%u exceptions=%u broadcasts=%u noise=%u",
                   counters.frames, counters.requests, counters.responses, counters.exceptions,
                   counters.broadcasts, counters.noise);
            for (int i = 0; i < MB_DROP_COUNT; i++)
                printf(" %s=%u", mb_drop_names[i], counters.drops[i]);
            putchar('\n');
        } else if (cmd == 'H') {
            printf("H %u\n", testmap_holding((uint16_t)strtoul(p, NULL, 0)));
        } else if (cmd == 'K') {
            printf("K %d\n", testmap_coil((uint16_t)strtoul(p, NULL, 0)));
        } else if (cmd == 'A') {
            printf("A %u %u\n", answer_start, answer_end);
        } else if (cmd == 'T') {
            printf("T %u %u %u\n", rx.timing.tchar, rx.timing.t15, rx.timing.t35);
        }
        fflush(stdout);
    }
    return 0;
}
