"""Real programs of this machine give the same stdout and exit status as natively."""
import os
import time

import pytest

from conftest import emutrace, native, status_of

pytestmark = pytest.mark.slow

CASES = [
    ["/bin/cat", "/etc/passwd"],
    ["/usr/bin/sort", "/etc/passwd"],
    ["/usr/bin/wc", "/etc/services"],
    ["/usr/bin/sha256sum", "/etc/services"],
    ["/usr/bin/seq", "20"],
    ["/bin/date", "-u", "-d", "@0"],
    ["/usr/bin/head", "-3", "/etc/services"],
    ["/usr/bin/uniq", "/etc/passwd"],
    ["/bin/sh", "-c", "echo hi; x=3; echo $((x * 7)); exit 3"],
    ["/usr/bin/perl", "-e", 'print join(",", map { $_ * 2 } 1..5), "\\n"'],
    ["/usr/bin/python3", "-c", "import json, hashlib; print(json.dumps({'a': [1, 2]}), hashlib.sha256(b'x').hexdigest())"],
    ["/usr/bin/gzip", "-c", "-n", "/etc/services"],
]


@pytest.mark.parametrize("argv", CASES, ids=lambda a: " ".join(a)[:40])
def test_real_program(argv):
    n = native(argv)
    e = emutrace(["--no-trace", *argv])
    assert e.stdout == n.stdout, e.stderr.decode(errors="replace")[-2000:]
    assert status_of(e) == status_of(n)


def test_tr_reads_stdin():
    data = b"hello emutrace\n" * 100
    n = native(["/usr/bin/tr", "a-z", "A-Z"], input=data)
    e = emutrace(["--no-trace", "/usr/bin/tr", "a-z", "A-Z"], input=data)
    assert e.stdout == n.stdout == data.upper()


def test_ls_l_with_the_clock_at_now(tmp_path):
    # ls -l prints a year instead of a time for files more than six months from "now": the virtual
    # clock starts at a fixed instant, so compare with the clock set to the host's now.
    for i in range(5):
        (tmp_path / f"f{i}.txt").write_text("x" * i)
    os.symlink("f1.txt", tmp_path / "link")
    n = native(["/bin/ls", "-l", str(tmp_path)])
    # a clock a little ahead: a file from this very second must not look like it is from the future
    e = emutrace(["--no-trace", "--clock", str(int(time.time()) + 2), "/bin/ls", "-l", str(tmp_path)])
    assert e.stdout == n.stdout
    assert b"+" not in e.stdout.split(b"\n")[1]      # no ACL marks: getxattr fails cleanly


def test_ls_on_a_terminal_free_stdout_is_one_per_line():
    n = native(["/bin/ls", "/"])
    e = emutrace(["--no-trace", "/bin/ls", "/"])
    assert e.stdout == n.stdout


@pytest.mark.skipif(not os.path.exists("/bin/busybox"), reason="busybox not installed")
@pytest.mark.parametrize("argv", [["echo", "hi"], ["sh", "-c", "echo $((6*7)); ls / | wc -l"],
                                  ["sort", "/etc/passwd"], ["sha256sum", "/etc/passwd"]], ids=lambda a: a[0])
def test_static_busybox(argv):
    n = native(["/bin/busybox", *argv])
    e = emutrace(["--no-trace", "/bin/busybox", *argv])
    assert e.stdout == n.stdout and status_of(e) == status_of(n), e.stderr
