"""`irqlab export` on synthetic traces, each format read back by a reader that
shares no code with its writer: a Trace Event Format checker written from the
format's documentation (Perfetto), a small VCD parser of our own, sigrok-cli
from Debian (sigrok), the csv and json modules (tables). Edges are compared
with edges taken straight from the records' rise/fall masks."""

import csv
import json
import re
import shutil
import subprocess
import zipfile

import pytest

from irqlab.host import record as rec
from irqlab.host.analysis import b_marker, events, latencies, split_tests
from irqlab.host.decode import decode_bytes

from clitool import assert_one_line_error, irqlab
from tracegen import EXEC_AGE, handler_trace, latency_trace

LATS = [40, 41, 45, 40, 52, 40, 43]



def export(tmp_path, data, fmt, *extra, name="t.bin"):
    trace = tmp_path / name
    trace.write_bytes(data)
    out = tmp_path / f"out.{fmt}"
    r = irqlab("export", str(trace), "--format", fmt, "-o", str(out), *extra)
    assert r.returncode == 0, r.stderr
    return out


def concat(*traces):
    """One trace of several: the records again, with one sequence."""
    records = [r for t in traces for r in decode_bytes(t)[0]]
    return b"".join(rec.pack(r.type, k, r.ts, r.payload) for k, r in enumerate(records))


def record_edges(data):
    """{line name: [(cycle, level)]} straight from the hardware records' masks."""
    records, _ = decode_bytes(data)
    out = {}
    for r in records:
        if r.type == rec.TYPE_HW:
            for i in range(32):
                if r.payload >> i & 1:
                    out.setdefault(rec.line_name(i), []).append((r.ts, 1))
                if r.payload >> (32 + i) & 1:
                    out.setdefault(rec.line_name(i), []).append((r.ts, 0))
    return {k: sorted(v) for k, v in out.items()}


def expected_latencies(data):
    """{test name: [latency, ...]} as analysis computes them."""
    records, _ = decode_bytes(data)
    from irqlab.host.benchmarks import test_name
    return {test_name(w.test): latencies(w, marker=b_marker(w))[0] for w in split_tests(events(records))}


# ------------------------------------------------------------------ Perfetto
PHASES = set("BEXiIC" "bne" "sft" "PONDM" "Rc") | {"(", ")"}
METADATA = {"process_name", "process_labels", "process_sort_index", "thread_name", "thread_sort_index"}


def check_trace_event_format(doc):
    """The Trace Event Format's rules (JSON Object Format): a traceEvents
    array; every event a dict with a known ph, pid and tid; ts in
    microseconds; X has a dur >= 0; B/E pair up per thread; instants have a
    scope g, p or t; counters carry numeric args; metadata names are the
    documented ones. Slices of one thread must nest (Perfetto's rule)."""
    assert isinstance(doc, dict) and isinstance(doc["traceEvents"], list)
    assert doc.get("displayTimeUnit", "ms") in ("ms", "ns")
    stacks, slices = {}, {}
    for e in doc["traceEvents"]:
        assert isinstance(e, dict) and e["ph"] in PHASES, e
        assert isinstance(e.get("pid"), int) and isinstance(e.get("tid", 0), int), e
        assert isinstance(e.get("args", {}), dict), e
        if e["ph"] == "M":
            assert e["name"] in METADATA, e
            if e["name"].endswith("_name"):
                assert isinstance(e["args"]["name"], str)
            continue
        assert isinstance(e["name"], str), e
        assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0, e
        track = (e["pid"], e["tid"])
        if e["ph"] == "X":
            assert isinstance(e["dur"], (int, float)) and e["dur"] >= 0, e
            slices.setdefault(track, []).append((e["ts"], e["ts"] + e["dur"]))
        elif e["ph"] in "iI":
            assert e.get("s", "t") in ("g", "p", "t"), e
        elif e["ph"] == "C":
            assert e["args"] and all(isinstance(v, (int, float)) for v in e["args"].values()), e
    for e in sorted((e for e in doc["traceEvents"] if e["ph"] in "BE"), key=lambda e: e["ts"]):
        st = stacks.setdefault((e["pid"], e["tid"]), [])
        if e["ph"] == "B":
            st.append(e["ts"])
        else:
            assert st and st.pop() <= e["ts"], e
    assert not any(stacks.values()), "B without E"
    for track, ss in slices.items():
        open_ends = []
        for begin, end in sorted(ss, key=lambda s: (s[0], -s[1])):
            while open_ends and open_ends[-1] <= begin + 1e-9:
                open_ends.pop()
            assert not open_ends or end <= open_ends[-1] + 1e-9, f"slices overlap on {track}"
            open_ends.append(end)


def test_perfetto_follows_the_trace_event_format(tmp_path):
    data = handler_trace(LATS)
    out = export(tmp_path, data, "perfetto", "--clock-mhz", "50")
    doc = json.loads(out.read_text())
    check_trace_event_format(doc)
    ev = doc["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    assert {"line gen0", "line irq8", "line phase0", "software events", "pc match", "console",
            "trace unit"} <= set(names.values())
    # A -> B slices carry the latencies analysis computes, ts in microseconds at 50 MHz.
    lat = [e for e in ev if e["ph"] == "X" and names[e["tid"]].startswith("gen0 →")]
    assert [e["args"]["latency_cycles"] for e in lat] == expected_latencies(data)["latency"] == LATS
    assert all(e["ts"] == pytest.approx(e["args"]["a_cycle"] / 50) for e in lat)
    assert all(e["dur"] == pytest.approx(e["args"]["latency_cycles"] / 50) for e in lat)
    assert lat[0]["args"]["b_marker"] == "pc-match" and lat[0]["args"]["latency_ns"] == LATS[0] * 20
    # Handlers: one slice per trap .. mret, on the track of its cause.
    handlers = [e for e in ev if e["ph"] == "X" and names[e["tid"]].startswith("handler")]
    assert len(handlers) == len(LATS) and "machine external" in names[handlers[0]["tid"]]
    # Line levels: one high phase per interrupt.
    assert sum(1 for e in ev if e["ph"] == "X" and names[e["tid"]] == "line irq8") == len(LATS)
    sw = [e for e in ev if e["ph"] == "i" and names[e["tid"]] == "software events"]
    assert [e["name"] for e in sw] == ["TEST_BEGIN"] + ["HANDLER_ENTRY"] * len(LATS) + ["TEST_END"]
    assert [e["name"] for e in ev if e["ph"] == "i" and names[e["tid"]] == "console"] == ["hi"]
    rates = [e for e in ev if e["ph"] == "C"]
    assert rates and sum(sum(e["args"].values()) for e in rates) > 0


# ----------------------------------------------------------------------- VCD
def parse_vcd(text):
    """A small VCD reader: timescale, {name: [(time, value)]} for every var."""
    tokens = text.split()
    i, ids, changes, t, timescale, scope = 0, {}, {}, 0, None, []
    while i < len(tokens):
        tok = tokens[i]
        if tok == "$timescale":
            j = tokens.index("$end", i)
            timescale = " ".join(tokens[i + 1:j])
            i = j
        elif tok == "$scope":
            scope.append(tokens[i + 2])
            i = tokens.index("$end", i)
        elif tok == "$upscope":
            scope.pop()
            i = tokens.index("$end", i)
        elif tok == "$var":
            _, _, size, ident, name = tokens[i:i + 5]
            ids[ident] = ".".join(scope + [name])
            changes[ids[ident]] = []
            i = tokens.index("$end", i)
        elif tok in ("$comment", "$date", "$version"):
            i = tokens.index("$end", i)
        elif tok.startswith("#"):
            t = int(tok[1:])
        elif tok[0] in "01xz" and tok[1:] in ids:
            changes[ids[tok[1:]]].append((t, int(tok[0]) if tok[0] in "01" else tok[0]))
        elif tok[0] in "bBrs":
            changes[ids[tokens[i + 1]]].append((t, int(tok[1:], 2) if tok[0] in "bB" else tok[1:]))
            i += 1
        i += 1
    return timescale, changes


def transitions(changes):
    """Value changes without the repeats (a dump may restate a value)."""
    out, last = [], None
    for t, v in changes:
        if v != last:
            out.append((t, v))
        last = v
    return out


@pytest.mark.parametrize("mhz,timescale,steps", [(100, "10 ns", 1), (25, "10 ns", 4), (125, "1 ns", 8), (3, "1 fs", 333333333)])
def test_vcd_edges_equal_the_trace(tmp_path, mhz, timescale, steps):
    data = handler_trace(LATS)
    out = export(tmp_path, data, "vcd", "--clock-mhz", str(mhz))
    ts, ch = parse_vcd(out.read_text())
    assert ts.replace(" ", "") == timescale.replace(" ", "")
    for name, edges in record_edges(data).items():
        got = transitions(ch[f"irqlab.lines.{name}"])
        assert got[0][1] == 0                           # the dump's initial level
        assert [(t // steps, v) for t, v in got[1:]] == edges
        assert all(t % steps == 0 for t, _ in got)
    # The stimulus-port bus: one strobe per software event, with its channel and name.
    records, _ = decode_bytes(data)
    sw = [r for r in records if r.type == rec.TYPE_SW]
    strobes = [t // steps for t, v in transitions(ch["irqlab.sw.strobe"]) if v == 1]
    assert strobes == [r.ts for r in sw]
    assert "HANDLER_ENTRY" in {v for _, v in ch["irqlab.sw.name"]}
    traps = [t // steps for t, v in transitions(ch["irqlab.core.trap"]) if v == 1]
    assert len(traps) == len(LATS)
    assert max(v for _, v in ch["irqlab.core.trap_depth"]) == 1
    assert transitions(ch["irqlab.trace.dropped"])[-1][1] == 2


def test_vcd_reads_back_with_pyvcd(tmp_path):
    from vcd.reader import TokenKind, tokenize
    data = latency_trace(LATS)
    out = export(tmp_path, data, "vcd")
    with open(out, "rb") as f:
        kinds = [tok.kind for tok in tokenize(f)]
    assert TokenKind.ENDDEFINITIONS in kinds and kinds.count(TokenKind.VAR) >= 3


# --------------------------------------------------------------------- sigrok
def sigrok_cli():
    exe = shutil.which("sigrok-cli")
    if not exe:
        pytest.skip("sigrok-cli is not installed (Debian package sigrok-cli; scripts/setup.sh installs it)")
    return exe


def sigrok_edges(exe, path):
    """Channel names, sample rate and edges as sigrok-cli reads the file (CSV output)."""
    r = subprocess.run([exe, "-i", str(path), "-O", "csv"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    names = re.search(r"^; Channels \(\d+/\d+\): (.*)$", r.stdout, re.M).group(1).split(", ")
    rate = re.search(r"^; Samplerate: (.*)$", r.stdout, re.M).group(1)
    rows = [list(map(int, ln.split(","))) for ln in lines if ln and ln[0] in "01"]
    edges = {n: [] for n in names}
    for k, row in enumerate(rows):
        for n, v, prev in zip(names, row, rows[k - 1] if k else [None] * len(row)):
            if k and v != prev:
                edges[n].append((k, v))
    return names, rate, rows, edges


def test_sigrok_cli_reads_the_session_and_the_edges_match(tmp_path):
    exe = sigrok_cli()
    data = handler_trace(LATS)
    out = export(tmp_path, data, "sigrok")
    with zipfile.ZipFile(out) as z:
        assert z.read("version") == b"2" and "metadata" in z.namelist()
    names, rate, rows, edges = sigrok_edges(exe, out)
    assert rate == "100 MHz"
    want = record_edges(data)
    assert names == ["gen0", "phase0", "irq8"]          # the lines that change, in line order
    start = 10                                          # the first event: the console text
    last = max(r.ts for r in decode_bytes(data)[0])
    assert len(rows) == last - start + 1                 # a sample per cycle, first to last event
    for n in names:
        assert [(k + start, v) for k, v in edges[n]] == want[n]
        assert rows[0][names.index(n)] == 0


def test_sigrok_window(tmp_path):
    exe = sigrok_cli()
    data = handler_trace(LATS)
    start, n = 1500, 700
    out = export(tmp_path, data, "sigrok", "--start", str(start), "--max-samples", str(n), "--clock-mhz", "25")
    names, rate, rows, edges = sigrok_edges(exe, out)
    assert rate == "25 MHz" and len(rows) == n
    for name in names:
        inside = [(t, v) for t, v in record_edges(data)[name] if start < t < start + n]
        assert [(k + start, v) for k, v in edges[name]] == inside


# --------------------------------------------------------------- CSV and JSON
def test_csv_latencies_equal_the_analysis(tmp_path):
    data = concat(handler_trace(LATS), latency_trace([30, 31, 90], t0=100_000))   # a second test, sw-event B
    out = export(tmp_path, data, "csv")
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    got = {}
    for r in rows:
        got.setdefault(r["test"], []).append(int(r["latency_cycles"]))
        assert int(r["b_cycle"]) - int(r["a_cycle"]) == int(r["latency_cycles"])
        assert float(r["latency_ns"]) == int(r["latency_cycles"]) * 10
    assert [int(r["index"]) for r in rows] == list(range(len(LATS))) + [0, 1, 2]
    assert [r["b_marker"] for r in rows] == ["pc-match"] * len(LATS) + ["sw-event"] * 3
    assert list(rows[0]) == ["test", "index", "a_cycle", "b_cycle", "latency_cycles", "latency_ns", "b_marker",
                             "b_execute_cycle", "latency_execute_cycles"]
    # B-execute: the PC match's execute age before B-retire; none for a software event.
    assert [r["latency_execute_cycles"] for r in rows] == [str(x - EXEC_AGE) for x in LATS] + [""] * 3
    # Both tests are 'latency': the rows hold both windows' latencies in order.
    assert got == {"latency": LATS + [30, 31, 90]}


def test_json_tables(tmp_path):
    data = handler_trace(LATS)
    lat = json.loads(export(tmp_path, data, "json").read_text())
    assert [r["latency_cycles"] for r in lat["interrupts"]] == expected_latencies(data)["latency"]
    ev = json.loads(export(tmp_path, data, "json", "--table", "events").read_text())["events"]
    records, _ = decode_bytes(data)
    n_edges = sum(len(v) for v in record_edges(data).values())
    others = sum(1 for r in records if r.type not in (rec.TYPE_HW, rec.TYPE_TIME_HI))
    assert len(ev) == n_edges + others
    assert [e["cycle"] for e in ev] == sorted(e["cycle"] for e in ev)
    kinds = {e["type"] for e in ev}
    assert kinds == {"rise", "fall", "sw", "trap", "pc-match", "mret", "overflow", "console"}
    trap = next(e for e in ev if e["type"] == "trap")
    assert trap["pc"] == 0x100 and "machine external" in trap["name"]
    with open(export(tmp_path, data, "csv", "--table", "events"), newline="") as f:
        assert len(list(csv.DictReader(f))) == len(ev)


def test_default_output_name_and_stdout(tmp_path):
    trace = tmp_path / "run.bin"
    trace.write_bytes(latency_trace(LATS))
    r = irqlab("export", str(trace), "--format", "csv")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "run.latencies.csv").exists()
    r = irqlab("export", str(trace), "--format", "json", "-o", "-")
    assert json.loads(r.stdout)["interrupts"][0]["latency_cycles"] == LATS[0]


# ----------------------------------------------------------------- bad input

def test_bad_input_leaves_nothing(tmp_path):
    good = tmp_path / "good.bin"
    good.write_bytes(latency_trace(LATS))
    bad = tmp_path / "bad.bin"
    data = bytearray(latency_trace(LATS))
    data[rec.RECORD_BYTES * 3 + 9] ^= 0xFF
    bad.write_bytes(bytes(data))
    out = tmp_path / "out"
    assert_one_line_error(irqlab("export", str(good), "--format", "pdf", "-o", str(out)),
                          "unknown export format 'pdf'", "perfetto")
    for fmt in ("perfetto", "vcd", "sigrok", "csv", "json"):
        assert_one_line_error(irqlab("export", str(bad), "--format", fmt, "-o", str(out)), "corrupt bytes")
    assert_one_line_error(irqlab("export", str(good), "--format", "sigrok", "--start", "99999999", "-o",
                                 str(out)), "outside the trace")
    assert_one_line_error(irqlab("export", str(good), "--format", "csv", "--table", "rows", "-o", str(out)),
                          "unknown table")
    assert_one_line_error(irqlab("export", str(good), "--format", "sigrok", "-o", "-"), "binary")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.bin", "good.bin"]


def test_a_failing_writer_leaves_no_file(tmp_path, monkeypatch):
    from irqlab.host import export as ex
    from irqlab.host import export_vcd
    records, _ = decode_bytes(latency_trace(LATS))

    def boom(*a, **k):
        raise RuntimeError("disk on fire")
    monkeypatch.setattr(export_vcd, "write", boom)
    with pytest.raises(RuntimeError):
        ex.export(records, "vcd", str(tmp_path / "t.vcd"), 100e6)
    assert list(tmp_path.iterdir()) == []
