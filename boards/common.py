"""What every board brings out: generator lines and a handler GPIO on header
pins (for an external logic analyzer), and LEDs."""

from migen import *

from litex.soc.interconnect.csr import AutoCSR, CSRStorage


class HandlerGPIO(Module, AutoCSR):
    """One output the firmware drives from its handlers: the logic analyzer's
    view of handler entry, to cross-check the trace unit."""
    def __init__(self):
        self._out = CSRStorage(1)
        self.out = self._out.storage


class BoardIO(Module):
    def __init__(self, soc, gen_pins, handler_pin, leds=()):
        soc.handler_gpio = gpio = HandlerGPIO()
        lines = soc.irqgen.lines
        for i, pin in enumerate(gen_pins):
            self.comb += pin.eq(lines[i])
        self.comb += handler_pin.eq(gpio.out)
        # LEDs: the first lines, the handler GPIO, and a heartbeat.
        leds = list(leds)
        if leds:
            beat = Signal(26)
            self.sync += beat.eq(beat + 1)
            shown = [lines[i] for i in range(min(len(gen_pins), len(leds) - 2))]
            for led, sig in zip(leds, shown + [gpio.out, beat[-1]]):
                self.comb += led.eq(sig)
