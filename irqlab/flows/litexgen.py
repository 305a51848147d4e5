"""The LiteX generation of a board's SoC (Verilog, constraints, software
headers and the flow's build script), in a subprocess so one build's LiteX
state cannot leak into the next. The flow itself runs later (scriptrun.py)."""

import json
import os
import subprocess
import sys

from irqlab.builders import core as corebuild
from irqlab.errors import BoardBuildError
from irqlab.rows import row

TOP = "irqlab"      # LiteX build name: gateware/irqlab.v, irqlab.bit, build_irqlab.sh

_SCRIPT = """
import sys, json
from importlib import import_module
from litex.soc.integration.builder import Builder
from irqlab.builders.fwimage import load_image, patch_config, read_config
from irqlab.host.protocol import FLAG_BOOT_WAIT
from irqlab.soc.configs import soc_config
a = json.loads(sys.argv[1])
opts = a['options']
if a['rom_bin']:
    size = soc_config(a['soc']).code_size
    img = load_image(a['rom_bin'], size)
    # The boot code waits for the host: a load frame, or 'g' for this image (fw/common/boot.c).
    patch_config(img, size, flags=read_config(img, size)['flags'] | FLAG_BOOT_WAIT)
    opts['rom_init'] = [int.from_bytes(img[i:i+4], 'little') for i in range(0, len(img), 4)]
module, cls = a['target'].split(':')
soc = getattr(import_module(module), cls)(soc=a['soc'], core_verilog=a['verilog'], **opts)
b = Builder(soc, output_dir=a['out'], compile_software=False, compile_gateware=False,
            csr_csv=a['out'] + '/csr.csv')
b.build(build_name=a['top'], run=False)
p = soc.platform
json.dump({'sources': [s[0] for s in p.sources], 'include_paths': list(p.verilog_include_paths),
           'device': p.device}, open(a['out'] + '/sources.json', 'w'))
json.dump(soc.facts(), open(a['out'] + '/soc.json', 'w'), indent=1)
"""


def generate(job, out_dir, options=None, rom=False, env_extra=None):
    """Write the LiteX project of job's board into out_dir (gateware/,
    software/include/, sources.json); with rom, the firmware is in ROM."""
    cfg = row(job.core).soc_config
    # The own core's Verilog is built (or found in the cache) here, not by the gateware.
    verilog = corebuild.build_core(cfg.core_variant, progress=job.progress) if cfg.own_core else None
    args = json.dumps({"target": job.board.soc_target, "soc": cfg.name, "verilog": verilog,
                       "options": options or job.options,
                       "out": out_dir, "rom_bin": job.firmware if rom else None, "top": TOP})
    os.makedirs(out_dir, exist_ok=True)
    log = os.path.join(out_dir, "generate.log")
    with open(log, "w") as f:
        r = subprocess.run([sys.executable, "-c", _SCRIPT, args], stdout=f, stderr=subprocess.STDOUT,
                           env={**os.environ, **(env_extra or {})})
    if r.returncode != 0:
        with open(log) as f:
            tail = f.read().strip().splitlines()[-1:] or ["(no output)"]
        raise BoardBuildError(f"{job.board.name}/{job.core}: LiteX generation failed: {tail[0]} (log: {log})")
    return os.path.join(out_dir, "gateware")
