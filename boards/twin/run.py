"""Running the board twin (boards/twin/target.py builds it): the model in the
background, its serial link (and the Modbus UART's pins) on sockets whose
pyserial URLs the host's board path takes as `--port` (`--modbus-port`).

    with running("ulx3s", "clic") as twin:
        bench_board("ulx3s", "clic", twin.serial_url)

The host's board path finds the SoC's headers in the board build's folder
(irqlab/flows/build.py board_dir); `install_headers` puts the twin's there
when that folder has none, and refuses a folder of another SoC.
"""

import contextlib
import json
import os
import shutil
import subprocess
import threading

from irqlab import paths
from irqlab.boards.twin import target
from irqlab.errors import BenchError

READY = "irqlab-twin: ready"
# The files of a board build that the host's board path reads: the headers
# the firmware builds against, and the SoC's facts.
HEADER_FILES = ("software", "csr.json", "csr.csv", "soc.json")
# What must be equal for a board build's headers to be the twin's SoC
# (the headers themselves carry the generation's date and revision).
SAME_SOC = ("csr.json", "soc.json")


class Running:
    """A started twin: its URLs, its log, stop()."""

    def __init__(self, twin, proc, urls, log_path):
        self.twin, self.proc, self.urls, self.log_path = twin, proc, urls, log_path

    @property
    def serial_url(self):
        return self.urls["serial"]

    @property
    def modbus_url(self):
        return self.urls.get("modbus")

    def log(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _same_soc(a, b):
    for name in SAME_SOC:
        try:
            with open(os.path.join(a, name)) as fa, open(os.path.join(b, name)) as fb:
                if json.load(fa) != json.load(fb):
                    return False
        except OSError:
            return False
    return True


def install_headers(twin, build_root=None):
    """The twin's SoC headers in the board build's folder under `build_root`
    (default the build tree), if it has none; a BenchError if it holds
    another SoC's. Returns that folder."""
    from irqlab.flows import build as boardbuild
    rel = os.path.relpath(boardbuild.board_dir(twin.board.name, twin.core), paths.BUILD)
    d = os.path.join(build_root or paths.BUILD, rel)
    if os.path.isdir(os.path.join(d, "software", "include")):
        if not _same_soc(d, twin.project):
            raise BenchError(f"{d} holds the headers of another {twin.name} SoC than the twin's ({', '.join(SAME_SOC)} "
                             f"differ): build the board again (irqlab build) or remove that folder")
        return d
    os.makedirs(d, exist_ok=True)
    for name in HEADER_FILES:
        src, dst = os.path.join(twin.project, name), os.path.join(d, name)
        if os.path.isdir(src):
            shutil.copytree(src, dst, dirs_exist_ok=True)
        else:
            shutil.copy(src, dst)
    return d


def start(twin, serial_port=0, modbus_port=None, modbus_baud=None, baud=None, once=False, log_path=None,
          timeout=60, rx_gap=0):
    """Start the twin's model in the background; returns Running once it listens.
    `baud`: the serial bridge's rate (default the board's link); a Modbus
    bridge when the SoC has a Modbus UART and `modbus_baud` is given."""
    log_path = log_path or os.path.join(twin.dir, "twin.log")
    cmd = [twin.binary, "--serial-port", str(serial_port), "--baud", str(baud or twin.baudrate),
           "--clock-hz", str(twin.clock_hz)]
    if modbus_baud:
        if not twin.facts.get("modbus"):
            raise BenchError(f"{twin.name}: the SoC has no Modbus UART")
        cmd += ["--modbus-port", str(modbus_port or 0), "--modbus-baud", str(modbus_baud)]
    if once:
        cmd.append("--once")
    if rx_gap:
        cmd += ["--rx-gap", str(rx_gap)]
    log = open(log_path, "w")
    proc = subprocess.Popen(["nice", "-n", "10"] + cmd, cwd=twin.gateware, stdout=subprocess.PIPE,
                            stderr=log, text=True)
    log.close()
    urls = {}
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    try:
        for line in proc.stdout:
            line = line.strip()
            if line == READY:
                break
            if line.startswith("irqlab-twin: ") and "socket://" in line:
                what, url = line.split()[1:3]
                urls[what] = url
    finally:
        timer.cancel()
    if "serial" not in urls:
        proc.kill()
        proc.wait()
        with open(log_path, errors="replace") as f:
            tail = (f.read().strip().splitlines() or ["(no output)"])[-1]
        raise BenchError(f"{twin.name}: the twin did not start: {tail}")
    return Running(twin, proc, urls, log_path)


@contextlib.contextmanager
def running(board, core, progress=None, **kw):
    """Build the twin if needed, start it, yield Running, stop it."""
    twin = target.prepare(board, core, progress)
    r = start(twin, **kw)
    try:
        yield r
    finally:
        r.stop()


def serve(board, core, port=0, baud=None, modbus_port=0, modbus_baud=None, progress=None, out=print, rx_gap=0):
    """`irqlab twin`: build, start, say the URLs, pass the twin's session
    lines on, until interrupted (or the twin ends)."""
    import time
    twin = target.prepare(board, core, progress)
    headers = install_headers(twin)
    has_modbus = bool(twin.facts.get("modbus"))
    mb_baud = (modbus_baud or twin.facts["modbus"]["default_baud"]) if has_modbus else None
    r = start(twin, serial_port=port, baud=baud, modbus_port=modbus_port, modbus_baud=mb_baud, rx_gap=rx_gap)
    out(f"irqlab twin: {twin.name} at {twin.clock_hz / 1e6:g} MHz (one simulated cycle = {1e9 / twin.clock_hz:g} ns); "
        f"headers for the host in {os.path.relpath(headers, paths.ROOT)}")
    out(f"  serial link, {baud or twin.baudrate} baud 8N1 (--port):  {r.serial_url}"
        + (f" ({rx_gap} idle cycles after each character to the board)" if rx_gap else ""))
    if r.modbus_url:
        out(f"  Modbus UART, {mb_baud} baud 8E1 (--modbus-port): {r.modbus_url}")
    out(f"  e.g. irqlab bench --board {board} --cores {core} --port {r.serial_url}")
    out("  each connection to the serial socket is one run after a reset; Ctrl-C ends the twin")
    seen = 0
    try:
        while r.proc.poll() is None:
            time.sleep(0.5)
            text = r.log()
            for line in text[seen:].splitlines(keepends=True):
                if not line.endswith("\n"):
                    break
                out(line.rstrip())
                seen += len(line)
    finally:
        r.stop()
    return r.proc.returncode or 0
