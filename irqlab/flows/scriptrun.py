"""Runs a flow's build script (LiteX's build_irqlab.sh, or any command),
copying every output line to its log and naming the step the tools are in
on the progress line: the FPGA tools run for many minutes."""

import os
import subprocess

from irqlab.errors import BoardBuildError


def run(cmd, cwd, log, steps=None, env_extra=None, path_first=None, what="the flow"):
    """Run cmd in cwd, its output into log; BoardBuildError (one line) if it fails."""
    env = dict(os.environ, **(env_extra or {}))
    if path_first:
        env["PATH"] = os.pathsep.join(path_first + [env.get("PATH", "")])
    with open(log, "w") as f:
        try:
            p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 text=True, errors="replace", bufsize=1)
        except OSError as e:
            raise BoardBuildError(f"cannot run {what}: {e}") from None
        for line in p.stdout:
            f.write(line)
            if steps:
                steps.feed(line)
        rc = p.wait()
    if steps:
        steps.done()
    if rc != 0:
        with open(log, errors="replace") as f:
            lines = [l.strip() for l in f.read().splitlines() if l.strip()]
        last = next((l for l in reversed(lines) if "error" in l.lower()), lines[-1] if lines else "no output")
        raise BoardBuildError(f"{what} failed ({last[:160]}); log: {log}")
