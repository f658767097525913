"""POSIX message queues (syscalls/mqueue.py) between guest processes, compared with a native
run and with strace's decoding."""
import re
import shutil

import pytest

from conftest import built, emutrace, native, runs_like_native


def test_message_queues_like_native():
    e = runs_like_native(built("mqueue", "pie"), "--timeout", "120")
    assert b"notified 1, si_code SI_MESGQ 1, value 42" in e.stdout
    assert b"mq_notify: ok, twice: EBUSY" in e.stdout


def _mq_calls(text: str):
    """The mq_* lines, sorted, without pids, padding, times or stack addresses; a call strace
    split in two (<unfinished ...> / <... resumed>) is joined again."""
    out, pending = [], {}
    for line in text.splitlines():
        m = re.match(r"^(?:\[pid +(\d+)\] |(\d+) +)?(.*)$", line)
        pid, line = m.group(1) or m.group(2), m.group(3)
        if line.endswith("<unfinished ...>"):
            pending[pid] = line[:-len(" <unfinished ...>")]
            continue
        resumed = re.match(r"<\.\.\. \w+ resumed>(.*)$", line)
        if resumed:
            line = pending.pop(pid, "") + resumed.group(1)
        if line.startswith("mq_"):
            line = re.sub(r"\) +=", ") =", line)
            line = re.sub(r"tv_sec=\d+, tv_nsec=\d+", "TIME", line)       # absolute timeouts
            line = re.sub(r"0x7f[0-9a-f]+", "PTR", line)                   # stack addresses
            if ", 33, 0, NULL)" not in line:     # (prints a buffer the program never initialised)
                out.append(line)
    return sorted(out)


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace not installed")
def test_mq_calls_decode_like_strace(tmp_path):
    prog = built("mqueue", "pie")
    log = tmp_path / "strace.txt"
    calls = "trace=mq_open,mq_unlink,mq_timedsend,mq_timedreceive,mq_notify,mq_getsetattr"
    native(["strace", "-f", "-e", calls, "-o", str(log), prog])
    e = emutrace(["--strace", "-f", "-e", calls, "--timeout", "120", prog])
    ours, theirs = _mq_calls(e.stderr.decode()), _mq_calls(log.read_text())
    assert len(ours) > 20
    assert ours == theirs
