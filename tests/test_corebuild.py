"""The project's own core: built from source (Maven + SpinalHDL + VexRiscv's
Scala sources from pythondata-cpu-vexriscv), cached, and lint-clean."""

import re
import shutil
import subprocess
import time

import pytest

from irqlab import corebuild

VARIANT = "clint"
TOP = f"IrqlabCore_{VARIANT}"
RETIRE_PORTS = {"retire_valid": 1, "retire_pc": 32, "retire_trap": 1, "retire_cause": 8, "retire_mret": 1}

pytestmark = pytest.mark.skipif(shutil.which("mvn") is None,
                                reason="mvn (Maven) is not installed: the cores are built with Maven")


@pytest.fixture(scope="module")
def verilog():
    return corebuild.build_core(VARIANT)   # cold: a few minutes; warm: cached


def _outputs(text):
    """name -> width of the top module's output ports."""
    top = text[text.index(f"module {TOP}"):]
    top = top[:top.index(");")]
    ports = {}
    for m in re.finditer(r"output\s+(?:wire|reg)?\s*(?:\[(\d+):0\])?\s*(\w+)", top):
        ports[m.group(2)] = int(m.group(1)) + 1 if m.group(1) else 1
    return ports


def test_generated(verilog):
    assert verilog.endswith(f"{TOP}.v")
    with open(verilog) as f:
        text = f.read()
    assert re.search(rf"^module {TOP}\b", text, re.M)
    outputs = _outputs(text)
    for name, width in RETIRE_PORTS.items():
        assert outputs.get(name) == width, f"{name}: {outputs.get(name)} bits, want {width}"
    # Wishbone buses and LiteX-style interrupt inputs
    for name in ("iBusWishbone_CYC", "dBusWishbone_CYC", "iBusWishbone_ADR", "dBusWishbone_SEL"):
        assert name in outputs
    for name in ("externalInterruptArray", "timerInterrupt", "softwareInterrupt", "externalResetVector"):
        assert re.search(rf"input\s+(?:wire\s+)?(?:\[\d+:0\]\s*)?{name}\b", text), name


def test_cached(verilog, monkeypatch):
    def no_maven(*a, **kw):
        raise AssertionError("Maven ran although the core is up to date")
    monkeypatch.setattr(corebuild.subprocess, "run", no_maven)
    t0 = time.monotonic()
    again = corebuild.build_core(VARIANT)
    assert again == verilog
    assert time.monotonic() - t0 < 0.5


def test_hash_tracks_inputs(monkeypatch):
    h = corebuild.core_hash(VARIANT)
    assert corebuild.core_hash(VARIANT) == h
    assert corebuild.core_hash("other") != h
    real = corebuild.importlib.metadata.version
    monkeypatch.setattr(corebuild.importlib.metadata, "version",
                        lambda p: "0-test" if p == corebuild.PACKAGE else real(p))
    assert corebuild.core_hash(VARIANT) != h


def test_unknown_variant():
    with pytest.raises(corebuild.CoreBuildError, match="unknown core variant"):
        corebuild.build_core("nope")


@pytest.mark.skipif(shutil.which("verilator") is None, reason="verilator is not installed")
def test_verilator_lint(verilog):
    r = subprocess.run(["verilator", "--lint-only", "-Wno-fatal", "--top-module", TOP, verilog],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
