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


_CALLS = ("printf", "fflush", "usleep")
_TRACKED = _CALLS + ("SYS_write", "SYS_clock_nanosleep")


def _order(screen: str, tracked=_CALLS) -> list:
    """What a reader sees, in order: each call started (its name), each program line (not the
    string in write's arguments), each call finished (`=`), from the first printf to the exit;
    `tracked`: the calls followed (with -S, the system calls the loop makes too)."""
    seen = []
    for line in screen.split("\n"):
        m = re.match(r"(?:<\.\.\. )?([A-Za-z_]\w*)[( ]", line)
        name = m.group(1) if m else None
        if name in tracked and not line.startswith("<..."):
            seen.append(name)
        for out in re.finditer(r'(?<!")line (\d)', line):
            seen.append("out" + out.group(1))
        if re.search(r"\)\s+= ", line) and (name in tracked or line.startswith(")")):
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


@pytest.mark.needs_tool("ltrace")
def test_same_order_as_ltrace_with_syscalls():
    """-S: the write's line starts before the program's line appears, and printf's variadic
    arguments stay on its entry line (`printf("line %d\\n", 0 <unfinished ...>`), as ltrace -S."""
    if shutil.which("ltrace") is None:
        pytest.skip("no ltrace")
    prog = built("ttyio")
    screen = _screen(f"{sys.executable} -m emutrace -S {prog}")
    mine = _order(screen, _TRACKED)
    theirs = _order(_screen(f"ltrace -S {prog}"), _TRACKED)
    assert mine == theirs
    assert mine[:5] == ["printf", "SYS_write", "out0", "=", "="]
    assert 'printf("line %d\\n", 0 <unfinished ...>\n' in screen
    assert "<... printf resumed> )" in screen


def test_variadic_arguments_at_the_call_off_a_terminal(tmp_path):
    """Off a terminal too: a nested call does not move printf's values to the resume line."""
    prog = built("ttyio")
    traces = []
    for pure in ("", "1"):
        r = subprocess.run([sys.executable, "-m", "emutrace", "-S", prog], capture_output=True, timeout=300,
                           env={**NATIVE_ENV, "PYTHONPATH": str(ROOT), "EMUTRACE_PURE": pure})
        err = r.stderr.decode()
        assert 'printf("line %d\\n", 0 <unfinished ...>\n' in err and "<... printf resumed> )" in err, err
        traces.append(r.stderr)
    assert traces[0] == traces[1]           # (both event paths, byte for byte)
