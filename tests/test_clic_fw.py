"""The CLIC firmware test suite (fw/clictest/) on the simulated SoC, for both
firmware builds of the CLIC core: `clic` (every source hardware-vectored) and
`clic-nv` (one entry, the mnxti trampoline), on the TCMs, on the bus
memories (`clic-bus`) and behind caches on the bus (`clic-cache`); the last
two are the same firmware build as `clic`, whose expectations they share.

The firmware runs all its tests in one simulation and prints one or more
lines `T<name>: <observations>` per test. Each test is one file
fw/clictest/tests/<NN>_<name>.c that registers it with `CLICTEST(<name>)`
(printed as T<name>; the firmware runs them in file-name order) and states
what it must print, in comments

    /* expect: T<name>: ... */            every build
    /* expect[clic]: T<name>: ... */      one row only (comma-separated list)

The tests are discovered from those files. Here every C test is one pytest
item per row: its printed lines are compared with its expected lines, token
by token. An expectation "T<name>: skip (...)" marks a test that does not
apply to that build (the firmware must print the same line). A firmware crash (unexpected trap: exit 100..103) fails the run
test, and every test whose output is missing reports it.
"""

import glob
import os
import re
from collections import OrderedDict

import pytest

from irqlab import paths
from irqlab.drivers import sim
from irqlab.rows import ROWS as ALL_ROWS, rows_with

# The rows the expectations name (expect[<row>]): one per firmware build.
EXPECTATION_ROWS = ["clic", "clic-nv"]


def firmware_build(row):
    """What the expectations depend on: the row's firmware build (ISA, ABI,
    vectoring, entry), not its memory."""
    r = ALL_ROWS[row]
    return (r.march, r.mabi, r.hw_vectoring, r.b_symbol)


def expectation_row(row):
    """The row of EXPECTATION_ROWS whose firmware build `row` shares, or None."""
    return next((e for e in EXPECTATION_ROWS if firmware_build(e) == firmware_build(row)), None)


# Every CLIC row whose firmware build has expectations (the TCM SoC's and
# the cached one's too).
ROWS = [r for r in rows_with(irq_model="clic") if expectation_row(r)]
APP = "clictest"
SRC_DIR = os.path.join(paths.FW, APP)
TEST_DIR = os.path.join(SRC_DIR, "tests")
MAX_CYCLES = 4_000_000      # a normal run takes ~0.7 M; a hang stops here (~10 s)

EXPECT_RE = re.compile(r"/\*\s*expect(?:\[([\w,\s-]+)\])?:\s*(T\w+):(.*?)\*/")
REGISTER_RE = re.compile(r"^CLICTEST\((\w+)\)", re.M)
LINE_RE = re.compile(r"^(T\w+):(.*)$")


def load_expectations():
    """[(rows or None, name, text)], the tests in run order (file-name order,
    as the linker sorts them: fw/common/include/testcase.h), each file's
    expectations in source order."""
    out, names = [], set()
    for path in sorted(glob.glob(os.path.join(TEST_DIR, "*.c"))):
        with open(path) as f:
            src = f.read()
        regs = REGISTER_RE.findall(src)
        assert len(regs) == 1, f"{path}: one CLICTEST(name) per file, found {regs}"
        name = "T" + regs[0]
        assert name not in names, f"{path}: a second test {name}"
        names.add(name)
        found = False
        for m in EXPECT_RE.finditer(src):
            rows = [r.strip() for r in m.group(1).split(",")] if m.group(1) else None
            if rows:
                unknown = set(rows) - set(EXPECTATION_ROWS)
                assert not unknown, f"{path}: expectation for unknown row(s) {unknown}"
            assert m.group(2) == name, f"{path}: expectation for {m.group(2)} in the file of {name}"
            out.append((rows, name, " ".join(m.group(3).split())))
            found = True
        assert found, f"{path}: no expectation (/* expect: {name}: ... */)"
    return out


EXPECTATIONS = load_expectations()
TEST_NAMES = list(OrderedDict.fromkeys(name for _, name, _ in EXPECTATIONS))


def expected_lines(row):
    exp = OrderedDict((n, []) for n in TEST_NAMES)
    build = expectation_row(row)
    for rows, name, text in EXPECTATIONS:
        if rows is None or build in rows:
            exp[name].append(text)
    return exp


def printed_lines(console):
    got = OrderedDict()
    for raw in console.splitlines():
        m = LINE_RE.match(raw.strip())
        if m:
            got.setdefault(m.group(1), []).append(" ".join(m.group(2).split()))
    return got


_runs = {}


def run_row(row, tmp_path_factory):
    """One simulation per row, shared by all the items of that row."""
    if row not in _runs:
        model = sim.ensure_model(row)
        image = sim.load_image(model, sim.build_firmware(model, APP))
        d = tmp_path_factory.mktemp(f"clictest-{row}")
        _runs[row] = sim.run(model, image, str(d / "trace.bin"), max_cycles=MAX_CYCLES)
    return _runs[row]


def describe_run(r):
    tail = "\n".join(r.console.strip().splitlines()[-6:])
    return f"firmware exit code {r.exit_code}; console tail:\n{tail}"


def token_diff(want, got):
    """The first differing token of two lines, with a little context."""
    w, g = want.split(), got.split()
    for i, (a, b) in enumerate(zip(w, g)):
        if a != b:
            ctx = " ".join(w[max(0, i - 2):i])
            return f"first difference at token {i + 1} (after '{ctx}'): expected '{a}', got '{b}'"
    if len(w) != len(g):
        return f"expected {len(w)} tokens, got {len(g)}"
    return "identical"


def test_suite_exits_cleanly(row, tmp_path_factory):
    r = run_row(row, tmp_path_factory)
    if r.exit_code != 0:
        pytest.fail(f"clictest on {row} did not exit cleanly (100 exception, 101 unexpected interrupt, "
                    f"102 interrupt through the exception entry, 103 failed internal check): "
                    f"{describe_run(r)}", pytrace=False)
    assert f"clictest: done, {len(TEST_NAMES)} tests" in r.console, (
        f"the firmware ran a different number of tests than the source expects ({len(TEST_NAMES)})\n"
        + describe_run(r))
    extra = sorted(set(printed_lines(r.console)) - set(TEST_NAMES))
    assert not extra, f"tests printed but with no expectation in {TEST_DIR}: {extra}"
    started = re.findall(r"^clictest: run (T\w+)", r.console, re.M)
    assert started == TEST_NAMES, f"the firmware's run order is not the file-name order: {started}"


@pytest.mark.parametrize("name", TEST_NAMES)
def test_clic(row, name, tmp_path_factory):
    want = expected_lines(row)[name]
    assert want, f"no expectation for {name} in row {row} (add expect: or expect[{row}]:)"
    r = run_row(row, tmp_path_factory)
    got = printed_lines(r.console).get(name, [])
    if not got:
        started = re.findall(r"^clictest: run (T\w+)", r.console, re.M)
        if name in started and r.exit_code != 0 and started[-1] == name:
            why = "the firmware stopped inside this test"
        elif name not in started and r.exit_code != 0 and started:
            why = f"not reached: the firmware stopped in {started[-1]}"
        else:
            why = "no output"
        pytest.fail(f"{name} ({row}): {why}\n{describe_run(r)}", pytrace=False)
    if got != want:
        msg = [f"{name} ({row}): printed lines differ from the expectation in fw/{APP}/tests/"]
        for i in range(max(len(want), len(got))):
            w = want[i] if i < len(want) else "<none>"
            g = got[i] if i < len(got) else "<none>"
            if w != g:
                msg += [f"  line {i + 1}:", f"    expected: {name}: {w}", f"    got:      {name}: {g}",
                        f"    {token_diff(w, g)}"]
        pytest.fail("\n".join(msg), pytrace=False)
    if len(want) == 1 and re.match(r"skip\b", want[0]):
        pytest.skip(f"{name} on {row}: {want[0]}")


def pytest_generate_tests(metafunc):
    if "row" in metafunc.fixturenames:
        metafunc.parametrize("row", ROWS, scope="module")
