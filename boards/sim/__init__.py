"""The simulation target (target.py: the SoC under Verilator)."""

from irqlab.boards.descriptor import BoardDescriptor

# Verilator counts cycles; the clock only converts them to ns.
BOARD = BoardDescriptor(name="sim", title="simulation", flow="sim", default_clock_hz=100e6, bus_stress=True)
