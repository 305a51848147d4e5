"""Build the project's own RISC-V cores (cores/: VexRiscv plus irqlab's
SpinalHDL plugins) into Verilog with Maven, cached by a hash of everything a
core is made from: the variant name, cores/pom.xml and cores/src/, and the
installed pythondata-cpu-vexriscv version (whose Scala sources are compiled in
place, never copied into the repository).

    python -m irqlab.corebuild clint        # prints the path of the .v

Environment: IRQLAB_MVN (the mvn command, default `mvn`), IRQLAB_M2_REPO
(Maven's local repository, default ~/.m2/repository), IRQLAB_MVN_ARGS (extra
arguments, e.g. `-o` to build offline).
"""

import argparse
import fcntl
import hashlib
import importlib.metadata
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

from irqlab import paths

CORES = os.path.join(paths.ROOT, "cores")
HASH_INPUTS = ["pom.xml", "src"]          # relative to cores/
PACKAGE = "pythondata-cpu-vexriscv"
VARIANTS = ["clint", "clic"]                     # cores/src/main/scala/irqlab/Variants.scala


class CoreBuildError(Exception):
    pass


def top_name(variant):
    return f"IrqlabCore_{variant}"


def vexriscv_src():
    """VexRiscv's Scala source tree (src/main/scala) inside the installed
    pythondata-cpu-vexriscv package."""
    try:
        import pythondata_cpu_vexriscv as p
    except ImportError:
        raise CoreBuildError(f"{PACKAGE} is not installed (pip install {PACKAGE})") from None
    d = os.path.join(os.path.dirname(p.__file__), "verilog", "ext", "VexRiscv", "src", "main", "scala")
    if not os.path.isfile(os.path.join(d, "vexriscv", "VexRiscv.scala")):
        raise CoreBuildError(f"VexRiscv's Scala sources are not where expected: {d}")
    return d


def core_hash(variant):
    h = hashlib.sha256(f"variant={variant}\n".encode())
    for rel in HASH_INPUTS:
        top = os.path.join(CORES, rel)
        files = [top] if os.path.isfile(top) else sorted(
            os.path.join(d, f) for d, _, fs in os.walk(top) for f in fs)
        for f in files:
            h.update(os.path.relpath(f, CORES).encode() + b"\0")
            with open(f, "rb") as fh:
                h.update(hashlib.sha256(fh.read()).digest())
    try:
        version = importlib.metadata.version(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        version = "none"
    h.update(f"{PACKAGE}={version}".encode())
    return h.hexdigest()[:16]


def _root(out_dir):
    return os.path.abspath(out_dir) if out_dir else os.path.join(paths.BUILD, "cores")


def core_path(variant, out_dir=None):
    """Where the Verilog of `variant` is (or will be) for the current sources."""
    return os.path.join(_root(out_dir), variant, core_hash(variant), top_name(variant) + ".v")


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


_NOISE = re.compile(r"^\s+at |^\$ |^# exit |^\[ERROR\]\s*$|To see the full stack trace|"
                    r"Re-run Maven using|For more information about the errors|\[Help 1\] http")


def _tail(log_path, n=25):
    """The interesting part of a failed Maven log (quiet, so short): from just
    before the first error (scalac and SpinalHDL messages span several lines,
    a generator's own message precedes Maven's), else the last lines."""
    with open(log_path, errors="replace") as f:
        lines = [_ANSI.sub("", l.rstrip()) for l in f]
    lines = [l for l in lines if l.strip() and not _NOISE.search(l)]
    first = next((i for i, l in enumerate(lines) if re.search(r"\[ERROR\]|\berror\b", l, re.I)), None)
    if first is None:
        return lines[-n:]
    start = max(0, first - 3)
    return lines[start:start + n]


def _mvn_command(variant, gen_out, maven_dir):
    mvn = shlex.split(os.environ.get("IRQLAB_MVN", "mvn"))
    if not shutil.which(mvn[0]):
        raise CoreBuildError(f"'{mvn[0]}' not found: Maven (and a JDK) are needed to build the cores")
    cmd = mvn + ["-B", "-q", "-Dstyle.color=never", "-f", os.path.join(CORES, "pom.xml"),
                 f"-Dvexriscv.src={vexriscv_src()}",
                 f"-Dcores.builddir={maven_dir}",
                 f"-Dgen.variant={variant}",
                 f"-Dgen.out={gen_out}"]
    repo = os.environ.get("IRQLAB_M2_REPO")
    if repo:
        cmd.append(f"-Dmaven.repo.local={os.path.abspath(repo)}")
    cmd += shlex.split(os.environ.get("IRQLAB_MVN_ARGS", ""))
    return cmd + ["compile", "exec:exec"]


def build_core(variant, out_dir=None, progress=None):
    """The Verilog file of core `variant` (top module IrqlabCore_<variant>),
    built with Maven unless the cached one is up to date.

    Layout: <out_dir or build/cores>/<variant>/<hash>/IrqlabCore_<variant>.v
    (plus maven.log); Maven's own build directory is <...>/maven, shared by
    the variants (one Maven run at a time, under a lock)."""
    if variant not in VARIANTS:
        raise CoreBuildError(f"unknown core variant '{variant}' (known: {', '.join(VARIANTS)})")
    root = _root(out_dir)
    digest = core_hash(variant)
    final_dir = os.path.join(root, variant, digest)
    verilog = os.path.join(final_dir, top_name(variant) + ".v")
    if os.path.isfile(verilog):
        return verilog

    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)      # one Maven run per build tree
        if os.path.isfile(verilog):           # built while we waited
            return verilog
        work = final_dir + ".partial"
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        log_path = os.path.join(work, "maven.log")
        cmd = _mvn_command(variant, work, os.path.join(root, "maven"))
        if progress:
            progress.step(f"core {variant}: building with Maven/SpinalHDL (a few minutes the first time)")
        t0 = time.monotonic()
        with open(log_path, "w") as log:
            log.write("$ " + " ".join(shlex.quote(c) for c in cmd) + "\n")
            log.flush()
            r = subprocess.run(cmd, cwd=CORES, stdout=log, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL)
            log.write(f"\n# exit {r.returncode} after {time.monotonic() - t0:.1f}s\n")
        produced = os.path.join(work, top_name(variant) + ".v")
        if r.returncode != 0 or not os.path.isfile(produced):
            what = (f"Maven exited with {r.returncode}" if r.returncode
                    else f"Maven succeeded but wrote no {os.path.basename(produced)}")
            raise CoreBuildError(f"building core '{variant}' failed: {what} (log: {log_path}):\n  "
                                 + "\n  ".join(_tail(log_path)))
        # Only a finished build gets the final name; older builds of the variant go.
        vdir = os.path.dirname(final_dir)
        for old in os.listdir(vdir):
            p = os.path.join(vdir, old)
            if old != digest and old != os.path.basename(work) and os.path.isdir(p):
                shutil.rmtree(p, ignore_errors=True)
        os.replace(work, final_dir)
    return verilog


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m irqlab.corebuild",
                                 description="Build irqlab's own cores into Verilog (cached).")
    ap.add_argument("variant", choices=VARIANTS)
    ap.add_argument("--out-dir", help="build tree (default: build/cores)")
    args = ap.parse_args(argv)
    from irqlab.progress import Progress
    p = Progress()
    try:
        path = build_core(args.variant, args.out_dir, progress=p)
    except CoreBuildError as e:
        p.done()
        print(f"error: {e}", file=sys.stderr)
        return 1
    p.done()
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
