"""The Modbus UART (soc/modbus_uart.py) cycle by cycle in Migen's simulator:
8E1 characters received with their stamps and checks, the silence event, the
overrun count, and what goes out on tx and de."""
from migen import run_simulation

from irqlab.soc.modbus_uart import RX_DEPTH, ModbusUART

DIV = 8
SILENCE = 40


def bits_8e1(byte, parity_ok=True, stop=1):
    data = [(byte >> i) & 1 for i in range(8)]
    par = sum(data) & 1
    return [0] + data + [par if parity_ok else par ^ 1] + [stop]


def drive_rx(dut, chars, cycle, starts, gap=0):
    """Drives the characters (lists of bits) on rx, DIV cycles a bit; notes
    the cycle each start bit's edge is set (it shows on rx from the next)."""
    for bits in chars:
        starts.append(cycle[0] + 1)
        for b in bits:
            yield dut.rx.eq(b)
            for _ in range(DIV):
                yield
                cycle[0] += 1
        yield dut.rx.eq(1)
        for _ in range(gap):
            yield
            cycle[0] += 1


def make():
    return ModbusUART(default_divisor=DIV, default_silence=SILENCE)


def test_receive_stamps_checks_and_silence():
    dut = make()
    # a stop bit of 0 last: the line must rise before the receiver takes another start bit
    chars = [bits_8e1(0x11), bits_8e1(0xA5, parity_ok=False), bits_8e1(0x80), bits_8e1(0x03, stop=0)]
    seen, starts, pending_at, cycle = [], [], [], [0]

    def bench():
        yield from drive_rx(dut, chars, cycle, starts)
        for _ in range(SILENCE + 20):
            yield
            cycle[0] += 1
            if (yield dut.ev.silence.pending) and not pending_at:
                pending_at.append(cycle[0])
        while (yield dut._rx_data.fields.valid):
            seen.append(((yield dut._rx_data.fields.data), (yield dut._rx_data.fields.error),
                         (yield dut._rx_stamp.status)))
            yield dut._rx_pop.re.eq(1)
            yield
            yield dut._rx_pop.re.eq(0)
            yield

    def watch_now():   # stamp = the counter's value; the counter starts at 0 in cycle 0
        yield

    run_simulation(dut, [bench(), watch_now()])
    # a stop bit of 0 (framing error) also marks the character
    assert [(d, e) for d, e, _ in seen] == [(0x11, 0), (0xA5, 1), (0x80, 0), (0x03, 1)]
    stamps = [s for _, _, s in seen]
    assert stamps == [c + 2 + (DIV >> 1) + 10 * DIV for c in starts]
    assert [b - a for a, b in zip(stamps, stamps[1:])] == [11 * DIV] * 3
    assert pending_at == [stamps[-1] + SILENCE]


def test_overrun_counts_lost_characters():
    dut = make()
    out, cycle, starts = {}, [0], []

    def bench():
        yield from drive_rx(dut, [bits_8e1(i) for i in range(RX_DEPTH + 3)], cycle, starts)
        for _ in range(4):
            yield
        out["overruns"] = yield dut._overruns.status
        out["first"] = yield dut._rx_data.fields.data

    run_simulation(dut, bench())
    assert out == {"overruns": 3, "first": 0}


def test_a_start_glitch_is_not_a_character():
    dut = make()
    out, cycle, starts = {}, [0], []

    def bench():
        yield dut.rx.eq(0)
        for _ in range(DIV // 2 - 1):   # shorter than half a bit
            yield
        yield dut.rx.eq(1)
        for _ in range(3 * DIV):
            yield
        yield from drive_rx(dut, [bits_8e1(0x5A)], cycle, starts)
        for _ in range(4):
            yield
        out["data"] = yield dut._rx_data.fields.data
        yield dut._rx_pop.re.eq(1)
        yield
        yield dut._rx_pop.re.eq(0)
        yield
        out["more"] = yield dut._rx_data.fields.valid

    run_simulation(dut, bench())
    assert out == {"data": 0x5A, "more": 0}


def test_transmit_bits_and_driver_enable():
    dut = make()
    trace = []

    def bench():
        # A value set before the generator's k-th yield is there in cycle k
        # (as a register's output): the strobes are in cycles 1 and 2, and
        # trace[i] is cycle i + 2.
        for b in (0x11, 0x83):
            yield dut._tx_data.r.eq(b)
            yield dut._tx_data.re.eq(1)
            yield
        yield dut._tx_data.re.eq(0)
        for _ in range(2 * 11 * DIV + 20):
            trace.append(((yield dut.tx), (yield dut.de), (yield dut._status.fields.tx_busy)))
            yield

    run_simulation(dut, bench())
    tx = [t for t, _, _ in trace]
    de = [d for _, d, _ in trace]
    first = tx.index(0)                      # the first start bit
    assert first + 2 == 1 + 2                # the first strobe (cycle 1) + 2
    sampled = [tx[first + DIV // 2 + i * DIV] for i in range(22)]
    assert sampled == bits_8e1(0x11) + bits_8e1(0x83)
    assert all(tx[first + i] == sampled[i // DIV] for i in range(22 * DIV))   # exact bit widths
    # the driver is enabled exactly while the two characters go out
    assert de[first:first + 22 * DIV] == [1] * (22 * DIV)
    assert de[first - 1] == 0 and de[first + 22 * DIV] == 0
    assert trace[0][2] == 1 and trace[-1][2] == 0     # busy while queued or sending
