"""The SysV INFO commands (syscalls/ipcinfo.py, bins/ipcinfo.c): Linux's values, the sandbox's
own bounds where they are smaller (semmns; shmmni/semmni/msgmni/msgmnb under --limit), enforced
as reported, and strace's decoding of shminfo, shm_info, seminfo and msginfo."""
import re
import shutil

import pytest

from conftest import built, emutrace, native, strace_both, strace_calls


def _native_fresh_namespace(args):
    """The native run in an IPC namespace of its own (the host's has objects in it), if allowed."""
    if shutil.which("unshare") is None:
        pytest.skip("unshare not installed")
    n = native(["unshare", "--ipc", *args])
    if n.returncode != 0:
        pytest.skip("cannot make an IPC namespace here: " + n.stderr.decode()[-200:])
    return n


def test_info_values_like_native():
    prog = built("ipcinfo", "pie")
    n = _native_fresh_namespace([prog])
    e = emutrace(["--no-trace", prog])
    assert e.returncode == 0, e.stderr[-2000:]
    # SEMMNS is the sandbox's "semaphores" bound (Linux's 1024000000 would be host memory)
    theirs = n.stdout.decode().replace("semmns 1024000000", "semmns 262144")
    assert e.stdout.decode() == theirs
    assert "one each shm SHM_INFO = 0: used_ids 1 shm_tot 3 shm_rss 0" in theirs
    assert "one each msg MSG_INFO = 0: msgpool 1 msgmap 2 msgtql 150" in theirs


def test_reported_limits_are_the_enforced_ones():
    prog = built("ipcinfo", "pie")
    e = emutrace(["--no-trace", "--limit", "kobjects=5", "--limit", "semaphores=250",
                  "--limit", "buffers=5000", prog, "fill"])
    assert e.returncode == 0, e.stderr[-2000:]
    assert e.stdout.decode().splitlines() == [
        "reported: shmmni 5 semmni 5 semmns 250 msgmni 5 msgmnb 5000",
        "segments made: 5, then ENOSPC",
        "semaphores made: 200, then ENOSPC",
        "bytes queued: 5000, then EAGAIN"]


def _ctl(text: str):
    return strace_calls(text, lambda line: re.match(r"(shm|sem|msg)ctl\(0, (0, )?(IPC|SHM|SEM|MSG)_INFO", line))


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace not installed")
def test_info_decoding_like_strace(tmp_path):
    ours, theirs = strace_both(tmp_path, [built("ipcinfo", "pie")], ["-e", "trace=%ipc"], run=_native_fresh_namespace)
    ours = _ctl(ours)
    assert len(ours) == 12
    assert ours == [x.replace("semmns=1024000000", "semmns=262144") for x in _ctl(theirs)]
    assert ours[0].startswith("shmctl(0, IPC_INFO, {shmmax=18446744073692774399, shmmin=1, shmmni=4096,")


def test_pure_path_prints_the_same():
    prog = built("ipcinfo", "pie")
    args = ["--strace", "-e", "trace=%ipc", prog]
    fast, pure = emutrace(args), emutrace(args, env={"EMUTRACE_PURE": "1"})
    assert (fast.stdout, fast.stderr) == (pure.stdout, pure.stderr)
