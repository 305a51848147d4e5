"""The host tool's trace commands need only the host package: `irqlab
decode` and `irqlab analyze` run where Migen, LiteX and the board packages
cannot be imported (a machine that only looks at traces)."""

import subprocess
import sys

from tracegen import latency_trace

# Runs the CLI with the gateware packages made unimportable.
BLOCKER = """
import sys
class _Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('migen', 'litex', 'litex_boards', 'pythondata_cpu_vexriscv'):
            raise ImportError('blocked for the test: ' + name)
sys.meta_path.insert(0, _Block())
from irqlab.cli import main
sys.exit(main(sys.argv[1:]))
"""


def run(*args):
    return subprocess.run([sys.executable, "-c", BLOCKER, *args], capture_output=True, text=True, timeout=60)


def test_decode_and_analyze_without_migen(tmp_path):
    trace = tmp_path / "t.bin"
    trace.write_bytes(latency_trace([40, 41, 45]))
    r = run("decode", str(trace), "--limit", "3")
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.splitlines()) == 3
    r = run("analyze", str(trace), "--json")
    assert r.returncode == 0, r.stderr
    assert '"max": 45' in r.stdout


def test_the_blocker_blocks():
    r = run("cores")   # the row registry is host-side too
    assert r.returncode == 0, r.stderr
    r = subprocess.run([sys.executable, "-c", BLOCKER.replace("from irqlab.cli import main", "import migen")],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "blocked for the test" in r.stderr


def test_export_without_migen(tmp_path):
    trace = tmp_path / "t.bin"
    trace.write_bytes(latency_trace([40, 41, 45]))
    for fmt in ("perfetto", "vcd", "sigrok", "csv", "json"):
        r = run("export", str(trace), "--format", fmt, "-o", str(tmp_path / f"t.{fmt}"))
        assert r.returncode == 0, r.stderr


def test_report_and_compare_without_migen(tmp_path):
    import json
    from test_report import results
    p = tmp_path / "bench.json"
    p.write_text(json.dumps(results()))
    r = run("compare", str(p))
    assert r.returncode == 0 and "REFERENCE" in r.stdout, r.stderr
    r = run("report", str(p), "-o", str(tmp_path / "html"))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "html" / "report.html").exists()
