"""Who drives which interrupt input of the core (with a CLIC: which CLIC source).

The SoC's `add_<peripheral>()` methods claim their lines here; nothing else
picks interrupt numbers. What it hands out reaches the firmware as
`IRQLAB_IRQ_<NAME>` (first line), `IRQLAB_IRQ_<NAME>_COUNT` (lines claimed),
`IRQLAB_IRQ_<NAME>_<i>` (each line, so C can paste it into a handler name) and
`IRQLAB_IRQ_FIRST_FREE` (the first line no peripheral drives) and
`IRQLAB_IRQ_LINES` (interrupt inputs, or CLIC sources, in all), and the tests
through the SoC's facts (`facts()`).
"""

from irqlab.errors import BuildError


class IrqMap:
    def __init__(self, n_lines, reserved=()):
        """n_lines: interrupt inputs; reserved: lines other code owns
        (LiteX's own IRQ manager places its peripherals, the UART, there)."""
        self.n_lines = n_lines
        self.reserved = set(reserved)
        self.claims = {}          # name -> (first, count), in claim order
        self.top = set()          # claims taken from the top of the range

    def _taken(self):
        taken = set(self.reserved)
        for first, count in self.claims.values():
            taken.update(range(first, first + count))
        return taken

    def claim(self, name, count=1, at=None, top=False):
        """Lines first..first+count-1 for `name`: at `at` if given (a line
        whose number means something, like the machine timer's 7), else the
        lowest free run, or with `top` the highest (a late peripheral that
        must not move IRQLAB_IRQ_FIRST_FREE, which the firmware's tests count
        their software sources from). Returns first."""
        if name in self.claims:
            raise BuildError(f"interrupt '{name}' claimed twice")
        taken = self._taken()
        starts = [at] if at is not None else range(self.n_lines - count + 1)
        if top and at is None:
            starts = reversed(starts)
        for first in starts:
            lines = range(first, first + count)
            if first + count <= self.n_lines and not taken.intersection(lines):
                self.claims[name] = (first, count)
                if top:
                    self.top.add(name)
                return first
        where = f"at {at}" if at is not None else "anywhere"
        raise BuildError(f"no {count} free interrupt line(s) {where} for '{name}' "
                         f"({self.n_lines} lines, taken: {sorted(taken)})")

    def line(self, name, index=0):
        first, count = self.claims[name]
        assert 0 <= index < count
        return first + index

    @property
    def first_free(self):
        """The first line above every claim (but those from the top) and
        every reservation."""
        taken = set(self.reserved)
        for name, (first, count) in self.claims.items():
            if name not in self.top:
                taken.update(range(first, first + count))
        return max(taken) + 1 if taken else 0

    def constants(self):
        out = {}
        for name, (first, count) in self.claims.items():
            key = "IRQLAB_IRQ_" + name.upper()
            out[key] = first
            if count > 1:
                out[key + "_COUNT"] = count
                out.update({f"{key}_{i}": first + i for i in range(count)})
        out["IRQLAB_IRQ_FIRST_FREE"] = self.first_free
        out["IRQLAB_IRQ_LINES"] = self.n_lines
        return out

    def facts(self):
        return {"lines": self.n_lines, "reserved": sorted(self.reserved),
                "claims": {n: {"first": f, "count": c} for n, (f, c) in self.claims.items()},
                "first_free": self.first_free}
