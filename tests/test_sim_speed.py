"""The simulator's speed report, its profile-guided build, and that the
harness's optional outputs (RTL probes) change nothing in the run: the same
trace with and without them, and the probe log holds what was asked for."""

import glob
import os

import pytest

from irqlab.drivers import sim

SHORT = dict(lat_count=200, tp_phases=1, tp_high=4000, tp_low=1000)
LINE = ("irqlab-sim: 11364653 cycles in 32.8 s (0.35 Mcycles/s; 11.1 s of CPU, 1.03 Mcycles/CPU-s), "
        "1080198 trace bytes")


def test_speed_line_is_read():
    assert sim.sim_speed("irqlab-sim: waiting for the trace client on 127.0.0.1:1\n" + LINE + "\n") == {
        "cycles": 11364653, "seconds": 32.8, "mcycles_per_s": 0.35,
        "cpu_seconds": 11.1, "mcycles_per_cpu_s": 1.03}
    assert sim.sim_speed("irqlab-sim: cannot listen on port 1\n") is None


def test_stopped_run_still_reads_as_unfinished():
    r = sim.RunResult(3, "", "t.bin", None, LINE + ", stopped at --max-cycles\n")
    assert not r.finished and r.speed["cycles"] == 11364653
    assert sim.RunResult(0, "", "t.bin", None, LINE + "\n").finished


@pytest.fixture(scope="module")
def clint(tmp_path_factory):
    model = sim.ensure_model("clint")
    image = sim.load_image(model, sim.build_firmware(model), **SHORT)
    return model, image, tmp_path_factory.mktemp("speed")


def test_model_is_profile_guided(clint):
    """The model was trained: the instrumented build's run left its profile,
    and its speed line (the training run ends at TRAIN_CYCLES) is in the log."""
    from irqlab.boards.sim import target
    model = clint[0]
    assert glob.glob(os.path.join(model.gateware, "obj_dir", "*.gcda"))
    with open(os.path.join(model.gateware, "verilator.log")) as f:
        trained = [sim.sim_speed(line) for line in f if line.startswith("irqlab-sim:")]
    assert [s["cycles"] for s in trained if s] == [target.TRAIN_CYCLES]


def test_probes_only_when_asked_and_the_same_run(clint):
    model, image, d = clint
    plain = sim.run(model, image, str(d / "plain.bin"))
    probed = sim.run(model, image, str(d / "probed.bin"), probe_path=str(d / "probe.txt"),
                     probe_retire=(0, 0xffff_ffff))
    assert plain.exit_code == probed.exit_code == 0
    with open(d / "plain.bin", "rb") as a, open(d / "probed.bin", "rb") as b:
        assert a.read() == b.read()
    assert plain.speed["cycles"] == probed.speed["cycles"] > 100_000
    assert plain.speed["mcycles_per_cpu_s"] > 0
    with open(d / "probe.txt") as f:
        kinds = {line.split()[0] for line in f}
    # hardware lines and stimulus stores, and with --probe-retire the retire port and execute entries
    assert kinds == {"H", "S", "R", "E"}
