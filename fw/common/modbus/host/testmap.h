/* The host build's register map (tests/test_modbus_host.py mirrors it):
 *   coils      0..99   a bit each, all 0 at start
 *   discrete   0..49   on where addr % 3 == 0
 *   holding    0..199  addr * 3 + 1 at start; addresses 100..199 refuse values above 0xF000
 *   input      0..99   addr ^ 0x5A5A
 */
#ifndef TESTMAP_H
#define TESTMAP_H
#include "modbus_rtu.h"

extern const mb_map_t testmap;
uint16_t testmap_holding(uint16_t addr);
int testmap_coil(uint16_t addr);
void testmap_reset(void);
#endif
