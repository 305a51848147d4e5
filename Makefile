# irqlab: the two commands of the README, and a few helpers.
#   make bench   install what is missing, build, run the benchmarks in simulation, print the tables
#                (the latency table, then the context-switch table)
#   make test    the test suite (what CI runs)
#   make bench-all  the measurement matrix too: seed 004's test cases T4-T7 on every row
#   make bitstream BOARD=ulx3s|arty CORE=vexriscv    a board build (bitstreams/)
#   make record  record every result into docs/results/ (hours of simulation), then make readme
#   make readme  rewrite README.md's generated blocks from docs/results/ (python -m irqlab.readme)
#   make formal  the formal proofs and their negative controls alone (python -m formal; make test runs them too)
#   make twin    the host's board paths, unmodified, against the board twin (boards/twin/) of every ULX3S SoC
#                with a board build: the full benchmark per SoC, results in results/twin/; hours
#   make gatelevel  the gate-level check of fastirq and clic (make test: fastirq): the synth_ecp5 netlist
#                against the RTL, record for record (boards/gatelevel/)
#   make levers  the pipeline levers, each alone on fastctx: the context-switch suite, the digits workload and
#                a ULX3S build per lever (python -m irqlab.suites.levers); 1-2 h; results/levers/
#   make torture the random-interrupt torture as a soak: every CLIC row, >= 10^7 cycles a seed, fresh
#                seeds printed first (TORTURE_SEEDS=... to reproduce; scripts/torture.sh); about 10 min
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

.PHONY: all setup bench bench-all test test-boards bitstream load readme record formal torture twin gatelevel levers clean distclean

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

readme: setup
	$(VENV)/bin/python -m irqlab.readme

# The recorded results (docs/results/): `make bench` and `make test` never
# write there; this target is the one way the recorded figures change.
record: setup
	$(IRQLAB) bench --suite all --out docs/results
	$(IRQLAB) bench --suite matrix --interrupts 2000 --out docs/results/matrix
	$(IRQLAB) bench --suite digits --cores clic,clic-rv32e,fastirq,vexriscv --out docs/results
	$(IRQLAB) demo pto --out docs/results
	$(IRQLAB) demo modbus --cores clint,clic,clic-nv,clic-rv32e,fastirq,fastirq-nv,fastirq-rv32e --frames 12 --out docs/results
	$(MAKE) readme

formal: setup
	$(VENV)/bin/python -m formal

torture: setup
	bash scripts/torture.sh

levers: setup
	$(VENV)/bin/python -m irqlab.suites.levers

twin: setup
	nice -n 10 $(VENV)/bin/python -m irqlab.boards.twin.suite --board ulx3s

gatelevel: setup
	GATELEVEL_SOCS=fastirq,clic $(VENV)/bin/python -m pytest -q -s tests/test_gatelevel.py

clean:
	rm -rf build results

distclean: clean
	rm -rf $(VENV)
