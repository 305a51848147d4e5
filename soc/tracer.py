"""Trace unit: timestamps interrupt edges, software events and core events to the cycle.

    hw lines ──edge detect──► hw FIFO ─┐
    stimulus port (bus) ──────► sw FIFO ─┤
    retire port ─PC match───► core FIFO ─┼─► merge ─► record FIFO ─► serializer ─► byte stream
    console bytes (boards) ─► console FIFO ┘    ▲
                                   drops ───────┘ OVERFLOW records
    capture stage ──────────────────────────────► latency statistics (lossless)

Every event is stamped in the cycle it happens; all events of one cycle are
kept (one record per class and cycle, each hardware record carries the edges
of all lines in that cycle). An event that finds its class FIFO full is
dropped and counted; the count goes out in-band as an OVERFLOW record as soon
as there is room, and the running total is readable as a CSR.
The record layout is defined once, in trace/record.py.
"""

from migen import *
from migen.genlib.fifo import SyncFIFO, SyncFIFOBuffered

from litex.soc.interconnect.csr import AutoCSR, CSRStorage, CSRStatus, CSR
from litex.soc.interconnect import wishbone, stream

from irqlab.host import record as rec
from irqlab.soc.latstats import LatencyStats

REC_WIDTH = 8 + 48 + 64   # type, timestamp, payload as stored in the FIFOs
# Cycles from the core's retire port to the trace unit's comparators (a
# register for timing); core records and the statistics are corrected for it.
RETIRE_DELAY = 1


def crc8_bits(data_bits):
    """CRC-8 (poly 0x07, init 0) of a little-endian byte vector, as XOR expressions.

    The CRC is linear, so each output bit is the XOR of a fixed set of input
    bits; the set is found by feeding unit vectors through the software CRC.
    """
    nbytes = len(data_bits) // 8
    taps = [[] for _ in range(8)]
    for bit in range(nbytes * 8):
        v = bytearray(nbytes)
        v[bit // 8] = 1 << (bit % 8)
        c = rec.crc8(v)
        for o in range(8):
            if c >> o & 1:
                taps[o].append(bit)
    out = []
    for o in range(8):
        x = 0
        for b in taps[o]:
            x = x ^ data_bits[b]
        out.append(x)
    return Cat(*out)


def _priority_pick(sources, sink):
    """Move one record from the first readable source into sink."""
    stmt = None
    for f in sources:
        move = [f.re.eq(1), sink.we.eq(1), sink.din.eq(f.dout)]
        stmt = If(f.readable, *move) if stmt is None else stmt.Elif(f.readable, *move)
    return [stmt]


class RetirePort:
    """What a core with a trace port drives: one retired instruction per valid cycle."""
    def __init__(self):
        self.valid = Signal()
        self.pc = Signal(32)
        self.trap = Signal()        # this cycle is a trap entry (pc = handler address)
        self.cause = Signal(8)
        self.mret = Signal()
        self.trap_delay = Signal(2)  # with trap: cycles since the core took it (shown behind retirements)
        # Beside it: an instruction enters execute (first cycle there), its pc.
        self.exec_valid = Signal()
        self.exec_pc = Signal(32)


class Serializer(Module):
    """Turns stored records into RECORD_BYTES-byte frames with magic, seq and CRC,
    sent `beat_bytes` bytes a beat (first byte in the low bits): one byte for a
    serial link, more where the sink takes more (the simulation harness)."""
    def __init__(self, fifo, beat_bytes=1):
        assert rec.RECORD_BYTES % beat_bytes == 0, beat_bytes
        beats = rec.RECORD_BYTES // beat_bytes
        self.source = stream.Endpoint([("data", 8 * beat_bytes)])
        self.seq = seq = Signal(8)
        frame = Signal(rec.RECORD_BYTES * 8)
        index = Signal(max=beats + 1)
        busy = Signal()
        rtype, ts, payload = Signal(8), Signal(48), Signal(64)
        self.comb += Cat(rtype, ts, payload).eq(fifo.dout)
        body = Cat(Constant(rec.MAGIC, 8), rtype, seq, ts, payload)
        self.comb += [
            fifo.re.eq(~busy),
            self.source.valid.eq(busy),
            self.source.data.eq(frame[:8 * beat_bytes]),
        ]
        self.sync += [
            If(~busy & fifo.readable,
                frame.eq(Cat(body, crc8_bits(body))),
                busy.eq(1),
                index.eq(0),
                seq.eq(seq + 1),
            ).Elif(busy & self.source.ready,
                frame.eq(frame[8 * beat_bytes:]),
                If(index == beats - 1,
                    busy.eq(0)
                ).Else(index.eq(index + 1))
            )
        ]


class TraceUnit(Module, AutoCSR):
    def __init__(self, n_hw=rec.N_HW_LINES, n_pc_match=4, n_stats=2, fifo_depth=1024,
                 class_fifo_depth=8, with_retire=False, beat_bytes=1):
        self.hw_lines = Signal(n_hw)
        self.retire = RetirePort()
        self.bus = wishbone.Interface()      # stimulus ports: word i = channel i
        # The record stream, `beat_bytes` bytes a beat (Serializer).
        self.source = stream.Endpoint([("data", 8 * beat_bytes)])
        # Console bytes, carried in-band as CONSOLE records where the board has
        # one serial link for both (never dropped: back-pressure instead).
        self.console = stream.Endpoint([("data", 8)])

        self._enable = CSRStorage(1, description="Record events while set.")
        self._rise_en = CSRStorage(n_hw, reset=2**n_hw - 1, description="Record rising edges of these lines.")
        self._fall_en = CSRStorage(n_hw, reset=2**n_hw - 1, description="Record falling edges of these lines.")
        self._core_en = CSRStorage(2, description="bit 0: trap entries, bit 1: mret.")
        self._ts_preset = CSRStorage(64, description="Timestamp loaded by ts_load.")
        self._ts_load = CSR()
        self._ts_latch = CSR()  # write: latch the timestamp into ts
        self._ts = CSRStatus(64)
        self._drops = CSRStatus(32, description="Events dropped since reset (FIFO full).")
        self._level = CSRStatus(16, description="Records waiting in the FIFO.")
        self._has_retire = CSRStatus(1, reset=int(with_retire), description="The core drives the retire port.")
        for k in range(n_pc_match):
            setattr(self, f"_match{k}", CSRStorage(32, name=f"match{k}", description="PC to match, bit 0 = enable."))

        enable = self._enable.storage

        # Free-running 64-bit timestamp.
        self.ts = ts = Signal(64)
        self.sync += If(self._ts_load.re, ts.eq(self._ts_preset.storage)).Else(ts.eq(ts + 1))
        self.sync += If(self._ts_latch.re, self._ts.status.eq(ts))

        # Capture stage: everything that happens in this cycle.
        lines_d = Signal(n_hw)
        self.sync += lines_d.eq(self.hw_lines)
        self.rise = rise = Signal(n_hw)
        self.fall = fall = Signal(n_hw)
        self.comb += [
            rise.eq(self.hw_lines & ~lines_d & self._rise_en.storage),
            fall.eq(~self.hw_lines & lines_d & self._fall_en.storage),
        ]

        # Stimulus ports: a single store makes an event; acked in one cycle.
        self.sw_valid = sw_valid = Signal()
        self.sw_chan = sw_chan = Signal(8)
        self.sw_data = sw_data = Signal(32)
        self.comb += [
            sw_valid.eq(self.bus.cyc & self.bus.stb & self.bus.we & ~self.bus.ack),
            sw_chan.eq(self.bus.adr[:8]),
            sw_data.eq(self.bus.dat_w),
        ]
        self.sync += self.bus.ack.eq(self.bus.cyc & self.bus.stb & ~self.bus.ack)

        # Core events. The retire port is registered here (RETIRE_DELAY
        # cycles): the core's trap bookkeeping behind it is a long path, and
        # the comparators, the core FIFO and the statistics then start from
        # flip-flops. Core records are stamped with the timestamp of the cycle
        # the core showed the event (ts_core), and the statistics see every
        # event class delayed alike (stats_* below), so no figure changes.
        r = RetirePort()
        for name in ("valid", "pc", "trap", "cause", "mret", "trap_delay", "exec_valid", "exec_pc"):
            self.comb += getattr(r, name).eq(self._delayed(getattr(self.retire, name), RETIRE_DELAY))
        self.ts_core = ts_core = self._delayed(ts[:48], RETIRE_DELAY)
        self.pc_match = pc_match = Signal(n_pc_match)
        for k in range(n_pc_match):
            m = getattr(self, f"_match{k}").storage
            # A retirement at that pc (a trap entry shows its target there too).
            self.comb += pc_match[k].eq(r.valid & ~r.trap & m[0] & (r.pc[1:] == m[1:]))
        # Each comparator also watches execute entries: the age of its last
        # one (cycles before now; 0 none since reset or since the comparator
        # was written, saturating at EXEC_AGE_MAX) goes out with its PC match,
        # so B's execution rides in B's own record (no record of its own to
        # drop). The retiring instance is the last to have entered execute
        # with that pc: the pipeline is in order.
        self.exec_match = exec_match = Signal(n_pc_match)
        exec_ages = []
        for k in range(n_pc_match):
            m = getattr(self, f"_match{k}").storage
            self.comb += exec_match[k].eq(r.exec_valid & m[0] & (r.exec_pc[1:] == m[1:]))
            age = Signal(rec.EXEC_AGE_BITS)
            self.sync += If(getattr(self, f"_match{k}").re, age.eq(0)
                ).Elif(exec_match[k], age.eq(1)
                ).Elif((age != 0) & (age != rec.EXEC_AGE_MAX), age.eq(age + 1))
            exec_ages.append(age)
        core_trap = Signal()
        core_mret = Signal()
        self.comb += [
            core_trap.eq(r.valid & r.trap & self._core_en.storage[0]),
            core_mret.eq(r.valid & r.mret & self._core_en.storage[1]),
        ]
        self.core_kind = core_kind = Signal(8)
        self.core_arg = core_arg = Signal(8)
        core_delay = Signal(2)        # trap records: the entry was this many cycles before the stamp
        core_exec_age = Signal(rec.EXEC_AGE_BITS)   # PC matches: its comparator's execute age
        self.core_valid = core_valid = Signal()   # a core event this cycle (before enable)
        first_match = Signal(8)
        self.comb += first_match.eq(0)
        for k in reversed(range(n_pc_match)):
            self.comb += If(pc_match[k], first_match.eq(k))
        self.comb += [
            If(core_trap, core_kind.eq(rec.CORE_TRAP), core_arg.eq(r.cause), core_delay.eq(r.trap_delay)
            ).Elif(core_mret, core_kind.eq(rec.CORE_MRET)
            ).Else(core_kind.eq(rec.CORE_PC_MATCH), core_arg.eq(first_match),
                   core_exec_age.eq(Array(exec_ages)[first_match[:max(1, (n_pc_match - 1).bit_length())]]))
        ]

        self.comb += core_valid.eq((pc_match != 0) | core_trap | core_mret)

        # Per-class FIFOs (drop point) and the merge into the record FIFO.
        hw_payload = Signal(64)
        self.comb += [hw_payload[:n_hw].eq(rise), hw_payload[32:32 + n_hw].eq(fall)]
        classes = [
            (enable & ((rise | fall) != 0), rec.TYPE_HW, hw_payload),
            (enable & sw_valid, rec.TYPE_SW, Cat(sw_data, sw_chan)),
            (enable & core_valid, rec.TYPE_CORE, Cat(r.pc, core_kind, core_arg, core_delay, core_exec_age)),
        ]
        stamps = [ts[:48], ts[:48], ts_core]
        fifos = []
        drop_now = []
        for i, (valid, rtype, payload) in enumerate(classes):
            f = SyncFIFO(REC_WIDTH, class_fifo_depth)
            setattr(self.submodules, f"class_fifo{i}", f)
            self.comb += [f.we.eq(valid), f.din.eq(Cat(Constant(rtype, 8), stamps[i], payload))]
            d = Signal()
            self.comb += d.eq(valid & ~f.writable)
            drop_now.append(d)
            fifos.append(f)
        cf = SyncFIFO(REC_WIDTH, class_fifo_depth)
        self.submodules.console_fifo = cf
        self.comb += [
            cf.we.eq(self.console.valid), self.console.ready.eq(cf.writable),
            cf.din.eq(Cat(Constant(rec.TYPE_CONSOLE, 8), ts[:48], self.console.data)),
        ]
        fifos.append(cf)

        self.submodules.fifo = fifo = SyncFIFOBuffered(REC_WIDTH, fifo_depth)
        self.comb += self._level.status.eq(fifo.level)

        # Drop accounting: pending (not yet reported in-band) and total.
        pending = Signal(32)
        n_new = Signal(2)
        self.comb += n_new.eq(sum(drop_now))
        report = Signal()
        self.sync += [
            self._drops.status.eq(self._drops.status + n_new),
            If(report, pending.eq(n_new)).Else(pending.eq(pending + n_new)),
        ]

        # TIME_HI when tracing starts, when the low 48 bits wrap, and after
        # ts_load (the counter jumped: the host needs the new upper bits and a
        # new reference for the low ones).
        enable_d = Signal()
        self.sync += enable_d.eq(enable)
        ts_loaded = Signal()    # first cycle with the loaded value
        self.sync += ts_loaded.eq(self._ts_load.re)
        time_hi_pending = Signal()
        send_time_hi = Signal()
        self.sync += If(enable & (~enable_d | (ts[:48] == 0) | ts_loaded), time_hi_pending.eq(1)
            ).Elif(send_time_hi, time_hi_pending.eq(0))

        # Merge: TIME_HI, then OVERFLOW, then the classes in fixed order. Under
        # sustained overload OVERFLOW takes every other slot, so waiting events
        # still get out.
        last_was_overflow = Signal()
        any_class = Signal()
        self.comb += any_class.eq(Cat(*[f.readable for f in fifos]) != 0)
        self.sync += If(fifo.writable & ~time_hi_pending, last_was_overflow.eq(report))
        self.comb += If(fifo.writable,
            If(time_hi_pending,
                send_time_hi.eq(1),
                fifo.we.eq(1),
                fifo.din.eq(Cat(Constant(rec.TYPE_TIME_HI, 8), ts[:48], ts[48:])),
            ).Elif((pending != 0) & (~last_was_overflow | ~any_class),
                report.eq(1),
                fifo.we.eq(1),
                fifo.din.eq(Cat(Constant(rec.TYPE_OVERFLOW, 8), ts[:48], pending)),
            ).Elif(any_class, *_priority_pick(fifos, fifo))
        )

        self.submodules.serializer = ser = Serializer(fifo, beat_bytes)
        self.comb += ser.source.connect(self.source)

        # Lossless on-chip statistics, fed from the capture stage with the
        # line and stimulus events delayed by RETIRE_DELAY cycles like the
        # PC matches: latencies are differences, so they stay exact.
        stats_rise, stats_fall, stats_sw_valid, stats_sw_chan = (
            self._delayed(x, RETIRE_DELAY) for x in (rise, fall, sw_valid, sw_chan))
        self.stats = []
        for k in range(n_stats):
            s = LatencyStats(ts, stats_rise, stats_fall, stats_sw_valid, stats_sw_chan, pc_match)
            setattr(self.submodules, f"stats{k}", s)
            self.stats.append(s)

    def _delayed(self, x, cycles):
        """x, `cycles` clock cycles later (a chain of registers)."""
        for _ in range(cycles):
            d = Signal(len(x))
            self.sync += d.eq(x)
            x = d
        return x
