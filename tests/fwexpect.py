"""The output a firmware application states in its header comment, one
` * expect: <line>` per line (Hazard3-style: the test lives with the code)."""

import os
import re

from irqlab import paths

EXPECT_RE = re.compile(r"^\s*\*\s*expect:\s*(.+?)\s*$", re.M)


def expected_lines(app, source="main.c"):
    with open(os.path.join(paths.FW, app, source)) as f:
        return EXPECT_RE.findall(f.read())
