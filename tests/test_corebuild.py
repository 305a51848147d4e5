"""The project's own core: built from source (Maven + SpinalHDL + VexRiscv's
Scala sources from pythondata-cpu-vexriscv), cached, lint-clean, and its retire
port doing what cores/README.md says (a small program in Verilator)."""

import os
import re
import shutil
import subprocess
import time

import pytest

from irqlab.builders import core as corebuild
from irqlab.errors import UnknownName
from irqlab.soc.configs import SOCS

VARIANT = "clint"          # the retire-port simulation below drives the CLINT-style inputs
TOP = f"IrqlabCore_{VARIANT}"
RETIRE_PORTS = {"retire_valid": 1, "retire_pc": 32, "retire_trap": 1, "retire_cause": 8, "retire_mret": 1,
                "retire_trapDelay": 2, "exec_valid": 1, "exec_pc": 32}
# The interrupt inputs each interrupt model's core has (soc/configs.py IRQ_MODELS).
IRQ_INPUTS = {"csr-mask": ("externalInterruptArray", "timerInterrupt", "softwareInterrupt"),
              "clic": ("clic_valid", "clic_id", "clic_level", "clic_shv", "clic_above", "clic_aboveAlt",
                       "clic_idKept")}

pytestmark = pytest.mark.skipif(shutil.which("mvn") is None,
                                reason="mvn (Maven) is not installed: the cores are built with Maven")


def own_socs():
    return [s for s in SOCS.values() if s.own_core]


@pytest.fixture(scope="module", params=sorted({s.core_variant for s in own_socs()}))
def variant(request):
    return request.param


@pytest.fixture(scope="module")
def verilog():
    return corebuild.build_core(VARIANT)   # cold: a few minutes; warm: cached


@pytest.fixture(scope="module")
def variant_verilog(variant):
    return corebuild.build_core(variant)


def _outputs(text, top):
    """name -> width of the top module's output ports."""
    top = text[text.index(f"module {top}"):]
    top = top[:top.index(");")]
    ports = {}
    for m in re.finditer(r"output\s+(?:wire|reg)?\s*(?:\[(\d+):0\])?\s*(\w+)", top):
        ports[m.group(2)] = int(m.group(1)) + 1 if m.group(1) else 1
    return ports


def test_variants_come_from_the_maven_build():
    """The variant list is Variants.scala's, asked from the Maven build, and
    every SoC of the registry that uses the own core names one of them."""
    known = corebuild.variants()
    assert set(known) >= {s.core_variant for s in own_socs()}
    with open(os.path.join(corebuild.CORES, "src/main/scala/irqlab/Variants.scala")) as f:
        scala = f.read()
    assert all(f'"{v}" ->' in scala for v in known)


def test_generated(variant, variant_verilog):
    top = corebuild.top_name(variant)
    assert variant_verilog.endswith(f"{top}.v")
    with open(variant_verilog) as f:
        text = f.read()
    assert re.search(rf"^module {top}\b", text, re.M)
    outputs = _outputs(text, top)
    for name, width in RETIRE_PORTS.items():
        assert outputs.get(name) == width, f"{name}: {outputs.get(name)} bits, want {width}"
    # Wishbone buses, or native ones where the SoC puts TCMs beside the core
    # (soc/tcm.py), LiteX-style reset vector, and the interrupt model's inputs
    native = any(s.tcm for s in own_socs() if s.core_variant == variant)
    buses = (("iBus_cmd_valid", "iBus_cmd_payload_pc", "dBus_cmd_valid", "dBus_cmd_payload_address")
             if native else ("iBusWishbone_CYC", "dBusWishbone_CYC", "iBusWishbone_ADR", "dBusWishbone_SEL"))
    for name in buses:
        assert name in outputs
    if native:
        assert "iBusWishbone_CYC" not in outputs
    models = {s.irq_model for s in own_socs() if s.core_variant == variant}
    inputs = ("externalResetVector",) + tuple(i for m in models for i in IRQ_INPUTS[m])
    for name in inputs:
        assert re.search(rf"input\s+(?:wire\s+)?(?:\[\d+:0\]\s*)?{name}\b", text), name


def test_cached(variant, variant_verilog, monkeypatch):
    def no_maven(*a, **kw):
        raise AssertionError("Maven ran although the core is up to date")
    monkeypatch.setattr(corebuild.subprocess, "run", no_maven)
    t0 = time.monotonic()
    again = corebuild.build_core(variant)
    assert again == variant_verilog
    assert time.monotonic() - t0 < 0.5


def test_hash_tracks_inputs(monkeypatch):
    h = corebuild.core_hash(VARIANT)
    assert corebuild.core_hash(VARIANT) == h
    assert corebuild.core_hash("other") != h
    real = corebuild.importlib.metadata.version
    monkeypatch.setattr(corebuild.importlib.metadata, "version",
                        lambda p: "0-test" if p == corebuild.PACKAGE else real(p))
    assert corebuild.core_hash(VARIANT) != h


def test_unknown_variant():
    with pytest.raises(UnknownName, match="unknown core variant 'nope'"):
        corebuild.build_core("nope")


@pytest.mark.skipif(shutil.which("verilator") is None, reason="verilator is not installed")
def test_verilator_lint(variant, variant_verilog):
    r = subprocess.run(["verilator", "--lint-only", "-Wno-fatal", "--top-module", corebuild.top_name(variant),
                        variant_verilog],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]


# ---------------------------------------------------------------------------
# The retire port in simulation: a program takes an ecall, then timer, external
# (line 3 of externalInterruptArray) and software interrupts with mtvec in
# vectored mode, then a timer interrupt in direct mode. The testbench serves
# both Wishbone buses from one RAM (ack one cycle after the request) and drives
# the interrupt inputs on stores to 0x10000000; a store to 0x10000004 ends.

PROGRAM = r"""
.section .text
.globl _start
_start:
  li t1, 0x10000000
  la t0, vec_table
  ori t0, t0, 1              # vectored
  csrw mtvec, t0
ecall_at:
  ecall
  li t0, 0x80                # timer
  csrw mie, t0
  csrsi mstatus, 8
  li t2, 1
  sw t2, 0(t1)
1: wfi
  beqz s0, 1b
  li t0, 8                   # external line 3
  csrw 0xBC0, t0
  li t0, 0x800
  csrw mie, t0
  li t2, 3
  sw t2, 0(t1)
2: beqz s1, 2b
  li t0, 0x8                 # software
  csrw mie, t0
  li t2, 5
  sw t2, 0(t1)
3: beqz s3, 3b
  la t0, vec_table           # direct mode: the timer again, at the base
  csrw mtvec, t0
  li t0, 0x80
  csrw mie, t0
  li t2, 1
  sw t2, 0(t1)
4: beqz s2, 4b
  li t2, 0xdead
  sw t2, 4(t1)
5: j 5b

.balign 64
.globl vec_table
vec_table:
  j exc_handler              # 0: exceptions (and everything in direct mode)
  j bad
  j bad
  j sw_handler               # 3
  j bad
  j bad
  j bad
  j timer_handler            # 7
  j bad
  j bad
  j bad
  j ext_handler              # 11
bad:
  li t2, 0xbad
  sw t2, 4(t1)
  j bad
exc_handler:
  csrr t4, mcause
  li t5, 0x80000007
  beq t4, t5, timer_handler
  csrr t4, mepc
  addi t4, t4, 4
  csrw mepc, t4
mret_exc:
  mret
timer_handler:
  li t2, 2
  sw t2, 0(t1)
  bnez s0, 6f
  li s0, 1
mret_timer1:
  mret
6: li s2, 1
mret_timer2:
  mret
ext_handler:
  li t2, 4
  sw t2, 0(t1)
  li s1, 1
mret_ext:
  mret
sw_handler:
  li t2, 6
  sw t2, 0(t1)
  li s3, 1
mret_sw:
  mret
"""

TESTBENCH = """
module tb(input clk);
  reg reset = 1;
  reg [31:0] mem [0:4095];
  reg timer = 0, sw = 0;
  reg [31:0] ext = 0;
  wire rv, rt, rm; wire [31:0] rpc; wire [7:0] rc;
  wire icyc, istb, iwe, dcyc, dstb, dwe; wire [29:0] iadr, dadr;
  wire [31:0] idw, ddw; wire [3:0] isel, dsel; wire [2:0] icti, dcti; wire [1:0] ibte, dbte;
  reg iack = 0, dack = 0; reg [31:0] ird, drd;
  integer cyc = 0;
  initial $readmemh("prog.hex", mem);
  TOP dut(.externalResetVector(32'h0), .timerInterrupt(timer), .softwareInterrupt(sw),
    .externalInterruptArray(ext), .retire_valid(rv), .retire_pc(rpc), .retire_trap(rt),
    .retire_cause(rc), .retire_mret(rm),
    .iBusWishbone_CYC(icyc), .iBusWishbone_STB(istb), .iBusWishbone_ACK(iack), .iBusWishbone_WE(iwe),
    .iBusWishbone_ADR(iadr), .iBusWishbone_DAT_MISO(ird), .iBusWishbone_DAT_MOSI(idw),
    .iBusWishbone_SEL(isel), .iBusWishbone_ERR(1'b0), .iBusWishbone_CTI(icti), .iBusWishbone_BTE(ibte),
    .dBusWishbone_CYC(dcyc), .dBusWishbone_STB(dstb), .dBusWishbone_ACK(dack), .dBusWishbone_WE(dwe),
    .dBusWishbone_ADR(dadr), .dBusWishbone_DAT_MISO(drd), .dBusWishbone_DAT_MOSI(ddw),
    .dBusWishbone_SEL(dsel), .dBusWishbone_ERR(1'b0), .dBusWishbone_CTI(dcti), .dBusWishbone_BTE(dbte),
    .clk(clk), .reset(reset));
  always @(posedge clk) begin
    cyc <= cyc + 1;
    if (cyc == 5) reset <= 0;
    iack <= icyc & istb & !iack; ird <= mem[iadr[11:0]];
    dack <= dcyc & dstb & !dack; drd <= mem[dadr[11:0]];
    if (dcyc & dstb & !dack & dwe) begin
      if (dadr == 30'h04000000) begin
        case (ddw)
          1: timer <= 1; 2: timer <= 0; 3: ext[3] <= 1; 4: ext[3] <= 0; 5: sw <= 1; 6: sw <= 0;
          default: ;
        endcase
      end else if (dadr == 30'h04000001) begin
        $display("END %h", ddw); $finish;
      end else mem[dadr[11:0]] <= ddw;
    end
    if (rv) $display("R %0d %h %0d %h %0d", cyc, rpc, rt, rc, rm);
    if (cyc > 20000) begin $display("TIMEOUT"); $finish; end
  end
endmodule
""".replace("TOP", TOP)

MAIN_CPP = """
#include "Vtb.h"
#include "verilated.h"
int main(int argc, char** argv) {
  Verilated::commandArgs(argc, argv);
  Vtb* t = new Vtb;
  while (!Verilated::gotFinish()) { t->clk = 0; t->eval(); t->clk = 1; t->eval(); }
  delete t;
  return 0;
}
"""

CROSS = "riscv64-unknown-elf-"


@pytest.mark.skipif(shutil.which("verilator") is None or shutil.which(CROSS + "gcc") is None,
                    reason="needs verilator and a riscv64-unknown-elf toolchain")
def test_retire_port_in_simulation(verilog, tmp_path):
    def run(cmd, **kw):
        r = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, **kw)
        assert r.returncode == 0, f"{cmd[0]}: {r.stderr[-3000:]}"
        return r.stdout

    (tmp_path / "prog.S").write_text(PROGRAM)
    run([CROSS + "gcc", "-march=rv32im_zicsr", "-mabi=ilp32", "-nostdlib", "-Ttext=0",
         "-o", "prog.elf", "prog.S"])
    run([CROSS + "objcopy", "-O", "binary", "prog.elf", "prog.bin"])
    data = (tmp_path / "prog.bin").read_bytes()
    data += b"\0" * (-len(data) % 4)
    (tmp_path / "prog.hex").write_text("".join(
        f"{int.from_bytes(data[i:i + 4], 'little'):08x}\n" for i in range(0, len(data), 4)))
    sym = {}
    for line in run([CROSS + "nm", "prog.elf"]).splitlines():
        addr, _, name = line.split()
        sym[name] = int(addr, 16)

    (tmp_path / "tb.sv").write_text(TESTBENCH)
    (tmp_path / "main.cpp").write_text(MAIN_CPP)
    run(["verilator", "--cc", "--exe", "--build", "-j", "1", "-Wno-fatal", "-Wno-lint",
         "--top-module", "tb", "tb.sv", verilog, "main.cpp", "-o", "simv"])
    out = run([str(tmp_path / "obj_dir" / "simv")], timeout=120)
    assert "END 0000dead" in out, out[-2000:]
    assert "ERROR" not in out and "TIMEOUT" not in out, out[-2000:]

    events = []   # (pc, trap, cause, mret)
    for line in out.splitlines():
        if line.startswith("R "):
            _, _, pc, trap, cause, mret = line.split()
            events.append((int(pc, 16), int(trap), int(cause, 16), int(mret)))

    vec = sym["vec_table"]
    traps = [(pc, cause) for pc, trap, cause, _ in events if trap]
    assert traps == [(vec, 0x0b),              # ecall: exceptions go to the base
                     (vec + 4 * 7, 0x87),      # timer, vectored
                     (vec + 4 * 11, 0x8b),     # external, vectored
                     (vec + 4 * 3, 0x83),      # software, vectored
                     (vec, 0x87)]              # timer, direct mode
    # A trap reports the handler's first fetch target, which retires next.
    for i, (pc, trap, _, _) in enumerate(events):
        if trap:
            assert events[i + 1][:2] == (pc, 0)
    # Retirements carry no cause; the trap cycle is not a retirement.
    assert all(cause == 0 for _, trap, cause, _ in events if not trap)
    # The ecall itself does not retire; the handler's mret does, and execution
    # resumes at mepc (ecall + 4).
    assert not any(pc == sym["ecall_at"] and not trap for pc, trap, _, _ in events)
    mrets = [i for i, e in enumerate(events) if e[3]]
    assert [events[i][0] for i in mrets] == [sym[n] for n in
                                             ("mret_exc", "mret_timer1", "mret_ext", "mret_sw", "mret_timer2")]
    assert events[mrets[0] + 1][0] == sym["ecall_at"] + 4
    assert all(not events[i][1] for i in mrets)
