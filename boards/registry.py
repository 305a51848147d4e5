"""The boards irqlab knows, by name. Adding a board: a boards/<name>.py
with its `BOARD` descriptor (boards/descriptor.py) and one line here.

Modules are imported only when their board is asked for, so listing the
names costs nothing."""

import importlib

from irqlab.errors import UnknownName

BOARDS = {
    "sim": "irqlab.boards.sim",
    "ulx3s": "irqlab.boards.ulx3s",
    "arty": "irqlab.boards.arty",
}


class UnknownBoard(UnknownName):
    """A board name not in BOARDS (one line, exit 2)."""


def names():
    return list(BOARDS)


def board(name):
    """The descriptor of board `name`; UnknownBoard (one line) if there is none."""
    if name not in BOARDS:
        raise UnknownBoard(f"unknown board '{name}' (known: {', '.join(BOARDS)})")
    return importlib.import_module(BOARDS[name]).BOARD


def fpga_board(name):
    """As board(), for commands that need real hardware (not `sim`)."""
    b = board(name)
    if not b.is_fpga:
        fpga = [n for n in BOARDS if n != name and board(n).is_fpga]
        raise UnknownBoard(f"'{name}' is not an FPGA board (FPGA boards: {', '.join(fpga)})")
    return b
