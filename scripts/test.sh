#!/usr/bin/env bash
# `make test`: the test suite in two lanes that start together.
#   lane 1  the tests marked `fpga` (the ULX3S bitstream: 25-40 minutes of
#           single-threaded place and route) on one core, from the first second;
#   lane 2  everything else, on the remaining TEST_JOBS-1 workers (pytest-xdist,
#           one test file per worker at a time) or in this process.
# Why two processes instead of one xdist pool: xdist hands each worker a batch of
# files up front and never takes them back, so the files queued behind the
# bitstream on its worker would wait the whole build out (CI's 60 minutes).
# With PYTEST_MARKS set, or TEST_JOBS=1, one lane runs what it selects.
# Lane 1's output goes to build/test-fpga.log and is printed when both are done;
# the exit status is non-zero when either lane fails.
set -uo pipefail
cd "$(dirname "$0")/.."

# The tests' own Debian packages, beside the ones `make bench` needs too (scripts/setup.sh):
# headless Chromium loads the HTML report (tests/test_report_browser.py).
DEB_TEST_PACKAGES=(chromium)
IRQLAB_DEB_EXTRA="${DEB_TEST_PACKAGES[*]}" bash scripts/setup.sh || exit 1

PY=.venv/bin/python
JOBS=${TEST_JOBS:-2}

source scripts/tree_guard.sh
tree_before
MARKS=${PYTEST_MARKS:-}
read -r -a EXTRA <<< "${PYTEST_ARGS:-}"
COMMON=(-q --durations=15 "${EXTRA[@]}")

pool() {   # pytest on N workers (N <= 1: in this process)
    local n=$1; shift
    if [ "$n" -gt 1 ]; then
        "$PY" -m pytest -n "$n" --dist loadfile "$@"
    else
        "$PY" -m pytest "$@"
    fi
}

if [ -n "$MARKS" ] || [ "$JOBS" -le 1 ]; then
    exec_marks=()
    [ -n "$MARKS" ] && exec_marks=(-m "$MARKS")
    pool "$JOBS" "${COMMON[@]}" "${exec_marks[@]}" tests
    rc=$?
    tree_unchanged || { [ "$rc" -ne 0 ] || rc=1; }
    exit $rc
fi

mkdir -p build
LOG=build/test-fpga.log
echo "make test: the FPGA tests (ULX3S bitstream) run beside the others; their output: $LOG"
"$PY" -m pytest "${COMMON[@]}" -m fpga tests > "$LOG" 2>&1 &
FPGA_PID=$!
trap 'kill "$FPGA_PID" 2>/dev/null' INT TERM

pool $((JOBS - 1)) "${COMMON[@]}" -m "not fpga" tests
rest=$?

start=$SECONDS
while kill -0 "$FPGA_PID" 2>/dev/null; do   # progress while only the bitstream is left
    flow=$(find build/boards -name flow.log -newer "$LOG" 2>/dev/null | head -1)   # this run's build
    last=$([ -n "$flow" ] && grep -a "^Info: \|^[0-9.]* *Executing" "$flow" | tail -1 | cut -c1-100)
    echo "make test: waiting for the FPGA tests ($(( (SECONDS - start) / 60 )) min): ${last:-starting}"
    sleep 60 & wait $!
done
wait "$FPGA_PID"
fpga=$?
echo "---- FPGA tests ($LOG) ----"
cat "$LOG"
tree=0
tree_unchanged || tree=1
if [ "$rest" -ne 0 ] || [ "$fpga" -ne 0 ] || [ "$tree" -ne 0 ]; then
    echo "make test: FAILED (other tests: exit $rest, FPGA tests: exit $fpga, tree changed: $tree)" >&2
    exit 1
fi
