"""`irqlab demo modbus --board B --port DEV --modbus-port DEV2`: the board
run's bad input, each one line and exit 2 before anything is built or
written (the run itself needs a board and a second serial adapter)."""

import pytest

from irqlab.flows import build as boardbuild

from clitool import assert_one_line_error, irqlab

CORE = "vexriscv"


@pytest.fixture(scope="module")
def headers():
    boardbuild.generate_headers(boardbuild.job("ulx3s", CORE))


@pytest.mark.parametrize("args,words", [
    (["--board", "nope", "--port", "socket://127.0.0.1:9", "--cores", CORE], "unknown board 'nope'"),
    (["--board", "ulx3s", "--cores", CORE], "--port"),
    (["--board", "ulx3s", "--port", "socket://127.0.0.1:9"], "--cores"),
    (["--board", "arty", "--port", "socket://127.0.0.1:9", "--cores", "clic-cache"], "no arty build"),
    (["--board", "ulx3s", "--port", "socket://127.0.0.1:9", "--cores", CORE], "--modbus-port DEV2"),
    (["--board", "ulx3s", "--port", "socket://127.0.0.1:9", "--cores", CORE, "--modbus-port", "loop://",
      "--bauds", "115200,2000000"], "one rate a run"),
    (["--board", "ulx3s", "--port", "socket://127.0.0.1:9", "--cores", CORE, "--modbus-port", "/nonexistent/tty"],
     "/nonexistent/tty"),
    (["--board", "ulx3s", "--port", "/nonexistent/tty0", "--cores", CORE, "--modbus-port", "loop://"],
     "/nonexistent/tty0"),
])
def test_bad_input_is_one_line(headers, tmp_path, args, words):
    out = tmp_path / "out"
    assert_one_line_error(irqlab("demo", "modbus", *args, "--out", str(out)), words)
    assert not out.exists()
