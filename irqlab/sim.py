"""Build and run the simulated SoC: the Verilator model per core (cached by a
hash of everything it is made from), the firmware, and one run with its trace
captured through the host tool's own capture path."""

import hashlib
import importlib.metadata
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass

from irqlab import paths, fwimage, corebuild
from irqlab.host import capture as cap
from irqlab.soc.cpus import core_info
from irqlab.soc.soc import ROM_SIZE
from irqlab.soc.irqlab_core import CPU_TYPE as OWN_CPU_TYPE

TOP = "irqlab_sim"
MODEL_INPUTS = ["soc", os.path.join("boards", "sim"), os.path.join("trace", "record.py")]
PACKAGES = ["litex", "migen", "pythondata-cpu-vexriscv", "pythondata-cpu-cv32e40p"]


class BuildError(Exception):
    pass


@dataclass
class Model:
    core: str
    dir: str
    binary: str
    include: str
    gateware: str


def _model_hash(core):
    info = core_info(core)
    h = hashlib.sha256(info.soc_core.encode())
    if info.litex_type == OWN_CPU_TYPE:
        # The project's own core: its Verilog is made from cores/ (and the
        # installed VexRiscv sources), all of which corebuild's hash covers.
        h.update(f"core={info.litex_variant}:{corebuild.core_hash(info.litex_variant)}".encode())
    for rel in MODEL_INPUTS:
        top = os.path.join(paths.ROOT, rel)
        files = [top] if os.path.isfile(top) else sorted(
            os.path.join(d, f) for d, _, fs in os.walk(top) for f in fs
            if f.endswith((".py", ".cpp", "Makefile")) and "__pycache__" not in d)
        for f in files:
            h.update(os.path.relpath(f, paths.ROOT).encode())
            with open(f, "rb") as fh:
                h.update(fh.read())
    for p in PACKAGES:
        try:
            h.update(f"{p}={importlib.metadata.version(p)}".encode())
        except importlib.metadata.PackageNotFoundError:
            pass
    return h.hexdigest()[:16]


def _run_logged(cmd, log_path, what, **kw):
    with open(log_path, "w") as log:
        r = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, **kw)
    if r.returncode != 0:
        with open(log_path) as log:
            tail = log.read().strip().splitlines()[-15:]
        raise BuildError(f"{what} failed (log: {log_path}):\n  " + "\n  ".join(tail))


def ensure_model(core, progress=None):
    """The Verilator model of the SoC with `core`, built unless up to date
    (rows that share a SoC share its model; Model.core is the row)."""
    soc = core_info(core).soc_core   # unknown core -> UnknownCore
    d = paths.sim_dir(soc)
    gw = os.path.join(d, "gateware")
    model = Model(core, d, os.path.join(gw, "obj_dir", "V" + TOP),
                  os.path.join(d, "software", "include"), gw)
    stamp = os.path.join(d, "stamp")
    want = _model_hash(core)
    if os.path.exists(model.binary) and os.path.exists(stamp) and open(stamp).read() == want:
        return model
    if os.path.exists(d):
        shutil.rmtree(d)
    os.makedirs(d)
    if progress:
        progress.step(f"{soc}: generating the SoC (LiteX)")
    _run_logged([sys.executable, "-c",
                 "import sys; from irqlab.boards.sim import target; target.generate(sys.argv[1], sys.argv[2])",
                 soc, d], os.path.join(d, "generate.log"), f"SoC generation for {soc}")
    if progress:
        progress.step(f"{soc}: compiling the Verilator model (a few minutes the first time)")
    _run_logged([sys.executable, "-c",
                 "import sys; from irqlab.boards.sim import target; target.compile(sys.argv[1])", d],
                os.path.join(d, "verilator-build.log"), f"Verilator build for {soc}")
    with open(stamp, "w") as f:
        f.write(want)
    return model


def build_firmware(model, app="bench", progress=None, layout="rom"):
    """Build firmware against the model's headers; layout 'ram' links it for
    main RAM (loaded over the serial link by the ROM's boot code)."""
    info = core_info(model.core)
    out = os.path.join(model.dir, "fw", f"{model.core}-{app}-{layout}")
    os.makedirs(out, exist_ok=True)
    cpuflags = f"-march={info.march} -misa-spec=2.2 -mabi={info.mabi} {info.fw_flags}".strip()
    _run_logged(["make", "-C", paths.FW, f"APP={app}", f"INC={model.include}", f"CORE={info.entry}",
                 f"CPUFLAGS={cpuflags}", f"OUT={out}", f"LAYOUT={layout}"],
                os.path.join(out, "build.log"), f"firmware '{app}' for {model.core}")
    return os.path.join(out, app + ".bin")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class RunResult:
    exit_code: int
    console: str
    trace_path: str
    capture_stats: object
    sim_log: str


def run(model, image, trace_path, probe_path=None, max_cycles=400_000_000, progress=None, label=None,
        console_in=None, probe_pc=None):
    """Run the model with a ROM image; the trace is captured over the
    simulator's socket with the host's capture code and written to trace_path."""
    label = label or model.core
    rundir = tempfile.mkdtemp(prefix="irqlab-run-")
    try:
        for f in os.listdir(model.gateware):
            if f.endswith(".init"):
                shutil.copy(os.path.join(model.gateware, f), rundir)
        with open(os.path.join(rundir, f"{TOP}_rom.init"), "w") as f:
            f.write(fwimage.to_readmemh(image))
        port = free_port()
        cmd = [model.binary, "--trace-tcp", str(port), "--max-cycles", str(max_cycles),
               "--console-file", os.path.join(rundir, "console.txt")]
        if probe_path:
            cmd += ["--probe-file", os.path.abspath(probe_path)]
            if probe_pc is not None:
                cmd += ["--probe-pc", hex(probe_pc)]
        if console_in:
            with open(os.path.join(rundir, "console-in.bin"), "wb") as f:
                f.write(console_in)
            cmd += ["--console-in", os.path.join(rundir, "console-in.bin")]
        log_path = os.path.join(rundir, "sim.log")
        with open(log_path, "w") as log:
            proc = subprocess.Popen(cmd, cwd=rundir, stdout=subprocess.DEVNULL, stderr=log)
        result = {}

        def on_progress(st):
            if progress:
                progress.update(f"{label}: {st.records} trace records ({st.bytes >> 10} KiB)")

        def do_capture():
            try:
                result["stats"] = cap.capture(f"socket://127.0.0.1:{port}", trace_path,
                                              on_progress=on_progress, connect_timeout=30)
            except BaseException as e:   # reported after the simulator ends
                result["error"] = e

        t = threading.Thread(target=do_capture)
        t.start()
        t.join()
        try:
            code = proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
        if "error" in result:
            raise result["error"]
        with open(os.path.join(rundir, "console.txt"), errors="replace") as f:
            console = f.read()
        with open(log_path) as f:
            sim_log = f.read()
        return RunResult(code, console, trace_path, result["stats"], sim_log)
    finally:
        shutil.rmtree(rundir, ignore_errors=True)


def load_image(model, bin_path, size=ROM_SIZE, **config):
    image = fwimage.load_image(bin_path, size)
    if config:
        fwimage.patch_config(image, size, **config)
    return image
