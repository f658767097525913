"""setjmp's family logged by guest code through return stubs (emutrace/guestlog.py
RETURNS_TWICE), and the guest log's code in a forked child that is not traced.

A call of sigsetjmp/_setjmp/setjmp gets, instead of the return trampoline and a shadow-stack
entry, the return stub of its return address: the buffer saves the stub's address, so both the
first return and every longjmp to it pass the stub, which logs a return record and jumps on.
bins/twicejmp.c has two such calls at one stack depth (one return slot, two return addresses)
with a longjmp to the first buffer after the second call, longjmps out of nested calls, and a
forked child. Its traces are byte-identical to the hooked path's and the pure path's, with
and without -f and -S, in every layout; without -f the child (not traced) runs the copied
trampolines and stubs too: it fills rings, makes a new stub and faults in a string copy.
"""
from __future__ import annotations

import re

import pytest

from conftest import built, native, status_of
from test_guestlog import _fast_sites, _run_in_process, guest_log_of
from test_retcap import _three


@pytest.mark.parametrize("variant", ["pie", "nopie", "fnoplt", "znow"])
@pytest.mark.parametrize("options", [[], ["-f"], ["-S"]])
def test_setjmp_family_prints_the_hooked_trace(tmp_path, variant, options):
    exe = built("twicejmp", variant)
    log, hooked, pure = _three(tmp_path, [*options, exe, "fork"])
    if options == ["-f"]:
        # two processes run at once: where their slices end (and so how their lines interleave)
        # depends on the blocks each runs, which the trampolines add to; each one's lines match
        assert _by_pid(log) == _by_pid(hooked) == _by_pid(pure)
    else:
        assert log == hooked == pure
    for line in ("__sigsetjmp(", "_setjmp(", "siglongjmp(", "longjmp("):
        assert line in log
    if options == ["-f"]:
        assert log.count("_setjmp(") == 7 and log.count("strlen(") >= 20000     # (the child's too)
    else:
        assert log.count("_setjmp(") == 6             # (the loop's; the child is not traced)


def _by_pid(text):
    """Each process's lines, a call cut by another process's line (`<unfinished ...>`, then its
    `<... resumed>` next) joined again, and runs of spaces (the alignment) as one."""
    lines = {}
    for line in text.splitlines():
        pid, _, rest = line.partition("] ")
        own = lines.setdefault(pid, [])
        resumed = re.match(r"<\.\.\. \S+ resumed> ?(.*)$", rest)
        if resumed and own and own[-1].endswith(" <unfinished ...>"):
            own[-1] = own[-1][:-len(" <unfinished ...>")] + resumed.group(1)
        else:
            own.append(rest)
    return {pid: [re.sub(" {2,}", " ", line) for line in own] for pid, own in lines.items()}


def test_setjmp_family_is_logged_in_guest_code(tmp_path):
    session, result = _run_in_process(["-o", str(tmp_path / "t.txt"), built("twicejmp")])
    assert result.status == 0
    fast = _fast_sites((session, result))
    assert "__sigsetjmp" in fast and "_setjmp" in fast
    gl = guest_log_of(session, session.processes[0].machine)
    assert gl.stub_count == 3                          # three return addresses: three stubs
    text = (tmp_path / "t.txt").read_text()
    assert text.count("__sigsetjmp(") == 2 and text.count("= 0\n") >= 8


def test_an_untraced_child_runs_the_log_code(tmp_path):
    """Without -f the forked child's calls are not reported, but the trampolines in its copy of
    memory keep working: 100,000 calls fill its ring many times over, a setjmp call site of its
    own gets a stub, and a copy that faults resumes. (Before, the child looped for ever at its
    first full ring.)"""
    exe = built("twicejmp")
    n = native([exe, "fork", "100000"])
    for extra in ([], ["--hook-returns"]):
        r = _three.__globals__["_run"](tmp_path, "t.txt", [exe, "fork", "100000"], tuple(extra))[0]
        assert r.stdout == n.stdout and status_of(r) == status_of(n) == 0
    assert b"child 950000 3\nchild status 0\n" in n.stdout
