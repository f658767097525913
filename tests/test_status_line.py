"""On a terminal, a long run whose trace goes to a file (or --no-trace) shows a status line a few
times a second, also while the guest computes without a system call, and erases it at the end;
never in a pipe or with -q (emutrace/statusline.py)."""
from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from conftest import NATIVE_ENV, ROOT, built

pytestmark = pytest.mark.skipif(shutil.which("script") is None, reason="no script(1)")


def _screen(args, tmp_path) -> str:
    cmd = " ".join([sys.executable, "-m", "emutrace", *args])
    r = subprocess.run(["script", "-qec", cmd, "/dev/null"], capture_output=True, timeout=300,
                       env={**NATIVE_ENV, "TERM": "xterm", "PYTHONPATH": str(ROOT)}, stdin=subprocess.DEVNULL,
                       cwd=tmp_path)
    return r.stdout.decode(errors="replace")


def test_drawn_while_the_guest_computes_and_erased(tmp_path):
    screen = _screen(["-o", "trace.txt", "--timeout", "2", built("spin")], tmp_path)
    lines = [part for part in screen.split("\r") if part.startswith("emutrace: ") and "process" in part]
    assert len(lines) >= 3, screen                       # updated several times while it spun
    assert "1 process" in lines[-1] and "trace lines" in lines[-1]
    # erased before the run's last words
    assert screen.rstrip("\r\n").endswith("\r\x1b[Kemutrace: time limit of 2 s reached"), repr(screen[-200:])


def test_not_with_q_nor_in_a_pipe(tmp_path):
    assert "process" not in _screen(["-q", "--no-trace", "--timeout", "1", built("spin")], tmp_path)
    r = subprocess.run([sys.executable, "-m", "emutrace", "--no-trace", "--timeout", "1", built("spin")],
                       capture_output=True, timeout=300)
    assert r.stderr == b"emutrace: time limit of 1 s reached\n"
