/* Modbus-RTU slave: one received ADU -> its response ADU.
 *
 * The checks come in the order of the application protocol's per-function
 * state diagrams: function code (exception 01), then the quantities and byte
 * counts (03), then the address range (02), then the register map's own
 * verdict on the values (03) before anything is written. A PDU whose length
 * does not match what its function code and byte count say is a bad value
 * (03). Broadcasts (address 0) are executed for the write functions only and
 * never answered; one that fails the checks is not executed either (a request
 * would get an exception) and is counted as a drop of its own (refused).
 */
#include "modbus_rtu.h"

const char *const mb_drop_names[MB_DROP_COUNT] = {
    "crc", "short", "long", "address", "gap", "overrun", "busy", "broadcast", "char", "refused",
};

static uint16_t be16(const uint8_t *p)
{
    return (uint16_t)((p[0] << 8) | p[1]);
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* A response PDU of an exception: 2 bytes. The code travels as a negative
 * return value of the functions below. */
#define EXC(code) (-(int)(code))

static int in_range(uint16_t addr, uint16_t qty, uint16_t n)
{
    return (uint32_t)addr + qty <= n;
}

/* 01, 02: quantity 1..2000, bits packed from bit 0 of the first byte, the
 * unused bits of the last byte zero. */
static int read_bits(const mb_map_t *m, const uint8_t *pdu, unsigned plen, uint8_t *r)
{
    int coils = pdu[0] == MB_FC_READ_COILS;
    uint16_t n = coils ? m->n_coils : m->n_discrete;
    int (*get)(void *, uint16_t) = coils ? m->coil_get : m->discrete_get;
    if (plen != 5)
        return EXC(MB_EX_ILLEGAL_VALUE);
    uint16_t addr = be16(pdu + 1), qty = be16(pdu + 3);
    if (qty < 1 || qty > 2000)
        return EXC(MB_EX_ILLEGAL_VALUE);
    if (!in_range(addr, qty, n))
        return EXC(MB_EX_ILLEGAL_ADDRESS);
    unsigned bytes = (qty + 7u) / 8u;
    r[0] = pdu[0];
    r[1] = (uint8_t)bytes;
    for (unsigned i = 0; i < bytes; i++)
        r[2 + i] = 0;
    for (unsigned i = 0; i < qty; i++)
        if (get && get(m->ctx, (uint16_t)(addr + i)))
            r[2 + i / 8] |= (uint8_t)(1u << (i % 8));
    return (int)(2 + bytes);
}

/* 03, 04 and the read half of 23: quantity 1..125. */
static int read_regs(const mb_map_t *m, int holding, uint16_t addr, uint16_t qty, uint8_t *r)
{
    uint16_t n = holding ? m->n_holding : m->n_input;
    uint16_t (*get)(void *, uint16_t) = holding ? m->holding_get : m->input_get;
    if (qty < 1 || qty > 125)
        return EXC(MB_EX_ILLEGAL_VALUE);
    if (!in_range(addr, qty, n))
        return EXC(MB_EX_ILLEGAL_ADDRESS);
    r[1] = (uint8_t)(2 * qty);
    for (unsigned i = 0; i < qty; i++)
        put16(r + 2 + 2 * i, get ? get(m->ctx, (uint16_t)(addr + i)) : 0);
    return 2 + 2 * qty;
}

/* Writes `qty` registers from `vals` (big-endian pairs): every value checked
 * first, then all written. */
static int write_regs(const mb_map_t *m, uint16_t addr, uint16_t qty, const uint8_t *vals)
{
    if (!m->holding_set)
        return EXC(MB_EX_ILLEGAL_ADDRESS);
    for (int commit = 0; commit < 2; commit++)
        for (unsigned i = 0; i < qty; i++) {
            int e = m->holding_set(m->ctx, (uint16_t)(addr + i), be16(vals + 2 * i), commit);
            if (e)
                return EXC(e);
        }
    return 0;
}

static int write_coils(const mb_map_t *m, uint16_t addr, uint16_t qty, const uint8_t *bits)
{
    if (!m->coil_set)
        return EXC(MB_EX_ILLEGAL_ADDRESS);
    for (int commit = 0; commit < 2; commit++)
        for (unsigned i = 0; i < qty; i++) {
            int e = m->coil_set(m->ctx, (uint16_t)(addr + i), (bits[i / 8] >> (i % 8)) & 1, commit);
            if (e)
                return EXC(e);
        }
    return 0;
}

/* Executes the PDU; the response PDU goes to `r`. Returns its length, or
 * EXC(code). */
static int execute(const mb_map_t *m, const uint8_t *pdu, unsigned plen, uint8_t *r)
{
    uint8_t fc = pdu[0];
    int e;
    r[0] = fc;
    switch (fc) {
    case MB_FC_READ_COILS:
    case MB_FC_READ_DISCRETE:
        return read_bits(m, pdu, plen, r);
    case MB_FC_READ_HOLDING:
    case MB_FC_READ_INPUT:
        if (plen != 5)
            return EXC(MB_EX_ILLEGAL_VALUE);
        return read_regs(m, fc == MB_FC_READ_HOLDING, be16(pdu + 1), be16(pdu + 3), r);
    case MB_FC_WRITE_COIL: {
        if (plen != 5)
            return EXC(MB_EX_ILLEGAL_VALUE);
        uint16_t addr = be16(pdu + 1), v = be16(pdu + 3);
        if (v != 0x0000 && v != 0xFF00)
            return EXC(MB_EX_ILLEGAL_VALUE);
        if (addr >= m->n_coils)
            return EXC(MB_EX_ILLEGAL_ADDRESS);
        uint8_t bit = v ? 1 : 0;
        if ((e = write_coils(m, addr, 1, &bit)))
            return e;
        for (unsigned i = 1; i < 5; i++)
            r[i] = pdu[i];              /* echo */
        return 5;
    }
    case MB_FC_WRITE_REGISTER: {
        if (plen != 5)
            return EXC(MB_EX_ILLEGAL_VALUE);
        uint16_t addr = be16(pdu + 1);
        if (addr >= m->n_holding)
            return EXC(MB_EX_ILLEGAL_ADDRESS);
        if ((e = write_regs(m, addr, 1, pdu + 3)))
            return e;
        for (unsigned i = 1; i < 5; i++)
            r[i] = pdu[i];
        return 5;
    }
    case MB_FC_WRITE_COILS:
    case MB_FC_WRITE_REGISTERS: {
        int coils = fc == MB_FC_WRITE_COILS;
        if (plen < 6)
            return EXC(MB_EX_ILLEGAL_VALUE);
        uint16_t addr = be16(pdu + 1), qty = be16(pdu + 3);
        unsigned bc = pdu[5];
        unsigned max = coils ? 0x7B0 : 0x7B;
        unsigned want = coils ? (qty + 7u) / 8u : 2u * qty;
        if (qty < 1 || qty > max || bc != want || plen != 6 + bc)
            return EXC(MB_EX_ILLEGAL_VALUE);
        if (!in_range(addr, qty, coils ? m->n_coils : m->n_holding))
            return EXC(MB_EX_ILLEGAL_ADDRESS);
        if ((e = coils ? write_coils(m, addr, qty, pdu + 6) : write_regs(m, addr, qty, pdu + 6)))
            return e;
        for (unsigned i = 1; i < 5; i++)
            r[i] = pdu[i];              /* address and quantity */
        return 5;
    }
    case MB_FC_READ_WRITE_REGISTERS: {
        if (plen < 10)
            return EXC(MB_EX_ILLEGAL_VALUE);
        uint16_t raddr = be16(pdu + 1), rqty = be16(pdu + 3);
        uint16_t waddr = be16(pdu + 5), wqty = be16(pdu + 7);
        unsigned bc = pdu[9];
        if (rqty < 1 || rqty > 125 || wqty < 1 || wqty > 121 || bc != 2u * wqty || plen != 10 + bc)
            return EXC(MB_EX_ILLEGAL_VALUE);
        if (!in_range(raddr, rqty, m->n_holding) || !in_range(waddr, wqty, m->n_holding))
            return EXC(MB_EX_ILLEGAL_ADDRESS);
        if ((e = write_regs(m, waddr, wqty, pdu + 10)))   /* the write comes first */
            return e;
        return read_regs(m, 1, raddr, rqty, r);
    }
    default:
        return EXC(MB_EX_ILLEGAL_FUNCTION);
    }
}

static int may_broadcast(uint8_t fc)
{
    return fc == MB_FC_WRITE_COIL || fc == MB_FC_WRITE_REGISTER ||
           fc == MB_FC_WRITE_COILS || fc == MB_FC_WRITE_REGISTERS;
}

unsigned mb_slave_handle(mb_slave_t *s, const uint8_t *adu, unsigned len, uint8_t *resp)
{
    mb_counters_t *c = s->counters;
    if (len < MB_ADU_MIN) {
        c->drops[MB_DROP_SHORT]++;
        return 0;
    }
    if (len > MB_ADU_MAX) {
        c->drops[MB_DROP_LONG]++;
        return 0;
    }
    uint16_t crc = mb_crc16(adu, len - 2);
    if (adu[len - 2] != (uint8_t)crc || adu[len - 1] != (uint8_t)(crc >> 8)) {
        c->drops[MB_DROP_CRC]++;
        return 0;
    }
    uint8_t addr = adu[0];
    if (addr == MB_BROADCAST) {
        if (!may_broadcast(adu[1])) {
            c->drops[MB_DROP_BROADCAST]++;
            return 0;
        }
        if (execute(s->map, adu + 1, len - 3, resp + 1) >= 0)
            c->broadcasts++;
        else
            c->drops[MB_DROP_REFUSED]++;
        return 0;
    }
    if (addr != s->address) {
        c->drops[MB_DROP_ADDRESS]++;
        return 0;
    }
    c->requests++;
    int n = execute(s->map, adu + 1, len - 3, resp + 1);
    resp[0] = addr;
    if (n < 0) {
        resp[1] = (uint8_t)(adu[1] | 0x80);
        resp[2] = (uint8_t)-n;
        n = 2;
        c->exceptions++;
    } else {
        c->responses++;
    }
    crc = mb_crc16(resp, 1 + (unsigned)n);
    resp[1 + n] = (uint8_t)crc;
    resp[2 + n] = (uint8_t)(crc >> 8);
    return 3 + (unsigned)n;
}
