"""The Arty flows' decisions (irqlab/flows/xilinx.py) with stand-in tools:
small shell scripts on PATH that print canned nextpnr-xilinx / Vivado logs
and write the files the real tools would. The LiteX generation and the
yosys estimate are replaced by fast stand-ins too; the real ones run in
tests/test_boards.py. Also `irqlab load`'s default bitstream."""

import json
import os
import stat
import subprocess
import sys

import pytest

from irqlab import paths
from irqlab.flows import report as boardreport
from irqlab.boards import registry
from irqlab.errors import BoardBuildError
from irqlab.flows import BuildJob, litexgen, own_tools_dir, xc7estimate, xilinx

PASS_LOG = """Info: Device utilisation:
Info: \t          SLICE_LUTX:  9876/ 41600    23%
Info: \t           SLICE_FFX:  6543/ 41600    15%
Info: \t   RAMB36E1_RAMB36E1:    12/    50    24%
Info: \t   RAMB18E1_RAMB18E1:    22/   100    22%
Info: \t     DSP48E1_DSP48E1:     4/    90     4%
Info: Routing..
Info: Max frequency for clock 'sys_clk': 112.30 MHz (PASS at 100.00 MHz)
Info: Program finished normally."""
FAIL_LOG = PASS_LOG.replace("112.30 MHz (PASS", "81.20 MHz (FAIL")

VIVADO_LOG = """Command: synth_design
Command: place_design
Command: route_design
| Clock Summary
| -------------
Clock         Waveform(ns)       Period(ns)      Frequency(MHz)
-----         ------------       ----------      --------------
  sys_clk     {0.000 5.000}      10.000          100.000
| Intra Clock Table
| -----------------
Clock             WNS(ns)      TNS(ns)
-----             -------      -------
  sys_clk          WNS_NS        0.000
WHAT
Command: write_bitstream"""

VIVADO_UTIL = """| Slice LUTs                 | 8123 |     0 |          0 |     20800 | 39.05 |
| Slice Registers            | 6100 |     0 |          0 |     41600 | 14.66 |
|   RAMB36/FIFO*             |   12 |     0 |          0 |        50 | 24.00 |
|   RAMB18                   |   22 |     0 |          0 |       100 | 22.00 |
| DSPs                       |    4 |     0 |          0 |        90 |  4.44 |"""

ESTIMATE = {"tool": "stand-in", "luts": 1, "flip_flops": 2, "bram36": 3, "bram18": 4, "lutram": 5, "dsp": 6}


def _script(path, body):
    path.write_text("#!/bin/bash\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


@pytest.fixture
def standin(tmp_path, monkeypatch):
    """PATH with only the stand-in tools (and the system's), a Project X-Ray
    database with the part, a CHIPDB folder, bitstreams/ in tmp_path."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    prjxray = tmp_path / "prjxray-db"
    (prjxray / "artix7" / "xc7a35tcsg324-1").mkdir(parents=True)
    (prjxray / "artix7" / "xc7a35tcsg324-1" / "part.yaml").write_text("part")
    chipdb = tmp_path / "chipdb"
    chipdb.mkdir()
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("PRJXRAY_DB_DIR", str(prjxray))
    monkeypatch.setenv("CHIPDB", str(chipdb))
    monkeypatch.delenv("NEXTPNR_XILINX_PYTHON_DIR", raising=False)
    monkeypatch.delenv("LITEX_ENV_VIVADO", raising=False)
    monkeypatch.setattr(boardreport, "BITSTREAMS", str(tmp_path / "bitstreams"))
    monkeypatch.setattr(xc7estimate, "estimate", lambda project_dir: dict(ESTIMATE))
    monkeypatch.setattr(litexgen, "generate", _fake_generate)
    own_tools_dir()     # written before PATH is narrowed in the flow

    def tools(nextpnr_log=PASS_LOG, names=("nextpnr-xilinx", "fasm2frames", "xc7frames2bit")):
        # nextpnr-xilinx refuses an empty or missing chip database, as the real one does.
        bodies = {
            "nextpnr-xilinx": 'db=$(echo "$@" | sed "s/.*--chipdb \\([^ ]*\\).*/\\1/")\n'
                              '[ -s "$db" ] || { echo "ERROR: Unable to read chipdb $db"; exit 1; }\n'
                              f"cat <<'EOF'\n{nextpnr_log}\nEOF\ntouch irqlab.fasm",
            "fasm2frames": "echo frames",
            "xc7frames2bit": 'out=$(echo "$@" | sed "s/.*--output_file \\([^ ]*\\).*/\\1/")\necho BIT > "$out"',
            "bbasm": 'echo CHIPDB > "$3"',
        }
        for n in names:
            _script(bin_dir / n, bodies[n])

    def vivado(wns="0.412", met=True):
        log = VIVADO_LOG.replace("WNS_NS", wns).replace(
            "WHAT", "All user specified timing constraints are met." if met else "Timing constraints are not met.")
        _script(bin_dir / "vivado", f"cat <<'EOF'\n{log}\nEOF\n"
                                    f"cat > irqlab_utilization_place.rpt <<'EOF'\n{VIVADO_UTIL}\nEOF\n"
                                    "echo BIT > irqlab.bit")

    return {"tools": tools, "vivado": vivado, "chipdb": chipdb, "prjxray": prjxray, "bin": bin_dir,
            "bitstreams": tmp_path / "bitstreams", "dir": tmp_path / "build"}


def _fake_generate(job, out_dir, options=None, rom=False, env_extra=None):
    """What LiteX writes, as far as the flow reads it: the build script with
    the chip database and Project X-Ray paths it was given (env_extra)."""
    gw = os.path.join(out_dir, "gateware")
    os.makedirs(gw, exist_ok=True)
    tc = (options or job.options).get("toolchain")
    env = {**os.environ, **(env_extra or {})}
    if tc == "openxc7":
        # LiteX refuses to write the project without both.
        assert os.path.isfile(os.path.join(env["CHIPDB"], "xc7a35ticsg324.bin"))
        assert os.path.isdir(env["PRJXRAY_DB_DIR"])
        db = os.path.join(env["PRJXRAY_DB_DIR"], "artix7")
        # (LiteX's yosys line, kept from running here: the flow points it at the project's yosys)
        body = ("set -e\ncommand -v yosys > yosys_used.txt\nif false; then\nyosys -l irqlab.rpt irqlab.ys\nfi\n"
                f"nextpnr-xilinx --chipdb {env['CHIPDB']}/xc7a35ticsg324.bin --xdc irqlab.xdc --fasm irqlab.fasm\n"
                f"fasm2frames --part xc7a35tcsg324-1 --db-root {db} irqlab.fasm > irqlab.frames\n"
                f"xc7frames2bit --part_file {db}/xc7a35tcsg324-1/part.yaml --frm_file irqlab.frames "
                f"--output_file irqlab.bit\n")
    else:
        body = "vivado -mode batch -source irqlab.tcl\n"
    with open(os.path.join(gw, "build_irqlab.sh"), "w") as f:
        f.write(body)
    return gw


def _job(standin, toolchain=None):
    b = registry.board("arty")
    return BuildJob(board=b, core="clic", dir=str(standin["dir"]), options=b.options("clic", toolchain=toolchain),
                    firmware="fw.bin", toolchain_asked=toolchain)


def _report(standin):
    with open(standin["bitstreams"] / "arty-clic.json") as f:
        return json.load(f)


def test_missing_tool_is_a_one_line_error_naming_it(standin):
    standin["tools"](names=("nextpnr-xilinx", "xc7frames2bit"))
    (standin["chipdb"] / "xc7a35ticsg324.bin").write_text("db")
    with pytest.raises(BoardBuildError) as e:
        xilinx.build(_job(standin, "openxc7"))
    msg = str(e.value)
    assert "\n" not in msg and "fasm2frames (not on PATH)" in msg and "openxc7 not run" in msg
    assert "nextpnr-xilinx" not in msg.split("missing")[1]        # names only what is missing
    r = _report(standin)                                            # still: projects, report, estimate
    assert r["estimate"]["luts"] == 1 and not r["flows"]["openxc7"]["run"]
    assert os.path.exists(os.path.join(paths.ROOT, r["projects"]["openxc7"], "build_irqlab.sh"))
    assert r["flows"]["vivado"]["reason"] == "not asked (--toolchain openxc7)"
    assert "vivado (not on PATH" in xilinx.build(_job(standin))["flows"]["vivado"]["reason"]


def test_tools_but_no_chipdb_writes_report_and_estimate(standin):
    standin["tools"]()
    r = xilinx.build(_job(standin))         # no --toolchain: a flow that cannot run is not an error
    fl = r["flows"]["openxc7"]
    assert not fl["run"] and fl["bitstream"] is None
    assert "chip database" in fl["reason"] and "bbasm not on PATH" in fl["reason"]
    assert "NEXTPNR_XILINX_PYTHON_DIR" in fl["reason"]
    assert r["estimate"]["luts"] == 1 and _report(standin)["flows"]["openxc7"]["reason"] == fl["reason"]
    # The project points at where the chip database belongs, never at a placeholder.
    script = open(os.path.join(paths.ROOT, r["projects"]["openxc7"], "build_irqlab.sh")).read()
    assert f"--chipdb {standin['chipdb']}/xc7a35ticsg324.bin" in script
    assert f"--db-root {standin['prjxray']}/artix7" in script and "placeholder" not in script
    assert not os.path.exists(os.path.join(str(standin["dir"]), "openxc7", "placeholder"))


def test_empty_chipdb_counts_as_missing(standin):
    standin["tools"]()
    (standin["chipdb"] / "xc7a35ticsg324.bin").write_text("")
    r = xilinx.build(_job(standin))
    assert not r["flows"]["openxc7"]["run"] and "chip database" in r["flows"]["openxc7"]["reason"]


def test_openxc7_success_reports_utilization_and_fmax(standin):
    standin["tools"]()
    (standin["chipdb"] / "xc7a35ticsg324.bin").write_text("db")
    r = xilinx.build(_job(standin, "openxc7"))
    fl = r["flows"]["openxc7"]
    assert fl["run"] and fl["timing_met"]
    assert (fl["luts"], fl["flip_flops"], fl["bram36"], fl["bram18"], fl["dsp"]) == (9876, 6543, 12, 22, 4)
    assert fl["clocks"]["sys_clk"]["fmax_mhz"] == 112.3
    assert r["bitstream"].endswith("arty-clic-openxc7.bit")
    assert (standin["bitstreams"] / "arty-clic-openxc7.bit").read_text() == "BIT\n"
    used = open(os.path.join(paths.ROOT, r["projects"]["openxc7"], "yosys_used.txt")).read().strip()
    assert used == os.path.join(own_tools_dir(), "yosys")           # the project's yosys, not PATH's
    script = open(os.path.join(paths.ROOT, r["projects"]["openxc7"], "build_irqlab.sh")).read()
    assert f"\n{own_tools_dir()}/yosys -l irqlab.rpt irqlab.ys\n" in script        # also when run by hand
    assert "openxc7" in (standin["bitstreams"] / "RESOURCES.md").read_text()


def test_openxc7_timing_failure_copies_no_bitstream(standin):
    standin["tools"](nextpnr_log=FAIL_LOG)
    (standin["chipdb"] / "xc7a35ticsg324.bin").write_text("db")
    with pytest.raises(BoardBuildError, match=r"timing not met at 100 MHz \(Fmax 81.2 MHz\); no bitstream"):
        xilinx.build(_job(standin))
    assert not (standin["bitstreams"] / "arty-clic-openxc7.bit").exists()
    r = _report(standin)
    assert r["bitstream"] is None and not r["flows"]["openxc7"]["timing_met"] and r["estimate"]["luts"] == 1


def test_chipdb_is_made_when_it_can_be(standin, tmp_path, monkeypatch):
    standin["tools"](names=("nextpnr-xilinx", "fasm2frames", "xc7frames2bit", "bbasm"))
    py = tmp_path / "nextpnr-xilinx-python"
    py.mkdir()
    # bbaexport.py stand-in: records its arguments and writes the .bba
    (py / "bbaexport.py").write_text("import sys\nopen(sys.argv[sys.argv.index('--bba') + 1], 'w').write("
                                     "' '.join(sys.argv[1:]))\n")
    monkeypatch.setenv("NEXTPNR_XILINX_PYTHON_DIR", str(py))
    monkeypatch.delenv("PYPY3", raising=False)
    r = xilinx.build(_job(standin, "openxc7"))
    assert r["flows"]["openxc7"]["run"] and (standin["chipdb"] / "xc7a35ticsg324.bin").read_text() == "CHIPDB\n"


def test_vivado_success_and_timing_failure(standin):
    standin["vivado"]()
    r = xilinx.build(_job(standin, "vivado"))
    fl = r["flows"]["vivado"]
    assert fl["timing_met"] and fl["luts"] == 8123 and fl["bram36"] == 12
    assert abs(fl["clocks"]["sys_clk"]["fmax_mhz"] - 1000 / (10 - 0.412)) < 0.01
    assert r["bitstream"].endswith("arty-clic-vivado.bit")
    os.remove(standin["bitstreams"] / "arty-clic-vivado.bit")
    standin["vivado"](wns="-2.000", met=False)
    with pytest.raises(BoardBuildError, match="timing not met"):
        xilinx.build(_job(standin, "vivado"))
    assert not (standin["bitstreams"] / "arty-clic-vivado.bit").exists()


def test_load_defaults_to_the_bitstream_the_flow_wrote(tmp_path):
    bits = tmp_path / "bitstreams"
    bits.mkdir()
    (bits / "arty-clic-openxc7.bit").write_text("BIT")
    (bits / "arty-clic.json").write_text(json.dumps(
        {"board": "arty", "core": "clic", "variant": "a7-100",
         "bitstream": os.path.relpath(bits / "arty-clic-openxc7.bit", paths.ROOT)}))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _script(bin_dir / "openFPGALoader", f'echo "$@" > {tmp_path}/args')
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", IRQLAB_BITSTREAMS=str(bits))
    r = subprocess.run([sys.executable, "-m", "irqlab", "load", "--board", "arty", "--core", "clic"],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "args").read_text().split() == ["-b", "arty_a7_100t", str(bits / "arty-clic-openxc7.bit")]
    (bits / "arty-clic.json").write_text(json.dumps({"board": "arty", "core": "clic", "bitstream": None}))
    r = subprocess.run([sys.executable, "-m", "irqlab", "load", "--board", "arty", "--core", "clic"],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "wrote no bitstream" in r.stderr
