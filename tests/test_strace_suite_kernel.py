"""Kernel behaviour and decoding that strace's own test suite probes (issue 39), each checked
against this machine's Linux and strace: a bins/ program prints what its calls returned (the same
lines natively and under emutrace, on both event paths), and the strace lines of its calls match
the real strace's once stack addresses are masked."""
from __future__ import annotations

import os
import re
import subprocess

import pytest

from conftest import NATIVE_ENV, built, emutrace, have, ptrace_works

PATHS = {"compiled": {"EMUTRACE_PURE": "0"}, "pure": {"EMUTRACE_PURE": "1"}}
_ADDR = re.compile(r"0x7f[0-9a-f]+")


def _scratch(tmp_path, name):
    d = tmp_path / name
    d.mkdir()
    return str(d)


def _native_lines(prog, tmp_path):
    r = subprocess.run([prog, _scratch(tmp_path, "native")], capture_output=True, env=NATIVE_ENV, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout


def _same_as_native(name, path, marker):
    """A bins/ program prints the same lines under emutrace (on this event path) as natively; the
    native run must show marker (the program's own check that it saw Linux)."""
    prog = built(name)
    want = subprocess.run([prog], capture_output=True, env=NATIVE_ENV, timeout=60, check=True).stdout
    assert marker in want
    r = emutrace(["--no-trace", prog], env=PATHS[path])
    assert r.returncode == 0, r.stderr
    assert r.stdout == want


@pytest.mark.parametrize("path", sorted(PATHS))
def test_unix_names_and_int_flags_as_linux(tmp_path, path):
    """accept/getpeername/getsockname/recvfrom/recvmsg return the names Linux returns (the peer's
    bound name, a name cut to a short buffer with the full length back, none for a nameless
    sender, a socketpair end's name bound after the pair was made); dup3 and pipe2 ignore the
    upper half of their flags register."""
    prog = built("sockname")
    want = _native_lines(prog, tmp_path)
    assert b'accept: len 110 => 11 family 1 path "cli.sock"' in want     # (the program's own check)
    r = emutrace(["--no-trace", prog, _scratch(tmp_path, "emu")], env=PATHS[path])
    assert r.returncode == 0, r.stderr
    assert r.stdout == want


@pytest.mark.skipif(not have("strace") or not ptrace_works(), reason="strace (ptrace) not available")
@pytest.mark.parametrize("path", sorted(PATHS))
def test_unix_names_decode_as_strace(tmp_path, path):
    """`[6 => 11]` decodes only the 6 bytes given (sun_path="cli."); recvmsg prints
    msg_namelen=110 => 13; a nameless sender leaves the address undecoded."""
    prog = built("sockname")
    calls = "trace=accept,getpeername,getsockname,recvfrom,recvmsg"
    ref = tmp_path / "strace.out"
    subprocess.run(["strace", "-e", calls, "-o", str(ref), prog, _scratch(tmp_path, "native")],
                   capture_output=True, env=NATIVE_ENV, timeout=60, check=True)
    out = tmp_path / "emu.out"
    r = emutrace(["--strace", "-e", calls, "-o", str(out), prog, _scratch(tmp_path, "emu")], env=PATHS[path])
    assert r.returncode == 0, r.stderr
    mask = lambda p: _ADDR.sub("ADDR", p.read_text())
    assert mask(out) == mask(ref)
    assert "msg_namelen=110 => 13" in mask(out)


_LEFT = re.compile(r"left \{tv_sec=\d+, tv_(n|u)sec=\d+\}")


@pytest.mark.parametrize("path", sorted(PATHS))
def test_poll_select_as_linux(path):
    """ppoll/select answer as Linux: a pipe end never reports what only its other end can do,
    invalid timeouts and sigset sizes are EINVAL, nfds is an int, the time left is written back,
    and pause/nanosleep interrupted by a handler give EINTR."""
    _same_as_native("pollprobe", path, b"ppoll other end's events: 0 revents 0 0")


@pytest.mark.skipif(not have("strace") or not ptrace_works(), reason="strace (ptrace) not available")
@pytest.mark.parametrize("path", sorted(PATHS))
def test_poll_select_decode_as_strace(tmp_path, path):
    """The same calls' lines as the real strace prints them: `= ? ERESTARTNOHAND` for pause and
    `= ? ERESTART_RESTARTBLOCK` for nanosleep (the code at the call's exit, before the handler),
    select's `()` when the sets read back are empty or unreadable (nfds 2**31-1); the time left
    is masked (a native call spends microseconds)."""
    prog = built("pollprobe")
    calls = "trace=pause,nanosleep,select,ppoll"
    ref = tmp_path / "strace.out"
    subprocess.run(["strace", "-e", calls, "-o", str(ref), prog], capture_output=True, env=NATIVE_ENV,
                   timeout=60, check=True)
    out = tmp_path / "emu.out"
    r = emutrace(["--strace", "-e", calls, "-o", str(out), prog], env=PATHS[path])
    assert r.returncode == 0, r.stderr
    mask = lambda p: _LEFT.sub("left T", _ADDR.sub("ADDR", p.read_text()))
    assert mask(out) == mask(ref)
    assert "pause() = ? ERESTARTNOHAND (To be restarted if no handler)" in re.sub(r" +=", " =", mask(out))


# (syscall, args, return, memory, the line strace 7.2's own test suite expects: tests/futex_*.c)
FUTEX2 = [
    ("futex_wake", (0, 0xffffffff, 0xfacefeedfacefeed, 0x82), -38, {},
     "futex_wake(NULL, FUTEX_BITSET_MATCH_ANY, -87097619, FUTEX2_SIZE_U32|FUTEX2_PRIVATE) = -1 ENOSYS (Function not implemented)"),
    ("futex_wake", (0x1000, 0xfffffff1fffffff2, 0xfacefeed, 0xffffffff), -38, {},
     "futex_wake(0x1000, 0xfffffff1fffffff2, -87097619, FUTEX2_SIZE_U64|FUTEX2_NUMA|FUTEX2_MPOL|FUTEX2_PRIVATE|0xffffff70)"
     " = -1 ENOSYS (Function not implemented)"),
    ("futex_wait", (0, 0xfffffff3fffffff4, 0, 0xdefaced00000001, 0, 0xffffffff), -38, {},
     "futex_wait(NULL, 18446744022169944052, 0, FUTEX2_SIZE_U16, NULL, 0xffffffff /* CLOCK_??? */) = -1 ENOSYS (Function not implemented)"),
    ("futex_requeue", (0x2000, 0xdefacedfacefed0, 0xfacefed1, 0xfacefed2), -38,
     {0x2000: "8081828384858687" "88898a8b8c8d8e8f" "01000000" "94959697" "98999a9b9c9d9e9f" "a0a1a2a3a4a5a6a7" "82000000" "acadaeaf"},
     "futex_requeue([{val=0x8786858483828180, uaddr=0x8f8e8d8c8b8a8988, flags=FUTEX2_SIZE_U16, __reserved=0x97969594}, "
     "{val=0x9f9e9d9c9b9a9998, uaddr=0xa7a6a5a4a3a2a1a0, flags=FUTEX2_SIZE_U32|FUTEX2_PRIVATE, __reserved=0xafaeadac}], "
     "0xfacefed0, -87097647, -87097646) = -1 ENOSYS (Function not implemented)"),
    ("futex_waitv", (0x3000, 1, 0, 0, 1), -38, {0x3000: "0000000000000000" "fc4f000000000000" "82000000" "00000000"},
     "futex_waitv([{val=0, uaddr=0x4ffc, flags=FUTEX2_SIZE_U32|FUTEX2_PRIVATE}], 1, 0, NULL, CLOCK_MONOTONIC)"
     " = -1 ENOSYS (Function not implemented)"),
    ("futex_waitv", (0x3000, 0, 1, 0x7000, 0xffffffff), -38, {},
     "futex_waitv([], 0, 0x1, 0x7000, 0xffffffff /* CLOCK_??? */) = -1 ENOSYS (Function not implemented)"),
]


FUTEX2 += [    # (not futex2's, the same shape: lines of strace 7.2's tests/openat2.c and pidfd_open.c)
    ("openat2", (0xffffffff, 0x1000, 0x2000, 24), -9,
     {0x1000: "6f70656e6174322e73616d706c6500", 0x2000: "0000000001000000" "ff01000000000000" "0000000000000000"},
     'openat2(-1, "openat2.sample", {flags=O_RDONLY|OPENAT2_REGULAR, mode=0777, resolve=0}, 24) = -1 EBADF (Bad file descriptor)'),
    ("openat2", (0xffffffff, 0x1000, 0x2000, 11), -9, {0x1000: "6f70656e6174322e73616d706c6500"},
     'openat2(-1, "openat2.sample", 0x2000, 11) = -1 EBADF (Bad file descriptor)'),
    ("pidfd_open", (0, 0x80), -22, {}, "pidfd_open(0, PIDFD_THREAD) = -1 EINVAL (Invalid argument)"),
    # tests/file_setattr.c and file_getattr.c
    ("file_setattr", (0xffffffff, 0x1000, 0x2000, 24, 0xdefaced00000000), -38,
     {0x1000: "00", 0x2000: "0400f07fffffffff" "efbeadde" "00000000" "0df0feca" "dec0beba"},
     'file_setattr(-1, "", {fa_xflags=0xffffffff7ff00004 /* FS_XFLAG_??? */, fa_extsize=3735928559, fa_projid=0xcafef00d, '
     'fa_cowextsize=3133063390}, 24, 0) = -1 ENOSYS (Function not implemented)'),
    ("file_setattr", (0xffffffff, 0x1000, 0x2000, 32, 0), -38,
     {0x1000: "00", 0x2000: "00" * 24 + "8081828384858687"},
     'file_setattr(-1, "", {fa_xflags=0, fa_extsize=0, fa_projid=0, fa_cowextsize=0, /* bytes 24..31 */ '
     '"\\x80\\x81\\x82\\x83\\x84\\x85\\x86\\x87"}, 32, 0) = -1 ENOSYS (Function not implemented)'),
    ("file_setattr", (0xffffffff, 0x1000, 0x2000, 23, 0), -38, {0x1000: "00"},
     'file_setattr(-1, "", 0x2000, 23, 0) = -1 ENOSYS (Function not implemented)'),
    ("file_getattr", (0xffffffff, 0x1000, 0x2000, 32, 0), -38, {0x1000: "00", 0x2000: "00" * 24},
     'file_getattr(-1, "", 0x2000, 32, 0) = -1 ENOSYS (Function not implemented)'),
]


@pytest.mark.parametrize("name, args, ret, mem, want", FUTEX2, ids=[f"{c[0]}-{i}" for i, c in enumerate(FUTEX2)])
def test_futex2_decoded_as_strace(name, args, ret, mem, want):
    """futex2's calls as strace 7.2 prints them (its own suite's expected lines)."""
    from stracemem import FakeMem, fmt_line
    got = fmt_line(name, args, ret, FakeMem(mem), align=0)
    assert re.sub(r" +=", " =", got) == want


@pytest.mark.parametrize("path", sorted(PATHS))
def test_clone3_checks_as_linux(path):
    """clone3 with CLONE_PARENT_SETTID at NULL or CLONE_CHILD_SETTID at an unmapped address makes
    its child (Linux ignores that put_user's failure); set_tid without its size is EINVAL."""
    _same_as_native("cloneprobe", path, b"PARENT_SETTID NULL: a child, exit 7")


def test_trace_fds_never_matches_a_negative_descriptor():
    """strace's fdmatch: -e trace-fds=!9 selects dup(3) but not dup(-1) (a negative descriptor is
    in no set, negated or not); a plain set still selects its own descriptors."""
    from emutrace.kernel import table
    from emutrace.sysgate import SyscallGate
    gate = SyscallGate(None, None)
    gate.fds = ("not", {9})
    dup = table.BY_NAME["dup"]
    assert gate.enter(None, dup, (3, 0, 0, 0, 0, 0))
    assert not gate.enter(None, dup, (0xffffffff, 0, 0, 0, 0, 0))
    assert not gate.enter(None, dup, (9, 0, 0, 0, 0, 0))
    gate.fds = {0}
    assert gate.enter(None, dup, (0, 0, 0, 0, 0, 0)) and not gate.enter(None, dup, (1, 0, 0, 0, 0, 0))


@pytest.mark.parametrize("kinds, want", [
    ({"path"}, "pidfd_open(1000, 0) = 3<anon_inode:[pidfd]>"),              # -y
    ({"path", "socket", "dev", "pidfd", "signalfd", "eventfd"}, "pidfd_open(1000, 0) = 3<pid:1000>"),  # -yy
    ({"pidfd"}, "pidfd_open(1000, 0) = 3<pid:1000>"),
    ({"socket"}, "pidfd_open(1000, 0) = 3"),
])
def test_pidfd_decorated_as_strace(kinds, want):
    """strace 7.2's tests/pidfd_open.c: a pidfd shows <pid:N> with decode-fds=pidfd (and -yy),
    its path with -y alone, nothing when neither is asked."""
    from stracemem import FakeMem
    from emutrace.decode.strace import SyscallFormatter
    from emutrace.kernel import table
    f = SyscallFormatter(fd_paths=True, fd_path=lambda fd: "anon_inode:[pidfd]" if fd == 3 else None)
    f.decode_fds = frozenset(kinds)
    f.fd_pidfd = lambda fd: 1000 if fd == 3 else None
    line = f.format(table.BY_NAME["pidfd_open"], [1000, 0, 0, 0, 0, 0], 3, FakeMem({}))
    assert re.sub(r" +=", " =", line) == want
