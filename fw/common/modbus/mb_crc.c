/* Modbus CRC-16: polynomial 0x8005 reflected (0xA001), initial value 0xFFFF,
 * no final XOR; the frame carries it low byte first. Bitwise, no table: a
 * frame of 256 bytes costs about 2k shifts, and the table would cost 512
 * bytes of the small memories. */
#include "modbus_rtu.h"

uint16_t mb_crc16(const uint8_t *buf, unsigned len)
{
    uint16_t crc = 0xFFFF;
    for (unsigned i = 0; i < len; i++) {
        crc ^= buf[i];
        for (int b = 0; b < 8; b++)
            crc = (crc & 1) ? (uint16_t)((crc >> 1) ^ 0xA001) : (uint16_t)(crc >> 1);
    }
    return crc;
}
