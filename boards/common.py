"""What every board brings out: generator lines and a handler GPIO on header
pins (for an external logic analyzer), the pulse-train output on the first
PTO pin (the others held low), the Modbus UART's pins, and LEDs. The pins
come from the board's descriptor (BOARD)."""

from migen import *

from litex.build.generic_platform import IOStandard, Pins

from irqlab.host.protocol import CH_HANDLER_ENTRY


class HandlerWindow(Module):
    """The logic analyzer's view of the benchmark handler, made in hardware:
    high from the handler's entry mark (its store on the trace unit's
    stimulus port, channel HANDLER_ENTRY) to its acknowledge of generator
    line 0. The firmware spends no cycle on it, so a board runs the same
    handler, cycle for cycle, as the simulation, and its arrivals meet the
    waiting loop at the same instruction."""

    def __init__(self, tracer, irqgen, channel=CH_HANDLER_ENTRY, line=0):
        self.out = Signal()
        ack = getattr(irqgen, f"line{line}").ack
        self.sync += If(ack, self.out.eq(0)
                        ).Elif(tracer.sw_valid & (tracer.sw_chan == channel), self.out.eq(1))


def request_header(platform, name, pins):
    """One LiteX resource `name` made of the descriptor's header pins, in order."""
    sites = [p.ball(platform) if p.resource else p.site for p in pins]
    platform.add_extension([(name, 0, Pins(" ".join(sites)), IOStandard("LVCMOS33"))])
    return platform.request(name)


class BoardIO(Module):
    def __init__(self, soc, platform, board, leds=()):
        self.submodules.handler_window = gpio = HandlerWindow(soc.tracer, soc.irqgen)
        lines = soc.irqgen.lines
        gen = request_header(platform, "irqgen_lines", board.gen_lines)
        for i in range(len(board.gen_lines)):
            self.comb += gen[i].eq(lines[i])
        self.comb += request_header(platform, "handler_gpio", [board.handler_gpio]).eq(gpio.out)
        if board.pto:
            pto = request_header(platform, "pto", board.pto)
            pin = soc.pto.pin if hasattr(soc, "pto") else 0
            self.comb += pto.eq(Cat(pin, Replicate(0, len(board.pto) - 1)) if len(board.pto) > 1 else pin)
        # A SoC without the Modbus UART still claims its pins (so nothing
        # else takes them) and holds them at their idle levels.
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
