"""One status line for long work: rewritten in place on a terminal, a plain
line per step otherwise (CI logs)."""

import sys
import time


class Progress:
    def __init__(self, stream=sys.stderr):
        self.stream = stream
        self.tty = stream.isatty()
        self.t0 = time.monotonic()
        self.last = ""

    def step(self, msg):
        """A new step: always printed."""
        self._clear()
        self.stream.write(f"[{time.monotonic() - self.t0:6.1f}s] {msg}\n")
        self.stream.flush()

    def update(self, msg):
        """Live detail inside a step: only on a terminal."""
        if not self.tty:
            return
        line = f"[{time.monotonic() - self.t0:6.1f}s] {msg}"[:120]
        self.stream.write("\r" + line.ljust(len(self.last)))
        self.stream.flush()
        self.last = line

    def _clear(self):
        if self.tty and self.last:
            self.stream.write("\r" + " " * len(self.last) + "\r")
            self.last = ""

    def done(self):
        self._clear()
