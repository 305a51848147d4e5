"""The background workload's network: digit recognition on 8×8 images.

The digits data set that scikit-learn ships (load_digits: 1797 images of
8×8 pixels, values 0..16; no download) is split once into a training and a
held-out part. A small MLP, 64 → HIDDEN (ReLU) → 10, is trained on the
training part in floating point (sklearn's MLPClassifier, fixed seeds), then
quantized for integer-only inference on a core without an FPU:

  layer 1  acc1[j] = b1[j] + Σ_i w1[j][i]·x[i]          int8 w1, uint8 x (0..16), int32
           h[j]    = min((max(acc1[j], 0) + 2^(s−1)) >> s, 127)      s = HIDDEN_SHIFT
  layer 2  acc2[k] = b2[k] + Σ_j w2[k][j]·h[j]          int8 w2, int32
  class    the first k with the largest acc2[k]

Each layer's weights share one power-of-two scale (the largest that keeps
them in int8); the biases are quantized to the accumulator's scale, and the
hidden activations to the power of two that fits the largest activation on
the training part into 0..127. `classify()` is that computation in numpy,
bit-exact with fw/common/digits/digits.c.

`c_header()` emits the model and a fixed set of held-out images with their
labels and the reference's predictions (gen/digits_model.h, written into a
firmware build by irqlab/builders/firmware.py for applications with `digits` in
APP_USES). Training takes a few seconds; its result is cached in
build/digits/, keyed by the scikit-learn and numpy versions and TRAINING.

    python -m irqlab.builders.digits_net        # trains (or loads), prints the accuracies
"""

import hashlib
import json
import os
import sys
from dataclasses import dataclass

import numpy as np

from irqlab import paths
from irqlab.errors import BuildError
from irqlab.host.atomic import atomic_open, exclusive
from irqlab.progress import Progress

INPUTS, CLASSES = 64, 10
PIXEL_MAX = 16                 # load_digits' pixel range is 0..16
HIDDEN_MAX = 127               # the hidden activations' range after requantization
HEADER = "digits_model.h"
FIRMWARE_IMAGES = 64           # held-out images in a firmware's header: 4 KiB (ROM is 32 KiB on the bus SoCs)
ACCURACY_FLOOR = 0.90          # the quantized model's held-out accuracy must reach it (tests)

# The training parameters: changing one retrains (the cache key).
TRAINING = {
    "hidden": 32,
    "test_size": 0.25,         # held-out share, stratified
    "split_seed": 0,
    "seed": 0,                 # MLPClassifier's random_state
    "max_iter": 400,           # Adam epochs (a fixed count: it stops there, converged or not)
    "alpha": 1e-3,             # L2 penalty
}
_NO_SKLEARN = "digits: the network is trained with scikit-learn, which is missing (scripts/setup.sh installs requirements.txt)"
FORMAT = 2                     # the cache file's layout and how it is trained


@dataclass(frozen=True)
class Model:
    """The quantized network (numpy int64 arrays) and its held-out data."""
    w1: np.ndarray             # [hidden][64] int8 values
    b1: np.ndarray             # [hidden] int32 values
    shift: int                 # hidden requantization: rounding right shift
    w2: np.ndarray             # [10][hidden] int8 values
    b2: np.ndarray             # [10] int32 values
    test_x: np.ndarray         # [n][64] held-out images, 0..16
    test_y: np.ndarray         # [n] their labels
    float_pred: np.ndarray     # [n] the float model's predictions on them
    float_accuracy: float

    @property
    def hidden(self):
        return len(self.b1)

    def accuracy(self):
        return float((classify(self, self.test_x) == self.test_y).mean())


def classify(model, images):
    """The integer reference: classes of `images` ([n][64], 0..16), bit-exact
    with digits_classify() in C."""
    x = np.asarray(images, dtype=np.int64)
    acc1 = x @ model.w1.T + model.b1
    h = np.minimum((np.maximum(acc1, 0) + (1 << (model.shift - 1))) >> model.shift, HIDDEN_MAX)
    acc2 = h @ model.w2.T + model.b2
    return acc2.argmax(axis=1)              # the first of equal maxima, as the C loop


def _pow2_scale(max_abs, limit):
    """The largest e with max_abs·2^e <= limit."""
    return int(np.floor(np.log2(limit / max_abs)))


def quantize(coefs, intercepts, train_x):
    """int8 weights, int32 biases, the hidden shift, from the float model's
    layers (sklearn layout: coefs[l] is [in][out]) and the training images."""
    W1, W2 = (np.asarray(c, dtype=np.float64) for c in coefs)
    B1, B2 = (np.asarray(b, dtype=np.float64) for b in intercepts)
    e1 = _pow2_scale(np.abs(W1).max(), 127)
    e2 = _pow2_scale(np.abs(W2).max(), 127)
    # The float model sees x/16: acc1 counts the hidden value in units of 2^-(e1+4).
    s1 = e1 + int(np.log2(PIXEL_MAX))
    h_float = np.maximum(train_x / PIXEL_MAX @ W1 + B1, 0)
    a = _pow2_scale(h_float.max(), HIDDEN_MAX)        # hidden value h in units of 2^-a
    shift = s1 - a
    if not 1 <= shift <= 30:
        raise ValueError(f"digits: hidden shift {shift} out of range (weights scale 2^{e1}, activations 2^{a})")
    w1 = np.round(W1.T * 2.0 ** e1).astype(np.int64)
    w2 = np.round(W2.T * 2.0 ** e2).astype(np.int64)
    b1 = np.round(B1 * 2.0 ** s1).astype(np.int64)
    b2 = np.round(B2 * 2.0 ** (e2 + a)).astype(np.int64)
    # int32 accumulators: the worst case over every input must fit.
    worst = max(int((np.abs(w1).sum(axis=1) * PIXEL_MAX + np.abs(b1)).max()),
                int((np.abs(w2).sum(axis=1) * HIDDEN_MAX + np.abs(b2)).max()))
    assert worst < 2 ** 31, worst
    assert np.abs(w1).max() <= 127 and np.abs(w2).max() <= 127
    return w1, b1, shift, w2, b2


def _cache_key():
    from importlib.metadata import PackageNotFoundError, version
    try:
        sklearn = version("scikit-learn")
    except PackageNotFoundError:
        raise BuildError(_NO_SKLEARN) from None
    ident = {"format": FORMAT, "sklearn": sklearn, "numpy": np.__version__, "training": TRAINING}
    return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:16]


def cache_path():
    return os.path.join(paths.BUILD, "digits", f"model-{_cache_key()}.json")


def train(progress=None):
    """Trains and quantizes (a few seconds); returns the Model's fields as a
    JSON-able dict (what the cache holds)."""
    import warnings
    try:
        from sklearn.datasets import load_digits
        from sklearn.exceptions import ConvergenceWarning
        from sklearn.model_selection import train_test_split
        from sklearn.neural_network import MLPClassifier
        from threadpoolctl import threadpool_limits
    except ImportError as e:
        raise BuildError(f"{_NO_SKLEARN} ({e})") from None

    t = TRAINING
    data = load_digits()
    x = data.data.astype(np.int64)
    assert x.shape[1] == INPUTS and x.min() >= 0 and x.max() <= PIXEL_MAX
    train_x, test_x, train_y, test_y = train_test_split(
        x, data.target, test_size=t["test_size"], random_state=t["split_seed"], stratify=data.target)
    if progress:
        progress.step(f"digits: training 64-{t['hidden']}-10 on {len(train_x)} images")
    mlp = MLPClassifier(hidden_layer_sizes=(t["hidden"],), activation="relu", solver="adam",
                        alpha=t["alpha"], max_iter=t["max_iter"], random_state=t["seed"])
    # One BLAS thread: the same sums in the same order, the same model on every machine.
    with warnings.catch_warnings(), threadpool_limits(limits=1):
        warnings.simplefilter("ignore", ConvergenceWarning)    # a fixed epoch count, by design
        mlp.fit(train_x / PIXEL_MAX, train_y)
    float_pred = mlp.predict(test_x / PIXEL_MAX)
    w1, b1, shift, w2, b2 = quantize(mlp.coefs_, mlp.intercepts_, train_x)
    return {"w1": w1.tolist(), "b1": b1.tolist(), "shift": shift, "w2": w2.tolist(), "b2": b2.tolist(),
            "test_x": test_x.tolist(), "test_y": test_y.tolist(), "float_pred": float_pred.tolist(),
            "float_accuracy": float((float_pred == test_y).mean())}


def load(progress=None):
    """The model: from the cache, else trained and cached (whole or not at all)."""
    path = cache_path()
    with exclusive(path):                     # parallel builds train once
        if not os.path.isfile(path):
            fields = train(progress or Progress())
            with atomic_open(path) as f:
                json.dump(fields, f)
        with open(path) as f:
            fields = json.load(f)
    arrays = {k: np.asarray(v, dtype=np.int64) for k, v in fields.items()
              if k not in ("shift", "float_accuracy")}
    return Model(shift=fields["shift"], float_accuracy=fields["float_accuracy"], **arrays)


def _c_rows(rows, indent="    "):
    return ",\n".join(indent + "{" + ", ".join(str(int(v)) for v in r) + "}" for r in rows)


def _c_list(values):
    return ", ".join(str(int(v)) for v in values)


def c_header(model, n_images=FIRMWARE_IMAGES):
    """gen/digits_model.h: the model and the first `n_images` held-out images
    (their labels, the integer reference's predictions). Only digits.c
    includes it."""
    n = min(n_images, len(model.test_y))
    imgs, labels = model.test_x[:n], model.test_y[:n]
    pred = classify(model, imgs)
    assert model.b1.min() >= -2 ** 31 and model.b2.max() < 2 ** 31
    return "\n".join([
        "/* Generated by irqlab/builders/digits_net.py (the digits network, quantized; held-out images): do not edit. */",
        "#ifndef DIGITS_MODEL_H",
        "#define DIGITS_MODEL_H",
        "#include <stdint.h>",
        f"#define DIGITS_INPUTS {INPUTS}",
        f"#define DIGITS_HIDDEN {model.hidden}",
        f"#define DIGITS_CLASSES {CLASSES}",
        f"#define DIGITS_HIDDEN_SHIFT {model.shift}",
        f"#define DIGITS_HIDDEN_MAX {HIDDEN_MAX}",
        f"#define DIGITS_TEST_IMAGES {n}",
        f"#define DIGITS_TEST_CORRECT {int((pred == labels).sum())}  /* the reference's right answers on them */",
        f"static const int8_t digits_w1[{model.hidden}][{INPUTS}] = {{\n{_c_rows(model.w1)}\n}};",
        f"static const int32_t digits_b1[{model.hidden}] = {{{_c_list(model.b1)}}};",
        f"static const int8_t digits_w2[{CLASSES}][{model.hidden}] = {{\n{_c_rows(model.w2)}\n}};",
        f"static const int32_t digits_b2[{CLASSES}] = {{{_c_list(model.b2)}}};",
        f"static const uint8_t digits_test_images[{n}][{INPUTS}] = {{\n{_c_rows(imgs)}\n}};",
        f"static const uint8_t digits_test_labels[{n}] = {{{_c_list(labels)}}};",
        f"static const uint8_t digits_test_expected[{n}] = {{{_c_list(pred)}}};",
        "#endif", ""])


def main(argv=None):
    try:
        m = load()
    except BuildError as e:
        print(f"irqlab: error: {e}", file=sys.stderr)
        return 2
    print(f"digits: 64-{m.hidden}-10, hidden shift {m.shift}; held-out images {len(m.test_y)}: "
          f"float {m.float_accuracy:.1%}, int8 {m.accuracy():.1%}, "
          f"agreement {(classify(m, m.test_x) == m.float_pred).mean():.1%}")
    print(f"cache: {cache_path()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
