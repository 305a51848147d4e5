# irqlab: the two commands of the README, and a few helpers.
#   make bench   install what is missing, build, run the benchmark in simulation, print the table
#   make test    the test suite (what CI runs)
#   make bitstream BOARD=ulx3s|arty CORE=vexriscv    a board build (bitstreams/)
VENV := .venv
IRQLAB := $(VENV)/bin/irqlab
PYTEST_ARGS ?=
# The ULX3S place and route (tests marked fpga, ~15 min in WebAssembly) is not
# part of `make test`: it does not fit CI's 30 minutes beside the simulations.
# `make test-boards` runs it.
PYTEST_MARKS ?= not fpga

BOARD ?= ulx3s
CORE ?= vexriscv

.PHONY: all setup bench test test-boards bitstream load clean distclean

all: bench

setup:
	@bash scripts/setup.sh

bench: setup
	$(IRQLAB) bench

test: setup
	$(VENV)/bin/python -m pytest -q -m "$(PYTEST_MARKS)" $(PYTEST_ARGS) tests

test-boards: setup
	$(VENV)/bin/python -m pytest -q -m fpga tests/test_boards.py

bitstream: setup
	$(IRQLAB) build --board $(BOARD) --core $(CORE)

load: setup
	$(IRQLAB) load --board $(BOARD) --core $(CORE)

clean:
	rm -rf build results

distclean: clean
	rm -rf $(VENV)
