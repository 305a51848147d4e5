"""The 32-bit Galois LFSR of the stimulus blocks (the interrupt generator's
arrival jitter, the bus-stress master's draws): x^32 + x^22 + x^2 + x + 1,
shifting right; never zero after a nonzero value."""

from migen import Cat, Mux

TAPS = 0x80200003


def step(value):
    """The next value of the 32-bit signal `value`, as a Migen expression."""
    return Cat(value[1:], 0) ^ Mux(value[0], TAPS, 0)


def model(x):
    """The next value of the integer x: the host-side model."""
    return (x >> 1) ^ (TAPS if x & 1 else 0)
