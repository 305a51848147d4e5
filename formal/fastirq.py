"""FastIrqPlugin (the fast-interrupt extension, cores/README.md) under proof:
the generator and its jobs.

Design: the whole core `fastirq-native` (the variant the SoC rows `fastirq`
use: soc/configs.py), as `python -m irqlab.builders.core fastirq-native`
generates it from SpinalHDL. formal/fastirq_props.sv goes inside its top
module; it states the environment (the buses as the SoC's TCMs serve them,
the CLIC free) and the properties. The f_* names are bound here to the
generated signals by name (SpinalHDL keeps the plugins' Area names), the
register file's RAM by its declaration (the only 64-word memory). A name that
is missing stops the job with an error naming it.
"""

import functools
import os
import re

from .clic import mutate
from .sby import Job

HERE = os.path.dirname(os.path.abspath(__file__))
VARIANT = "fastirq-native"
TOP = "IrqlabCore_fastirq_native"

# f_* name -> the generated signal (exact names of the top module).
BIND = {
    "entry": "FastIrqPlugin_entry",
    "irq_entry": "TrapCsrPlugin_interruptEntry",
    "en": "FastIrqPlugin_en",
    "eabi": "FastIrqPlugin_eabi",
    "bank": "FastIrqPlugin_bank",
    "live": "FastIrqPlugin_live",
    "draining": "FastIrqPlugin_draining",
    "back": "TrapCsrPlugin_emretSwitch",
    "chain": "TrapCsrPlugin_trapChain",
    "trap_taken": "TrapCsrPlugin_trapTaken",
    "trap_interrupt": "TrapCsrPlugin_trapIsInterrupt",
    "mepc": "TrapCsrPlugin_mepcValue",
    "mcause": "TrapCsrPlugin_mcauseRead",
    "rf_we": "writeBack_BankedRegFilePlugin_port_valid",
    "rf_wa": "writeBack_BankedRegFilePlugin_port_payload_address",
    "rf_wd": "writeBack_BankedRegFilePlugin_port_payload_data",
    "mem_valid": "memory_arbitration_isValid",
    "mem_enable": "memory_MEMORY_ENABLE",
    "mem_store": "memory_MEMORY_STORE",
    "mem_instr": "memory_INSTRUCTION",
    "mem_bank": "memory_REG_BANK",
    "mem_low": "memory_MEMORY_ADDRESS_LOW",
    "mem_writes": "memory_REGFILE_WRITE_VALID",
    "jump_valid": "TrapCsrPlugin_jumpExecute_valid",
    "jump_target": "TrapCsrPlugin_jumpExecute_payload",
    "trap_target": "TrapCsrPlugin_trapTarget",
    "injecting": "FastIrqPlugin_injecting",
    "inject_word": "FastIrqPlugin_injectWord",
    "wb_fire": "writeBack_arbitration_isFiring",
    "wb_bank": "writeBack_REG_BANK",
    "wb_writes": "writeBack_REGFILE_WRITE_VALID",
    "wb_instr": "writeBack_INSTRUCTION",
}

_DECL = re.compile(r"^\s*(?:wire|reg)\s+(?:\[(\d+):0\]\s+)?(\w+)\s*;", re.M)


def core_verilog():
    from irqlab.builders.core import build_core
    path = build_core(VARIANT)
    with open(path) as f:
        return f.read()


def _top(text):
    """(start, end) of the top module's text."""
    s = text.index(f"module {TOP} (")
    e = text.index("endmodule", s)
    return s, e


def _bindings(text):
    s, e = _top(text)
    body = text[s:e]
    decl = {m.group(2): int(m.group(1) or 0) + 1 for m in _DECL.finditer(body)}
    missing = [v for v in BIND.values() if v not in decl]
    if missing:
        raise ValueError(f"not in the generated {TOP}: {', '.join(missing)} "
                         "(renamed in cores/src/main/scala/irqlab? update formal/fastirq.py BIND)")
    rams = re.findall(r"^\s*reg \[31:0\] (\w+) \[0:63\]", body, re.M)
    if len(rams) != 1:
        raise ValueError(f"{len(rams)} memories of 64 words in {TOP}: the register file not found")
    lines = [f"wire [{decl[v] - 1}:0] f_{k} = {v};" for k, v in BIND.items()]
    lines.append(f"`define F_RF {rams[0]}")
    return "\n".join(lines)


def _mie(text):
    """mstatus.MIE's register: bit 3 of what a read of mstatus (0x300) gives."""
    m = re.search(r"12'h300 : begin\s*\n\s*execute_TrapCsrPlugin_readData = (\w+);", text)
    if not m:
        raise ValueError("the read of mstatus (12'h300) not found in the generated Verilog")
    b = re.search(rf"^\s*{m.group(1)}\[3\] = (\w+);", text, re.M)
    if not b:
        raise ValueError(f"mstatus.MIE (bit 3 of {m.group(1)}) not found in the generated Verilog")
    return b.group(1)


def start_state(text, eabi):
    """The core as reset leaves it after `csrwi mfastirq, EN|E` and `csrsi
    mstatus, MIE` (the firmware's first two instructions, in effect): the
    reset values of EN, E and MIE changed in the harness. Nothing else those
    instructions do is seen by the properties (the pc they advance is free
    anyway), and the search starts 2 instructions deeper for free."""
    out = text
    for reg, val in (("FastIrqPlugin_en", "1'b1"), ("FastIrqPlugin_eabi", "1'b1" if eabi else "1'b0"),
                     (_mie(text), "1'b1")):
        out, n = re.subn(rf"^(\s*){reg} <= 1'b0;", rf"\g<1>{reg} <= {val};", out, count=1, flags=re.M)
        if n != 1:
            raise ValueError(f"the reset of {reg} not found in the generated Verilog")
    return out


@functools.lru_cache(maxsize=None)
def generated(eabi=True):
    """(the core's Verilog in its start state, the f_* bindings)."""
    text = core_verilog()
    return start_state(text, eabi), _bindings(text)


def with_properties(text, bindings, group):
    with open(os.path.join(HERE, "fastirq_props.sv")) as f:
        props = f.read()
    s, e = _top(text)
    block = f"`ifdef FORMAL\n{bindings}\n{props}\n`endif\n"
    return f"`define FP_{group.upper()}\n" + text[:e] + block + text[e:]


def _job_text(group, mutation=None, eabi=True):
    def text():
        v, b = generated(eabi)
        if mutation:
            v = mutate(v, *mutation)
        return with_properties(v, b, group)
    return text


# Mutants: (name, group that must catch it, what it breaks, pattern, replacement),
# on the Verilog of fastirq-native.
MUTANTS = [
    ("no_stall_rule", "frame",
     "a handler load or store to a frame word not written yet goes ahead",
     r"assign execute_FastIrqPlugin_conflict = .*;$", "assign execute_FastIrqPlugin_conflict = 1'b0;"),
    ("drain_reads_handler_bank", "frame",
     "the drain reads the registers of the current (handler's) bank",
     r"^(\s*_zz__zz_2_port5 <= _zz_2\[)_zz_FastIrqPlugin_regWord_1\];",
     r"\1{FastIrqPlugin_bank, _zz_FastIrqPlugin_regWord_1[4:0]}];"),
    ("slot_order", "frame",
     "the frame's first two slots swapped (t0 first, then ra)",
     r"assign FastIrqPlugin_layout_0 = 5'h01;\n(\s*)assign FastIrqPlugin_layout_1 = 5'h05;",
     "assign FastIrqPlugin_layout_0 = 5'h05;\n\\1assign FastIrqPlugin_layout_1 = 5'h01;"),
    ("left_load_into_handler_bank", "left",
     "the left load's answer is written to the current (handler's) bank",
     r"^(\s*BankedRegFilePlugin_sideWrite_payload_bank = )FastIrqPlugin_leave_regBank;", r"\1FastIrqPlugin_bank;"),
    ("drain_before_left_load", "left",
     "the drain starts before the left load's answer is written",
     r"(assign FastIrqPlugin_oldDone = .*)\(! FastIrqPlugin_loadLeft\)\);", r"\g<1>1'b1);"),
    ("left_load_sign", "left",
     "a left lb/lh is extended with the wrong sign (unsigned for signed)",
     r"assign FastIrqPlugin_leave_unsigned = FastIrqPlugin_leave_funct3\[2\];",
     "assign FastIrqPlugin_leave_unsigned = ~FastIrqPlugin_leave_funct3[2];"),
    ("shared_rd_left_behind", "left",
     "a waiting load to a shared register is left behind too",
     r"assign FastIrqPlugin_entryWaits = .*;$", "assign FastIrqPlugin_entryWaits = 1'b0;"),
    ("emret_keeps_bank", "emret",
     "emret's return does not switch the bank back",
     r"(if\(TrapCsrPlugin_emretSwitch\) begin\n\s*)FastIrqPlugin_bank <= \(~ FastIrqPlugin_bank\);",
     r"\1FastIrqPlugin_bank <= FastIrqPlugin_bank;"),
    ("emret_no_sp_restore", "emret",
     "emret's return does not inject addi sp, sp, FRAME",
     r"(FastIrqPlugin_injecting <= )\(FastIrqPlugin_entry \|\| TrapCsrPlugin_emretSwitch\);",
     r"\1FastIrqPlugin_entry;"),
    ("chain_drops_frame", "emret",
     "a tail chain stops the drain, as a return does",
     r"if\(TrapCsrPlugin_emretSwitch\) begin(\n\s*FastIrqPlugin_draining <= 1'b0;)",
     r"if(TrapCsrPlugin_emretSwitch || TrapCsrPlugin_trapChain) begin\1"),
    ("nest_during_drain", "nest",
     "an interrupt is taken while the drain runs",
     r"assign FastIrqPlugin_entryBlocked = \(\(FastIrqPlugin_draining \|\|",
     "assign FastIrqPlugin_entryBlocked = ((1'b0 ||"),
    ("frame_above_sp", "nest",
     "the entry's adjustment moves sp up (the frame lies above the interrupted sp)",
     r"assign FastIrqPlugin_adjust = \(FastIrqPlugin_entry \? _zz_FastIrqPlugin_adjust : FastIrqPlugin_frameBytes\);",
     "assign FastIrqPlugin_adjust = FastIrqPlugin_frameBytes;"),
]

PROPERTIES = {
    "frame": "each frame word written by the drain, in order from the base, is the interrupted "
             "bank's register of its slot (then frozen until emret's return or the next entry), "
             "mepc or mcause as the trap set them; no handler load or store reaches a frame word "
             "before the drain has written it",
    "left": "a load left waiting at the entry lands, shifted and extended, in the interrupted bank "
            "before the drain reads it; the handler's bank is written only by the handler; a "
            "waiting load to a shared register is never left",
    "emret": "emret returns to mepc in the interrupted bank with sp + FRAME injected and the drain "
             "stopped, or chains: the winner's handler, claimed, bank, frame, drain and mepc kept; "
             "no claim without a taking",
    "nest": "an entry while a frame is live comes only after that frame is complete; every frame "
            "lies right below the interrupted sp, so a nested frame never reaches into the live one",
}

# BMC depths (cycles from reset; the start state has EN, E and MIE set). Why
# each suffices, and what it leaves out: docs/VERIFICATION.md, "fastirq".
DEPTH = {"frame": 9, "left": 13, "emret": 10, "nest": 10}
MUTANT_DEPTH = {"frame": 9, "left": 12, "emret": 10, "nest": 10}
# Deeper runs, in `python -m formal` only (minutes to hours each on a shared machine).
DEEP = {"frame": 16, "left": 16, "nest": 20}


def jobs():
    out = []
    for group, about in PROPERTIES.items():
        out.append(Job("fastirq", group, _job_text(group), TOP, "bmc", DEPTH[group], about=about))
    for name, group, about, pattern, repl in MUTANTS:
        out.append(Job("fastirq", group, _job_text(group, (pattern, repl)), TOP, "bmc",
                       MUTANT_DEPTH[group], mutant=name, about=about))
    return out


def deep_jobs():
    """The same properties to a larger bound: `python -m formal` only, not make test."""
    return [Job("fastirq", f"{group}_deep", _job_text(group), TOP, "bmc", depth,
                about=PROPERTIES[group] + f" (to {depth} cycles)", timeout=4 * 3600)
            for group, depth in DEEP.items()]
