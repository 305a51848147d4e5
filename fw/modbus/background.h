/* The background workload: one unit of countable work a call. A placeholder
 * loop today; the digits network (issue #13 item 6) takes its place behind
 * the same function. */
#ifndef MODBUS_BACKGROUND_H
#define MODBUS_BACKGROUND_H
#include <stdint.h>
/* Does one unit and returns its result (a checksum the master can read). */
uint32_t background_unit(uint32_t n);
#endif
