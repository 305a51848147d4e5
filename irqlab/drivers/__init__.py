"""Running firmware: the Verilator simulation (sim), a board over its serial
link (board), and a user's own ELF program (userprog, elfimage, memmap)."""
