"""Simulation target: the reference SoC under Verilator with irqlab's own harness.

`generate(soc, out_dir, core_verilog)` writes the Verilog, the software
headers, the SoC's facts (soc.json) and a source list; `compile(out_dir)` builds the Verilator model with
boards/sim/harness.cpp. The harness streams the trace to a TCP socket or a
file, prints the console, and logs the RTL probes (see harness.cpp).
"""

import json
import os
import subprocess

from migen import *
from migen.genlib.io import CRG

from litex.build.generic_platform import Pins, Subsignal
from litex.build.sim import SimPlatform
from litex.soc.integration.builder import Builder

from irqlab.boards.sim import BOARD
from irqlab.soc.soc import IrqlabSoC
from irqlab.soc.simctrl import SimControl
from irqlab.boards.sim.memdump import MemoryDump

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = "irqlab_sim"
SYS_CLK_FREQ = BOARD.default_clock_hz   # nominal, for converting cycles to ns
# Bytes of the trace stream per cycle (harness.cpp takes them all at once): at
# one byte a cycle (19 cycles a record) an interrupt every ~30 cycles, each
# with 3-4 records, overran the trace unit's FIFO (the TCM rows' throughput).
TRACE_BEAT_BYTES = 6

_io = [
    ("sys_clk", 0, Pins(1)),
    ("sys_rst", 0, Pins(1)),
    ("serial", 0,
        Subsignal("source_valid", Pins(1)), Subsignal("source_ready", Pins(1)), Subsignal("source_data", Pins(8)),
        Subsignal("sink_valid", Pins(1)), Subsignal("sink_ready", Pins(1)), Subsignal("sink_data", Pins(8))),
    ("trace", 0, Subsignal("valid", Pins(1)), Subsignal("ready", Pins(1)), Subsignal("data", Pins(8 * TRACE_BEAT_BYTES))),
    ("simctrl", 0, Subsignal("done", Pins(1)), Subsignal("code", Pins(8))),
    # The Modbus UART's line, bridged to a TCP socket by the harness at the
    # bit rate the UART is set to (its divisor: cycles per bit).
    ("modbus", 0, Subsignal("rx", Pins(1)), Subsignal("tx", Pins(1)), Subsignal("de", Pins(1)),
        Subsignal("divisor", Pins(24))),
    # Direct views of the RTL signals the trace unit records, for the trace-versus-RTL check.
    ("probe", 0,
        Subsignal("ts", Pins(64)), Subsignal("hw", Pins(32)),
        Subsignal("sw_valid", Pins(1)), Subsignal("sw_chan", Pins(8)), Subsignal("sw_data", Pins(32)),
        Subsignal("retire_valid", Pins(1)), Subsignal("retire_pc", Pins(32)), Subsignal("retire_trap", Pins(1)),
        Subsignal("exec_valid", Pins(1)), Subsignal("exec_pc", Pins(32)),
        Subsignal("enable", Pins(1))),
]


class SimSoC(IrqlabSoC):
    def __init__(self, soc, core_verilog=None):
        platform = SimPlatform("SIM", _io)
        self.crg = CRG(platform.request("sys_clk"), platform.request("sys_rst"))
        IrqlabSoC.__init__(self, platform, soc=soc, sys_clk_freq=SYS_CLK_FREQ, core_verilog=core_verilog,
                           uart_name="sim", trace_beat_bytes=TRACE_BEAT_BYTES,
                           with_bus_stress=BOARD.bus_stress)
        self.simctrl = SimControl(platform.request("simctrl"))
        # Each memory can be written to a file when the run ends (boards/sim/memdump.py).
        for name in self.soc_config.memory_map:
            self.specials += MemoryDump(self.memory(name), name)
        pads = platform.request("trace")
        t = self.tracer
        self.comb += [pads.valid.eq(t.source.valid), pads.data.eq(t.source.data), t.source.ready.eq(pads.ready)]
        mb = platform.request("modbus")
        if self.soc_config.modbus_uart:
            u = self.modbus
            self.comb += [u.rx.eq(mb.rx), mb.tx.eq(u.tx), mb.de.eq(u.de), mb.divisor.eq(u.divisor)]
        else:
            self.comb += [mb.tx.eq(1), mb.de.eq(0), mb.divisor.eq(0)]
        probe = platform.request("probe")
        self.comb += [
            probe.ts.eq(t.ts), probe.hw.eq(t.hw_lines),
            probe.sw_valid.eq(t.sw_valid), probe.sw_chan.eq(t.sw_chan), probe.sw_data.eq(t.sw_data),
            # The core's retire port itself, upstream of the PC-match comparators.
            probe.retire_valid.eq(t.retire.valid), probe.retire_pc.eq(t.retire.pc), probe.retire_trap.eq(t.retire.trap),
            probe.exec_valid.eq(t.retire.exec_valid), probe.exec_pc.eq(t.retire.exec_pc),
            probe.enable.eq(t._enable.storage),
        ]


# The CSRs a program of its own needs (docs/USER_PROGRAMS.md): end the run, console
# out, start the trace unit (so that stimulus-port stores are recorded).
HOST_CSRS = ("simctrl_exit", "uart_rxtx", "uart_txfull", "tracer_enable")


def csr_addresses(csr_csv, names):
    """Absolute addresses of the named CSRs, as LiteX placed them (csr.csv)."""
    found = {}
    with open(csr_csv) as f:
        for line in f:
            kind, name, addr, *_ = line.strip().split(",") + [""] * 3
            if kind == "csr_register" and name in names:
                found[name] = int(addr, 0)
    missing = set(names) - set(found)
    assert not missing, f"{csr_csv}: no CSR {', '.join(sorted(missing))}"
    return found


def generate(soc_name, out_dir, core_verilog=None):
    """Verilog + headers + soc.json + sources.f for one SoC; returns the SoC."""
    os.makedirs(out_dir, exist_ok=True)
    soc = SimSoC(soc_name, core_verilog)
    builder = Builder(soc, output_dir=out_dir, compile_software=False, compile_gateware=False,
                      csr_csv=os.path.join(out_dir, "csr.csv"))
    builder.build(build_name=TOP, build=False, run=False)
    platform = soc.platform
    fragment = soc.get_fragment()
    platform.finalize(fragment)
    v = platform.get_verilog(fragment, name=TOP)
    gw = os.path.join(out_dir, "gateware")
    os.makedirs(gw, exist_ok=True)
    cwd = os.getcwd()
    os.chdir(gw)   # memory images (*.init) are written beside the Verilog
    try:
        v.write(TOP + ".v")
    finally:
        os.chdir(cwd)
    facts = soc.facts()
    facts["csr"] = csr_addresses(os.path.join(out_dir, "csr.csv"), HOST_CSRS)
    with open(os.path.join(out_dir, "soc.json"), "w") as f:
        json.dump(facts, f, indent=1)
    with open(os.path.join(gw, "sources.f"), "w") as f:
        for path in platform.verilog_include_paths:
            f.write(f"+incdir+{path}\n")
        for path, language, library in platform.sources:
            f.write(path + "\n")
        f.write(os.path.join(gw, TOP + ".v") + "\n")
    return soc


def compile(out_dir, jobs=2):
    gw = os.path.join(out_dir, "gateware")
    subprocess.run(["make", "-s", "-f", os.path.join(HERE, "Makefile"), f"-j{jobs}",
                    f"GW={gw}", f"TOP={TOP}", f"HARNESS={os.path.join(HERE, 'harness.cpp')}",
                    f"TRACE_BEAT_BYTES={TRACE_BEAT_BYTES}"],
                   check=True)
    return os.path.join(gw, "obj_dir", "V" + TOP)
