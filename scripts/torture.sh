#!/usr/bin/env bash
# `make torture`: the random-interrupt torture (tests/test_torture.py) as a
# soak: every row it covers (the own core's CLIC rows but RV32E's, whose
# workload needs x1..x31) for at least 10^7 cycles per seed.
#   TORTURE_SEEDS=0x1d5,0x2a  the seeds (default: four fresh ones, printed first
#                             and kept in build/torture/seeds.log, so that a
#                             failure is reproduced with TORTURE_SEEDS=<its seed>)
#   TORTURE_SCALE=8           the factor on every row's workload length
#   TEST_JOBS=2               rows side by side (one pytest each)
set -uo pipefail
cd "$(dirname "$0")/.."

seeds=${TORTURE_SEEDS:-}
if [ -z "$seeds" ]; then
    seeds=$(od -An -N16 -tx4 /dev/urandom | awk '{for (i = 1; i <= NF; i++) printf "%s0x%s", (i > 1 ? "," : ""), $i}')
fi
mkdir -p build/torture
echo "$(date -u +%FT%TZ) seeds $seeds scale ${TORTURE_SCALE:-8}" >> build/torture/seeds.log
echo "make torture: seeds $seeds (reproduce one: make torture TORTURE_SEEDS=<seed>)"

export IRQLAB_TORTURE_SEEDS="$seeds" IRQLAB_TORTURE_SCALE="${TORTURE_SCALE:-8}" IRQLAB_TORTURE_MIN_CYCLES=10000000
# The rows, as the test collects them (ids ROW-seedS): one pytest per row,
# TEST_JOBS at once, each row's log in build/torture/ROW.log.
rows=$(.venv/bin/python -m pytest --co -q tests/test_torture.py | sed -n 's/.*\[\(.*\)-seed0x[0-9a-f]*\]$/\1/p' | sort -u)
[ -n "$rows" ] || { echo "make torture: no torture test collected" >&2; exit 1; }
echo "make torture: rows" $rows
printf '%s\n' $rows | xargs -P "${TEST_JOBS:-2}" -I{} sh -c \
    '.venv/bin/python -m pytest -q -k "{}-seed" tests/test_torture.py > build/torture/{}.log 2>&1 \
     && echo "make torture: {} passed" || { echo "make torture: {} FAILED (build/torture/{}.log)"; exit 1; }'
