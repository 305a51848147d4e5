"""Simulation only: a memory's contents written to a file when the run ends.

`MemoryDump(memory, key)` adds a Verilog `final` block beside a Migen memory.
When the model is started with the plusarg `+irqlab_dump_<key>=PATH`, the
block writes the whole memory to PATH with $writememh (one word a line, word
0 first) as the simulation finishes (the harness calls the model's final()).
Without the plusarg it does nothing, so ordinary runs are unchanged.
"""

from migen import Signal
from migen.fhdl.specials import Special

PLUSARG = "irqlab_dump_{}"
PATH_CHARS = 1024   # longest file name the plusarg can carry


def plusarg(key, path):
    """The model's command-line argument that dumps memory `key` to `path`."""
    if len(path) > PATH_CHARS:
        raise ValueError(f"dump path longer than {PATH_CHARS} characters: {path}")
    return f"+{PLUSARG.format(key)}={path}"


class MemoryDump(Special):
    def __init__(self, memory, key):
        Special.__init__(self)
        self.memory = memory
        self.key = key
        self.path = Signal(8 * PATH_CHARS, name_override=f"{key}_dump_path")

    @staticmethod
    def emit_verilog(dump, ns, add_data_file):
        mem = ns.get_name(dump.memory)
        path = ns.get_name(dump.path)
        arg = PLUSARG.format(dump.key)
        return (f"// +{arg}=PATH: {mem} written to PATH at the end of the simulation\n"
                f"reg [{8 * PATH_CHARS - 1}:0] {path};\n"
                f"final if ($value$plusargs(\"{arg}=%s\", {path})) $writememh({path}, {mem});\n\n")
