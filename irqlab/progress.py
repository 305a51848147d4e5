"""One status line for long work: rewritten in place on a terminal, a plain
line per step otherwise (CI logs). Safe to share between the threads of
rows that run side by side (irqlab/parallel.py): steps are whole lines, and
the live line shows each thread's latest detail."""

import sys
import threading
import time


class Progress:
    def __init__(self, stream=sys.stderr):
        self.stream = stream
        self.tty = stream.isatty()
        self.t0 = time.monotonic()
        self.last = ""
        self.live = {}                  # thread -> its latest detail
        self.lock = threading.RLock()

    def step(self, msg):
        """A new step: always printed."""
        with self.lock:
            self._clear()
            self.stream.write(f"[{time.monotonic() - self.t0:6.1f}s] {msg}\n")
            self.stream.flush()
            self._draw()

    def update(self, msg):
        """Live detail inside a step: only on a terminal."""
        if not self.tty:
            return
        with self.lock:
            self.live[threading.get_ident()] = msg
            self._draw()

    def _draw(self):
        if not self.tty or not self.live:
            return
        line = f"[{time.monotonic() - self.t0:6.1f}s] {' | '.join(self.live.values())}"[:120]
        self.stream.write("\r" + line.ljust(len(self.last)))
        self.stream.flush()
        self.last = line

    def _clear(self):
        if self.tty and self.last:
            self.stream.write("\r" + " " * len(self.last) + "\r")
            self.last = ""

    def done(self):
        """This thread's live detail ends."""
        with self.lock:
            self.live.pop(threading.get_ident(), None)
            self._clear()
            self._draw()


class LogSteps:
    """Names the step a long tool run is in, from the lines it prints:
    `patterns` is a list of (compiled regex, step name); the first line that
    matches a step other than the current one starts that step. Every line
    is also shown as live detail on a terminal."""

    def __init__(self, progress, prefix, patterns, first=None):
        self.progress, self.prefix, self.patterns = progress, prefix, patterns
        self.current = first            # the step the tool starts in, shown before it prints anything
        if first and progress is not None:
            progress.step(f"{prefix}: {first}")

    def feed(self, line):
        if self.progress is None:
            return
        for regex, name in self.patterns:
            if name != self.current and regex.search(line):
                self.current = name
                self.progress.step(f"{self.prefix}: {name}")
                break
        self.progress.update(f"{self.current or self.prefix}: {line.strip()}")

    def done(self):
        if self.progress is not None:
            self.progress.done()
