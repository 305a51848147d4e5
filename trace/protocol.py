"""The host–firmware protocol, defined once: software-event channels, the
generator's modes, the on-chip statistics selectors, the run-time
configuration block of each firmware application, and the channels and
payload values an application adds (APP_PROTOCOLS). The host imports it; the
firmware includes `irqlab_protocol.h` and the linker `irqlab_protocol.ld`,
both generated from here by `c_header()` / `ld_script()` (irqlab/builders/firmware.py
writes them into every firmware build). The benchmarks themselves (test ids,
report columns) are in trace/benchmarks.py; the record format in
trace/record.py.
"""

from dataclasses import dataclass

from irqlab.host import record as rec
from irqlab.host.benchmarks import suite_mask

# ---------------------------------------------------------- software events
# Stimulus-port channels: one store to channel c is one event with a 32-bit payload.
CHANNELS = {
    "HANDLER_ENTRY": (0x01, "B on cores without a retire port: first statement of the C handler; payload: count"),
    "STRESS_ENTRY": (0x02, "the matrix's stress lines (bench): first statement of their handler; payload: the line"),
    "TEST_BEGIN": (0x10, "a test starts; payload: its test id"),
    "TEST_END": (0x11, "a test ends; payload: its test id"),
    "STATS": (0xF0, "0xF0..0xF7: dump of the on-chip statistics after TEST_END (see STATS_WORDS)"),
}
CH_HANDLER_ENTRY = CHANNELS["HANDLER_ENTRY"][0]
CH_STRESS_ENTRY = CHANNELS["STRESS_ENTRY"][0]
CH_TEST_BEGIN = CHANNELS["TEST_BEGIN"][0]
CH_TEST_END = CHANNELS["TEST_END"][0]
CH_STATS = CHANNELS["STATS"][0]
# Channel CH_STATS + k carries word k of the dump; bins repeat (bin, count) pairs.
STATS_WORDS = ["test", "count", "sum_lo", "sum_hi", "min", "max", "bin", "bin_count"]

# ------------------------------------------------------- interrupt generator
# Line modes (soc/irqgen.py implements them).
GEN_MODES = {"OFF": 0, "SINGLE": 1, "PERIODIC": 2, "BURST": 3, "LEVEL": 4}

# ---------------------------------------------------- configuration blocks
CONFIG_FROM_END = 256     # the block's offset from the end of the code memory
# flags, common to every block
FLAGS = {
    "BOOT_WAIT": (1, "ROM image: wait for the host ('g' runs it, 'L' loads a firmware)"),
    "TRACE_LEAN": (2, "trace only what the figures need (slow links)"),
}
FLAG_BOOT_WAIT = FLAGS["BOOT_WAIT"][0]
FLAG_TRACE_LEAN = FLAGS["TRACE_LEAN"][0]


@dataclass(frozen=True)
class Field:
    name: str
    default: int
    doc: str


@dataclass(frozen=True)
class ConfigBlock:
    """The run-time parameters of one firmware application: a block of 32-bit
    words at the end of its code memory that the host patches in the image
    before a run, so one build serves every run. Every block starts with
    magic and flags."""
    app: str
    magic: int
    fields: tuple

    @property
    def all_fields(self):
        return (Field("magic", self.magic, "identifies the block and its layout"),
                Field("flags", 0, "FLAG_* bits")) + self.fields

    @property
    def names(self):
        return [f.name for f in self.all_fields]

    def defaults(self):
        return {f.name: f.default for f in self.all_fields}


def _magic(tag):
    return int.from_bytes(tag.encode(), "big")


CONFIGS = {c.app: c for c in [
    ConfigBlock("bench", _magic("irl1"), (
        Field("tests", suite_mask("headline"), "bit mask of the benchmarks to run (TEST_*; default: the "
                                               "headline ones); each runs only where the row has what it needs"),
        Field("lat_count", 10000, "interrupts in the latency test"),
        Field("lat_period", 1000, "cycles between arrivals (longer than the slowest handler, ~500 cycles)"),
        Field("lat_jitter", 0xFF, "mask of random extra cycles per arrival"),
        Field("seed", 0x1234567, "arrival-jitter seed"),
        Field("tp_phases", 8, "stimulation phases in the throughput test"),
        Field("tp_high", 20000, "cycles of a stimulation phase"),
        Field("tp_low", 4000, "cycles of the pause after it"),
        Field("hist_shift", 1, "on-chip histogram bin width = 2^shift cycles"),
        Field("stress_gap", 3000, "T4/T5: base gap in cycles between a stress line's requests (each line its own multiple)"),
        Field("parallel_lines", 3, "T6: lines rising with line 0 (1..7)"),
        Field("traffic_intensity", 128, "T7: the bus-stress master starts an access in this many of 256 free cycles"),
    )),
    ConfigBlock("torture", _magic("irlT"), (
        Field("seed", 0x1234567, "random seed: sources, patterns, handlers, workload data"),
        Field("turns", 1000, "workload turns in each pass (~710 cycles each)"),
        Field("gap", 20000, "base low phase of the generator lines; each line gets gap + random(0..gap)"),
        Field("jitter", 0x3FF, "generator jitter mask (random extra cycles per low phase)"),
        Field("pend_chance", 64, "chance, in 1/256, that a handler pends a group of 1..4 sources"),
    )),
    ConfigBlock("ctxsw", _magic("irlS"), (
        Field("routines", 0xFFFFFFFF, "bit mask of the suite's routines to run (ROUTINE_*, trace/ctxsw.py)"),
        Field("samples", 1000, "samples per case"),
        Field("irq_period", 3000, "cycles between the generator's requests in the interrupt routine"),
        Field("irq_jitter", 0xFF, "mask of random extra cycles per request"),
        Field("seed", 0x1234567, "arrival-jitter seed"),
        Field("background", 3, "background-load tasks: the routines run a second time with them "
                               "running (the cases +bg); 0: not"),
    )),
    ConfigBlock("modbus", _magic("irlM"), (
        Field("baud", 115200, "the Modbus UART's baud rate (8E1)"),
        Field("address", 1, "the slave address (1..247)"),
        Field("background", 1, "1: the background task runs (its units: CH_MB_BG); 0: not"),
    )),
    ConfigBlock("digits", _magic("irlD"), (
        Field("inferences", 128, "digit recognitions to run (the background workload alone, fw/digits): two rounds of its 64 images"),
    )),
    ConfigBlock("digits-rtos", _magic("irlR"), (
        Field("inferences", 128, "digit recognitions the FreeRTOS task runs (fw/digits-rtos)"),
    )),
    ConfigBlock("pto", _magic("irlO"), (
        Field("trains", 1, "trains run one after the other, each to the specification below"),
        Field("pulses", 1000, "pulses in a train (two edges each)"),
        Field("start_interval", 2500, "the first pulse's half-period in cycles (2500: 10 kHz at 50 MHz)"),
        Field("cruise_interval", 2500, "the half-period the acceleration ramp ends at (with delta_q8)"),
        Field("delta_q8", 0, "per-pulse change of the half-period on the ramps, in 1/256 cycles; 0: a square wave"),
        Field("background", 1, "1: the unrelated background task runs during the trains; 0: not"),
        Field("seed", 0x1234567, "the background workload's seed"),
        Field("from_host", 0, "1: instead of `trains` trains to the specification above, each train's "
                              "specification comes from the host over the console (boards: one load runs a "
                              "whole sweep), as PTO_CMD_TRAIN + the PTO_CMD_WORDS as 32-bit words, little-"
                              "endian; PTO_CMD_END ends the run"),
    )),
    # Applications without parameters of their own (the CLIC tests, the boot test).
    ConfigBlock("plain", _magic("irlP"), ()),
]}
assert all(len(c.all_fields) * 4 <= CONFIG_FROM_END for c in CONFIGS.values())
assert len({c.magic for c in CONFIGS.values()}) == len(CONFIGS)


def config_block(app):
    """The block an application uses: its own, else the plain one."""
    return CONFIGS.get(app, CONFIGS["plain"])


def config_by_magic(magic):
    return next((c for c in CONFIGS.values() if c.magic == magic), None)


# ------------------------------------------------ per-application protocols
@dataclass(frozen=True)
class AppProtocol:
    """What one application adds to the common protocol: its own
    software-event channels (C: CH_<NAME>) and the named values of its
    payloads, per prefix (C: <PREFIX>_<NAME>). Python reads them by the same
    names as attributes: APP_PROTOCOLS["torture"].CH_ENTRY."""
    app: str
    channels: dict        # NAME -> (channel, payload doc)
    values: dict          # PREFIX -> (doc, {NAME: (value, doc)})

    def names(self):
        """Every constant as C names it, name -> value."""
        out = {f"CH_{n}": v for n, (v, _) in self.channels.items()}
        for prefix, (_, vals) in self.values.items():
            out.update({f"{prefix}_{n}": v for n, (v, _) in vals.items()})
        return out

    def __getattr__(self, name):
        try:
            return self.names()[name]
        except KeyError:
            raise AttributeError(name) from None


def _ctxsw_values():
    from irqlab.host import ctxsw
    return {
        "ROUTINE": ("the suite's routines: bits of irqlab_config.routines", {
            r.upper(): (1 << i, doc) for i, (r, doc) in enumerate(ctxsw.ROUTINES.items())}),
        "CASE": ("the suite's cases: the payload of CH_MARK_A / CH_MARK_B", {
            c.c_name: (c.case_id, c.description) for c in ctxsw.CASES.values()}),
        "CTXSW": ("the suite's other constants", {
            "BACKGROUND_FLAG": (ctxsw.BACKGROUND_FLAG, "in a mark's payload: the case runs with background load")}),
    }


def _modbus_values():
    from irqlab.host import modbus
    return modbus.protocol_values()


APP_PROTOCOLS = {p.app: p for p in [
    AppProtocol("torture", channels={
        "CFG": (0x20, "configuration: words with a kind CFG_* in [31:24] (see the CFG values)"),
        "ENTRY": (0x21, "first statement of a handler: id | mil << 8 | mcause.mpil << 16 | (mcause & 0xff) << 24;"
                        " of the bound task (cores with task contexts): id | mil << 8 | mintthresh << 16"
                        " | 0xff << 24"),
        "EXIT": (0x22, "last statement of a handler (MIE=0 from here to the return): id | mil << 8"),
        "PEND": (0x23, "one per pended source, after its whole group is pended (MIE=0): id | clicintctl << 8"
                       " | group size << 16 | index in the group << 20 | pending handler's id << 24"),
        "MARK": (0x24, "phase marker: an M_* value"),
        "COUNT": (0x25, "after the storm, per source: id | handled << 8"),
        "COUNT_PEND": (0x26, "after the storm, per source: id | times pended by software << 8"),
        "THRESH": (0x27, "mintthresh written (MIE=0 from the write to the event): new | old << 8 | id << 16"
                         " | (1 << 24: restored at the handler's exit)"),
        "RESULT": (0x28, "final state of the quiet pass, word by word (registers, then the buffer)"),
        "RESULT_STORM": (0x29, "final state of the storm pass, word by word"),
        "ERRORS": (0x2A, "a failed check of the firmware (error code); at the end 0xffffffff, then the error count"),
        "RESULT_OTHER": (0x2B, "cores with task contexts: final state of the storm pass's second workload, "
                               "run in context 1, word by word"),
    }, values={
        "M": ("phase markers (CH_MARK)", {
            "QUIET_BEGIN": (1, "the quiet pass starts"),
            "QUIET_END": (2, "the quiet pass ended"),
            "STORM_BEGIN": (3, "the generator runs and interrupts are enabled: the storm pass starts"),
            "STOP": (4, "the storm pass ended; the generator is stopped"),
            "DRAINED": (5, "nothing pending and no handler ran for a while: every interrupt served"),
            "DONE": (6, "results and counters sent"),
        }),
        "CFG": ("kinds of CH_CFG words, in [31:24]", {
            "NLBITS": (1, "| cliccfg.nlbits"),
            "SOURCE": (2, "| id | clicintctl << 8 | clicintattr << 16, per configured source"),
            "MNXTI": (3, "| PC comparator; followed by the watched mnxti's pc and instruction word"),
            "LINE": (4, "| generator line << 16 | mode << 8 | high"),
            "ITERS": (5, "followed by the workload turns of each pass"),
            "SEED": (6, "followed by the seed"),
            "VECTORS": (7, "followed by mtvec and mtvt"),
            "BOUND": (8, "| the source bound to context 2 (cores with task contexts); followed by the pc"
                         " every switch into that context starts at (PC comparator 0)"),
        }),
    }),
    # The FreeRTOS kernel's trace hooks (fw/freertos/irqlab_trace.h): in every
    # application built against the kernel (APP_KERNEL := freertos), one store each.
    AppProtocol("freertos", channels={
        "TASK_IN": (0x30, "traceTASK_SWITCHED_IN: the task that runs next; payload: its TCB"),
        "TASK_OUT": (0x31, "traceTASK_SWITCHED_OUT: the task that stops running; payload: its TCB"),
        "TASK_READY": (0x32, "traceMOVED_TASK_TO_READY_STATE; payload: the task's TCB"),
        "TICK": (0x33, "traceTASK_INCREMENT_TICK; payload: the tick count before the increment"),
        "ISR_ENTER": (0x34, "an ISR starts, in the port's handler (the CLIC port: the tick; FreeRTOS's"
                            " own port: every interrupt but its tick); payload: 0"),
        "ISR_EXIT": (0x35, "it ends, once per ISR_ENTER; payload: 0"),
        "QUEUE_SEND": (0x36, "a queue send or semaphore/mutex give; payload: the queue"),
        "QUEUE_RECEIVE": (0x37, "a queue receive or semaphore/mutex take; payload: the queue"),
        "QUEUE_SEND_ISR": (0x38, "a send or give from an ISR; payload: the queue"),
        "QUEUE_RECEIVE_ISR": (0x39, "a receive or take from an ISR; payload: the queue"),
        "QUEUE_BLOCK": (0x3A, "a task blocks on a queue, semaphore or mutex (to receive or take); payload: the queue"),
        "QUEUE_BLOCK_SEND": (0x3B, "a task blocks to send to a full queue; payload: the queue"),
        "NOTIFY": (0x3C, "a task notification is sent; payload: the notification index"),
        "NOTIFY_ISR": (0x3D, "a task notification is sent from an ISR; payload: the notification index"),
        "NOTIFY_TAKE": (0x3E, "a task takes its notification; payload: the notification index"),
        "INHERIT": (0x3F, "a mutex holder inherits a priority; payload: the holder's TCB"),
        "DISINHERIT": (0x40, "it gives the priority back; payload: the holder's TCB"),
        "TASK_CREATE": (0x41, "traceTASK_CREATE: a task is created; payload: its TCB (TASK_NAME follows)"),
        "TASK_NAME": (0x42, "the created task's name, 4 characters a store (first character in [7:0]) up to"
                            " the store that holds its terminating zero"),
        "TASK_DELETE": (0x43, "traceTASK_DELETE: a task is deleted; payload: its TCB"),
    }, values={}),
    # The context-switch suite (fw/ctxsw/, trace/ctxsw.py); its tick hook
    # writes the kernel's freertos.TICK.
    AppProtocol("ctxsw", channels={
        "MARK_A": (0x48, "a sample starts (the triggering event): payload: its case (CASE_*)"),
        "MARK_B": (0x49, "the task that runs next, first thing: payload: the case it ends (CASE_*)"),
        "ROUTINE": (0x4A, "a routine starts; payload: its ROUTINE_* bit, with CTXSW_BACKGROUND_FLAG in the pass with background load"),
    }, values=_ctxsw_values()),
    # The Modbus-RTU demo (fw/modbus/, trace/modbus.py: the register map).
    AppProtocol("modbus", channels={
        "MB_READY": (0x60, "the slave listens; payload: the baud rate"),
        "MB_BG": (0x61, "the background task finished a unit of work; payload: units so far"),
        "MB_FRAME": (0x62, "a frame handled; payload: function code | response length << 8"
                           " (0: none) | exception code << 16"),
    }, values=_modbus_values()),
    # The background workload, a shared module (fw/common/digits/, APP_USES):
    # in every application that takes it, one store per inference.
    AppProtocol("digits", channels={
        "DIGITS": (0x58, "digits_step() classified an image: its test image's index [15:0] and the "
                         "DIGITS_EV_* fields"),
    }, values={
        "DIGITS_EV": ("the fields of a CH_DIGITS payload", {
            "CLASS_SHIFT": (16, "the class found, 4 bits from here"),
            "LABEL_SHIFT": (20, "the image's label, 4 bits from here"),
            "DIFFERS": (1 << 24, "set: the class differs from the host's integer reference (a bug)"),
        }),
    }),
    # The PTO demo (fw/pto/, irqlab/demos/pto/sim.py); the pin itself is hardware
    # line PTO_TRACE_LINE. Channels from 0x68: the Modbus demo has 0x60..0x62.
    AppProtocol("pto", channels={
        "TRAIN": (0x68, "a train starts (the timer is enabled next); payload: its pulses"),
        "DONE": (0x69, "the train ended; payload: edges the timer made"),
        "MISSES": (0x6A, "after DONE: edges that came late (the timer's count, as the firmware read it)"),
        "WORK": (0x6B, "after MISSES: steps of background work done during the train"),
    }, values={
        "PTO": ("the demo's constants", {
            "TRACE_LINE": (rec.HW_PTO, "the hardware trace line of the PTO pin (trace/record.py HW_PTO)"),
            "CMD_TRAIN": (ord("T"), "from_host: a train follows: pulses, start_interval, cruise_interval, "
                                    "delta_q8 (as in the configuration block), trace (1: the pin's edges "
                                    "are traced; 0: not, the timer's counts only)"),
            "CMD_WORDS": (5, "from_host: the words after PTO_CMD_TRAIN"),
            "CMD_END": (ord("q"), "from_host: no more trains; the firmware ends the run")}),
    }),
]}
_APP_CHANNELS = [v for p in APP_PROTOCOLS.values() for v, _ in p.channels.values()]
assert len(_APP_CHANNELS) == len(set(_APP_CHANNELS)), "two applications share a channel (decode names them)"
assert all(not ({v for v, _ in p.channels.values()} & {v for v, _ in CHANNELS.values()})
           for p in APP_PROTOCOLS.values()), "an application channel collides with a common one"
assert len({v for p in APP_PROTOCOLS.values() for v, _ in p.channels.values()}) == \
    sum(len(p.channels) for p in APP_PROTOCOLS.values()), "two applications share a channel"


# ------------------------------------------------------------ generated C
def _app_protocol_c(proto):
    out = ["", f"/* The channels of application '{proto.app}'. */"]
    out += [f"#define CH_{n} 0x{v:02x}u   /* {doc} */" for n, (v, doc) in proto.channels.items()]
    for prefix, (what, vals) in proto.values.items():
        out += ["", f"/* {what[0].upper() + what[1:]}. */"]
        out += [f"#define {prefix}_{n} {v}u   /* {doc} */" for n, (v, doc) in vals.items()]
    return out


def c_header(app, benchmarks=(), kernel=None, modules=()):
    """irqlab_protocol.h for a build of `app`: channels (the common ones, the
    app's own, its kernel's and its shared modules', APP_PROTOCOLS), generator modes, statistics
    selectors, test ids, and the app's configuration block as `struct
    irqlab_config` with its defaults."""
    block = config_block(app)
    out = ["/* Generated from trace/protocol.py and trace/benchmarks.py: do not edit. */",
           "#ifndef IRQLAB_PROTOCOL_H", "#define IRQLAB_PROTOCOL_H", "#include <stdint.h>", ""]
    out.append("/* Software-event channels (stimulus ports). */")
    for name, (value, doc) in CHANNELS.items():
        out.append(f"#define CH_{name} 0x{value:02x}u   /* {doc} */")
    for name in dict.fromkeys((kernel, *modules, app)):
        if name in APP_PROTOCOLS:
            out += _app_protocol_c(APP_PROTOCOLS[name])
    out += ["", "/* Interrupt generator modes. */"]
    out += [f"#define GEN_{name} {value}u" for name, value in GEN_MODES.items()]
    out += ["", "/* Hardware trace lines (trace/record.py): bits of the trace unit's rise and fall masks. */",
            f"#define HW_LINE_GEN {rec.HW_GEN_LINE}u   /* generator line i: HW_LINE_GEN + i */",
            f"#define HW_LINE_CPU_IRQ {rec.HW_CPU_IRQ}u   /* the core's interrupt input i: HW_LINE_CPU_IRQ + i */",
            f"#define HW_LINES_CPU_IRQ {rec.N_CPU_IRQ_TRACED}u   /* the inputs traced at most */"]
    out += ["", "/* On-chip statistics event selectors: class in [7:6], index in [5:0]. */"]
    for cls in ("HW_RISE", "HW_FALL", "SW", "PC_MATCH"):
        out.append(f"#define SEL_{cls}(i) (({getattr(rec, 'SEL_' + cls)}u << 6) | ((i) & 0x3fu))")
    out += ["", "/* Benchmarks: the bits of irqlab_config.tests and the TEST_BEGIN/END payloads. */"]
    out += [f"#define TEST_{b.c_name} {b.test_id}u" for b in benchmarks]
    cases = [b for b in benchmarks if b.stressors]
    if cases:
        from irqlab.host.benchmarks import STRESSORS
        out += ["", "/* Stressors of the matrix's test cases (trace/benchmarks.py STRESSORS). */"]
        out += [f"#define STRESS_{n.upper()} {st.bit}u   /* {st.doc} */" for n, st in STRESSORS.items()]
        out += ["/* The matrix: {test id, stressors, 1 = throughput procedure}. */",
                "#define BENCH_CASES { \\"]
        out += [f"    {{TEST_{b.c_name}, 0x{b.stressor_mask:x}u, {int(b.kind == 'throughput')}}}, \\"
                for b in cases]
        out += ["}"]
    out += ["", "/* Configuration-block flags. */"]
    out += [f"#define CONFIG_{name} {value}u   /* {doc} */" for name, (value, doc) in FLAGS.items()]
    out += ["", f"/* The configuration block of '{block.app}': the last {CONFIG_FROM_END} bytes of the code",
            " * memory, patched by the host before a run (irqlab/builders/fwimage.py). */",
            f"#define CONFIG_MAGIC 0x{block.magic:08x}u", "struct irqlab_config {"]
    out += [f"    uint32_t {f.name};   /* {f.doc} */" for f in block.all_fields]
    out += ["};", "#define IRQLAB_CONFIG_DEFAULTS { \\"]
    out += [f"    .{f.name} = 0x{f.default:x}u, \\" for f in block.all_fields]
    out += ["}", "", "#endif", ""]
    return "\n".join(out)


def ld_script():
    return ("/* Generated from trace/protocol.py: do not edit. */\n"
            f"IRQLAB_CONFIG_FROM_END = {CONFIG_FROM_END};\n")
