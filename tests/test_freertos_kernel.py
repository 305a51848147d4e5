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
