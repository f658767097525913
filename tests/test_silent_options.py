"""Options that were silently ignored or misread (issue 36): each now works as strace/ltrace's
does, or is refused with one `emutrace:` line."""
from __future__ import annotations

import os
import re
import subprocess

import pytest

from conftest import STILL_DIR, emutrace, system_program

SCRIPT = "ls / >/dev/null; echo hi"


def _names(path) -> list:
    """The system call names of a strace file, in order (values differ from a native run)."""
    return [m.group(1) for m in (re.match(r"(\w+)\(", line) for line in open(path)) if m]


@pytest.mark.needs_tool("strace")
def test_ff_writes_one_file_per_process_as_strace(tmp_path):
    sh = system_program("sh")
    r = emutrace(["--strace", "-ff", "-o", str(tmp_path / "ff"), sh, "-c", SCRIPT], cwd=STILL_DIR)
    assert r.returncode == 0, r.stderr
    mine = sorted(p for p in os.listdir(tmp_path) if p.startswith("ff."))
    (tmp_path / "native").mkdir()
    subprocess.run(["strace", "-ff", "-o", str(tmp_path / "native" / "ff"), sh, "-c", SCRIPT],
                   check=True, capture_output=True, cwd=STILL_DIR)
    theirs = sorted(os.listdir(tmp_path / "native"))
    assert len(mine) == len(theirs) == 2
    assert all(re.fullmatch(r"ff\.\d+", p) for p in mine)
    first = [_names(tmp_path / p) for p in mine]
    # the shell's file starts with its execve, the child's has the ls execve; no [pid N] prefix
    assert first[0][0] == "execve" and "execve" in first[1]
    for p in mine:
        text = (tmp_path / p).read_text()
        assert "[pid " not in text
        # strace's alignment at column 40 in each file
        assert re.search(r"^brk\(NULL\) {31}= 0x", text, re.M), text[:300]


def test_inject_call_acts_under_no_trace():
    ls = system_program("ls")
    traced = emutrace(["--inject-call", "malloc:retval=0", "-o", os.devnull, ls, "/"], cwd=STILL_DIR)
    quiet = emutrace(["--inject-call", "malloc:retval=0", "--no-trace", ls, "/"], cwd=STILL_DIR)
    plain = emutrace(["--no-trace", ls, "/"], cwd=STILL_DIR)
    assert plain.returncode == 0
    assert traced.returncode == quiet.returncode != 0
    assert b"memory exhausted" in quiet.stderr and quiet.stdout == b""


@pytest.mark.parametrize("value", ["-1", "0", "nan", "inf", "soon"])
def test_timeout_must_be_positive(value):
    r = emutrace(["--timeout", value, "true"])
    assert r.returncode == 125
    assert r.stderr.decode().startswith("emutrace: --timeout") and r.stderr.count(b"\n") == 1


def test_batch_with_a_missing_folder_is_a_usage_error(tmp_path):
    r = emutrace(["batch", "--out", str(tmp_path / "out"), str(tmp_path / "missing")])
    assert r.returncode == 2                       # batch's documented usage status
    assert r.stderr.decode() == f"emutrace: batch: {tmp_path / 'missing'}: no such manifest or folder\n"
    assert not (tmp_path / "out").exists()
