"""Truncated datagrams (bins/msgtrunc.c): recvmsg's msg_flags MSG_TRUNC, the MSG_TRUNC flag that
returns a datagram's real length (UDP on the guest's loopback, AF_UNIX SOCK_DGRAM and
SOCK_SEQPACKET pairs, whose messages keep their bounds), TCP's MSG_TRUNC that discards, and
blocking AF_UNIX receives that wait for the peer; compared with the native run and strace."""
import re
import shutil

import pytest

from conftest import built, emutrace, runs_like_native, strace_both, strace_calls


def test_truncated_datagrams_like_native():
    e = runs_like_native(built("msgtrunc", "pie"))
    assert b'udp: recvmsg(room 6) = 6 flags=0x20 data="twenty"' in e.stdout
    assert b'unix seqpacket: recvmsg(room 4, MSG_TRUNC) = 16 flags=0x20 data="the "' in e.stdout
    assert b'tcp: recv(room 11, MSG_TRUNC) = 11 data=""' in e.stdout
    assert b'type 2: blocking recv = 4 "late"' in e.stdout


def test_pure_path_prints_the_same():
    prog = built("msgtrunc", "pie")
    fast = emutrace(["--strace", "-e", "trace=recvmsg,recvfrom", prog])
    pure = emutrace(["--strace", "-e", "trace=recvmsg,recvfrom", prog], env={"EMUTRACE_PURE": "1"})
    assert (fast.stdout, fast.stderr) == (pure.stdout, pure.stderr)


def _lines(text: str):
    # (natively a blocking recv may be cut by the child's SIGCHLD and restarted: the restart is the call)
    calls = strace_calls(text, lambda line: line.startswith(("recvmsg(", "recvfrom(")) and "= ? ERESTART" not in line,
                         fold=False)
    # (a failed call shows its buffer's address)
    return [re.sub(r"0x7ff[0-9a-f]+", "STACK", re.sub(r"htons\(\d+\)", "htons(PORT)", line)) for line in calls]


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace not installed")
def test_recv_decoding_like_strace(tmp_path):
    ours, theirs = strace_both(tmp_path, [built("msgtrunc", "pie")], ["-e", "trace=recvmsg,recvfrom"])
    ours = _lines(ours)
    assert len(ours) >= 28
    assert ours == _lines(theirs)
    assert 'recvfrom(4, "pee", 3, MSG_PEEK|MSG_TRUNC, NULL, NULL) = 16' in ours
