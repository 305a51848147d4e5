"""What the host tool knows about a board, in one object per board
(`BOARD` in boards/<name>.py, listed in boards/registry.py): defaults and
option checks, the FPGA flow, the programmer, the header pins, the serial
link and the firmware settings of the board benchmark.

Pins carry a label (the board's name for the pin where it has one) and where LiteX finds the
ball: a connector pin of the litex-boards platform (`site="pmoda:0"`) or one
(sub)signal of one of its resources (`resource=("gpio", 0, "p")`), so the
ball numbers stay in litex-boards.
"""

from dataclasses import dataclass, field
from typing import Callable, Optional

from irqlab.errors import UserError


class BoardOptionError(UserError, ValueError):
    """A board option (device, variant, toolchain, clock) the board does not have."""


@dataclass(frozen=True)
class HeaderPin:
    label: str                                  # as printed on the board: "GP0", "JA1"
    site: Optional[str] = None                  # a LiteX pin name or connector pin ("pmoda:0")
    resource: Optional[tuple] = None            # (name, number[, subsignal]) of the litex-boards platform

    def ball(self, platform):
        """The package pin, looked up in the platform's resources (or connectors)."""
        if self.resource is None:
            return platform.constraint_manager.connector_manager.resolve_identifiers([self.site])[0] \
                if ":" in self.site else self.site
        name, number, *sub = self.resource
        for res in platform.constraint_manager.available:
            if res[0] == name and res[1] == number:
                for item in res[2:]:
                    if sub and getattr(item, "name", None) == sub[0]:
                        return item.constraints[0].identifiers[0]
                    if not sub and hasattr(item, "identifiers"):
                        return item.identifiers[0]
        raise KeyError(f"{self.label}: no resource {self.resource} in the platform")


@dataclass(frozen=True)
class ModbusPins:
    tx: HeaderPin
    rx: HeaderPin
    de: HeaderPin                               # RS-485 driver enable


@dataclass(frozen=True)
class SerialLink:
    bridge: str                                 # the USB UART on the board
    baudrate: int


@dataclass(frozen=True)
class Programmer:
    boards: dict                                # device/variant -> openFPGALoader board name
    cable: Optional[str] = None                 # openFPGALoader --cable, when the board name is not enough

    def command(self, choice):
        return ["-b", self.boards[choice]] + (["-c", self.cable] if self.cable else [])


@dataclass(frozen=True)
class BoardDescriptor:
    name: str
    title: str                                  # in messages: "ULX3S", "Arty"
    flow: str                                   # irqlab/flows: "ecp5", "xilinx"; "sim" for the simulator
    default_clock_hz: float
    option: Optional[str] = None                # the part option's name: "device" or "variant"
    choices: tuple = ()                         # its values; the first is the default
    toolchains: tuple = ()                      # FPGA toolchains the flow can use; the first is the default
    soc_clock_hz: dict = field(default_factory=dict)   # SoC core -> clock, where the default does not close
    soc_target: Optional[str] = None            # "module:Class" of the LiteX SoC for this board
    platform: Optional[Callable] = None         # (choice, toolchain) -> the litex-boards platform
    programmer: Optional[Programmer] = None
    link: Optional[SerialLink] = None
    gen_lines: tuple = ()                       # HeaderPin per generator line, from line 0
    handler_gpio: Optional[HeaderPin] = None
    pto: tuple = ()                             # pulse-train outputs (reserved: held low)
    modbus: Optional[ModbusPins] = None         # the Modbus UART's pins (soc/modbus_uart.py; idle without one)
    bench_defaults: dict = field(default_factory=dict)  # firmware settings of `irqlab bench --board`
    # The bus-stress master (soc/busstress.py: the matrix's T7 and B-Lmax) in
    # the target's SoC: the simulator has it; the boards leave it out, since
    # a third master on the crossbar gives every slave a wider arbiter and
    # the ULX3S's 50 MHz build stopped routing in time with it.
    bus_stress: bool = False

    @property
    def is_fpga(self):
        return self.flow != "sim"

    def clock_hz(self, soc):
        """The default clock of SoC `soc` (soc/configs.py) on this board."""
        return self.soc_clock_hz.get(soc, self.default_clock_hz)

    def options(self, soc, **overrides):
        """The build options (part, toolchain, clock) with the defaults filled
        in and each checked against what the board has."""
        opts = {"sys_clk_freq": self.clock_hz(soc)}
        if self.option:
            opts[self.option] = self.choices[0]
        if self.toolchains:
            opts["toolchain"] = self.toolchains[0]
        opts.update({k: v for k, v in overrides.items() if v is not None})
        if self.option and opts[self.option] not in self.choices:
            raise BoardOptionError(f"unknown {self.title} {self.option} '{opts[self.option]}' "
                                   f"(known: {', '.join(self.choices)})")
        if self.toolchains and opts["toolchain"] not in self.toolchains:
            raise BoardOptionError(f"unknown {self.title} toolchain '{opts['toolchain']}' "
                                   f"(known: {', '.join(self.toolchains)})")
        unknown = set(opts) - {"sys_clk_freq", "toolchain", self.option}
        if unknown:
            raise BoardOptionError(f"board '{self.name}' has no option {', '.join(sorted(unknown))}")
        if opts["sys_clk_freq"] <= 0:
            raise BoardOptionError("the system clock must be positive")
        return opts

    def reserved_pins(self):
        """(role, pin) of every header pin the board assigns, in one list."""
        out = [(f"generator line {i}", p) for i, p in enumerate(self.gen_lines)]
        if self.handler_gpio:
            out.append(("handler GPIO", self.handler_gpio))
        out += [(f"PTO output {i}", p) for i, p in enumerate(self.pto)]
        if self.modbus:
            out += [("Modbus TX", self.modbus.tx), ("Modbus RX", self.modbus.rx),
                    ("Modbus driver enable", self.modbus.de)]
        return out
