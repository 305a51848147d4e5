"""The FreeRTOS kernel for the RTOS firmware (irqlab/builders/freertos.py): fetched
from the crates registry once, cached, unmodified, the version the project
builds against; a fetch that cannot work says so in one line and leaves no
half-written cache."""

import glob
import os
import subprocess
import sys

import pytest

from irqlab import paths
from irqlab.builders import freertos
from irqlab.errors import BuildError


@pytest.fixture(scope="module")
def kernel():
    try:
        return freertos.kernel_dir()
    except BuildError as e:
        pytest.skip(f"no FreeRTOS kernel here and no way to fetch it: {e}")


def test_the_cached_kernel_is_v11_2_0(kernel):
    assert kernel == os.path.join(paths.BUILD, "freertos", "V11.2.0", "FreeRTOS-Kernel")
    assert freertos.kernel_version(kernel) == "V11.2.0"
    for f in ("tasks.c", "queue.c", "list.c", "timers.c", "event_groups.c", "include/FreeRTOS.h",
              "portable/GCC/RISC-V/port.c", "portable/GCC/RISC-V/portASM.S"):
        assert os.path.isfile(os.path.join(kernel, f)), f


def test_the_kernel_is_the_crates_unmodified(kernel):
    """Byte for byte the crate's folder, where cargo keeps the crate's source."""
    crates = glob.glob(os.path.expanduser(f"~/.cargo/registry/src/*/{freertos.CRATE}-{freertos.CRATE_VERSION}"))
    if not crates:
        pytest.skip("the crate's source is not in cargo's registry here")
    source = os.path.join(crates[0], freertos.KERNEL_FOLDER)
    r = subprocess.run(["diff", "-r", "-q", source, kernel], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[:2000]


def test_a_cached_kernel_needs_no_network(kernel, monkeypatch):
    monkeypatch.setenv("IRQLAB_CARGO", "/nonexistent/cargo")
    monkeypatch.setattr(freertos, "INDEX_URL", "http://127.0.0.1:9/none")
    assert freertos.kernel_dir() == kernel


def test_a_fetch_that_cannot_work_is_one_line_and_leaves_nothing(tmp_path):
    code = ("import sys; from irqlab.builders import freertos; "
            "freertos.INDEX_URL = 'http://127.0.0.1:9/none'; sys.argv = ['x']; freertos.main()")
    env = dict(os.environ, IRQLAB_BUILD=str(tmp_path), IRQLAB_CARGO="/nonexistent/cargo")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 2
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("irqlab: error:")]
    assert len(errors) == 1 and "freertos-next 0.12.0" in errors[0] and "directly from the registry" in errors[0]
    assert not os.path.exists(os.path.join(tmp_path, "freertos", "V11.2.0"))


# ------------------------------------------------ the port's kernel patch
def test_the_patched_kernel_differs_by_the_patch_alone(kernel):
    """fw/freertos/port-clic/kernel.patch applied: only tasks.c changes, by
    exactly the patch's added lines, and the crate's folder stays as shipped."""
    from irqlab.builders.firmware import KERNEL_PATCH
    patched = freertos.patched_kernel_dir(KERNEL_PATCH)
    assert patched != kernel and os.path.dirname(patched) == os.path.dirname(kernel)
    r = subprocess.run(["diff", "-r", "-q", kernel, patched], capture_output=True, text=True)
    assert r.stdout.strip().splitlines() == [f"Files {kernel}/tasks.c and {patched}/tasks.c differ"]
    with open(KERNEL_PATCH) as f:
        added = [ln[1:] for ln in f.read().splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    with open(os.path.join(kernel, "tasks.c"), newline="") as a, open(os.path.join(patched, "tasks.c"), newline="") as b:
        before, after = a.read().split("\r\n"), b.read().split("\r\n")
    assert len(after) - len(before) == len(added)
    assert all(ln in after for ln in added)
    assert freertos.patched_kernel_dir(KERNEL_PATCH) == patched       # cached: the same folder


@pytest.mark.parametrize("text, says", [
    ("not a patch\n", "no file in the patch"),
    ("--- a/tasks.c\n+++ b/tasks.c\n@@ -x +y @@\n", "malformed hunk header"),
    ("--- a/tasks.c\n+++ b/tasks.c\n@@ -1,2 +1,2 @@\n-nothing like the kernel\n+x\n", "shorter than its header"),
    ("--- a/tasks.c\n+++ b/tasks.c\n@@ -1,1 +1,1 @@\n-nothing like the kernel\n+x\n", "does not match"),
    ("--- a/none.c\n+++ b/none.c\n@@ -1,1 +1,1 @@\n-a\n+b\n", "has no file 'none.c'"),
    ("--- a/x\n+++ b/../x\n@@ -1,1 +1,1 @@\n-a\n+b\n", "outside the kernel"),
])
def test_a_bad_patch_is_one_line_and_leaves_nothing(kernel, tmp_path, text, says):
    patch = tmp_path / "bad.patch"
    patch.write_text(text)
    before = set(os.listdir(os.path.dirname(kernel)))
    with pytest.raises(BuildError) as e:
        freertos.patched_kernel_dir(str(patch))
    assert says in str(e.value) and "\n" not in str(e.value)
    assert set(os.listdir(os.path.dirname(kernel))) == before
