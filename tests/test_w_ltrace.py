"""-w N against an ltrace that has an unwinder (Debian's has none: `ltrace: invalid option -- 'w'`).

ltrace built from its sources with libunwind (`./configure --with-libunwind --without-elfutils`)
prints ` > MODULE(FUNCTION+0xOFF) [0xPC]` per frame and a blank line after them, as emutrace
does. The test runs bins/ programs natively under that ltrace and under emutrace and compares each
call's backtrace frame by frame: the same functions, the same number of frames, the same distance
from the function, with one exception: ltrace reads the caller's frame while its return
breakpoint's int3 has been executed, so its first frame's address is the return address + 1, and
it cuts function names at 99 bytes (a C++ name can be longer).
Module paths are compared by name (ltrace prints the path the program was started by and ld.so's
name of a library; emutrace the canonical path) and addresses not at all (ASLR).

Set EMUTRACE_LTRACE_W to that ltrace, or put it on PATH; without one the test is skipped."""
from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from conftest import NATIVE_ENV, built, emutrace, native


def _ltrace_with_w():
    for cand in (os.environ.get("EMUTRACE_LTRACE_W"), shutil.which("ltrace")):
        if cand and os.path.exists(cand):
            r = subprocess.run([cand, "-w", "1", "-o", os.devnull, "true"], capture_output=True)
            if r.returncode == 0:
                return cand
    return None


LTRACE = _ltrace_with_w()
NAME_MAX = 99                   # ltrace reads a frame's function name into a char[100]
FRAME = re.compile(r" > (\S+?)\((?:(.+)\+(0x[0-9a-f]+)|\?\?\?)\) \[(0x[0-9a-f]+)\]$")


def _stacks(text: str, caller_prefix: str = ""):
    """[(call name, [(module name, function, offset)])] of the calls whose line starts with
    caller_prefix (ltrace: `PROG->`, the calls the program itself makes), in the order they were
    made. ltrace prints a call that another traced call interrupts as `<unfinished ...>` and its
    frames after its `<... NAME resumed>` line."""
    out, cur, pending = [], None, {}
    for line in text.splitlines():
        m = FRAME.match(line)
        if m:
            if cur is not None:
                cur[1].append((os.path.basename(m.group(1)), m.group(2), int(m.group(3) or "0", 16)))
            continue
        if not line or line.startswith((" ", "+++", "---")):
            continue
        cur = None
        resumed = re.match(r"<\.\.\. (\S+) resumed>", line)
        if resumed:
            cur = pending.pop(resumed.group(1), None)
        elif line.startswith(caller_prefix):
            name = line[len(caller_prefix):].split("(", 1)[0]
            call = (name, [])
            out.append(call)
            if line.endswith("<unfinished ...>"):
                pending[name] = call
            else:
                cur = call
    return out


@pytest.mark.skipif(LTRACE is None, reason="no ltrace with -w here (set EMUTRACE_LTRACE_W)")
@pytest.mark.parametrize("variant", ["pie", "nopie"])
@pytest.mark.parametrize("prog,calls", [("strings", "strlen+puts"), ("qsort", "qsort+puts"),
                                        ("fib", "printf+puts"), ("cxx", "_Znwm+strlen"),
                                        ("threads", "pthread_create+pthread_join"), ("signal", "signal+puts")])
def test_w_frames_as_ltrace_with_libunwind(tmp_path, prog, calls, variant):
    exe = built(prog, variant)
    theirs_file = tmp_path / "ltrace.txt"
    r = subprocess.run([LTRACE, "-w", "6", "-e", calls, "-o", str(theirs_file), exe], capture_output=True,
                       env={"PATH": "/usr/bin:/bin", "LANG": NATIVE_ENV["LANG"]}, timeout=120)
    assert r.returncode == native([exe]).returncode
    theirs = _stacks(theirs_file.read_text(), os.path.basename(exe) + "->")
    ours = _stacks(emutrace(["-w", "6", "-e", calls, exe]).stderr.decode())
    assert theirs and len(ours) == len(theirs)
    for (name, mine), (their_name, frames) in zip(ours, theirs):
        assert name == their_name and len(mine) == len(frames)
        for i, ((mod, fn, off), (tmod, tfn, toff)) in enumerate(zip(mine, frames)):
            if len(tfn) == NAME_MAX and len(fn) > NAME_MAX:
                fn = fn[:NAME_MAX]                  # ltrace's name buffer cuts long names
            assert (mod, fn) == (tmod, tfn), (name, i)
            assert off + (1 if i == 0 else 0) == toff, (name, i)
