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

from litex.soc.interconnect.csr import AutoCSR, CSRStorage, CSRStatus, CSR

from irqlab.host.protocol import GEN_MODES
from irqlab.soc.lfsr import step as lfsr_step

# The mode values are the firmware's too (trace/protocol.py generates its header).
MODE_OFF, MODE_SINGLE, MODE_PERIODIC, MODE_BURST, MODE_LEVEL = (
    GEN_MODES[m] for m in ("OFF", "SINGLE", "PERIODIC", "BURST", "LEVEL"))


# The line's states; IDLE must be 0 (the reset state).
IDLE, DELAY, WAIT_DELAY, HIGH, BURST_GAP, LOW = range(6)


class GeneratorLine(Module):
    """One output line and its pattern state machine.

    States: IDLE, DELAY (one cycle: the first delay is drawn), WAIT_DELAY,
    HIGH (the phase), BURST_GAP (between the pulses of a burst), LOW. A stop
    in any state but IDLE returns to IDLE at the end of that cycle (whatever
    else the state does in it still happens). The LFSR is loaded from the
    seed (1 for a zero seed) when a start arrives in IDLE, and steps once
    for each draw: the delay in DELAY and each low phase as it begins.

    Written as one clocked block whose work sits inside the state's case
    (rather than as an FSM with next-value signals computed every cycle):
    the same cycles, and the simulator evaluates an idle line in a few
    instructions."""
    def __init__(self):
        self.mode = Signal(3)
        self.delay = Signal(32)
        self.high = Signal(32)
        self.low = Signal(32)
        self.count = Signal(32)
        self.burst = Signal(16)
        self.jitter = Signal(32)
        self.seed = Signal(32)
        self.start = Signal()
        self.stop = Signal()
        self.ack = Signal()
        self.out = Signal()
        self.phase = Signal()
        self.running = Signal()

        self.state = state = Signal(3)
        lfsr = Signal(32, reset=1)
        remaining = Signal(32)    # cycles left in the current state
        reps = Signal(32)         # phases (or bursts) done
        pulses = Signal(16)       # pulses done in this burst
        request = Signal()        # LEVEL mode pending request
        ack_gap = Signal()        # LEVEL mode: one low cycle after an acknowledge
        rand = lfsr & self.jitter
        last = remaining <= 1

        def begin_low():
            return [remaining.eq(self.low + rand), lfsr.eq(lfsr_step(lfsr)), state.eq(LOW)]

        def begin_high():
            return [remaining.eq(self.high), state.eq(HIGH)]

        count_down = remaining.eq(remaining - 1)
        self.sync += If(state == IDLE,
            If(self.start,
                lfsr.eq(Mux(self.seed == 0, 1, self.seed)),
                If(self.mode != MODE_OFF, reps.eq(0), pulses.eq(0), state.eq(DELAY)))
        ).Else(
            Case(state, {
                DELAY: [remaining.eq(self.delay + rand), lfsr.eq(lfsr_step(lfsr)), state.eq(WAIT_DELAY)],
                WAIT_DELAY: If(last, *begin_high()).Else(count_down),
                BURST_GAP: If(last, *begin_high()).Else(count_down),
                HIGH: If(last,
                    If(self.mode == MODE_BURST,
                        If(pulses + 1 >= self.burst,
                            pulses.eq(0), *begin_low()
                        ).Else(
                            pulses.eq(pulses + 1), remaining.eq(self.high), state.eq(BURST_GAP))
                    ).Elif(self.mode == MODE_SINGLE,
                        state.eq(IDLE)
                    ).Else(*begin_low())
                ).Else(count_down),
                LOW: If(last,
                    reps.eq(reps + 1),
                    If((self.count != 0) & (reps + 1 >= self.count),
                        state.eq(IDLE)
                    ).Else(*begin_high())
                ).Else(count_down),
            }),
            If(self.stop, state.eq(IDLE)),
        )
        self.comb += [self.running.eq(state != IDLE), self.phase.eq(state == HIGH)]

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
