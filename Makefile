# irqlab: the two commands of the README, and a few helpers.
#   make bench   install what is missing, build, run the benchmarks in simulation, print the tables
#                (the latency table, then the context-switch table)
#   make test    the test suite (what CI runs)
#   make bench-all  the measurement matrix too: seed 004's test cases T4-T7 on every row
#   make bitstream BOARD=ulx3s|arty CORE=vexriscv    a board build (bitstreams/)
VENV := .venv
IRQLAB := $(VENV)/bin/irqlab
PYTEST_ARGS ?=
# `make test` includes the ULX3S bitstream of the clic SoC (tests marked fpga,
# about 25 min of place and route in WebAssembly, on one core): CI's budget is
# 60 minutes on 2 cores, so scripts/test.sh starts the fpga tests at once on
# one core and runs the others beside them on TEST_JOBS-1 workers.
# `make test PYTEST_MARKS="not fpga"` leaves it out; `make test-boards` runs
# only the board tests (both boards' builds and flows).
PYTEST_MARKS ?=
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 2)

BOARD ?= ulx3s
CORE ?= vexriscv

.PHONY: all setup bench bench-all test test-boards bitstream load clean distclean

all: bench

setup:
	@bash scripts/setup.sh

bench: setup
	$(IRQLAB) bench --suite all

bench-all: setup
	$(IRQLAB) bench --suite matrix --out results/matrix
	$(IRQLAB) bench --suite ctxsw

test: setup
	TEST_JOBS="$(TEST_JOBS)" PYTEST_MARKS="$(PYTEST_MARKS)" PYTEST_ARGS="$(PYTEST_ARGS)" bash scripts/test.sh

test-boards: setup
	$(VENV)/bin/python -m pytest -q tests/test_boards.py tests/test_arty_board.py tests/test_xilinx_flow.py tests/test_board_registry.py tests/test_flowlogs.py

bitstream: setup
	$(IRQLAB) build --board $(BOARD) --core $(CORE)

load: setup
	$(IRQLAB) load --board $(BOARD) --core $(CORE)

clean:
	rm -rf build results

distclean: clean
	rm -rf $(VENV)
