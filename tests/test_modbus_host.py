"""The Modbus-RTU slave (fw/common/modbus/) built for the host and driven with
fake time: every function code, every exception, every malformed-frame case,
byte by byte against responses computed here by a small
reference encoder and register model of our own (and cross-checked against
pymodbus's RTU framer where it has the message)."""
import math
import pathlib
import random
import subprocess

import pytest

from irqlab.host.modbus import adu, crc16

ROOT = pathlib.Path(__file__).resolve().parent.parent
SRC = ROOT / "fw" / "common" / "modbus"
SOURCES = ["mb_crc.c", "mb_rx.c", "mb_slave.c", "mb_tx.c", "host/testmap.c", "host/mb_script.c"]

ADDR = 17
BAUD, HZ = 115200, 1_000_000          # above 19200: t1.5 = 750 us, t3.5 = 1750 us
TCHAR, T15, T35 = 96, 750, 1750       # ticks of 1 us; 11 bits at 115200 = 95.5 us


# ---- reference encoder (framing: irqlab.host.modbus; pymodbus cross-checks it below) ----

def u16(*values):
    return b"".join(v.to_bytes(2, "big") for v in values)


def pack_bits(bits):
    out = bytearray((len(bits) + 7) // 8)
    for i, b in enumerate(bits):
        out[i // 8] |= (1 if b else 0) << (i % 8)
    return bytes(out)


class RefSlave:
    """The host build's register map (fw/common/modbus/host/testmap.h) and
    the application protocol's rules, written again from the spec."""

    def __init__(self):
        self.coils = [0] * 100
        self.holding = [i * 3 + 1 for i in range(200)]

    @staticmethod
    def discrete(a):
        return int(a % 3 == 0)

    @staticmethod
    def input(a):
        return a ^ 0x5A5A

    def _writable(self, a, v):
        return not (a >= 100 and v > 0xF000)

    def pdu(self, req):
        fc = req[0]
        exc = lambda code: bytes([fc | 0x80, code])
        n = len(req)
        if fc in (1, 2):
            if n != 5:
                return exc(3)
            a, q = int.from_bytes(req[1:3], "big"), int.from_bytes(req[3:5], "big")
            if not 1 <= q <= 2000:
                return exc(3)
            size = 100 if fc == 1 else 50
            if a + q > size:
                return exc(2)
            get = (lambda i: self.coils[i]) if fc == 1 else self.discrete
            bits = pack_bits([get(a + i) for i in range(q)])
            return bytes([fc, len(bits)]) + bits
        if fc in (3, 4):
            if n != 5:
                return exc(3)
            a, q = int.from_bytes(req[1:3], "big"), int.from_bytes(req[3:5], "big")
            if not 1 <= q <= 125:
                return exc(3)
            if a + q > (200 if fc == 3 else 100):
                return exc(2)
            get = (lambda i: self.holding[i]) if fc == 3 else self.input
            return bytes([fc, 2 * q]) + u16(*[get(a + i) for i in range(q)])
        if fc == 5:
            if n != 5:
                return exc(3)
            a, v = int.from_bytes(req[1:3], "big"), int.from_bytes(req[3:5], "big")
            if v not in (0, 0xFF00):
                return exc(3)
            if a >= 100:
                return exc(2)
            self.coils[a] = int(v == 0xFF00)
            return bytes(req)
        if fc == 6:
            if n != 5:
                return exc(3)
            a, v = int.from_bytes(req[1:3], "big"), int.from_bytes(req[3:5], "big")
            if a >= 200:
                return exc(2)
            if not self._writable(a, v):
                return exc(3)
            self.holding[a] = v
            return bytes(req)
        if fc in (15, 16):
            if n < 6:
                return exc(3)
            a, q, bc = int.from_bytes(req[1:3], "big"), int.from_bytes(req[3:5], "big"), req[5]
            limit, want = (0x7B0, (q + 7) // 8) if fc == 15 else (0x7B, 2 * q)
            if not 1 <= q <= limit or bc != want or n != 6 + bc:
                return exc(3)
            if a + q > (100 if fc == 15 else 200):
                return exc(2)
            data = req[6:]
            if fc == 15:
                for i in range(q):
                    self.coils[a + i] = (data[i // 8] >> (i % 8)) & 1
            else:
                vals = [int.from_bytes(data[2 * i:2 * i + 2], "big") for i in range(q)]
                if not all(self._writable(a + i, v) for i, v in enumerate(vals)):
                    return exc(3)
                self.holding[a:a + q] = vals
            return bytes(req[:5])
        if fc == 23:
            if n < 10:
                return exc(3)
            ra, rq, wa, wq = (int.from_bytes(req[i:i + 2], "big") for i in (1, 3, 5, 7))
            bc = req[9]
            if not (1 <= rq <= 125 and 1 <= wq <= 121 and bc == 2 * wq and n == 10 + bc):
                return exc(3)
            if ra + rq > 200 or wa + wq > 200:
                return exc(2)
            vals = [int.from_bytes(req[10 + 2 * i:12 + 2 * i], "big") for i in range(wq)]
            if not all(self._writable(wa + i, v) for i, v in enumerate(vals)):
                return exc(3)
            self.holding[wa:wa + wq] = vals
            return bytes([fc, 2 * rq]) + u16(*self.holding[ra:ra + rq])
        return exc(1)


# ---- the slave under test ----

@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    exe = tmp_path_factory.mktemp("modbus") / "mb_script"
    subprocess.run(["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter", "-O1",
                    "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                    f"-I{SRC}", f"-I{SRC / 'host'}", *[str(SRC / s) for s in SOURCES], "-o", str(exe)],
                   check=True)
    return exe


class Line:
    """A script for the driver: the serial line as seen by the slave, with
    time in ticks. Starts after the power-up silence."""

    def __init__(self, exe, baud=BAUD, hz=HZ, addr=ADDR):
        self.exe = exe
        self.cmds = [f"C {baud} {hz} {addr}", "T"]
        self.t = 1_000_000                  # longer than any t3.5 here: the receiver listens
        self.tchar = TCHAR

    def silence(self, ticks):
        self.t += ticks

    def send(self, data, step=None, poll=True):
        """Bytes back to back (or `step` ticks apart), then, with `poll`, a
        silence of t3.5 and a poll: one output line, R <hex> (a response), N
        (handled, no response) or - (no frame handed over)."""
        if data:
            self.cmds.append(f"B {self.t + self.tchar} {bytes(data).hex()} {step or 0}")
            self.t += self.tchar + (step or self.tchar) * (len(data) - 1)
        if poll:
            self.poll(T35)

    def poll(self, after=0):
        self.t += after
        self.cmds.append(f"P {self.t}")

    def overrun(self):
        self.cmds.append(f"O {self.t}")

    def char_error(self):
        self.cmds.append(f"E {self.t}")

    def run(self, *extra):
        out = subprocess.run([str(self.exe)], input="\n".join(self.cmds + list(extra)) + "\n",
                             capture_output=True, text=True, check=True).stdout.splitlines()
        timing = [int(x) for x in out[0].split()[1:]]
        return timing, out[1:]

    def replies(self):
        """The poll results and the counters."""
        _, out = self.run("S")
        counters = dict(kv.split("=") for kv in out[-1].split()[1:])
        return out[:-1], {k: int(v) for k, v in counters.items()}


def reply(resp_pdu, addr=ADDR):
    return "R " + adu(addr, resp_pdu).hex()


def drops(counters):
    """The drop counters of a replies() result (they follow the six others)."""
    return dict(list(counters.items())[6:])


def assert_every_frame_counted_once(c):
    assert c["frames"] == c["requests"] + c["broadcasts"] + sum(drops(c).values()), c
    assert c["requests"] == c["responses"] + c["exceptions"], c


# ---- tests ----

def test_crc16_known_vectors():
    # The serial-line spec's example frame ("01 03 00 00 00 02" + C4 0B, low byte first)
    # and CRC-16/MODBUS's check value over "123456789".
    assert adu(1, bytes.fromhex("0300000002")).hex() == "010300000002c40b"
    assert crc16(b"123456789") == 0x4B37


@pytest.mark.parametrize("baud,hz,expect", [
    (115200, 1_000_000, (96, 750, 1750)),          # fixed above 19200
    (2_000_000, 100_000_000, (550, 75000, 175000)),
    (19200, 1_000_000, (573, 860, 2006)),         # 1.5 and 3.5 characters of 11 bits
    (9600, 50_000_000, (57292, 85938, 200521)),
])
def test_timing_in_ticks(driver, baud, hz, expect):
    timing, _ = Line(driver, baud, hz).run()
    assert tuple(timing) == expect
    tchar = 11 * hz / baud
    assert timing[0] == math.ceil(tchar)
    if baud <= 19200:
        assert timing[1:] == [math.ceil(1.5 * tchar), math.ceil(3.5 * tchar)]


VALID = [
    bytes([1]) + u16(3, 20),                       # read coils 3..22
    bytes([2]) + u16(0, 50),                       # read discrete inputs, all
    bytes([3]) + u16(10, 3),
    bytes([3]) + u16(75, 125),                     # the largest read: a 255-byte response
    bytes([4]) + u16(99, 1),
    bytes([5]) + u16(7, 0xFF00),
    bytes([1]) + u16(0, 10),                       # coil 7 now on
    bytes([5]) + u16(7, 0x0000),
    bytes([6]) + u16(150, 0x1234),
    bytes([3]) + u16(150, 1),
    bytes([15]) + u16(90, 10) + bytes([2]) + bytes([0b10110101, 0b11]),
    bytes([1]) + u16(88, 12),
    bytes([16]) + u16(120, 3) + bytes([6]) + u16(0xBEEF & 0x7FFF, 2, 3),
    bytes([23]) + u16(119, 5, 0, 2) + bytes([4]) + u16(0xAAAA, 0x5555),
    bytes([3]) + u16(0, 2),
]


def test_every_function_code_byte_by_byte(driver):
    line, ref = Line(driver), RefSlave()
    expect = []
    for pdu in VALID:
        line.send(adu(ADDR, pdu))
        expect.append(reply(ref.pdu(pdu)))
    out, counters = line.replies()
    assert out == expect
    assert {fc for fc in (p[0] for p in VALID)} == {1, 2, 3, 4, 5, 6, 15, 16, 23}
    assert counters["requests"] == counters["responses"] == len(VALID)
    assert counters["exceptions"] == 0 and sum(counters[k] for k in ("crc", "short", "long")) == 0


def test_responses_match_pymodbus_framer(driver):
    """pymodbus's RTU framer encodes the same requests and decodes our responses."""
    pytest.importorskip("pymodbus")
    from pymodbus.framer import FramerRTU
    from pymodbus.pdu import DecodePDU
    from pymodbus.pdu import bit_message as bm, register_message as rm
    requests = [
        (rm.ReadHoldingRegistersRequest(address=10, count=3, dev_id=ADDR), [31, 34, 37]),
        (rm.ReadInputRegistersRequest(address=5, count=2, dev_id=ADDR), [5 ^ 0x5A5A, 6 ^ 0x5A5A]),
        (rm.WriteMultipleRegistersRequest(address=2, registers=[7, 8], dev_id=ADDR), None),
        (rm.ReadWriteMultipleRegistersRequest(read_address=1, read_count=3, write_address=2,
                                              write_registers=[9, 10], dev_id=ADDR), [4, 9, 10]),
        (bm.ReadDiscreteInputsRequest(address=0, count=7, dev_id=ADDR), None),
        (bm.WriteMultipleCoilsRequest(address=4, bits=[True, False, True], dev_id=ADDR), None),
    ]
    client = FramerRTU(DecodePDU(False))
    line = Line(driver)
    for req, _ in requests:
        frame = client.buildFrame(req)
        assert frame[:1] == bytes([ADDR]) and frame == adu(ADDR, frame[1:-2])   # same encoding
        line.send(frame)
    out, _ = line.replies()
    for (req, regs), text in zip(requests, out):
        raw = bytes.fromhex(text.split()[1])
        used, resp = client.handleFrame(raw, 0, 0)
        assert used == len(raw) and resp is not None and not resp.isError()
        assert resp.function_code == req.function_code
        if regs is not None:
            assert resp.registers == regs
    assert len(out) == len(requests)


EXCEPTIONS = [
    (bytes([7]), 1), (bytes([0x2B, 0x0E, 1, 0]), 1), (bytes([0x81]) + u16(0, 1), 1), (bytes([8]) + u16(0, 0), 1),
    (bytes([1]) + u16(0, 0), 3), (bytes([1]) + u16(0, 2001), 3), (bytes([1]) + u16(99, 2), 2),
    (bytes([2]) + u16(50, 1), 2), (bytes([2]) + u16(0, 1) + b"\0", 3),
    (bytes([3]) + u16(0, 126), 3), (bytes([3]) + u16(199, 2), 2), (bytes([3]) + u16(0xFFFF, 1), 2),
    (bytes([3]) + u16(0, 0), 3), (bytes([3, 0, 0]), 3),
    (bytes([4]) + u16(100, 1), 2), (bytes([4]) + u16(0, 126), 3),
    (bytes([5]) + u16(0, 0x1234), 3), (bytes([5]) + u16(100, 0xFF00), 2),
    (bytes([6]) + u16(200, 1), 2), (bytes([6]) + u16(100, 0xF001), 3),
    (bytes([15]) + u16(0, 9) + bytes([1, 0xFF]), 3),                  # byte count too small
    (bytes([15]) + u16(0, 0x7B1) + bytes([0xF7]) + bytes(0xF7), 3),   # over 1968 coils
    (bytes([15]) + u16(95, 8) + bytes([1, 0xFF]), 2),
    (bytes([16]) + u16(0, 2) + bytes([4]) + u16(1), 3),               # truncated values
    (bytes([16]) + u16(0, 124) + bytes([248]) + bytes(240), 3),       # over 123 registers
    (bytes([16]) + u16(199, 2) + bytes([4]) + u16(1, 2), 2),
    (bytes([16]) + u16(98, 3) + bytes([6]) + u16(1, 2, 0xFFFF), 3),   # the third value refused
    (bytes([23]) + u16(0, 126, 0, 1) + bytes([2]) + u16(1), 3),
    (bytes([23]) + u16(0, 1, 0, 122) + bytes([244]) + bytes(230), 3),
    (bytes([23]) + u16(200, 1, 0, 1) + bytes([2]) + u16(1), 2),
    (bytes([23]) + u16(0, 1, 199, 2) + bytes([4]) + u16(1, 2), 2),
]


def test_exception_responses(driver):
    line, ref = Line(driver), RefSlave()
    for pdu, code in EXCEPTIONS:
        assert ref.pdu(pdu) == bytes([pdu[0] | 0x80, code]), pdu.hex()
        line.send(adu(ADDR, pdu))
    line.send(adu(ADDR, bytes([3]) + u16(96, 4)))   # a refused multi-write left nothing written
    out, counters = line.replies()
    assert out[:-1] == [reply(bytes([p[0] | 0x80, c])) for p, c in EXCEPTIONS]
    assert out[-1] == reply(bytes([3, 8]) + u16(96 * 3 + 1, 97 * 3 + 1, 98 * 3 + 1, 99 * 3 + 1))
    assert counters["exceptions"] == len(EXCEPTIONS) and counters["responses"] == 1


def random_pdu(rnd):
    """A valid or invalid request PDU of any function code."""
    fc = rnd.choice([1, 2, 3, 4, 5, 6, 15, 16, 23, rnd.randrange(256)])
    a = rnd.choice([0, rnd.randrange(220), 0xFFFF])
    if fc in (1, 2, 3, 4):
        return bytes([fc]) + u16(a, rnd.choice([1, rnd.randrange(130), 2000, 0]))
    if fc in (5, 6):
        return bytes([fc]) + u16(a, rnd.choice([0, 0xFF00, rnd.randrange(65536)]))
    if fc == 15:
        q = rnd.randrange(1, 40)
        data = bytes(rnd.randrange(256) for _ in range((q + 7) // 8 + rnd.choice([0, 0, 1])))
        return bytes([fc]) + u16(a, q) + bytes([len(data)]) + data
    if fc == 16:
        q = rnd.randrange(1, 10)
        return bytes([fc]) + u16(a, q) + bytes([2 * q]) + u16(*[rnd.randrange(65536) for _ in range(q)])
    if fc == 23:
        q = rnd.randrange(1, 6)
        return (bytes([fc]) + u16(rnd.randrange(210), rnd.randrange(1, 20), a, q) + bytes([2 * q])
                + u16(*[rnd.randrange(0xF100) for _ in range(q)]))
    return bytes([fc]) + bytes(rnd.randrange(256) for _ in range(rnd.randrange(8)))


def test_random_requests_against_the_reference(driver):
    """Valid and invalid requests from a fixed seed: every byte of every reply."""
    rnd = random.Random(13)
    line, ref = Line(driver), RefSlave()
    expect = []
    for _ in range(400):
        pdu = random_pdu(rnd)
        line.send(adu(ADDR, pdu))
        expect.append(reply(ref.pdu(pdu)))
    out, c = line.replies()
    assert out == expect
    assert_every_frame_counted_once(c)


BROADCAST_WRITES = (5, 6, 15, 16)
# Broadcast writes a request to this slave would get an exception for.
REFUSED_BROADCASTS = [
    bytes([6]) + u16(200, 1),                                  # no such register (02)
    bytes([6]) + u16(100, 0xF001),                             # a value the map refuses (03)
    bytes([5]) + u16(3, 0x1234),                               # a coil value other than 0000/FF00 (03)
    bytes([15]) + u16(95, 8) + bytes([1, 0xFF]),               # coils past the last (02)
    bytes([16]) + u16(0, 2) + bytes([5]) + u16(1, 2) + b"\0",  # byte count 5 for 2 registers (03)
    bytes([16]) + u16(98, 3) + bytes([6]) + u16(1, 2, 0xFFFF),  # the third value refused (03)
]


def test_a_refused_broadcast_is_counted_and_changes_nothing(driver):
    """A broadcast write that fails its checks is not executed and not
    answered, and lands in a counter of its own (refused): every frame is
    in exactly one counter."""
    line, ref = Line(driver), RefSlave()
    for pdu in REFUSED_BROADCASTS:
        assert ref.pdu(pdu)[0] == pdu[0] | 0x80, pdu.hex()
        line.send(adu(0, pdu))
    line.send(adu(0, bytes([6]) + u16(10, 0x77)))              # a good one: executed
    line.send(adu(0, bytes([3]) + u16(10, 1)))                 # a read: may not be broadcast
    line.send(adu(ADDR, bytes([3]) + u16(96, 4)))              # nothing of the refused ones written
    line.send(adu(ADDR, bytes([3]) + u16(0, 2)))
    line.send(adu(ADDR, bytes([1]) + u16(0, 16)))
    out, c = line.replies()
    assert out == ["N"] * (len(REFUSED_BROADCASTS) + 2) + [
        reply(bytes([3, 8]) + u16(*[a * 3 + 1 for a in range(96, 100)])),
        reply(bytes([3, 4]) + u16(1, 4)),
        reply(bytes([1, 2, 0, 0]))]
    assert_every_frame_counted_once(c)
    assert c["frames"] == len(REFUSED_BROADCASTS) + 5
    assert c["refused"] == len(REFUSED_BROADCASTS)
    assert c["broadcasts"] == 1 and c["broadcast"] == 1 and c["requests"] == 3


def test_random_broadcasts_against_the_reference(driver):
    """Requests to this slave, to another and to all (address 0) from a
    fixed seed: broadcast writes executed where the reference executes
    them and counted as refused where it answers an exception, the others
    dropped as broadcasts; every frame counted once; the registers and
    coils end as the reference's."""
    rnd = random.Random(85)
    line, ref = Line(driver), RefSlave()
    expect, n = [], {"broadcasts": 0, "refused": 0, "broadcast": 0, "address": 0}
    for _ in range(400):
        pdu, to = random_pdu(rnd), rnd.choice([ADDR, 0, 0, ADDR + 1])
        if rnd.random() < 0.5:
            pdu = bytes([rnd.choice(BROADCAST_WRITES)]) + pdu[1:]
        line.send(adu(to, pdu))
        if to == ADDR:
            expect.append(reply(ref.pdu(pdu)))
        elif to == 0 and pdu[0] in BROADCAST_WRITES:
            expect.append("N")
            n["refused" if ref.pdu(pdu)[0] & 0x80 else "broadcasts"] += 1
        else:
            expect.append("N")
            n["broadcast" if to == 0 else "address"] += 1
    for a in range(0, 200, 100):
        line.send(adu(ADDR, bytes([3]) + u16(a, 100)))
        expect.append(reply(bytes([3, 200]) + u16(*ref.holding[a:a + 100])))
    line.send(adu(ADDR, bytes([1]) + u16(0, 100)))
    expect.append(reply(bytes([1, 13]) + pack_bits(ref.coils)))
    out, c = line.replies()
    assert out == expect
    assert {k: c[k] for k in n} == n and min(n.values()) > 20
    assert_every_frame_counted_once(c)


def answers(out):
    """(start, end) of each answer on the line, from the script's A lines."""
    return [tuple(int(x) for x in o.split()[1:]) for o in out if o.startswith("A ")]


@pytest.mark.parametrize("baud,hz", [(115200, 1_000_000), (2_000_000, 50_000_000)])
def test_an_answer_keeps_t35_after_the_slaves_previous_one(driver, baud, hz):
    """A request that arrives while the slave still sends its previous
    answer (a 255-byte one) is answered only t3.5 after that answer's end,
    not t3.5 after the request alone: at 115200 baud that would queue it
    right behind the first, at 2 Mbaud (tchar 5.5 us, the fixed t3.5
    1.75 ms, the long answer 1.4 ms) leave less than t3.5 between them;
    either way a master reads one frame with a bad CRC."""
    line = Line(driver, baud, hz)
    timing, _ = line.run()
    tchar, _, t35 = timing
    line.tchar = tchar
    long_read = adu(ADDR, bytes([3]) + u16(0, 125))
    short_read = adu(ADDR, bytes([4]) + u16(0, 1))
    line.send(long_read, poll=False)
    line.poll(t35)
    first = line.t                                  # answered at once
    line.cmds.append("A")
    line.silence(tchar)                             # the master does not wait for the answer
    line.send(short_read, poll=False)
    second_end = line.t
    line.poll(t35)
    line.cmds.append("A")
    line.silence(255 * tchar + 3 * t35)             # a master that waits: answered at once
    line.send(short_read, poll=False)
    third_end = line.t
    line.poll(t35)
    line.cmds.append("A")
    _, out = line.run()
    long_answer = reply(bytes([3, 250]) + u16(*[a * 3 + 1 for a in range(125)]))
    short_answer = reply(bytes([4, 2]) + u16(0x5A5A))
    assert [o for o in out if o.startswith("R ")] == [long_answer, short_answer, short_answer]
    (s1, e1), (s2, e2), (s3, e3) = answers(out)
    assert (s1, e1) == (first, first + 255 * tchar)
    assert second_end < e1                           # the request came while the slave still sent
    assert s2 == e1 + t35                            # t3.5 after the slave's previous answer
    assert e2 == s2 + 7 * tchar
    assert s3 == third_end + t35 > e2 + t35         # a request after the answer: no wait


def test_malformed_frames_are_dropped_counted_and_the_slave_recovers(driver):
    line, ref = Line(driver), RefSlave()
    good = adu(ADDR, bytes([3]) + u16(10, 2))
    ok = reply(ref.pdu(bytes([3]) + u16(10, 2)))
    bad_crc = bytearray(good)
    bad_crc[-1] ^= 0x40
    line.send(bad_crc)                                   # 1 crc
    line.send(good[:5])                                  # 2 truncated: crc
    line.send(good[:3])                                  # 3 truncated below 4 bytes: short
    line.send(bytes(300))                                # 4 oversized: long
    line.send(adu(ADDR + 1, bytes([3]) + u16(10, 2)))    # 5 another slave: address
    line.send(good, step=TCHAR + T15 + 1)                # 6 a silence over t1.5 inside: gap
    line.send(good, step=TCHAR + T15)                    # 7 exactly t1.5: still one frame
    line.send(b"\xff\x00\x55garbage")                    # 8 garbage between frames: crc
    line.send(b"\x13\x37", poll=False)                   # 9 garbage glued to a frame (silence t1.5)
    line.silence(T15)
    line.send(good)                                      #   one frame: crc
    line.send(b"\x13\x37", poll=False)                   # 9b silence under t3.5, over t1.5
    line.silence(T35 - 1)
    line.send(good)                                      #   one frame: gap
    line.send(good[:4], poll=False)                      # 10 the UART lost bytes: overrun
    line.overrun()
    line.send(good[4:])
    line.send(good[:2], poll=False)                      # 10b a parity error: char
    line.char_error()
    line.send(good[2:])
    line.send(adu(0, bytes([3]) + u16(10, 2)))           # 11 a broadcast read: broadcast
    line.send(adu(0, bytes([6]) + u16(10, 0x77)))        # 12 a broadcast write: done, silent
    line.send(good)                                      # 13 still answering
    out, c = line.replies()
    ok_after = reply(bytes([3, 4]) + u16(0x77, 34))
    # N: handled, no response; -: spoiled by the assembler, never handed over
    assert out == ["N", "N", "N", "-", "N", "-", ok, "N", "N", "-", "-", "-", "N", "N", ok_after]
    assert {k: c[k] for k in ("crc", "short", "long", "address", "gap", "overrun", "broadcast", "char")} == \
        {"crc": 4, "short": 1, "long": 1, "address": 1, "gap": 2, "overrun": 1, "broadcast": 1, "char": 1}
    assert c["broadcasts"] == 1 and c["requests"] == 2 and c["responses"] == 2
    assert c["frames"] == 15
    assert_every_frame_counted_once(c)


def test_noise_before_the_first_silence_and_a_busy_handler(driver):
    line = Line(driver)
    good = adu(ADDR, bytes([4]) + u16(0, 1))
    line.cmds.append("B 0 0102030405")        # at power-up, before any t3.5 of silence
    line.t = 4 * TCHAR + T35
    line.send(good)                           # the silence before it came: answered
    line.send(good, poll=False)               # not handled yet ...
    line.silence(T35)
    line.send(good)                           # ... when this one completes: busy, then the first answered
    out, c = line.replies()
    r = reply(bytes([4, 2]) + u16(0x5A5A))
    assert out == [r, r]
    assert c["noise"] == 5 and c["busy"] == 1 and c["responses"] == 2
    assert_every_frame_counted_once(c)


def test_nine_six_hundred_baud_uses_character_times(driver):
    """At 9600 baud t1.5/t3.5 are 1.5/3.5 characters: a 1.6-character gap spoils a frame."""
    hz = 1_000_000
    tchar, t15 = math.ceil(11 * hz / 9600), math.ceil(1.5 * 11 * hz / 9600)
    line = Line(driver, baud=9600, hz=hz)
    line.tchar = tchar
    good = adu(ADDR, bytes([3]) + u16(0, 1))
    line.send(good, poll=False)
    line.poll(math.ceil(3.5 * 11 * hz / 9600))
    line.send(good, step=tchar + t15 + 100, poll=False)
    line.poll(4100)
    out, c = line.replies()
    assert out == [reply(bytes([3, 2]) + u16(1)), "-"] and c["gap"] == 1


def test_drop_names_match_the_register_map(driver):
    """trace/modbus.py lists the drop reasons in the C enum's order (the
    input registers MB_IN_DROP_* follow it)."""
    from irqlab.host import modbus
    _, c = Line(driver).replies()
    names = list(drops(c))
    assert names == list(modbus.DROPS)
    assert [modbus.INPUTS[f"DROP_{d.upper()}"][0] for d in names] == \
        list(range(modbus.INPUTS["DROP_CRC"][0], modbus.INPUTS["DROP_CRC"][0] + 2 * len(names), 2))
