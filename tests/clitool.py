"""Running the irqlab command from a test, and the one-line error rule."""

import subprocess
import sys


def irqlab(*args, cwd=None, timeout=600):
    return subprocess.run([sys.executable, "-m", "irqlab", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout)


def assert_one_line_error(r, *words):
    """Bad input: exit status 2 and one line on stderr that names the problem."""
    assert r.returncode == 2, r
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("irqlab: error:")
    for w in words:
        assert w in lines[0], lines[0]
