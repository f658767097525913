"""SysV IPC permissions (syscalls/ipcperm.py): bins/ipcperm.c as an ordinary user (--uid/--gid
against setpriv natively) and as root; mode bits of the caller's class, owner-only IPC_SET and
IPC_RMID, invalid ids, root's capabilities."""
import os
import shutil

import pytest

from conftest import built, emutrace, native


@pytest.mark.skipif(shutil.which("setpriv") is None or os.geteuid() != 0,
                    reason="needs setpriv and root to run the native side as another user")
def test_permissions_as_a_user_like_native():
    prog = built("ipcperm", "pie")
    n = native(["setpriv", "--reuid=1000", "--regid=1000", "--clear-groups", prog])
    e = emutrace(["--no-trace", "--uid", "1000", "--gid", "1000", prog])
    assert e.returncode == 0, e.stderr[-2000:]
    assert e.stdout == n.stdout
    out = e.stdout.decode()
    for line in ("shm: get for 0600 EACCES, for 0400 ok, for 0 ok", "shm: attach rw EACCES",
                 "shm: IPC_STAT as creator EACCES", "shm: IPC_SET uid -1 EINVAL",
                 "sem: semop +1 EACCES, wait-for-zero ok, semnum 5 EFBIG",
                 "sem: GETVAL ok, SETVAL EACCES, GETALL ok", "msg: receive EACCES, copy EACCES",
                 "msg: IPC_SET qbytes 32768 EPERM"):
        assert line in out


def test_root_passes_every_check():
    prog = built("ipcperm", "pie")
    n = native([prog])
    e = emutrace(["--no-trace", prog])
    assert e.returncode == 0, e.stderr[-2000:]
    ours, theirs = e.stdout.decode().splitlines(), n.stdout.decode().splitlines()
    assert "EACCES" not in e.stdout.decode()
    # the sandbox's root has CAP_SYS_RESOURCE; a container's root may lack it (msg_qbytes above msgmnb)
    assert "msg: IPC_SET qbytes 32768 ok" in ours
    if os.geteuid() == 0:
        assert [x for x in ours if "qbytes" not in x] == [x for x in theirs if "qbytes" not in x]


def test_pure_path_prints_the_same():
    prog = built("ipcperm", "pie")
    args = ["--strace", "-e", "trace=%ipc", "--uid", "1000", "--gid", "1000", prog]
    fast, pure = emutrace(args), emutrace(args, env={"EMUTRACE_PURE": "1"})
    assert (fast.stdout, fast.stderr) == (pure.stdout, pure.stderr)
