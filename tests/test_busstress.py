"""The bus-stress master (soc/busstress.py) in Migen simulation, against the
contract of its docstring: every access where and as the LFSR says, one at a
time, the counters exact, nothing while disabled, an access under way
finished when it is disabled."""

from migen import If, Module, Signal, run_simulation

from irqlab.soc.busstress import BusStress, draw_fields
from irqlab.soc.lfsr import model as lfsr_next

BASE = 0x4000_0000


class Slave(Module):
    """Acks a request in its `ack_delay`-th cycle (1: the cycle it appears)."""
    def __init__(self, bus, ack_delay):
        age = Signal(8)
        self.comb += bus.ack.eq(bus.cyc & bus.stb & (age == ack_delay - 1))
        self.sync += If(bus.cyc & bus.stb & ~bus.ack, age.eq(age + 1)).Else(age.eq(0))


def run(cycles, enable=1, intensity=128, write_share=64, seed=0x1234567, mask=0xFF, ack_delay=1,
        disable_at=None):
    """Runs the master against Slave. Returns the accesses, each (start cycle,
    adr, we, dat_w, ack cycle), and the counters; cycle 0 is the first
    cycle with the master enabled."""
    dut = BusStress(default_base=BASE, default_mask=mask)
    dut.submodules.slave = Slave(dut.bus, ack_delay)
    out = {"acc": []}

    def bench():
        yield dut._seed.storage.eq(seed)
        yield dut._seed.re.eq(1)
        yield dut._intensity.storage.eq(intensity)
        yield dut._write_share.storage.eq(write_share)
        yield
        yield dut._seed.re.eq(0)
        yield dut._enable.storage.eq(enable)
        yield                          # the enable is seen from the next cycle on
        current = None
        for t in range(cycles):
            if t == disable_at:
                yield dut._enable.storage.eq(0)
            if (yield dut.bus.cyc):
                now = [(yield dut.bus.adr), (yield dut.bus.we), (yield dut.bus.dat_w)]
                if current is None:
                    current = [t] + now
                assert now == current[1:], "the request changed while it waited"
                if (yield dut.bus.ack):
                    out["acc"].append(tuple(current) + (t,))
                    current = None
            yield
        yield
        out["counters"] = ((yield dut._reads.status), (yield dut._writes.status), (yield dut._wait_cycles.status))

    run_simulation(dut, bench())
    return out


def expected(cycles, intensity, write_share, seed, mask, ack_delay, first_free):
    """The host model: the accesses the contract predicts. The LFSR holds the
    seed in the first enabled cycle and steps every cycle after."""
    x, lfsr_at = seed, {}
    for c in range(first_free, first_free + cycles + 2):
        lfsr_at[c] = x
        x = lfsr_next(x)
    acc, t = [], first_free
    while t < first_free + cycles:
        thr, off, wb, data = draw_fields(lfsr_at[t])
        if thr < intensity:
            start = t + 1
            ack = start + ack_delay - 1
            acc.append((start, (BASE >> 2) + (off & mask), int(wb < write_share), data, ack))
            t = ack + 1
        else:
            t += 1
    return acc


def test_accesses_follow_the_lfsr_one_at_a_time():
    for ack_delay in (1, 3):
        out = run(400, ack_delay=ack_delay)
        acc = out["acc"]
        assert len(acc) > 40
        want = expected(400, 128, 64, 0x1234567, 0xFF, ack_delay, first_free=0)
        assert acc == [a for a in want if a[4] < 400]
        # One at a time, a free cycle between two accesses.
        for a, b in zip(acc, acc[1:]):
            assert b[0] >= a[4] + 2
        reads = sum(1 for a in acc if not a[2])
        writes = len(acc) - reads
        assert out["counters"] == (reads, writes, len(acc) * (ack_delay - 1))
        assert reads and writes


def test_the_window_and_the_intensity():
    out = run(3000, intensity=255, write_share=0, mask=0x0F)
    acc = out["acc"]
    assert all((BASE >> 2) <= a[1] < (BASE >> 2) + 16 for a in acc)
    assert not any(a[2] for a in acc)                # write_share 0: reads only
    # 255/256 of the free cycles start an access: nearly one every two cycles.
    assert len(acc) > 0.45 * 3000
    sparse = run(3000, intensity=16)["acc"]
    assert 0.03 * 3000 < len(sparse) < 0.09 * 3000   # 16/256 of the free cycles


def test_disabled_means_silent_and_an_access_under_way_finishes():
    assert run(300, enable=0)["acc"] == []
    out = run(300, intensity=255, ack_delay=5, disable_at=100)
    last = out["acc"][-1]
    assert last[0] <= 100 <= last[4] + 1 or last[4] < 100
    assert all(a[0] <= 101 for a in out["acc"])
    assert out["counters"][0] + out["counters"][1] == len(out["acc"])


def test_a_soc_with_bus_stress(tmp_path, monkeypatch):
    """add_bus_stress(): the master on the SoC's bus, its CSRs in the
    generated headers, its window (main RAM) in the SoC's facts."""
    import json
    from irqlab.boards.sim import BOARD, target

    assert BOARD.bus_stress              # the simulator's SoCs have it (the boards' do not)
    target.generate("vexriscv", str(tmp_path))
    facts = json.loads((tmp_path / "soc.json").read_text())
    ram = facts["memory"]["main_ram"]
    assert facts["bus_stress"] == {"base": ram["origin"], "mask": ram["size"] // 4 - 1}
    csrs = (tmp_path / "csr.csv").read_text()
    for name in ("enable", "intensity", "write_share", "seed", "base", "mask", "clear", "reads", "writes",
                 "wait_cycles"):
        assert f"busstress_{name}," in csrs, name
