"""Build the project's own RISC-V cores (cores/: VexRiscv plus irqlab's
SpinalHDL plugins) into Verilog with Maven, cached by a hash of everything a
core is made from: the variant name, cores/pom.xml and cores/src/, and the
installed pythondata-cpu-vexriscv version (whose Scala sources are compiled in
place, never copied into the repository).

    python -m irqlab.builders.core clint        # prints the path of the .v
    python -m irqlab.builders.core --list       # the variants cores/ defines

The variants are defined once, in cores/src/main/scala/irqlab/Variants.scala;
`variants()` asks the Maven build for them (cached like the Verilog).

Environment: IRQLAB_MVN (the mvn command, default `mvn`), IRQLAB_M2_REPO
(Maven's local repository, default ~/.m2/repository), IRQLAB_MVN_ARGS (extra
arguments, e.g. `-o` to build offline).
"""

import argparse
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
from irqlab.errors import CoreBuildError, unknown
from irqlab.host.atomic import exclusive

CORES = os.path.join(paths.ROOT, "cores")
HASH_INPUTS = ["pom.xml", "src"]          # relative to cores/
PACKAGE = "pythondata-cpu-vexriscv"
LIST = "--list"                           # GenCore's argument that lists the variants
LEVER_SEPARATOR = "+"                     # `<variant>+<lever>` (GenCore; a lever listed as `+<lever>`)
KEEP_OLD_BUILDS = 2                       # older builds kept per variant (see _maven)


def top_name(variant):
    """The core's Verilog module (GenCore.topName: `-` and `+` are not allowed in a name)."""
    return f"IrqlabCore_{variant.replace('-', '_').replace(LEVER_SEPARATOR, '_')}"


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


def sources_hash():
    """A hash of everything the cores are made from (not of one variant)."""
    return core_hash(LIST)


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


def variants(out_dir=None, progress=None):
    """The core variants cores/ defines, as the Maven build lists them
    (GenCore --list), cached by the hash of the core sources."""
    return [n for n in _listing(out_dir, progress) if not n.startswith(LEVER_SEPARATOR)]


def levers(out_dir=None, progress=None):
    """The pipeline levers cores/ defines (Variants.levers): a core
    `<variant>+<lever>` is the variant with that one change."""
    return [n[1:] for n in _listing(out_dir, progress) if n.startswith(LEVER_SEPARATOR)]


def _listing(out_dir, progress):
    """GenCore --list's lines, cached by the hash of the core sources."""
    root = _root(out_dir)
    listing = os.path.join(root, "variants", sources_hash(), "variants.txt")
    if not os.path.isfile(listing):
        _maven(LIST, "variants.txt", root, os.path.dirname(listing),
               "core variants: asking the Maven build (compiles the core sources the first time)", progress)
    with open(listing) as f:
        return [line.strip() for line in f if line.strip()]


def build_core(variant, out_dir=None, progress=None):
    """The Verilog file of core `variant` (top module IrqlabCore_<variant>),
    built with Maven unless the cached one is up to date. `variant` may carry
    one pipeline lever: `<variant>+<lever>` (levers()).

    Layout: <out_dir or build/cores>/<variant>/<hash>/IrqlabCore_<variant>.v
    (plus maven.log); Maven's own build directory is <...>/maven, shared by
    the variants (one Maven run at a time, under a lock)."""
    root = _root(out_dir)
    digest = core_hash(variant)
    final_dir = os.path.join(root, variant, digest)
    verilog = os.path.join(final_dir, top_name(variant) + ".v")
    if os.path.isfile(verilog):
        return verilog
    known = variants(out_dir, progress)
    base, sep, lever = variant.partition(LEVER_SEPARATOR)
    if base not in known:
        raise unknown("core variant", variant, known)
    known_levers = levers(out_dir, progress)
    if sep and lever not in known_levers:
        raise unknown("pipeline lever", lever, known_levers)
    return _maven(variant, top_name(variant) + ".v", root, final_dir,
                  f"core {variant}: building with Maven/SpinalHDL (a few minutes the first time)", progress)


def _maven(arg, product, root, final_dir, what, progress):
    """Run GenCore with `arg` under the build lock into final_dir + '.partial',
    which becomes final_dir only when `product` was written; returns the
    product's final path. Older siblings of final_dir (stale hashes) go."""
    os.makedirs(root, exist_ok=True)
    final = os.path.join(final_dir, product)
    with exclusive(root):                     # one Maven run per build tree
        if os.path.isfile(final):             # made while we waited
            return final
        work = final_dir + ".partial"
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        log_path = os.path.join(work, "maven.log")
        out = os.path.join(work, product) if arg == LIST else work
        cmd = _mvn_command(arg, out, os.path.join(root, "maven"))
        if progress:
            progress.step(what)
        t0 = time.monotonic()
        with open(log_path, "w") as log:
            log.write("$ " + " ".join(shlex.quote(c) for c in cmd) + "\n")
            log.flush()
            r = subprocess.run(cmd, cwd=CORES, stdout=log, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL)
            log.write(f"\n# exit {r.returncode} after {time.monotonic() - t0:.1f}s\n")
        produced = os.path.join(work, product)
        if r.returncode != 0 or not os.path.isfile(produced):
            why = (f"Maven exited with {r.returncode}" if r.returncode
                   else f"Maven succeeded but wrote no {product}")
            raise CoreBuildError(f"{what.split(':')[0]} failed: {why} (log: {log_path}):\n  "
                                 + "\n  ".join(_tail(log_path)))
        # Older builds go, but for the newest few: work trees of other
        # checkouts sharing this cache keep theirs.
        parent = os.path.dirname(final_dir)
        others = [os.path.join(parent, o) for o in os.listdir(parent)
                  if o not in (os.path.basename(final_dir), os.path.basename(work))]
        others = sorted((p for p in others if os.path.isdir(p)), key=os.path.getmtime, reverse=True)
        for p in others[KEEP_OLD_BUILDS:]:
            shutil.rmtree(p, ignore_errors=True)
        shutil.rmtree(final_dir, ignore_errors=True)
        os.replace(work, final_dir)
    return final


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m irqlab.builders.core",
                                 description="Build irqlab's own cores into Verilog (cached).")
    ap.add_argument("variant", nargs="?", help="the variant to build")
    ap.add_argument("--list", action="store_true", help="print the variants cores/ defines")
    ap.add_argument("--out-dir", help="build tree (default: build/cores)")
    args = ap.parse_args(argv)
    if not args.list and not args.variant:
        ap.error("name a variant, or --list")
    from irqlab.progress import Progress
    p = Progress()
    try:
        path = ("\n".join(variants(args.out_dir, p)) if args.list
                else build_core(args.variant, args.out_dir, progress=p))
    except CoreBuildError as e:
        p.done()
        print(f"error: {e}", file=sys.stderr)
        return 1
    p.done()
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
