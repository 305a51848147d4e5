"""Byte stream -> trace records, resynchronizing after corruption.

The decoder never drops anything silently: bytes it had to skip, records the
sequence numbers show missing, records the trace unit reported as dropped
(OVERFLOW) and a truncated tail are all counted in DecodeStats.
"""

from dataclasses import dataclass, field

from irqlab.errors import TraceError
from irqlab.host import record as rec

_CRC_TABLE = [rec.crc8(bytes([i])) for i in range(256)]


def _crc(data):
    c = 0
    for b in data:
        c = _CRC_TABLE[c ^ b]
    return c


@dataclass
class Record:
    type: int
    seq: int
    ts: int        # full 64-bit timestamp (cycles)
    payload: int


@dataclass
class DecodeStats:
    bytes: int = 0
    records: int = 0
    skipped_bytes: int = 0      # bytes that were not part of a valid record
    resyncs: int = 0            # times the decoder had to hunt for a record start
    seq_gaps: int = 0           # places where sequence numbers jumped
    seq_lost: int = 0           # records missing by sequence number (mod 256: a lower bound)
    hw_dropped: int = 0         # events the trace unit dropped (OVERFLOW records)
    truncated_bytes: int = 0    # incomplete record at the end
    by_type: dict = field(default_factory=dict)
    console: str = ""           # console text carried in CONSOLE records (boards)

    @property
    def intact(self):
        """The bytes arrived whole (drops by the trace unit are reported, not corruption)."""
        return not (self.skipped_bytes or self.seq_lost or self.truncated_bytes)

    def problems(self):
        out = []
        if self.skipped_bytes:
            out.append(f"{self.skipped_bytes} corrupt bytes skipped ({self.resyncs} resyncs)")
        if self.seq_lost:
            out.append(f"{self.seq_lost} records missing by sequence number ({self.seq_gaps} gaps)")
        if self.hw_dropped:
            out.append(f"{self.hw_dropped} events dropped by the trace unit (FIFO full)")
        if self.truncated_bytes:
            out.append(f"trace ends inside a record ({self.truncated_bytes} bytes)")
        return out


class Decoder:
    """Incremental: feed() bytes as they arrive, get records back."""

    def __init__(self):
        self.buf = bytearray()
        self.stats = DecodeStats()
        self.hi = 0              # timestamp bits [63:48]
        self.sync_low = 0        # low 48 bits of the last TIME_HI record
        self.last_seq = None
        self.in_sync = True

    def _full_ts(self, low):
        full = (self.hi << 48) | low
        ref = (self.hi << 48) | self.sync_low
        if full - ref > 2**47:
            full -= 2**48
        elif ref - full > 2**47:
            full += 2**48
        return full

    def feed(self, data):
        self.buf += data
        self.stats.bytes += len(data)
        out = []
        buf = self.buf
        i, n, size = 0, len(buf), rec.RECORD_BYTES
        while i + size <= n:
            if buf[i] != rec.MAGIC or buf[i + 1] not in rec.TYPE_NAMES \
                    or _crc(buf[i:i + size - 1]) != buf[i + size - 1]:
                if self.in_sync:
                    self.stats.resyncs += 1
                    self.in_sync = False
                self.stats.skipped_bytes += 1
                i += 1
                continue
            self.in_sync = True
            rtype, seq = buf[i + 1], buf[i + 2]
            low = int.from_bytes(buf[i + 3:i + 9], "little")
            payload = int.from_bytes(buf[i + 9:i + 17], "little")
            i += size
            if self.last_seq is not None and seq != (self.last_seq + 1) & 0xFF:
                self.stats.seq_gaps += 1
                self.stats.seq_lost += (seq - self.last_seq - 1) & 0xFF
            self.last_seq = seq
            if rtype == rec.TYPE_TIME_HI:
                self.hi = payload & 0xFFFF
                self.sync_low = low
            elif rtype == rec.TYPE_OVERFLOW:
                self.stats.hw_dropped += payload & 0xFFFFFFFF
            self.stats.records += 1
            self.stats.by_type[rec.TYPE_NAMES[rtype]] = self.stats.by_type.get(rec.TYPE_NAMES[rtype], 0) + 1
            out.append(Record(rtype, seq, self._full_ts(low), payload))
        del buf[:i]
        return out

    def finish(self):
        """Call at end of stream: whatever is left is a truncated record."""
        if self.buf:
            self.stats.truncated_bytes += len(self.buf)
            self.buf.clear()


def decode_bytes(data):
    d = Decoder()
    records = d.feed(data)
    d.finish()
    return records, d.stats


def read_trace(path, allow_problems=False):
    """Decode a trace file; a file with any gap or corruption raises TraceError
    unless allow_problems is set."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise TraceError(f"cannot read trace '{path}': {e.strerror}") from None
    if not data:
        raise TraceError(f"trace '{path}' is empty")
    records, stats = decode_bytes(data)
    check(records, stats, path, allow_problems)
    return records, stats


def check(records, stats, path, allow_problems=False):
    """The errors read_trace raises, for records decoded elsewhere (a capture)."""
    if not records:
        raise TraceError(f"trace '{path}' holds no valid record ({stats.bytes} bytes)")
    if not allow_problems and not stats.intact:
        raise TraceError(f"trace '{path}': " + "; ".join(stats.problems()))
