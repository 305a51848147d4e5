"""Capture a trace byte stream from the simulator or a board.

URLs: `socket://host:port` (the simulator's trace socket) or anything pyserial
understands (`/dev/ttyUSB0`, `rfc2217://...`, `loop://`). The capture is
written to a temporary file and renamed into place only when it is complete,
so an interrupted capture leaves nothing half-written behind.
"""

import os
import socket
import time
from urllib.parse import urlparse

from irqlab.errors import CaptureError
from irqlab.host.decode import Decoder
from irqlab.host.record import TYPE_CONSOLE


class _SocketStream:
    """Raw TCP: unlike pyserial's socket:// handler it keeps the bytes that
    arrive together with the peer's close."""

    def __init__(self, host, port, connect_timeout, peer_gone=None):
        deadline = time.monotonic() + connect_timeout
        while True:
            try:
                self.sock = socket.create_connection((host, port), timeout=2)
                break
            except OSError as e:
                # A peer that has ended will never listen: say so at once.
                gone = peer_gone() if peer_gone else None
                if gone:
                    raise CaptureError(f"cannot connect to {host}:{port}: {gone}") from None
                if time.monotonic() >= deadline:
                    raise CaptureError(f"cannot connect to {host}:{port}: {e.strerror or e}") from None
                time.sleep(0.1)

    def read_some(self, timeout):
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(1 << 16)
        except socket.timeout:
            return b""
        except OSError as e:
            raise CaptureError(f"trace socket failed: {e.strerror or e}") from None
        return None if data == b"" else data

    def write(self, data):
        self.sock.sendall(data)

    def close(self):
        self.sock.close()


class _SerialStream:
    def __init__(self, url, baudrate):
        import serial
        try:
            self.ser = serial.serial_for_url(url, baudrate=baudrate, timeout=0.2)
        except (serial.SerialException, ValueError) as e:
            raise CaptureError(f"cannot open '{url}': {e}") from None

    def read_some(self, timeout):
        self.ser.timeout = timeout
        return self.ser.read(max(1, self.ser.in_waiting))

    def write(self, data):
        self.ser.write(data)
        self.ser.flush()

    def close(self):
        self.ser.close()


def open_stream(url, baudrate=3_000_000, connect_timeout=10.0, peer_gone=None):
    """`peer_gone()`: for a socket, why the peer will never listen (a
    process that has ended), or None while it may still."""
    u = urlparse(url)
    if u.scheme == "socket":
        if not u.hostname or not u.port:
            raise CaptureError(f"bad socket URL '{url}' (expected socket://host:port)")
        return _SocketStream(u.hostname, u.port, connect_timeout, peer_gone)
    return _SerialStream(url, baudrate)


def capture(url, out_path, idle_timeout=None, max_seconds=None, on_progress=None,
            baudrate=3_000_000, connect_timeout=10.0, send=None, until_console=None, on_console=None,
            records=None, respond=None, peer_gone=None):
    """Read until the peer closes (simulator), `idle_timeout` seconds without
    data, `max_seconds`, or (boards) until the console text carried in the
    trace contains `until_console` (then 0.5 s more to drain). `send` is
    written to the link first (e.g. a firmware load frame). Returns the live
    decoder's statistics; its console text is in .console. Given a list as
    `records`, the decoded records are appended to it, so the caller need
    not decode the file again. `respond(decoded)`: called after every read
    (at least every 0.2 s) with the records it decoded, maybe none; bytes it
    returns are written to the link (a
    conversation with the firmware: the PTO demo's next train on a board)."""
    stream = open_stream(url, baudrate, connect_timeout, peer_gone)
    decoder = Decoder()
    console = []
    stop_at = None
    tmp = out_path + ".part"
    t0 = last_data = time.monotonic()
    try:
        if send:
            stream.write(send)
        with open(tmp, "wb") as f:
            while True:
                data = stream.read_some(0.2)
                now = time.monotonic()
                if data is None:
                    break
                if data:
                    f.write(data)
                    decoded = decoder.feed(data)
                    if records is not None:
                        records.extend(decoded)
                    for r in decoded:
                        if r.type == TYPE_CONSOLE:
                            ch = chr(r.payload & 0xFF)
                            console.append(ch)
                            if on_console:
                                on_console(ch)
                    last_data = now
                    if on_progress:
                        on_progress(decoder.stats)
                    if until_console and stop_at is None and until_console in "".join(console[-200:]):
                        stop_at = now + 0.5
                if respond:
                    reply = respond(decoded if data else [])
                    if reply:
                        stream.write(reply)
                if stop_at is not None and now >= stop_at:
                    break
                if idle_timeout is not None and now - last_data > idle_timeout:
                    break
                if max_seconds is not None and now - t0 > max_seconds:
                    break
        decoder.finish()
        decoder.stats.console = "".join(console)
        os.replace(tmp, out_path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    finally:
        stream.close()
    return decoder.stats
