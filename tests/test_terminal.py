"""On a terminal the trace interleaves with the program's output in order, as ltrace's does: a
call's line starts at its entry and is on the screen before the program writes (tests under a
pseudo-terminal made by `script`, against ltrace). A trace into a file or a pipe is unchanged."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

from conftest import NATIVE_ENV, ROOT, built

pytestmark = pytest.mark.skipif(shutil.which("script") is None, reason="no script(1)")


def _screen(command: str) -> str:
    r = subprocess.run(["script", "-qec", command, "/dev/null"], capture_output=True, timeout=300,
                       env={**NATIVE_ENV, "PYTHONPATH": str(ROOT)}, stdin=subprocess.DEVNULL)
    return r.stdout.decode(errors="replace").replace("\r\n", "\n")


def _order(screen: str) -> list:
    """What a reader sees, in order: each call started (its name), each program line, each
    call finished (`=`), from the first printf to the exit."""
    seen = []
    for line in screen.split("\n"):
        m = re.match(r"([A-Za-z_]\w*)\(", line)
        if m and m.group(1) in ("printf", "fflush", "usleep"):
            seen.append(m.group(1))
        out = re.search(r"line (\d)", line)
        if out:
            seen.append("out" + out.group(1))
        if re.search(r"\)\s+= ", line) and (m is None or m.group(1) in ("printf", "fflush", "usleep")):
            seen.append("=")
        if line.startswith("+++ exited"):
            seen.append("exit")
    return seen[seen.index("printf"):]


@pytest.mark.needs_tool("ltrace")
def test_same_order_as_ltrace_on_a_terminal():
    if shutil.which("ltrace") is None:
        pytest.skip("no ltrace")
    prog = built("ttyio")
    mine = _order(_screen(f"{sys.executable} -m emutrace {prog}"))
    theirs = _order(_screen(f"ltrace {prog}"))
    assert mine == theirs
    assert mine[:4] == ["printf", "out0", "=", "fflush"]


def test_a_trace_into_a_pipe_is_unchanged(tmp_path):
    """Off a terminal nothing changes: the same trace bytes as before (the guest log's)."""
    prog = built("ttyio")
    r = subprocess.run([sys.executable, "-m", "emutrace", prog], capture_output=True, timeout=300)
    assert r.stdout == b"line 0\nline 1\nline 2\n"
    assert b'printf("line %d\\n", 0)' in r.stderr
