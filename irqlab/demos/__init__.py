"""The demos: real control work on the SoC (`irqlab demo NAME`), each a package
with its simulation runner (sim) and its board runner (board)."""
