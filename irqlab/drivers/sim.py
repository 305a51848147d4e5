"""Build and run the simulated SoC: the Verilator model per core (cached by a
hash of everything it is made from), the firmware, and one run with its trace
captured through the host tool's own capture path."""

import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field

from irqlab import paths
from irqlab.builders import fwoptions
from irqlab.builders import fwimage
from irqlab.builders import core as corebuild
from irqlab.builders import firmware
from irqlab.errors import BenchError, BuildError
from irqlab.host import capture as cap, protocol
from irqlab.host.atomic import exclusive
from irqlab.host.decode import check as check_trace
from irqlab.rows import row as row_info

TOP = "irqlab_sim"
MODEL_INPUTS = ["soc", os.path.join("boards", "sim"), os.path.join("trace", "record.py")]
PACKAGES = ["litex", "migen", "pythondata-cpu-vexriscv", "pythondata-cpu-cv32e40p"]


@dataclass
class Model:
    """A built simulation model of one SoC, as used by one row."""
    row: str
    soc: str
    dir: str
    binary: str
    include: str
    gateware: str
    facts: dict = field(default_factory=dict)   # the SoC's facts (soc/soc.py facts(), soc.json)

    def gen_irq(self, line=0):
        """The interrupt input (CLIC source) of generator line `line`."""
        return self.facts["irq"]["claims"]["gen"]["first"] + line

    @property
    def b_symbol(self):
        """The row's B symbol for generator line 0's interrupt."""
        return row_info(self.row).b_symbol_for(self.gen_irq(0))

    @property
    def code_memory(self):
        """The memory the firmware image goes into (ROM, or the ITCM of a SoC with TCMs)."""
        return self.facts["code_memory"]

    @property
    def code_size(self):
        return self.facts["memory"][self.code_memory]["size"]


def _model_hash(soc):
    """Everything the model of SoC `soc` is made from."""
    from irqlab.soc.configs import soc_config
    cfg = soc_config(soc)
    h = hashlib.sha256(soc.encode())
    if cfg.own_core:
        # The project's own core: its Verilog is made from cores/ (and the
        # installed VexRiscv sources), all of which corebuild's hash covers.
        h.update(f"core={cfg.core_variant}:{corebuild.core_hash(cfg.core_variant)}".encode())
    for rel in MODEL_INPUTS:
        top = os.path.join(paths.ROOT, rel)
        files = [top] if os.path.isfile(top) else sorted(
            os.path.join(d, f) for d, _, fs in os.walk(top) for f in fs
            if f.endswith((".py", ".cpp", "Makefile")) and "__pycache__" not in d)
        for f in files:
            h.update(os.path.relpath(f, paths.ROOT).encode())
            with open(f, "rb") as fh:
                h.update(fh.read())
    # Of the host–firmware protocol the gateware uses only the generator's modes.
    h.update(repr(sorted(protocol.GEN_MODES.items())).encode())
    hash_packages(h, PACKAGES)
    return h.hexdigest()[:16]


def hash_packages(h, packages):
    """Add the installed version of each package (if installed) to hash `h`:
    a cached build made from their sources is stale when one changes."""
    for p in packages:
        try:
            h.update(f"{p}={importlib.metadata.version(p)}".encode())
        except importlib.metadata.PackageNotFoundError:
            pass


def ensure_model(row, progress=None):
    """The Verilator model of the row's SoC, built unless up to date (rows
    that share a SoC share its model; Model.row is the row)."""
    r = row_info(row)
    soc = r.soc
    d = paths.sim_dir(soc)
    gw = os.path.join(d, "gateware")
    model = Model(row, soc, d, os.path.join(gw, "obj_dir", "V" + TOP),
                  os.path.join(d, "software", "include"), gw)
    stamp = os.path.join(d, "stamp")
    want = _model_hash(soc)

    def up_to_date():
        return os.path.exists(model.binary) and os.path.exists(stamp) and open(stamp).read() == want

    if not up_to_date():
        os.makedirs(os.path.dirname(d), exist_ok=True)
        with exclusive(d):                        # one build per model; others wait and reuse it
            if not up_to_date():
                _build_model(r.soc_config, model, want, progress)
    _load_facts(model)
    return model


def _load_facts(model):
    with open(os.path.join(model.dir, "soc.json")) as f:
        model.facts = json.load(f)


def _build_model(cfg, model, stamp_value, progress):
    soc, d = cfg.name, model.dir
    verilog = corebuild.build_core(cfg.core_variant, progress=progress) if cfg.own_core else ""
    if os.path.exists(d):
        shutil.rmtree(d)
    os.makedirs(d)
    if progress:
        progress.step(f"{soc}: generating the SoC (LiteX)")
    firmware.run_logged([sys.executable, "-c",
                         "import sys; from irqlab.boards.sim import target; "
                         "target.generate(sys.argv[1], sys.argv[2], sys.argv[3] or None)",
                         soc, d, verilog], os.path.join(d, "generate.log"), f"SoC generation for {soc}")
    _load_facts(model)
    # The build is profile-guided: trained on the benchmark firmware of the
    # first row on this SoC (boards/sim/Makefile).
    train_dir = os.path.join(d, "train")
    os.makedirs(train_dir)
    fw = build_firmware(Model(training_row(soc), soc, d, model.binary, model.include, model.gateware,
                              model.facts), "bench", progress)
    _write_memories(model, {model.code_memory: load_image(model, fw)}, train_dir)
    if progress:
        progress.step(f"{soc}: compiling the Verilator model (a few minutes the first time)")
    firmware.run_logged([sys.executable, "-c",
                         "import sys; from irqlab.boards.sim import target; target.compile(sys.argv[1], sys.argv[2])",
                         d, train_dir],
                        os.path.join(d, "verilator-build.log"), f"Verilator build for {soc}")
    shutil.rmtree(train_dir)
    with open(os.path.join(d, "stamp"), "w") as f:
        f.write(stamp_value)


def training_row(soc):
    """The row whose benchmark firmware trains SoC `soc`'s model build."""
    from irqlab.rows import row_for_soc
    return row_for_soc(soc).name


def _write_memories(model, images, rundir):
    """The .init files the gateware loads its memories from ($readmemh of
    <top>_<memory>.init), into `rundir`: the built ones, with `images`
    (memory name -> full-size image) in place of theirs."""
    for f in os.listdir(model.gateware):
        if f.endswith(".init"):
            shutil.copy(os.path.join(model.gateware, f), rundir)
    for name, img in images.items():
        with open(os.path.join(rundir, f"{TOP}_{name}.init"), "w") as f:
            f.write(fwimage.to_readmemh(img))


def build_firmware(model, app="bench", progress=None, layout=None, options=()):
    """Build fw/<app> for the model's row against its headers, linked for the
    SoC's code memory (the SoC's firmware_layout: ROM, or the TCMs); layout
    'ram' links it for main RAM (loaded over the serial link by the boot code).
    `options`: firmware build options (irqlab/builders/fwoptions.py), each build with
    options in a folder of its own."""
    layout = layout or row_info(model.row).soc_config.firmware_layout
    out = os.path.join(model.dir, "fw", f"{model.row}-{app}-{layout}{fwoptions.suffix(options)}")
    return firmware.build(model.row, app, model.include, out, layout, options)


_ports_lock = threading.Lock()
_ports_given = set()


def free_port():
    """A TCP port free now for a simulator to listen on. Never the same one
    twice in this process: rows run side by side (irqlab/parallel.py) ask
    at once, and the OS may hand a just-closed port out again."""
    with _ports_lock:
        while True:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
            if port not in _ports_given:
                _ports_given.add(port)
                return port


@dataclass
class RunResult:
    exit_code: int
    console: str
    trace_path: str
    capture_stats: object
    sim_log: str
    records: list = field(default_factory=list)   # decoded while capturing
    memories: dict = field(default_factory=dict)  # name -> bytes, the memories read back at the end

    @property
    def finished(self):
        """The firmware ended the run (the harness did not stop it at --max-cycles)."""
        return "stopped at --max-cycles" not in self.sim_log

    @property
    def speed(self):
        """The simulator's speed in this run (sim_speed), or None."""
        return sim_speed(self.sim_log)

    def trace(self, allow_problems=False):
        """(records, stats) as read_trace gives them, without decoding again."""
        check_trace(self.records, self.capture_stats, self.trace_path, allow_problems)
        return self.records, self.capture_stats


_SPEED = re.compile(r"irqlab-sim: (\d+) cycles in ([\d.]+) s \(([\d.]+) Mcycles/s; ([\d.]+) s of CPU, "
                    r"([\d.]+) Mcycles/CPU-s\)")


def sim_speed(sim_log):
    """The speed line of a simulator's log (boards/sim/harness.cpp) as
    {cycles, seconds, mcycles_per_s, cpu_seconds, mcycles_per_cpu_s}, or None."""
    m = _SPEED.search(sim_log)
    if not m:
        return None
    return {"cycles": int(m.group(1)), "seconds": float(m.group(2)), "mcycles_per_s": float(m.group(3)),
            "cpu_seconds": float(m.group(4)), "mcycles_per_cpu_s": float(m.group(5))}


def run(model, image, trace_path, probe_path=None, max_cycles=400_000_000, progress=None, label=None,
        console_in=None, probe_pc=None, images=None, dump=(), probe_retire=None, harness_args=()):
    """Run the model with a firmware image in its code memory (ROM or ITCM,
    Model.code_memory) (and, in `images`, full-size images of other memories
    by name: sram, main_ram, dtcm); the trace is captured over the
    simulator's socket with the host's capture code and written to trace_path.
    The memories named in `dump` are read back when the run ends
    (RunResult.memories). `probe_retire` (lo, hi): the probe file also logs
    every retire-port event with a pc in [lo, hi) ("R ts pc trap") and every
    execute entry of such a pc ("E ts pc"). `harness_args`: more options for
    the harness (boards/sim/harness.cpp), e.g. its Modbus bridge's port."""
    label = label or model.row
    images = dict(images or {})
    if image is not None:
        images[model.code_memory] = image
    rundir = tempfile.mkdtemp(prefix="irqlab-run-")
    try:
        _write_memories(model, images, rundir)
        port = free_port()
        cmd = [model.binary, "--trace-tcp", str(port), "--max-cycles", str(max_cycles),
               "--console-file", os.path.join(rundir, "console.txt"), *harness_args]
        dump_files = {name: os.path.join(rundir, f"dump-{name}.hex") for name in dump}
        if dump_files:
            from irqlab.boards.sim.memdump import plusarg
            cmd += [plusarg(name, path) for name, path in dump_files.items()]
        if probe_path:
            cmd += ["--probe-file", os.path.abspath(probe_path)]
            if probe_pc is not None:
                cmd += ["--probe-pc", hex(probe_pc)]
            if probe_retire is not None:
                cmd += ["--probe-retire", f"{probe_retire[0]:#x}:{probe_retire[1]:#x}"]
        if console_in:
            with open(os.path.join(rundir, "console-in.bin"), "wb") as f:
                f.write(console_in)
            cmd += ["--console-in", os.path.join(rundir, "console-in.bin")]
        log_path = os.path.join(rundir, "sim.log")
        with open(log_path, "w") as log:
            proc = subprocess.Popen(cmd, cwd=rundir, stdout=subprocess.DEVNULL, stderr=log)
        result = {}
        records = []

        def on_progress(st):
            if progress:
                progress.update(f"{label}: {st.records} trace records ({st.bytes >> 10} KiB)")

        def sim_gone():
            """The simulator ended before it listened: its exit and last words."""
            if proc.poll() is None:
                return None
            with open(log_path, errors="replace") as f:
                last = (f.read().strip().splitlines() or [""])[-1]
            return f"the simulator exited with {proc.returncode} ({last})"

        def do_capture():
            try:
                result["stats"] = cap.capture(f"socket://127.0.0.1:{port}", trace_path,
                                              on_progress=on_progress, connect_timeout=30,
                                              records=records, peer_gone=sim_gone)
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
        memories = {}
        for name, path in dump_files.items():
            try:
                with open(path) as f:
                    memories[name] = fwimage.from_memh(f.read(), model.facts["memory"][name]["size"])
            except OSError:
                raise BuildError(f"the simulation wrote no dump of memory '{name}' ({sim_log.strip()})") from None
        return RunResult(code, console, trace_path, result["stats"], sim_log, records, memories)
    finally:
        shutil.rmtree(rundir, ignore_errors=True)


def load_image(model, bin_path, size=None, **config):
    """The image padded to its memory (default: the model's code memory, ROM
    or ITCM), with its configuration block patched."""
    size = size or model.code_size
    image = fwimage.load_image(bin_path, size)
    if config:
        fwimage.patch_config(image, size, **config)
    return image


def run_application(row, app, config, trace_path, progress=None, what=None, done=None, options=(),
                    max_cycles=400_000_000, probe_path=None):
    """Build (if needed) and run firmware application `app` on `row`, its
    configuration block patched with `config`: (the run, the configuration
    the firmware ran with). A non-zero exit, or a console without the line
    `done` when one is given, is a BenchError that shows the console's end;
    `what` names the run in the progress line and the error."""
    model = ensure_model(row, progress)
    fw = build_firmware(model, app, progress, options=options)
    image = load_image(model, fw, **config)
    fw_config = fwimage.read_config(image, model.code_size)
    what = what or app
    if progress:
        progress.step(f"{row}: running {what} in simulation")
    result = run(model, image, trace_path, probe_path=probe_path, max_cycles=max_cycles, progress=progress,
                 label=row)
    if progress:
        progress.done()
    if result.exit_code != 0 or (done is not None and done not in result.console):
        raise BenchError(f"{row}: {what} exited with {result.exit_code}; console:\n{result.console[-800:]}")
    return result, fw_config
