"""A stand-in board for the board path's tests: a TCP listener on
127.0.0.1 that takes one connection (pyserial's socket:// URL) and reads the
boot code's load frame as fw/common/boot.c would: 'L', the length and the
CRC-32 (little endian), then the image."""

import socket
import threading
import zlib


def recv_exact(c, n):
    buf = b""
    while len(buf) < n:
        got = c.recv(n - len(buf))
        if not got:
            raise EOFError
        buf += got
    return buf


class StandInBoard(threading.Thread):
    """Subclasses implement run(): accept, read_load_frame, answer."""

    def __init__(self):
        super().__init__(daemon=True)
        self.srv = socket.socket()
        self.srv.bind(("127.0.0.1", 0))
        self.srv.listen(1)
        self.port = self.srv.getsockname()[1]
        self.frame_ok = None

    def url(self):
        return f"socket://127.0.0.1:{self.port}"

    def read_load_frame(self, c, size):
        """The image of the load frame on c; frame_ok: a well-formed frame
        of `size` bytes whose CRC matches."""
        head = recv_exact(c, 9)
        n = int.from_bytes(head[1:5], "little")
        image = recv_exact(c, n)
        self.frame_ok = head[:1] == b"L" and n == size and zlib.crc32(image) == int.from_bytes(head[5:9], "little")
        return image
