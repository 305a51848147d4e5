"""The SoC's memories as the host sees them: name, origin and size of each,
read from the SoC's facts (soc.json, `sim.Model.facts`), never restated."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Memory:
    name: str       # the bus region and the Verilog memory: rom, sram, main_ram
    origin: int
    size: int

    @property
    def end(self):
        return self.origin + self.size

    def holds(self, addr, length):
        """[addr, addr + length) lies inside this memory."""
        return self.origin <= addr and addr + length <= self.end

    def __str__(self):
        return f"{self.name} 0x{self.origin:08x}-0x{self.end - 1:08x} ({self.size} bytes)"


def memories(facts):
    """The SoC's memories in address order."""
    return sorted((Memory(name, m["origin"], m["size"]) for name, m in facts["memory"].items()),
                  key=lambda m: m.origin)


def holding(mems, addr, length=1):
    """The memory that holds [addr, addr + length), or None."""
    for m in mems:
        if m.holds(addr, max(length, 1)):
            return m
    return None


def containing(mems, addr):
    """The memory whose range contains addr (the start of a range), or None."""
    return holding(mems, addr, 1)


def describe(mems):
    return ", ".join(str(m) for m in mems)
