"""TCP TIME_WAIT on the guest's loopback (syscalls/timewait.py, bins/timewait.c): the first
closer's port refuses a bind for 60 s of virtual time unless both sockets set SO_REUSEADDR, a
reset leaves none; compared with the native run, and the minute slept out on the virtual clock."""
import time

from conftest import built, emutrace, runs_like_native


def test_time_wait_like_native():
    e = runs_like_native(built("timewait", "pie"))
    assert b"server closed first: server port EADDRINUSE, with SO_REUSEADDR EADDRINUSE; client port ok" in e.stdout
    assert b"listener had SO_REUSEADDR: server port EADDRINUSE, with SO_REUSEADDR ok" in e.stdout
    assert b"server reset the connection: server port ok, client port ok" in e.stdout


def test_time_wait_ends_after_a_virtual_minute():
    prog = built("timewait", "pie")
    start = time.monotonic()
    e = emutrace(["--no-trace", prog, "wait"])
    assert e.returncode == 0, e.stderr[-2000:]
    lines = e.stdout.decode().splitlines()
    assert lines[-2:] == ["30 s later: server port EADDRINUSE", "61 s later: server port ok, client port ok"]
    assert time.monotonic() - start < 55          # the 61 s are virtual


def test_the_same_every_run():
    prog = built("timewait", "pie")
    runs = [emutrace(["--strace", "-e", "trace=bind,connect,close", prog, "wait"]) for _ in range(2)]
    assert runs[0].stderr == runs[1].stderr and runs[0].stdout == runs[1].stdout
