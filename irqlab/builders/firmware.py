"""Building firmware: one application (fw/<app>/) for one row, against the
headers of the row's SoC as generated (LiteX's software/include).

Besides LiteX's headers the build gets three generated files (in <out>/gen):
  irqlab_features.h    the row's features (irqlab/rows.py): what C branches on
  irqlab_protocol.h    channels, test ids, generator modes and the app's
                       configuration block (trace/protocol.py, trace/benchmarks.py)
  irqlab_protocol.ld   the configuration block's place, for the linker
and, for each shared module the application takes (APP_USES in its app.mk)
that has generated headers, those (MODULE_HEADERS):
  digits_model.h       the digits workload's network and test images (irqlab/builders/digits_net.py)
"""

import os
import re
import subprocess

from irqlab import paths
from irqlab.builders import freertos
from irqlab.builders import fwoptions
from irqlab.errors import BuildError
from irqlab.host import protocol
from irqlab.host.atomic import exclusive
from irqlab.host.benchmarks import BENCHMARKS
from irqlab.rows import row as row_info


def features_header(row):
    lines = [f"/* Generated from irqlab/rows.py for row '{row.name}': do not edit. */",
             "#ifndef IRQLAB_FEATURES_H", "#define IRQLAB_FEATURES_H",
             f'#define IRQLAB_ROW "{row.name}"']
    lines += [f"#define {k} {v}" for k, v in sorted(row.features().items())]
    # B: the entry-code symbol where everything a C call needs is saved, for a
    # given interrupt (vectored entries have one per interrupt); RET: the
    # handler's return instruction (mret, emret), where the row has one.
    lines.append(_symbol_macro("IRQLAB_B_SYMBOL", row.b_symbol))
    if row.ret_symbol:
        lines.append(_symbol_macro("IRQLAB_RET_SYMBOL", row.ret_symbol))
    lines += ["#endif", ""]
    return "\n".join(lines)


def _symbol_macro(name, pattern):
    """`name(irq)` as a C macro naming the symbol `pattern` ({irq}: the interrupt)."""
    if "{irq}" in pattern:
        prefix, suffix = pattern.split("{irq}")
        assert not suffix, pattern
        return f"#define {name}(irq) IRQLAB_PASTE({prefix}, irq)"
    return f"#define {name}(irq) {pattern}"


def _write_if_changed(path, text):
    """Keeps the file's time when nothing changed, so make does not rebuild."""
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except OSError:
        pass
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def _digits_header():
    from irqlab.builders import digits_net as digits   # numpy, and scikit-learn when it trains
    return digits.HEADER, digits.c_header(digits.load())


# fw/common/<module>/ -> () giving (file name, text) of its generated header.
MODULE_HEADERS = {"digits": _digits_header}


def generate(row, app, gen_dir):
    os.makedirs(gen_dir, exist_ok=True)
    _write_if_changed(os.path.join(gen_dir, "irqlab_features.h"), features_header(row))
    _write_if_changed(os.path.join(gen_dir, "irqlab_protocol.h"),
                      protocol.c_header(app, BENCHMARKS.values(), kernel=app_kernel(app),
                                        modules=app_uses(app)))
    _write_if_changed(os.path.join(gen_dir, "irqlab_protocol.ld"), protocol.ld_script())
    for module in app_uses(app):
        if module in MODULE_HEADERS:
            name, text = MODULE_HEADERS[module]()
            _write_if_changed(os.path.join(gen_dir, name), text)


def app_kernel(app):
    """The kernel an application builds against (its app.mk's APP_KERNEL), or None."""
    with open(os.path.join(paths.FW, app, "app.mk")) as f:
        m = re.search(r"^APP_KERNEL\s*:?=\s*(\S+)", f.read(), re.M)
    return m.group(1) if m else None


def app_uses(app):
    """The shared modules an application takes (its app.mk's APP_USES)."""
    with open(os.path.join(paths.FW, app, "app.mk")) as f:
        return [w for m in re.finditer(r"^APP_USES\s*[:+]?=(.*)$", f.read(), re.M) for w in m.group(1).split()]


# The CLIC port's change of the kernel (one hunk: vTaskDelay hands a task in
# a context of its own to the SoC's tick countdown; docs/FREERTOS.md).
KERNEL_PATCH = os.path.join(paths.FW, "freertos", "port-clic", "kernel.patch")


def kernel_for(row, options=()):
    """The FreeRTOS folder a row's build compiles: patched where the port
    hands delays to the SoC's tick countdown (a SoC with it has task
    contexts, so the CLIC port; no option that turns the patch off:
    hw-sched-off), else as the crate ships it."""
    if row.soc_config.task_delays and all(o.kernel_patch for o in options):
        return freertos.patched_kernel_dir(KERNEL_PATCH)
    return freertos.kernel_dir()


def run_logged(cmd, log_path, what, **kw):
    with open(log_path, "w") as log:
        r = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, **kw)
    if r.returncode != 0:
        with open(log_path) as log:
            tail = log.read().strip().splitlines()[-15:]
        raise BuildError(f"{what} failed (log: {log_path}):\n  " + "\n  ".join(tail))


def build(row, app, include_dir, out_dir, layout=None, options=()):
    """Build fw/<app> for `row` (a name or a Row) against the SoC headers in
    include_dir; returns the path of the .bin (the .elf and .lst beside it).
    `layout` (fw/common/layout_<layout>.ld): default the SoC's code memory
    (SocConfig.firmware_layout: ROM, or the TCMs); 'ram' for main RAM.
    `options`: irqlab/builders/fwoptions.py options (their defines on every source)."""
    r = row_info(row) if isinstance(row, str) else row
    layout = layout or r.soc_config.firmware_layout
    if not os.path.isfile(os.path.join(paths.FW, app, "app.mk")):
        known = sorted(d for d in os.listdir(paths.FW) if os.path.isfile(os.path.join(paths.FW, d, "app.mk")))
        raise BuildError(f"unknown firmware application '{app}' (known: {', '.join(known)})")
    extra = [f"FREERTOS_KERNEL={kernel_for(r, options)}"] if app_kernel(app) == "freertos" else []
    with exclusive(out_dir):                      # one make per output folder (parallel tests)
        os.makedirs(out_dir, exist_ok=True)
        gen = os.path.join(out_dir, "gen")
        generate(r, app, gen)
        run_logged(["make", "-C", paths.FW, f"APP={app}", f"INC={include_dir}", f"GEN={gen}",
                    f"IRQ_MODEL={r.soc_config.irq_model}", f"CPUFLAGS={r.cpu_flags}", f"OUT={out_dir}",
                    f"LAYOUT={layout}", f"APP_OPTIONS={fwoptions.cflags(options)}"] + extra,
                   os.path.join(out_dir, "build.log"), f"firmware '{app}' for {r.name}")
    return os.path.join(out_dir, app + ".bin")
