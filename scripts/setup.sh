#!/usr/bin/env bash
# Installs what irqlab needs and is missing; fast and silent when nothing is.
#   Debian packages: the simulator, the RISC-V compiler, a C++ toolchain, clang
#   with libFuzzer's runtime (libclang-rt-14-dev on Debian 12: tests/test_modbus_fuzz.py).
#   .venv: the pinned Python dependencies and irqlab itself (editable).
set -euo pipefail
cd "$(dirname "$0")/.."

DEB_PACKAGES=(verilator gcc-riscv64-unknown-elf make g++ python3-venv git qemu-user sigrok-cli clang libclang-rt-14-dev)
read -r -a DEB_EXTRA <<< "${IRQLAB_DEB_EXTRA:-}"; DEB_PACKAGES+=("${DEB_EXTRA[@]}")   # scripts/test.sh: the tests' own

missing=()
for p in "${DEB_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Java and Maven build the project's own core (cores/); any install on PATH will do.
command -v mvn >/dev/null || missing+=(maven)
command -v java >/dev/null || missing+=(default-jdk-headless)
# python3-venv may be absent where Python does not come from Debian (pyenv):
# what matters is that `python3 -m venv` works.
if [[ " ${missing[*]} " == *" python3-venv "* ]] && python3 -c "import venv, ensurepip" 2>/dev/null; then
    missing=("${missing[@]/python3-venv}")
    read -r -a missing <<< "${missing[*]}"
fi
if [ ${#missing[@]} -gt 0 ]; then
    echo "irqlab setup: installing Debian packages: ${missing[*]}"
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO=sudo; else
            echo "irqlab setup: not root. Run as root, or first: sudo apt-get install -y ${missing[*]}" >&2
            exit 1
        fi
    else SUDO=""; fi
    if ! { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null; }; then
        echo "irqlab setup: apt-get failed (no network or no Debian mirror?). Install by hand: ${missing[*]}" >&2
        exit 1
    fi
fi

# The virtualenv, rebuilt when the requirements or the package metadata change.
want=$(cat requirements.txt pyproject.toml | sha256sum | cut -c1-16)
if [ "$(cat .venv/.irqlab-stamp 2>/dev/null)" != "$want" ]; then
    echo "irqlab setup: creating .venv with the pinned Python dependencies"
    [ -x .venv/bin/python ] || python3 -m venv .venv
    if ! { .venv/bin/python -m pip install -q -r requirements.txt &&
           .venv/bin/python -m pip install -q --no-deps -e . ; } > .venv/setup.log 2>&1; then
        tail -n 15 .venv/setup.log >&2
        echo "irqlab setup: pip install failed (no network, or PyPI unreachable?); log: .venv/setup.log" >&2
        exit 1
    fi
    echo "$want" > .venv/.irqlab-stamp
fi
