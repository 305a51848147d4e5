#!/usr/bin/env python3
"""Build and run the ISA conformance suite (see README.md).

    python fw/isa/suite.py [--variant clint] [--out DIR] [--wait N] [TEST ...]

Generates the bodies (gen.py), links each with start_bare.S (core) and
start_linux.S (qemu-riscv32), builds the Verilator harness
(cores/tb/harness.cpp) around the core, runs both and compares the signatures
word for word. tests/test_isa.py uses the same functions.
"""

import argparse
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
HARNESS = os.path.join(ROOT, "cores", "tb", "harness.cpp")
CROSS = os.environ.get("IRQLAB_CROSS", "riscv64-unknown-elf-")
ARCH = ["-march=rv32im", "-misa-spec=2.2", "-mabi=ilp32"]
BASE = 0x10000                       # link address = load address = reset vector (link.ld)
QEMU = "qemu-riscv32"

sys.path.insert(0, HERE)
import gen  # noqa: E402


class SuiteError(Exception):
    pass


def _run(cmd, cwd=None, timeout=None, check=True):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=timeout)
    if check and r.returncode != 0:
        raise SuiteError(f"{' '.join(map(str, cmd))} failed ({r.returncode}):\n"
                         + r.stderr.decode(errors="replace")[-3000:])
    return r


def build_harness(verilog, out_root):
    """Verilator build of harness.cpp around the core; cached by a hash of the
    core's Verilog and the harness source. Returns the executable's path."""
    top = os.path.splitext(os.path.basename(verilog))[0]
    h = hashlib.sha256()
    for f in (verilog, HARNESS):
        with open(f, "rb") as fh:
            h.update(hashlib.sha256(fh.read()).digest())
    h.update(_run(["verilator", "--version"]).stdout)
    d = os.path.join(out_root, f"tb-{top}-{h.hexdigest()[:16]}")
    exe = os.path.join(d, "obj_dir", "Vharness")
    if os.path.isfile(exe):
        return exe
    os.makedirs(out_root, exist_ok=True)
    with open(os.path.join(out_root, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)          # one Verilator build at a time
        if os.path.isfile(exe):
            return exe
        work = d + ".partial"
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        with open(verilog) as f:                  # the CLIC variant's interrupt ports differ
            text = f.read()
        clic = " -DHAS_CLIC" if re.search(r"\bclic_valid\b", text) else ""
        # a variant with native buses (NativeBusPlugin): no Wishbone ports
        clic += " -DNATIVE_BUS" if re.search(r"^\s*output\s+(?:wire\s+|reg\s+)?iBus_cmd_valid\b", text, re.M) else ""
        _run(["verilator", "--cc", "--exe", "--build", "-j", "1", "-Wno-fatal", "-Wno-lint",
              "--top-module", top, "-CFLAGS", f'-O1 -DTOP_HEADER=\\"V{top}.h\\" -DTOP_CLASS=V{top}{clic}',
              verilog, HARNESS, "-o", "Vharness"], cwd=work)
        for old in os.listdir(out_root):       # harnesses of older cores
            if old.startswith(f"tb-{top}-") and os.path.join(out_root, old) not in (d, work):
                shutil.rmtree(os.path.join(out_root, old), ignore_errors=True)
        shutil.rmtree(d, ignore_errors=True)
        os.replace(work, d)
    return exe


def build_program(src, stub, elf):
    """Link a body with a stub ("bare" or "linux") into `elf`; for the bare
    one also write the flat binary `elf` minus .elf plus .bin."""
    _run([CROSS + "gcc", *ARCH, "-nostdlib", "-nostartfiles", "-static",
          "-T", os.path.join(HERE, "link.ld"), "-o", elf,
          os.path.join(HERE, f"start_{stub}.S"), src])
    if stub == "bare":
        binary = elf[:-4] + ".bin"
        _run([CROSS + "objcopy", "-O", "binary", elf, binary])
        return binary
    return elf


def words(data):
    if len(data) % 4:
        raise SuiteError(f"signature of {len(data)} bytes is not whole words")
    return [int.from_bytes(data[i:i + 4], "little") for i in range(0, len(data), 4)]


def run_qemu(elf, timeout=60):
    r = _run([QEMU, elf], timeout=timeout, check=False)
    if r.returncode != 0:
        raise SuiteError(f"{QEMU} {elf} exited with {r.returncode}: {r.stderr.decode(errors='replace')[-2000:]}")
    return words(r.stdout)


def run_core(exe, binary, sig_file, wait=0, wait_seed=0, timeout=120):
    """Run a bare binary on the core; (signature words, harness output)."""
    r = _run([exe, "--bin", binary, "--base", hex(BASE), "--sig", sig_file, "--wait", str(wait),
              "--wait-seed", str(wait_seed), "--max-cycles", "20000000"], timeout=timeout, check=False)
    log = (r.stdout + r.stderr).decode(errors="replace")
    if r.returncode != 0:
        raise SuiteError(f"core run of {binary} ended with status {r.returncode} "
                         f"(3 = unexpected trap: mcause, mepc, mtval printed):\n{log[-2000:]}")
    with open(sig_file) as f:
        return [int(line, 16) for line in f if line.strip()], log


def compare(name, labels, got, want, what_got="core", what_want="qemu"):
    """Mismatch messages (empty when equal)."""
    errors = []
    if len(got) != len(want):
        errors.append(f"{name}: {len(got)} signature words from {what_got}, {len(want)} from {what_want}")
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            lab = labels[i] if i < len(labels) else "?"
            errors.append(f"{name}[{i}] {lab}: {what_got} {g:08x} != {what_want} {w:08x}")
    return errors


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tests", nargs="*", help="test names (default: all)")
    ap.add_argument("--variant", default="clint")
    ap.add_argument("--out", default=None, help="work directory (default: build/isa)")
    ap.add_argument("--wait", type=int, default=0, help="Wishbone wait states in the harness")
    ap.add_argument("--wait-seed", type=int, default=0, help="random 0..WAIT wait states from this seed")
    args = ap.parse_args(argv)
    sys.path.insert(0, ROOT)
    from irqlab import paths
    from irqlab.builders import core as corebuild
    out = os.path.abspath(args.out or os.path.join(paths.BUILD, "isa"))
    verilog = corebuild.build_core(args.variant)
    exe = build_harness(verilog, out)
    progs = os.path.join(out, "programs-" + args.variant)
    manifests = gen.generate(progs, variant=args.variant)
    bad = 0
    total = 0
    for m in manifests:
        name = m["name"]
        if args.tests and name not in args.tests:
            continue
        src = os.path.join(progs, name + ".S")
        binary = build_program(src, "bare", os.path.join(progs, name + ".bare.elf"))
        got, _ = run_core(exe, binary, os.path.join(progs, name + ".core.sig"), wait=args.wait,
                          wait_seed=args.wait_seed)
        if m["qemu"]:
            want = run_qemu(build_program(src, "linux", os.path.join(progs, name + ".linux.elf")))
            errors = compare(name, m["labels"], got, want)
        else:
            want = m["expected"]
            errors = compare(name, m["labels"], got, want, what_want="expected")
        for k, v in m["model"].items():
            if want[int(k)] != v:
                errors.append(f"{name}[{k}] {m['labels'][int(k)]}: reference {want[int(k)]:08x} "
                              f"!= gen.py's model {v:08x}")
        total += len(want)
        print(f"{name}: {len(want)} words, {len(errors)} mismatches")
        for e in errors[:50]:
            print("  " + e)
        bad += len(errors)
    print(f"total {total} words compared, {bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
