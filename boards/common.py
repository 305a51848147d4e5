"""What every board brings out: generator lines and a handler GPIO on header
pins (for an external logic analyzer), the reserved PTO pins held idle, the
Modbus UART's pins, and LEDs. The pins come from the board's descriptor (BOARD)."""

from migen import *

from litex.build.generic_platform import IOStandard, Pins
from litex.soc.interconnect.csr import AutoCSR, CSRStorage


class HandlerGPIO(Module, AutoCSR):
    """One output the firmware drives from its handlers: the logic analyzer's
    view of handler entry, to cross-check the trace unit."""
    def __init__(self):
        self._out = CSRStorage(1)
        self.out = self._out.storage


def request_header(platform, name, pins):
    """One LiteX resource `name` made of the descriptor's header pins, in order."""
    sites = [p.ball(platform) if p.resource else p.site for p in pins]
    platform.add_extension([(name, 0, Pins(" ".join(sites)), IOStandard("LVCMOS33"))])
    return platform.request(name)


class BoardIO(Module):
    def __init__(self, soc, platform, board, leds=()):
        soc.handler_gpio = gpio = HandlerGPIO()
        lines = soc.irqgen.lines
        gen = request_header(platform, "irqgen_lines", board.gen_lines)
        for i in range(len(board.gen_lines)):
            self.comb += gen[i].eq(lines[i])
        self.comb += request_header(platform, "handler_gpio", [board.handler_gpio]).eq(gpio.out)
        # Reserved for later issues: the pins are claimed (so nothing else
        # takes them) and held at their idle levels.
        if board.pto:
            self.comb += request_header(platform, "pto", board.pto).eq(0)
        if board.modbus:
            m = board.modbus
            u = getattr(soc, "modbus", None)   # the SoC's Modbus UART (soc/modbus_uart.py), if it has one
            self.comb += request_header(platform, "modbus_tx", [m.tx]).eq(u.tx if u else 1)
            self.comb += request_header(platform, "modbus_de", [m.de]).eq(u.de if u else 0)
            rx = request_header(platform, "modbus_rx", [m.rx])
            if u:
                self.comb += u.rx.eq(rx)
        # LEDs: the first lines, the handler GPIO, and a heartbeat.
        leds = list(leds)
        if leds:
            beat = Signal(26)
            self.sync += beat.eq(beat + 1)
            shown = [lines[i] for i in range(min(len(board.gen_lines), len(leds) - 2))]
            for led, sig in zip(leds, shown + [gpio.out, beat[-1]]):
                self.comb += led.eq(sig)
