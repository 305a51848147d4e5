"""Programmable interrupt generator: the stimulus side of every benchmark.

Each line runs its own pattern, set through CSRs:
  mode   OFF, SINGLE (one pulse), PERIODIC (count pulses, 0 = forever),
         BURST (count bursts of `burst` pulses), LEVEL (held until acknowledged)
  delay  cycles from start to the first high phase
  high   cycles of a high phase
  low    cycles of a low phase (in BURST: the gap between bursts)
  count  repetitions (0 = run until stopped)
  burst  pulses per burst (BURST mode; pulses are `high` high, `high` low)
  jitter mask ANDed with a per-line LFSR; the result is added to the delay and
         to each low phase, so that arrivals fall on every pipeline state

LEVEL mode: a request is raised at the start of each high phase and stays high
until software acknowledges it; an acknowledge inside a high phase drops the
line for one cycle and raises a new request, so a phase is a window of
back-to-back work (the throughput test).

`phase` is the stimulation-phase envelope of each line (high during high
phases), traced beside the line itself.
"""

from migen import *
from migen.genlib.fsm import FSM, NextState, NextValue

from litex.soc.interconnect.csr import AutoCSR, CSRStorage, CSRStatus, CSR

from irqlab.host.protocol import GEN_MODES

# The mode values are the firmware's too (trace/protocol.py generates its header).
MODE_OFF, MODE_SINGLE, MODE_PERIODIC, MODE_BURST, MODE_LEVEL = (
    GEN_MODES[m] for m in ("OFF", "SINGLE", "PERIODIC", "BURST", "LEVEL"))


class LFSR32(Module):
    """Galois LFSR, x^32 + x^22 + x^2 + x + 1; never reaches zero from a nonzero seed."""
    def __init__(self):
        self.seed = Signal(32)
        self.load = Signal()
        self.step = Signal()
        self.value = Signal(32, reset=1)
        fb = self.value[0]
        nxt = Signal(32)
        self.comb += nxt.eq(Cat(self.value[1:], 0) ^ Mux(fb, 0x80200003, 0))
        self.sync += [
            If(self.load, self.value.eq(Mux(self.seed == 0, 1, self.seed))
            ).Elif(self.step, self.value.eq(nxt))
        ]


class GeneratorLine(Module):
    """One output line and its pattern state machine."""
    def __init__(self):
        # Configuration (held stable while running).
        self.mode = Signal(3)
        self.delay = Signal(32)
        self.high = Signal(32)
        self.low = Signal(32)
        self.count = Signal(32)
        self.burst = Signal(16)
        self.jitter = Signal(32)
        self.seed = Signal(32)
        # Control.
        self.start = Signal()
        self.stop = Signal()
        self.ack = Signal()
        # Outputs.
        self.out = Signal()
        self.phase = Signal()
        self.running = Signal()

        self.submodules.lfsr = lfsr = LFSR32()
        remaining = Signal(32)    # cycles left in the current state
        reps = Signal(32)         # phases (or bursts) done
        pulses = Signal(16)       # pulses done in this burst
        request = Signal()        # LEVEL mode pending request
        ack_gap = Signal()        # LEVEL mode: one low cycle after an acknowledge
        rand = Signal(32)
        self.comb += [rand.eq(lfsr.value & self.jitter), lfsr.seed.eq(self.seed)]

        last_rep = Signal()
        self.comb += last_rep.eq((self.count != 0) & (reps + 1 >= self.count))

        fsm = FSM(reset_state="IDLE")
        self.submodules.fsm = fsm
        _act = fsm.act
        def act(state, *stmts):
            # Stop wins over everything: it returns the line to idle next cycle.
            if state == "IDLE":
                _act(state, *stmts)
            else:
                _act(state, *stmts, If(self.stop, NextState("IDLE")))
        self.comb += self.running.eq(~fsm.ongoing("IDLE"))
        act("IDLE",
            lfsr.load.eq(self.start),
            If(self.start & (self.mode != MODE_OFF),
                NextValue(reps, 0), NextValue(pulses, 0),
                NextState("DELAY"),
            )
        )
        # The first cycle of DELAY adds the jitter drawn from the freshly seeded LFSR.
        act("DELAY",
            NextValue(remaining, self.delay + rand),
            lfsr.step.eq(1),
            NextState("WAIT_DELAY")
        )
        act("WAIT_DELAY",
            If(remaining <= 1,
                NextValue(remaining, self.high),
                NextState("HIGH")
            ).Else(NextValue(remaining, remaining - 1))
        )
        pulse_end = Signal()
        self.comb += pulse_end.eq(remaining <= 1)
        act("HIGH",
            self.phase.eq(1),
            If(pulse_end,
                If(self.mode == MODE_BURST,
                    If(pulses + 1 >= self.burst,
                        NextValue(pulses, 0),
                        NextValue(remaining, self.low + rand), lfsr.step.eq(1),
                        NextState("LOW")
                    ).Else(
                        NextValue(pulses, pulses + 1),
                        NextValue(remaining, self.high),
                        NextState("BURST_GAP")
                    )
                ).Elif(self.mode == MODE_SINGLE,
                    NextState("IDLE")
                ).Else(
                    NextValue(remaining, self.low + rand), lfsr.step.eq(1),
                    NextState("LOW")
                )
            ).Else(NextValue(remaining, remaining - 1))
        )
        act("BURST_GAP",
            If(remaining <= 1,
                NextValue(remaining, self.high),
                NextState("HIGH")
            ).Else(NextValue(remaining, remaining - 1))
        )
        act("LOW",
            If(remaining <= 1,
                NextValue(reps, reps + 1),
                If(last_rep,
                    NextState("IDLE")
                ).Else(
                    NextValue(remaining, self.high),
                    NextState("HIGH")
                )
            ).Else(NextValue(remaining, remaining - 1))
        )

        # LEVEL requests: raised on every high-phase start and, inside a phase,
        # again one cycle after each acknowledge.
        phase_d = Signal()
        self.sync += phase_d.eq(self.phase)
        phase_start = Signal()
        self.comb += phase_start.eq(self.phase & ~phase_d)
        self.sync += [
            ack_gap.eq(0),
            If(self.stop,
                request.eq(0)
            ).Elif(self.ack,
                request.eq(0), ack_gap.eq(self.phase)
            ).Elif(phase_start | (ack_gap & self.phase),
                request.eq(1)
            )
        ]
        self.comb += If(self.mode == MODE_LEVEL,
            self.out.eq(request)
        ).Else(
            self.out.eq(self.phase)
        )


class InterruptGenerator(Module, AutoCSR):
    def __init__(self, n_lines=8):
        self.n_lines = n_lines
        self.lines = Signal(n_lines)
        self.phases = Signal(n_lines)

        self._start = CSR(n_lines)
        self._stop = CSR(n_lines)
        self._ack = CSR(n_lines)
        self._running = CSRStatus(n_lines, description="Lines whose pattern is still running.")

        running = []
        for i in range(n_lines):
            line = GeneratorLine()
            setattr(self.submodules, f"line{i}", line)
            for name, width, doc in [
                    ("mode", 3, "0 off, 1 single, 2 periodic, 3 burst, 4 level"),
                    ("delay", 32, "cycles from start to the first high phase"),
                    ("high", 32, "cycles of a high phase"),
                    ("low", 32, "cycles of a low phase / gap between bursts"),
                    ("count", 32, "phases or bursts to run, 0 = until stopped"),
                    ("burst", 16, "pulses per burst"),
                    ("jitter", 32, "mask of random cycles added to delay and low phases"),
                    ("seed", 32, "LFSR seed, loaded at start")]:
                reg = CSRStorage(width, name=f"l{i}_{name}", description=doc)
                setattr(self, f"_l{i}_{name}", reg)
                self.comb += getattr(line, name).eq(reg.storage)
            self.comb += [
                line.start.eq(self._start.re & self._start.r[i]),
                line.stop.eq(self._stop.re & self._stop.r[i]),
                line.ack.eq(self._ack.re & self._ack.r[i]),
                self.lines[i].eq(line.out),
                self.phases[i].eq(line.phase),
            ]
            running.append(line.running)
        self.comb += self._running.status.eq(Cat(*running))
