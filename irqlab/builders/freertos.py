"""The FreeRTOS kernel the RTOS firmware builds against, fetched from the
crates registry and cached.

The kernel is FreeRTOS-Kernel V11.2.0 exactly as the crate `freertos-next`
0.12.0 ships it (its `FreeRTOS-Kernel/` folder). Cargo downloads the crate
(and checks its registry checksum). Where cargo is missing or too old for
the crate's manifest (edition 2024 needs cargo 1.85; Debian 12 ships 1.65),
the crate file comes straight from the registry (static.crates.io), checked
against the SHA-256 in the registry's index. The kernel folder is copied,
unmodified, into `build/freertos/<version>/FreeRTOS-Kernel`, whole or not at
all. After that no network is needed: every later call returns the cached
folder.

    python -m irqlab.builders.freertos        # fetches if needed, prints the folder

A port may need the kernel changed: `patched_kernel_dir(patch)` is a copy of
the cached folder with a unified diff applied (the CLIC port's
fw/freertos/port-clic/kernel.patch), kept beside it under the patch's hash.
The crate's folder itself is never changed.

Environment: IRQLAB_CARGO (the cargo command, default `cargo`), CARGO_HOME
(cargo's own: where the registry cache lives).
"""

import hashlib
import io
import json
import os
import shlex
import shutil
import subprocess
import sys
import tarfile
import urllib.request

from irqlab import paths
from irqlab.errors import BuildError
from irqlab.host.atomic import exclusive

CRATE = "freertos-next"
CRATE_VERSION = "0.12.0"
KERNEL_VERSION = "V11.2.0"
KERNEL_FOLDER = "FreeRTOS-Kernel"
INDEX_URL = "https://index.crates.io/fr/ee/" + CRATE          # the sparse index's path for the name
CRATE_URL = f"https://static.crates.io/crates/{CRATE}/{CRATE}-{CRATE_VERSION}.crate"

_MANIFEST = f"""[package]
name = "irqlab-freertos-fetch"
version = "0.0.0"
edition = "2021"
publish = false

[lib]
path = "lib.rs"

[dependencies]
{CRATE} = "={CRATE_VERSION}"
"""


def cache_dir():
    return os.path.join(paths.BUILD, "freertos", KERNEL_VERSION)


def kernel_version(kernel):
    """The version string in the kernel's task.h (tskKERNEL_VERSION_NUMBER)."""
    try:
        with open(os.path.join(kernel, "include", "task.h"), errors="replace") as f:
            for line in f:
                if line.startswith("#define tskKERNEL_VERSION_NUMBER"):
                    return line.split('"')[1]
    except OSError:
        pass
    return None


def kernel_dir(progress=None):
    """The cached kernel folder, fetched with cargo the first time."""
    final = os.path.join(cache_dir(), KERNEL_FOLDER)
    if kernel_version(final) == KERNEL_VERSION:
        return final
    # One fetch at a time (others wait and reuse it); the lock sits beside the
    # versions so that a failed fetch leaves no folder of this version.
    with exclusive(os.path.join(paths.BUILD, "freertos", "fetch")):
        if kernel_version(final) == KERNEL_VERSION:
            return final
        return _fetch_into(final, progress)


def _fetch_into(final, progress):
    if progress:
        progress.step(f"FreeRTOS: fetching the crate {CRATE} {CRATE_VERSION} with cargo (FreeRTOS-Kernel {KERNEL_VERSION})")
    try:
        source = _fetch_crate()
    except BuildError as cargo_failed:
        try:
            source = _download_crate()
        except BuildError as download_failed:
            raise BuildError(f"{cargo_failed}; and directly from the registry: {download_failed}") from None
    got = kernel_version(source)
    if got != KERNEL_VERSION:
        raise BuildError(f"FreeRTOS: the crate {CRATE} {CRATE_VERSION} holds kernel {got or 'none'} in "
                         f"{source}, not {KERNEL_VERSION}")
    partial = final + ".partial"
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(source, partial, symlinks=True)
    shutil.rmtree(final, ignore_errors=True)
    os.replace(partial, final)
    return final


def _fetch_crate():
    """`cargo fetch` of a one-dependency package; returns the crate's kernel folder."""
    work = os.path.join(paths.BUILD, "freertos", "fetch")
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "Cargo.toml"), "w") as f:
        f.write(_MANIFEST)
    open(os.path.join(work, "lib.rs"), "a").close()
    cargo = shlex.split(os.environ.get("IRQLAB_CARGO", "cargo"))
    hint = (f"cannot fetch the crate {CRATE} {CRATE_VERSION} (FreeRTOS-Kernel {KERNEL_VERSION}) with "
            f"`{' '.join(cargo)}`")
    try:
        r = subprocess.run(cargo + ["fetch", "--quiet"], cwd=work, capture_output=True, text=True)
        if r.returncode != 0:
            lines = r.stderr.strip().splitlines() or ["(no message)"]
            first = next((ln for ln in lines if ln.lstrip().startswith("error")), lines[-1])
            raise BuildError(f"FreeRTOS: {hint}: {first.strip()} (needs crates.io or a mirror once; "
                             f"the kernel is cached after that)")
        meta = subprocess.run(cargo + ["metadata", "--format-version", "1", "--offline"], cwd=work,
                              capture_output=True, text=True)
    except OSError as e:
        raise BuildError(f"FreeRTOS: {hint}: {e.strerror} (install Rust's cargo: rustup or Debian's cargo)") from None
    if meta.returncode != 0:
        raise BuildError(f"FreeRTOS: {hint}: `cargo metadata` failed: "
                         f"{(meta.stderr.strip().splitlines() or ['?'])[-1]}")
    for pkg in json.loads(meta.stdout)["packages"]:
        if pkg["name"] == CRATE and pkg["version"] == CRATE_VERSION:
            return os.path.join(os.path.dirname(pkg["manifest_path"]), KERNEL_FOLDER)
    raise BuildError(f"FreeRTOS: {hint}: cargo did not resolve the crate")


def _download_crate():
    """The crate file from the registry, its SHA-256 checked against the
    index, unpacked under build/freertos/fetch; returns its kernel folder."""
    try:
        with urllib.request.urlopen(INDEX_URL, timeout=60) as r:
            index = r.read().decode()
        want = next(json.loads(line)["cksum"] for line in index.splitlines()
                    if line.strip() and json.loads(line)["vers"] == CRATE_VERSION)
        with urllib.request.urlopen(CRATE_URL, timeout=120) as r:
            data = r.read()
    except StopIteration:
        raise BuildError(f"{CRATE} {CRATE_VERSION} is not in the registry's index") from None
    except (OSError, ValueError) as e:
        raise BuildError(f"cannot download {CRATE_URL}: {e}") from None
    got = hashlib.sha256(data).hexdigest()
    if got != want:
        raise BuildError(f"{CRATE_URL}: SHA-256 {got}, the index says {want}")
    work = os.path.join(paths.BUILD, "freertos", "fetch", "crate")
    shutil.rmtree(work, ignore_errors=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for m in tar.getmembers():       # the checksum vouches for the file; still, stay inside `work`
            if m.name.startswith("/") or ".." in m.name.split("/") or not (m.isfile() or m.isdir()):
                raise BuildError(f"{CRATE_URL}: unexpected member '{m.name}'")
        tar.extractall(work)
    return os.path.join(work, f"{CRATE}-{CRATE_VERSION}", KERNEL_FOLDER)


def patched_kernel_dir(patch, progress=None):
    """The cached kernel with `patch` (a unified diff against the kernel
    folder, paths a/<file> b/<file>) applied, in a folder named by the patch's
    SHA-256: a new patch makes a new folder, whole or not at all."""
    kernel = kernel_dir(progress)
    try:
        with open(patch, "rb") as f:
            text = f.read()
    except OSError as e:
        raise BuildError(f"FreeRTOS: cannot read the kernel patch {patch}: {e.strerror}") from None
    final = f"{kernel}+{hashlib.sha256(text).hexdigest()[:12]}"
    if os.path.isdir(final):
        return final
    with exclusive(os.path.join(paths.BUILD, "freertos", "fetch")):
        if os.path.isdir(final):
            return final
        files = parse_patch(text.decode(), patch)
        partial = final + ".partial"
        shutil.rmtree(partial, ignore_errors=True)
        shutil.copytree(kernel, partial, symlinks=True)
        try:
            for name, hunks in files.items():
                _patch_file(os.path.join(partial, name), name, hunks, patch)
        except BuildError:
            shutil.rmtree(partial, ignore_errors=True)
            raise
        os.replace(partial, final)
    return final


def _patch_file(path, name, hunks, patch):
    try:
        with open(path, newline="") as f:
            original = f.read()
    except OSError:
        raise BuildError(f"{patch}: the kernel has no file '{name}'") from None
    try:
        patched = apply_hunks(original, hunks)
    except BuildError as e:
        raise BuildError(f"{patch}: {name}: {e}") from None
    with open(path, "w", newline="") as f:
        f.write(patched)


def parse_patch(text, where="the patch"):
    """{file: [(old_start, old_lines, new_lines)]} of a unified diff; a
    malformed one is a one-line error."""
    files, name, hunks = {}, None, None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        ln = lines[i].rstrip("\r")
        if ln.startswith("+++ "):
            name = ln[4:].split("\t")[0].strip()
            name = name[2:] if name.startswith("b/") else name
            if ".." in name.split("/") or name.startswith("/"):
                raise BuildError(f"{where}: a file outside the kernel: '{name}'")
            hunks = files.setdefault(name, [])
        elif ln.startswith("@@ "):
            if hunks is None:
                raise BuildError(f"{where}: line {i + 1}: a hunk before its file")
            try:
                spans = ln.split("@@")[1].split()
                old_start, old_count = (list(map(int, spans[0][1:].split(","))) + [1])[:2]
                new_count = (list(map(int, spans[1][1:].split(","))) + [1])[1]
            except (IndexError, ValueError):
                raise BuildError(f"{where}: line {i + 1}: a malformed hunk header") from None
            old, new = [], []
            i += 1
            while i < len(lines) and (len(old) < old_count or len(new) < new_count):
                body = lines[i].rstrip("\r")
                tag, rest = body[:1], body[1:]
                if tag in (" ", ""):
                    old.append(rest)
                    new.append(rest)
                elif tag == "-":
                    old.append(rest)
                elif tag == "+":
                    new.append(rest)
                elif not body.startswith("\\"):
                    raise BuildError(f"{where}: line {i + 1}: not a line of a hunk")
                i += 1
            if len(old) != old_count or len(new) != new_count:
                raise BuildError(f"{where}: a hunk shorter than its header says")
            hunks.append((old_start, old, new))
            continue
        i += 1
    if not files:
        raise BuildError(f"{where}: no file in the patch")
    return files


def apply_hunks(original, hunks):
    """The text with every hunk applied where its header says (the file's
    own line endings kept); a hunk whose lines are not there is an error."""
    newline = "\r\n" if "\r\n" in original else "\n"
    lines = original.split(newline)
    shift = 0
    for old_start, old, new in hunks:
        at = old_start - 1 + shift
        if lines[at:at + len(old)] != old:
            raise BuildError(f"the hunk at line {old_start} does not match the kernel")
        lines[at:at + len(old)] = new
        shift += len(new) - len(old)
    return newline.join(lines)


def main():
    from irqlab.errors import UserError
    from irqlab.progress import Progress
    try:
        print(kernel_dir(Progress()))
    except UserError as e:
        print(f"irqlab: error: {e}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
