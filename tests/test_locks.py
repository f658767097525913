"""Record locks (POSIX and OFD), flock and their deadlock detection between guest processes
(syscalls/locks.py), compared with native runs and with strace's own decoding."""
import re
import shutil

import pytest

from conftest import built, emutrace, native, strace_calls


def test_record_locks_between_processes_like_native(tmp_path):
    prog = built("reclocks", "pie")
    n = native([prog, str(tmp_path)])
    e = emutrace(["--no-trace", "--timeout", "120", prog, "/tmp"])
    assert e.returncode == 0, e.stderr[-2000:]
    assert e.stdout == n.stdout
    assert b"child sees:\n  getlk 5+1: ok F_WRLCK at 0+10 by the owner" in e.stdout
    assert b"(held by the waiting child): EDEADLK" in e.stdout


def _calls(text: str):
    """The fcntl/flock lines that do not block, without pids and column padding, sorted
    (processes interleave; strace splits a call that blocks into two lines)."""
    def keep(line):
        return (line.startswith(("fcntl(", "flock(")) and "unfinished" not in line and "resumed" not in line
                and "F_SETLKW" not in line and not re.match(r"flock\(\d+, LOCK_EX\)", line))
    return sorted(re.sub(r"l_pid=[1-9]\d*", "l_pid=PID", line) for line in strace_calls(text, keep))


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace not installed")
def test_lock_calls_decode_like_strace(tmp_path):
    prog = built("reclocks", "pie")
    log = tmp_path / "strace.txt"
    native(["strace", "-f", "-e", "trace=fcntl,flock", "-o", str(log), prog, str(tmp_path)])
    e = emutrace(["--strace", "-f", "-e", "trace=fcntl,flock", "--timeout", "120", prog, "/tmp"])
    ours, theirs = _calls(e.stderr.decode()), _calls(log.read_text())
    assert len(ours) > 30
    assert ours == theirs
