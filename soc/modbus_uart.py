"""The Modbus-RTU UART: 8 data bits, even parity, one stop bit (11-bit
characters, the serial-line spec's default), a receive interrupt per
character, a hardware time stamp on every character, the t3.5 silence as an
event, and an RS-485 driver enable.

Receive: the line is synchronized (2 flip-flops), a start bit is taken at a
falling edge and checked half a bit later, then each bit is sampled
`divisor` cycles after the previous one (mid-bit). At the stop bit's sample
the character goes into the receive FIFO with its parity/stop check and the
cycle counter `now` of that cycle (its stamp). A character that finds the
FIFO full is lost and counted (`overruns`). `silence` cycles after the last
stop-bit sample with no new start bit the `silence` event fires once.

Transmit: a character written to `tx_data` goes into a 256-deep FIFO (a
whole response fits); `de` is high from the first start bit until the last
stop bit ends, `tx` idles high.

Cycle contracts (tested in tests/test_modbus_uart.py):
  - a start bit whose falling edge reaches `rx` in cycle c is stamped in
    cycle c + 2 + (divisor >> 1) + 10 * divisor (synchronizer, half bit,
    8 data bits, parity, stop);
  - the silence event is pending `silence` cycles after that stamp;
  - a character written in cycle w drives its start bit on `tx` from cycle
    w + 2, each bit `divisor` cycles long, queued characters back to back;
    `de` is high from the first start bit to the end of the final stop bit;
  - after a stop bit of 0 (a framing error, or a break) the receiver waits
    for the line to go high before it takes a start bit.

CSRs (firmware: fw/modbus/; one word each):
  divisor    (rw) cycles per bit (sys clock / baud rate)
  silence    (rw) cycles of silence after a character before the `silence` event (t3.5)
  now        (ro) the free-running cycle counter the stamps come from
  rx_data    (ro) the oldest received character: data [7:0], error [8] (parity or
                  stop bit wrong), valid [9] (the FIFO is not empty)
  rx_stamp   (ro) its stamp
  rx_pop     (w)  any write drops the oldest character
  tx_data    (w)  queues a character for sending
  status     (ro) tx_full [0], tx_busy [1] (sending or queued)
  overruns   (ro) characters lost to a full receive FIFO (wraps)
  ev_*            LiteX's event manager: `rx` (level: a character is waiting) and
                  `silence` (pulse: write 1 to ev_pending to clear)
"""

from functools import reduce
from operator import xor

from migen import *
from migen.genlib.cdc import MultiReg
from migen.genlib.fifo import SyncFIFO

from litex.soc.interconnect.csr import AutoCSR, CSR, CSRStatus, CSRStorage, CSRField
from litex.soc.interconnect.csr_eventmanager import EventManager, EventSourceLevel, EventSourcePulse

RX_DEPTH = 16
TX_DEPTH = 256


def divisor_for(sys_clk_freq, baud):
    return max(4, round(sys_clk_freq / baud))


class ModbusUART(Module, AutoCSR):
    def __init__(self, default_divisor, default_silence, divisor_bits=24):
        self.rx = Signal(reset=1)
        self.tx = Signal(reset=1)
        self.de = Signal()
        self.divisor = Signal(divisor_bits)

        self._divisor = CSRStorage(divisor_bits, reset=default_divisor,
                                   description="Cycles per bit: sys clock / baud rate.")
        self._silence = CSRStorage(32, reset=default_silence,
                                   description="Cycles of silence after a character before the silence event (t3.5).")
        self._now = CSRStatus(32, description="The free-running cycle counter the stamps come from.")
        self._rx_data = CSRStatus(fields=[
            CSRField("data", size=8, description="The oldest received character."),
            CSRField("error", size=1, description="Its parity or stop bit was wrong."),
            CSRField("valid", size=1, description="A character is waiting (the FIFO is not empty)."),
        ])
        self._rx_stamp = CSRStatus(32, description="`now` at the oldest character's stop-bit sample.")
        self._rx_pop = CSR()
        self._tx_data = CSR(8)
        self._status = CSRStatus(fields=[
            CSRField("tx_full", size=1, description="The transmit FIFO is full."),
            CSRField("tx_busy", size=1, description="Sending, or characters queued."),
        ])
        self._overruns = CSRStatus(32, description="Characters lost to a full receive FIFO.")

        self.submodules.ev = EventManager()
        self.ev.rx = EventSourceLevel(description="A received character is waiting.")
        self.ev.silence = EventSourcePulse(description="`silence` cycles passed since the last character.")
        self.ev.finalize()

        # # #

        div = self.divisor
        self.comb += div.eq(self._divisor.storage)
        now = Signal(32)
        self.sync += now.eq(now + 1)
        self.comb += self._now.status.eq(now)

        # ---- receive ----
        rx = Signal(reset=1)
        self.specials += MultiReg(self.rx, rx, reset=1)
        self.submodules.rx_fifo = rx_fifo = SyncFIFO(8 + 1 + 32, RX_DEPTH)
        cnt = Signal(divisor_bits)
        bits = Signal(4)
        shreg = Signal(8)
        parity = Signal()
        overruns = Signal(32)
        idle = Signal(32)
        idle_run = Signal()
        self.comb += [
            self._rx_data.fields.data.eq(rx_fifo.dout[0:8]),
            self._rx_data.fields.error.eq(rx_fifo.dout[8]),
            self._rx_data.fields.valid.eq(rx_fifo.readable),
            self._rx_stamp.status.eq(rx_fifo.dout[9:41]),
            rx_fifo.re.eq(self._rx_pop.re),
            self._overruns.status.eq(overruns),
            self.ev.rx.trigger.eq(rx_fifo.readable),
        ]
        self.submodules.rx_fsm = fsm = FSM(reset_state="IDLE")
        fsm.act("IDLE",
            If(~rx,
                NextValue(cnt, (div >> 1) - 1),
                NextState("START")))
        fsm.act("START",
            If(cnt == 0,
                If(rx,
                    NextState("IDLE")                      # a glitch, not a start bit
                ).Else(
                    NextValue(cnt, div - 1), NextValue(bits, 0), NextValue(parity, 0),
                    NextState("DATA"))
            ).Else(NextValue(cnt, cnt - 1)))
        fsm.act("DATA",
            If(cnt == 0,
                NextValue(shreg, Cat(shreg[1:], rx)),      # LSB first
                NextValue(parity, parity ^ rx),
                NextValue(bits, bits + 1),
                NextValue(cnt, div - 1),
                If(bits == 7, NextState("PARITY"))
            ).Else(NextValue(cnt, cnt - 1)))
        fsm.act("PARITY",
            If(cnt == 0,
                NextValue(parity, parity ^ rx),            # even parity: 0 when right
                NextValue(cnt, div - 1),
                NextState("STOP")
            ).Else(NextValue(cnt, cnt - 1)))
        fsm.act("STOP",
            If(cnt == 0,
                rx_fifo.din.eq(Cat(shreg, parity | ~rx, now)),
                rx_fifo.we.eq(1),
                If(~rx_fifo.writable, NextValue(overruns, overruns + 1)),
                If(rx, NextState("IDLE")).Else(NextState("BREAK"))
            ).Else(NextValue(cnt, cnt - 1)))
        fsm.act("BREAK",                                   # a stop bit of 0: wait for the line to rise
            If(rx, NextState("IDLE")))
        # The silence: cycles since the latest stop-bit sample, while no character comes.
        self.sync += [
            self.ev.silence.trigger.eq(0),
            If(fsm.ongoing("STOP") & (cnt == 0),
                idle.eq(1), idle_run.eq(1)
            ).Elif(~fsm.ongoing("IDLE") & ~fsm.ongoing("BREAK"),
                idle_run.eq(0)                             # a character is coming
            ).Elif(idle_run,
                idle.eq(idle + 1),
                # pending in the event manager `silence` cycles after the stamp
                If(idle + 2 >= self._silence.storage,
                    idle_run.eq(0),
                    self.ev.silence.trigger.eq(1)))
        ]

        # ---- transmit ----
        self.submodules.tx_fifo = tx_fifo = SyncFIFO(8, TX_DEPTH)
        tx_shreg = Signal(11, reset=0x7FF)
        tx_bits = Signal(4)
        tx_cnt = Signal(divisor_bits)
        tx_busy = Signal()
        self.comb += [
            tx_fifo.din.eq(self._tx_data.r),
            tx_fifo.we.eq(self._tx_data.re),
            self._status.fields.tx_full.eq(~tx_fifo.writable),
            self._status.fields.tx_busy.eq(tx_busy | tx_fifo.readable),
            self.de.eq(tx_busy),
        ]
        # A character is loaded when the line is free: at once when idle, or
        # as the previous stop bit ends (back to back).
        free = ~tx_busy | ((tx_cnt == 0) & (tx_bits == 0))
        load = Signal()
        self.comb += [load.eq(free & tx_fifo.readable), tx_fifo.re.eq(load)]
        self.sync += [
            If(load,
                self.tx.eq(0),                             # the start bit
                # then data LSB first, even parity, stop
                tx_shreg.eq(Cat(tx_fifo.dout, reduce(xor, [tx_fifo.dout[i] for i in range(8)]), 1)),
                tx_bits.eq(10), tx_cnt.eq(div - 1), tx_busy.eq(1)
            ).Elif(free,
                tx_busy.eq(0), self.tx.eq(1)
            ).Elif(tx_cnt == 0,
                self.tx.eq(tx_shreg[0]),
                tx_shreg.eq(Cat(tx_shreg[1:], 1)),
                tx_bits.eq(tx_bits - 1),
                tx_cnt.eq(div - 1)
            ).Else(tx_cnt.eq(tx_cnt - 1))
        ]
