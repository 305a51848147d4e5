"""Running a firmware application on a board (`irqlab bench --board`, `irqlab
demo pto|modbus --board`): one place for what every board run does.

The firmware is built against the board build's generated headers (the SoC
of the loaded bitstream), linked for what the boot code of the bitstream's
image loads (fw/common/boot.c: main RAM, or on a SoC with TCMs the ITCM),
its configuration block patched, and sent as one CRC-checked load frame over
the board's serial link; the trace comes back on the same link with the
console inside it, and the capture ends at the firmware's exit line. A new
firmware needs no new bitstream; the boot code takes one load per reset.
"""

import os
import threading
import time
from dataclasses import dataclass

from irqlab.flows import build as boardbuild
from irqlab.flows import report as boardreport
from irqlab.builders import firmware
from irqlab.builders import fwimage
from irqlab.boards import registry
from irqlab.errors import BenchError, CaptureError
from irqlab.host.capture import capture
from irqlab.host.protocol import FLAG_BOOT_WAIT
from irqlab.host.record import TYPE_CONSOLE
from irqlab.rows import row as row_info

EXIT_LINE = "irqlab: exit"


@dataclass
class Target:
    """One board with the bitstream of one row's SoC loaded."""
    board: object          # the descriptor (boards/descriptor.py)
    core: str              # the row
    dir: str               # its board build (build/boards/<board>-<core>)
    clock_hz: float        # the bitstream's clock

    @property
    def include(self):
        return os.path.join(self.dir, "software", "include")

    @property
    def load(self):
        """(firmware layout, image size) of what the boot code loads on this SoC."""
        return load_target(row_info(self.core).soc_config)

    @property
    def name(self):
        return f"{self.board.name}/{self.core}"


def load_target(cfg):
    """(firmware layout, image size) of what the boot code loads on this SoC:
    the TCM image into the ITCM, else a main-RAM image."""
    return (cfg.firmware_layout, cfg.code_size) if cfg.tcm else ("ram", cfg.main_ram_size)


def target(board, core):
    """The checked target: an FPGA board, a known row, its board build there
    (the headers the firmware builds against); the clock the bitstream was
    built for (its report), else the board's default for the row's SoC."""
    b = registry.fpga_board(board)
    info = row_info(core)
    d = boardbuild.board_dir(board, core)
    if not os.path.isdir(os.path.join(d, "software", "include")):
        raise BenchError(f"no {board} build for core '{core}': run `irqlab build --board {board} --core {core}` "
                         f"and load its bitstream first")
    built = boardreport.read(board, core)
    clock_hz = built["sys_clk_mhz"] * 1e6 if built and "sys_clk_mhz" in built else b.clock_hz(info.soc)
    return Target(b, core, d, clock_hz)


def check_port(port, baudrate=None):
    """Open the board's serial device once and close it, so a wrong or busy
    one fails in one line before anything is built (a socket:// peer, the
    tests' stand-in board, takes one connection: only its URL is checked)."""
    from urllib.parse import urlparse
    from irqlab.host.capture import open_stream
    if urlparse(port).scheme == "socket":
        u = urlparse(port)
        if not u.hostname or not u.port:
            raise CaptureError(f"bad socket URL '{port}' (expected socket://host:port)")
        return
    open_stream(port, baudrate or 115200).close()


def build_image(t, app, config=None, progress=None):
    """Firmware application `app` built for the target and padded to what
    the boot code loads, its configuration block patched with `config`:
    (image, the configuration it runs with)."""
    layout, size = t.load
    if progress:
        progress.step(f"{t.name}: building the firmware {app} ({layout} layout)")
    fw = firmware.build(t.core, app, t.include, os.path.join(t.dir, "fw", f"{t.core}-{app}-{layout}"),
                        layout=layout)
    image = fwimage.load_image(fw, size)
    if config:
        fwimage.patch_config(image, size, **config)
    runs_with = fwimage.read_config(image, size)
    if layout != "ram":
        # Into the ITCM, which keeps it across a reset: after one it waits
        # for the host instead of running again (fw/common/boot.c). How it
        # came, not what it runs: left out of the configuration it reports.
        fwimage.patch_config(image, size, flags=runs_with["flags"] | FLAG_BOOT_WAIT)
    return image, runs_with


def load_and_capture(t, port, image, trace_path, baudrate=None, max_seconds=600, progress=None,
                     respond=None, what="the firmware"):
    """Send `image` to the boot code over `port` and capture the trace into
    `trace_path` until the firmware's exit line: (records, capture stats,
    console in .console). `respond`: the conversation with the firmware
    while it runs (trace/capture.py). An exit other than 0, or no exit line
    by `max_seconds`, is a BenchError that shows the console's end."""
    if progress:
        progress.step(f"{t.name}: loading {what} over {port} and capturing the trace")
    records = []
    stats = capture(port, trace_path, baudrate=baudrate or t.board.link.baudrate, max_seconds=max_seconds,
                    records=records, send=fwimage.load_frame(image), until_console=EXIT_LINE, respond=respond,
                    on_progress=(lambda st: progress.update(f"{st.records} records")) if progress else None)
    if progress:
        progress.done()
    if f"{EXIT_LINE} 0" not in stats.console:
        raise BenchError(f"{t.name}: {what} did not finish (console so far: {stats.console[-300:]!r}); "
                         f"is the bitstream loaded, the board reset and the port right?")
    return records, stats


# fw/common/boot.c's line as it takes an image: "loaded N bytes" (into main
# RAM, received), "loading N bytes into the ITCM" (before the transfer).
BOOT_LOAD_LINE = "irqlab boot: load"
# From that line to the firmware's ready line: an ITCM image's transfer and
# the firmware's start, well under a second on a board at 3 Mbaud, up to a
# minute on the board twin; longer is a firmware that hangs or is not the
# one built for this board and core (the captures' own limits are 15 and
# 60 minutes).
READY_WITHIN_S = 300.0


class ConsoleWatch:
    """A `respond` for load_and_capture (or a step of one) that sets `seen` (a
    threading.Event) once the firmware's console has printed `text`: the host
    (the Modbus master, the PTO demo's commands) starts when the firmware is
    ready, not when the load was sent, so the load's length (seconds on a
    board, minutes on the board twin) counts against no timeout. Once the
    boot code has taken the image, the firmware has `within_s` seconds to
    print it, else a BenchError ends the capture (capture calls this at
    least every 0.2 s)."""

    KEEP = 300                      # console characters kept: the text's search and the error's excerpt

    def __init__(self, text, within_s=None):
        self.text = text
        self.within_s = READY_WITHIN_S if within_s is None else within_s
        self.seen, self._tail, self._loaded_at = threading.Event(), "", None

    def __call__(self, decoded):
        for r in decoded:
            if r.type == TYPE_CONSOLE and not self.seen.is_set():
                self._tail = (self._tail + chr(r.payload & 0xFF))[-self.KEEP:]
                if self._loaded_at is None and BOOT_LOAD_LINE in self._tail:
                    self._loaded_at = time.monotonic()
                if self.text in self._tail:
                    self.seen.set()
        if (not self.seen.is_set() and self._loaded_at is not None
                and time.monotonic() - self._loaded_at > self.within_s):
            raise BenchError(f"the firmware was loaded but has not printed {self.text!r} in {self.within_s:.0f} s "
                             f"(console: {self._tail[-160:]!r}); is it the build for this board and core?")
        return None

