"""mq_notify(SIGEV_THREAD) (bins/mqthread.c): the kernel sends the registration's cookie to the C
library's netlink socket (syscalls/netlink.py, syscalls/mqueue.py), whose helper thread then runs
the callback; glibc and musl builds compared with their native runs and strace. Netlink sockets
otherwise refuse to reach the kernel's netlink families (EACCES)."""
import json
import re
import shutil

import pytest

from conftest import built, emutrace, runs_like_native, strace_both

NETLINK = r"""
import socket, errno
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
print("protocol", s.getsockopt(socket.SOL_SOCKET, socket.SO_PROTOCOL),
      "type", s.getsockopt(socket.SOL_SOCKET, socket.SO_TYPE))
for what, fn in (("bind", lambda: s.bind((0, 0))), ("send", lambda: s.send(b"x" * 16)),
                 ("listen", lambda: s.listen(1))):
    try:
        fn()
        print(what, "ok")
    except OSError as e:
        print(what, errno.errorcode[e.errno])
s.setblocking(False)
try:
    s.recv(64)
except BlockingIOError:
    print("recv EAGAIN")
for bad in ((socket.SOCK_STREAM, 0), (socket.SOCK_RAW, 99)):
    try:
        socket.socket(socket.AF_NETLINK, *bad)
    except OSError as e:
        print("socket", errno.errorcode[e.errno])
# glibc asks rtnetlink which address families are configured; refused, it assumes both
print(sorted({a[4][0] for a in socket.getaddrinfo("localhost", 80, socket.AF_INET, socket.SOCK_STREAM,
                                                   0, socket.AI_ADDRCONFIG)}))
"""


@pytest.mark.parametrize("variant", ["pie", "musl-static"])
def test_sigev_thread_callback_like_native(variant):
    e = runs_like_native(built("mqthread", variant), "--timeout", "120")
    assert b'callback 1: value 7, on another thread 1, received 5 "first" prio 3' in e.stdout
    assert b'callback 2: value 8' in e.stdout and b"callback 3" not in e.stdout
    assert b"raw not netlink: Invalid argument" in e.stdout


def test_pure_path_prints_the_same():
    prog = built("mqthread", "pie")
    args = ["--strace", "-f", "-e", "trace=mq_notify,socket,recvfrom", prog]
    fast, pure = emutrace(args), emutrace(args, env={"EMUTRACE_PURE": "1"})
    assert (fast.stdout, fast.stderr) == (pure.stdout, pure.stderr)


def _joined(text: str):
    """strace -f's lines with each '<unfinished ...>' joined to its '<... resumed>' (another
    thread's call came in between on a loaded machine), so the calls read whole."""
    lines, open_at = [], {}
    for line in text.splitlines():
        m = re.match(r"^(\[pid +\d+\] |\d+ +)(.*)$", line)
        pid, body = (m.group(1).strip(), m.group(2)) if m else ("", line)
        r = re.match(r"^<\.\.\. \w+ resumed>(.*)$", body)
        if body.endswith(" <unfinished ...>"):
            open_at[pid] = len(lines)
            lines.append(body[:-len(" <unfinished ...>")])
        elif r and pid in open_at:
            lines[open_at.pop(pid)] += r.group(1)
        else:
            lines.append(body)
    return lines


# glibc's mq_notify (sysdeps/unix/sysv/linux/mq_notify.c) builds the sigevent it hands the kernel
# for SIGEV_THREAD with only sigev_notify, sigev_signo (its netlink socket, fd 4 = SIGILL here) and
# sigev_value set: the union's sigev_notify_function and sigev_notify_attributes are whatever its
# stack held, which depends on the CPU (ld.so's lazy-binding trampoline saves the registers with
# fxsave or xsave, whose layout differs per CPU, in the stack below). Those two fields of those
# calls are not compared; the program's own raw calls zero them and are compared whole.
_GLIBC_SIGEVENT = re.compile(r"(sigev_signo=SIGILL, sigev_notify=SIGEV_THREAD, )"
                             r"sigev_notify_function=(?:NULL|0x[0-9a-f]+), "
                             r"sigev_notify_attributes=(?:NULL|0x[0-9a-f]+)")


def _notify_lines(text: str):
    out = []
    for line in _joined(text):
        if line.startswith("mq_notify("):
            line = re.sub(r"sival_int=-?\d+, sival_ptr=0x[0-9a-f]+", "VALUE", line)
            line = _GLIBC_SIGEVENT.sub(r"\1sigev_notify_function=STACK, sigev_notify_attributes=STACK", line)
            out.append(re.sub(r"\) +=", ") =", line))
    return out


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace not installed")
def test_mq_notify_decoding_like_strace(tmp_path):
    ours, theirs = strace_both(tmp_path, [built("mqthread", "pie")], ["-f", "-e", "trace=mq_notify"], ["--timeout", "120"])
    ours = _notify_lines(ours)
    assert len(ours) == 9
    assert ours == _notify_lines(theirs)
    assert any("sigev_notify=SIGEV_THREAD, sigev_notify_function=" in x for x in ours)


def test_netlink_socket_refuses_the_kernel_families():
    e = emutrace(["--no-trace", "/usr/bin/python3", "-c", NETLINK])
    assert e.returncode == 0, e.stderr[-2000:]
    assert e.stdout.decode().splitlines() == [
        "protocol 0 type 3", "bind EACCES", "send EACCES", "listen ENOTSUP", "recv EAGAIN",
        "socket ESOCKTNOSUPPORT", "socket EPROTONOSUPPORT", "['127.0.0.1']"]


def test_report_marks_the_refused_netlink_bind(tmp_path):
    out = tmp_path / "r.json"
    e = emutrace(["--no-trace", "--report", str(out), "/usr/bin/python3", "-c", NETLINK])
    assert e.returncode == 0, e.stderr[-2000:]
    doc = json.loads(out.read_text())
    first = doc["network"]["sockets"][0]
    assert (first["family"], first["denied"], first["bound"]["result"]) == ("AF_NETLINK", True, "EACCES")
