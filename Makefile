# irqlab: the two commands of the README, and a few helpers.
#   make bench   install what is missing, build, run the benchmark in simulation, print the table
#   make test    the test suite (what CI runs)
VENV := .venv
IRQLAB := $(VENV)/bin/irqlab
PYTEST_ARGS ?=

.PHONY: all setup bench test clean distclean

all: bench

setup:
	@bash scripts/setup.sh

bench: setup
	$(IRQLAB) bench

test: setup
	$(VENV)/bin/python -m pytest -q $(PYTEST_ARGS) tests

clean:
	rm -rf build results

distclean: clean
	rm -rf $(VENV)
