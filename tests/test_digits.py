"""The background workload: the digits network that
irqlab/builders/digits_net.py trains and quantizes, and fw/common/digits/digits.c, its
integer inference in C. The Python integer reference must be accurate and
close to the float model; the C module must give exactly its classes on
every held-out image, built for the host and for RV32IM and RV32I (run
under qemu-riscv32), and must build for RV32E.

On the SoC (fw/digits alone, fw/digits-rtos as a FreeRTOS task; a row with
the RV32E ABI and a row with its memory on the bus) every inference is one
trace event: the host counts them, checks each class against the reference
and takes the rate from their stamps (trace/workload.py). The cycles per
inference are compared with the recorded run (docs/results/digits.json,
`irqlab bench --suite digits --cores clic,clic-rv32e,fastirq,vexriscv --out
docs/results`): the simulation is deterministic, so a change that moves
them records the new figures in the same change (`make record`).
"""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from irqlab import paths
from irqlab.builders import digits_net as digits
from irqlab.suites import digits as digitsbench
from irqlab.host import workload
from irqlab.host.decode import decode_bytes, read_trace
from irqlab.host.protocol import APP_PROTOCOLS
from irqlab.rows import row as row_info, rows_with

from clitool import assert_one_line_error, irqlab
from tracegen import TraceBuilder

MODULE = os.path.join(paths.FW, "common", "digits")
HARNESS = os.path.join(os.path.dirname(__file__), "fixtures", "digits", "harness.c")
RECORDED = os.path.join(paths.ROOT, "docs", "results", digitsbench.RESULTS_FILE)
TOLERANCE_REL = 0.01
CROSS = "riscv64-unknown-elf-gcc"
QEMU = "qemu-riscv32"


@pytest.fixture(scope="module")
def model():
    return digits.load()


@pytest.fixture(scope="module")
def all_images_header(model, tmp_path_factory):
    """A digits_model.h with every held-out image (firmware gets FIRMWARE_IMAGES)."""
    d = tmp_path_factory.mktemp("digits_gen")
    (d / digits.HEADER).write_text(digits.c_header(model, n_images=len(model.test_y)))
    return d


# ------------------------------------------------------------------ Python
def test_quantized_accuracy_above_the_floor(model):
    assert len(model.test_y) == 450                  # a quarter of the 1797 images, held out
    assert model.accuracy() >= digits.ACCURACY_FLOOR
    assert model.float_accuracy >= digits.ACCURACY_FLOOR
    # Quantization costs at most a point of accuracy on the held-out part.
    assert model.accuracy() >= model.float_accuracy - 0.01


def test_integer_reference_agrees_with_the_float_model(model):
    agree = (digits.classify(model, model.test_x) == model.float_pred).mean()
    assert agree >= 0.98


def test_quantized_ranges(model):
    assert model.w1.shape == (digits.TRAINING["hidden"], digits.INPUTS)
    assert model.w2.shape == (digits.CLASSES, digits.TRAINING["hidden"])
    for w in (model.w1, model.w2):
        assert -128 <= w.min() and w.max() <= 127
        assert np.abs(w).max() >= 64               # the power-of-two scale uses the int8 range
    assert 1 <= model.shift <= 30
    assert model.test_x.min() >= 0 and model.test_x.max() <= digits.PIXEL_MAX


def test_reference_is_the_documented_arithmetic(model):
    """classify() step by step in plain Python on a few images: ReLU, rounding
    shift, clamp to 127, first maximum."""
    for img in model.test_x[:5]:
        h = []
        for j in range(model.hidden):
            acc = int(model.b1[j]) + sum(int(w) * int(x) for w, x in zip(model.w1[j], img))
            h.append(min((acc + (1 << (model.shift - 1))) >> model.shift, 127) if acc > 0 else 0)
        out = [int(model.b2[k]) + sum(int(w) * v for w, v in zip(model.w2[k], h)) for k in range(10)]
        assert digits.classify(model, [img])[0] == out.index(max(out))


def test_cache_is_used_and_keyed(model, monkeypatch):
    assert os.path.isfile(digits.cache_path())
    monkeypatch.setattr(digits, "train", lambda progress=None: pytest.fail("trained again"))
    again = digits.load()
    assert np.array_equal(again.w1, model.w1) and again.shift == model.shift
    key = digits.cache_path()
    monkeypatch.setitem(digits.TRAINING, "hidden", 16)
    assert digits.cache_path() != key


def test_training_without_scikit_learn_is_a_one_line_error(tmp_path):
    """Nothing cached and scikit-learn not importable: one line, exit 2, no cache file."""
    blocker = ("import sys\n"
               "class _Block:\n"
               "    def find_spec(self, name, path=None, target=None):\n"
               "        if name.split('.')[0] == 'sklearn':\n"
               "            raise ImportError('blocked for the test: ' + name)\n"
               "sys.meta_path.insert(0, _Block())\n"
               "from irqlab.builders.digits_net import main\n"
               "sys.exit(main())\n")
    r = subprocess.run([sys.executable, "-c", blocker], capture_output=True, text=True, timeout=60,
                       env={**os.environ, "IRQLAB_BUILD": str(tmp_path)})
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "scikit-learn" in r.stderr
    assert not [f for f in os.listdir(tmp_path / "digits") if f.endswith(".json")]


def test_apps_take_the_module_by_app_uses():
    from irqlab.builders import firmware
    assert firmware.app_uses("digits") == ["digits"] and firmware.app_uses("digits-rtos") == ["digits"]
    assert firmware.app_uses("bench") == []
    assert set(firmware.MODULE_HEADERS) <= {d for d in os.listdir(os.path.join(paths.FW, "common"))}


def test_header_holds_the_firmware_images(model):
    text = digits.c_header(model)
    n = digits.FIRMWARE_IMAGES
    assert f"#define DIGITS_TEST_IMAGES {n}" in text
    right = int((digits.classify(model, model.test_x[:n]) == model.test_y[:n]).sum())
    assert f"#define DIGITS_TEST_CORRECT {right} " in text


# ------------------------------------------------------------------------ C
def _expected_output(model):
    """What the harness must print: the reference's classes, then the counters
    after one and a half rounds of digits_step()."""
    pred = digits.classify(model, model.test_x)
    n = len(pred)
    steps = n * 3 // 2
    right = pred == model.test_y
    correct = int(right.sum()) + int(right[:steps - n].sum())
    return ("".join(str(int(c)) for c in pred) + "\n"
            f"inferences {steps}\ncorrect {correct}\nmismatches 0\nnext {steps - n}\n"
            f"reference_correct {int(right.sum())}\n")


def _compile(cc, gen, out, flags, libs=()):
    cmd = [cc, "-O2", "-Wall", "-Wextra", "-Werror", f"-I{MODULE}", f"-I{gen}", *flags,
           HARNESS, os.path.join(MODULE, "digits.c"), *libs, "-o", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_c_matches_the_reference_on_the_host(model, all_images_header, tmp_path):
    exe = tmp_path / "digits_host"
    _compile(shutil.which("gcc") or "cc", all_images_header, exe, [])
    r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0
    assert r.stdout == _expected_output(model)


@pytest.mark.skipif(not (shutil.which(CROSS) and shutil.which(QEMU)), reason="needs riscv64-unknown-elf-gcc and qemu-riscv32")
@pytest.mark.parametrize("march", ["rv32im", "rv32i"])
def test_c_matches_the_reference_on_rv32(model, all_images_header, tmp_path, march):
    """The rows' ISA; and a core without M, where the multiplies are libgcc's
    (no row has one today)."""
    exe = tmp_path / f"digits_{march}.elf"
    _compile(CROSS, all_images_header, exe, ["-DBARE", f"-march={march}", "-mabi=ilp32", "-static", "-nostdlib",
                                            "-ffreestanding", "-fno-builtin"], ["-lgcc"])
    if "m" not in march[4:]:
        nm = subprocess.run([CROSS.replace("gcc", "nm"), str(exe)], capture_output=True, text=True).stdout
        assert "__mulsi3" in nm                         # the multiplies are libgcc's indeed
    r = subprocess.run([QEMU, str(exe)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout == _expected_output(model)


@pytest.mark.skipif(not shutil.which(CROSS), reason="needs riscv64-unknown-elf-gcc")
def test_c_builds_for_rv32e(all_images_header, tmp_path):
    """The rows' RV32E ABI (qemu-riscv32's Linux ABI has no RV32E: built only;
    the SoC test runs it)."""
    obj = tmp_path / "digits.o"
    r = subprocess.run([CROSS, "-march=rv32em", "-mabi=ilp32e", "-Os", "-Wall", "-Wextra", "-Werror",
                        "-ffreestanding", f"-I{MODULE}", f"-I{all_images_header}", "-c",
                        os.path.join(MODULE, "digits.c"), "-o", str(obj)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


# -------------------------------------------------------------- the trace
def _event(index, cls, label, differs=False):
    p = APP_PROTOCOLS["digits"]
    return (index | cls << p.DIGITS_EV_CLASS_SHIFT | label << p.DIGITS_EV_LABEL_SHIFT
            | (p.DIGITS_EV_DIFFERS if differs else 0))


def test_figures_from_inference_events():
    ch = APP_PROTOCOLS["digits"].CH_DIGITS
    t = TraceBuilder().time_hi(0)
    t.sw(1000, ch, _event(0, 3, 3)).sw(1100, 0x10, 7)                # another channel: not counted
    t.sw(2000, ch, _event(1, 5, 6)).sw(3300, ch, _event(2, 9, 9, differs=True)).sw(4000, ch, _event(3, 1, 1))
    records, _ = decode_bytes(t.bytes())
    ev = workload.inferences(records)
    assert [(e.index, e.cls, e.label, e.differs) for e in ev] == [
        (0, 3, 3, False), (1, 5, 6, False), (2, 9, 9, True), (3, 1, 1, False)]
    f = workload.figures(ev, 50e6)
    assert (f["inferences"], f["correct"], f["differing"]) == (4, 3, 1)
    assert f["accuracy"] == 0.75
    assert f["cycles_per_inference"] == {"mean": 1000, "min": 700, "max": 1300}
    assert f["inferences_per_s"] == 50e3
    # A window: only the events inside it.
    assert [e.index for e in workload.inferences(records, start=2000, end=4000)] == [1, 2]
    assert "inferences_per_s" not in workload.figures(ev[:1], 50e6)


def test_inferences_only_with_the_digits_suite(tmp_path):
    assert_one_line_error(irqlab("bench", "--inferences", "5", "--out", tmp_path), "--inferences", "digits")
    assert_one_line_error(irqlab("bench", "--suite", "digits", "--inferences", "1", "--out", tmp_path),
                          "--inferences")


# ------------------------------------------------------------- on the SoC
SOC_ROWS = [rows_with(mabi="ilp32e")[0], rows_with(memory="bus")[0]]


@pytest.mark.parametrize("row", SOC_ROWS)
def test_workload_on_the_soc(row, tmp_path, model):
    """Both runs at their default (two rounds of the firmware's images), as
    recorded: alone, and as a FreeRTOS task under the kernel's tick."""
    res = digitsbench.run_row(row, {}, str(tmp_path))
    n = digits.FIRMWARE_IMAGES
    right = digits.classify(model, model.test_x[:n]) == model.test_y[:n]
    with open(RECORDED) as f:
        recorded = json.load(f)["cores"]
    for run in digitsbench.RUNS:
        r = res[run]
        assert r["inferences"] == 2 * n and r["differing"] == 0
        assert r["correct"] == 2 * int(right.sum())
        records, _ = read_trace(os.path.join(tmp_path, r["trace_file"]))
        events = workload.inferences(records)
        assert [e.index for e in events] == 2 * list(range(n))
        c = r["cycles_per_inference"]
        # At least a cycle per multiply-accumulate.
        assert c["min"] >= model.w1.size + model.w2.size
        if row in recorded:
            assert c["mean"] == pytest.approx(recorded[row][run]["cycles_per_inference"]["mean"], rel=TOLERANCE_REL)
    # Alone every inference takes nearly the same time (the ReLU's branches
    # differ a little per image; behind caches the first round misses).
    c = res["alone"]["cycles_per_inference"]
    assert res["alone"]["ticks"] == 0
    assert c["max"] - c["min"] <= (0.02 if row_info(row).soc_config.tcm else 0.15) * c["mean"]
    assert res["board"]["inferences_per_s"] == pytest.approx(res["board"]["clock_hz"] / c["mean"])
    # Under FreeRTOS the tick comes at its period all through the run and costs
    # each inference a little: more than nothing, less than a tenth.
    t = res["rtos"]
    span = t["cycles_per_inference"]["mean"] * (t["inferences"] - 1)
    assert abs(t["ticks"] - span / t["tick_period"]) <= 1
    assert 0 < res["rtos_slowdown"] < 0.1
