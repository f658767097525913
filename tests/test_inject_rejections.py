"""-e inject= / fault= and -e trace= sets: what strace 6.1 rejects is rejected here with the same
words (one `emutrace: ` line, exit status 125, emutrace's usage status; strace exits 1), and what
it accepts is accepted. The expected lines were recorded from strace 6.1 (`strace -o /dev/null -e
EXPR true`); where ptrace works, the test also asks the installed strace."""
from __future__ import annotations

import subprocess

import pytest

from conftest import built, emutrace, ptrace_works
from emutrace.inject import InjectError, parse_inject
from emutrace.syscallset import syscalls_of

# expression → strace's message (None: accepted)
CASES = {
    "inject=open:error=FOO": "invalid inject argument 'open:error=FOO'",
    "inject=open": "invalid inject argument 'open'",
    "inject=nosuch:error=ENOENT": "invalid system call 'nosuch'",
    "inject=%nosuch:error=EIO": "invalid system call '%nosuch'",
    "inject=open:error=ENOENT:when=0": "invalid inject argument 'open:error=ENOENT:when=0'",
    "inject=open:error=ENOENT:when=2..1": "invalid inject argument 'open:error=ENOENT:when=2..1'",
    "inject=open:error=ENOENT:when=3+65536": "invalid inject argument 'open:error=ENOENT:when=3+65536'",
    "inject=open:retval=1:error=ENOENT": "invalid inject argument 'open:retval=1:error=ENOENT'",
    "inject=open:error=4096": "invalid inject argument 'open:error=4096'",
    "inject=open:signal=SIGUSR1:signal=SIGUSR2": "invalid inject argument 'open:signal=SIGUSR1:signal=SIGUSR2'",
    "inject=open:delay_enter=1:delay_enter=2": "invalid inject argument 'open:delay_enter=1:delay_enter=2'",
    "inject=open:delay_exit=1:delay_exit=2": "invalid inject argument 'open:delay_exit=1:delay_exit=2'",
    "inject=open:poke_enter=@arg1=00:poke_enter=@arg2=00":
        "invalid inject argument 'open:poke_enter=@arg1=00:poke_enter=@arg2=00'",
    "inject=open:poke_enter=@arg1=00,@arg1=01": "invalid inject argument 'open:poke_enter=@arg1=00,@arg1=01'",
    "inject=open:error=EIO:syscall=getpid:syscall=getppid":
        "invalid inject argument 'open:error=EIO:syscall=getpid:syscall=getppid'",
    "inject=open:retval=1:syscall=GETPID": "invalid inject argument 'open:retval=1:syscall=GETPID'",
    "inject=open:ERROR=EIO": "invalid inject argument 'open:ERROR=EIO'",
    "inject=/o[:error=EIO": "regcomp: o[: Invalid regular expression",
    "inject=/zzz:error=EIO": "invalid system call '/zzz'",
    "inject=//:error=EIO": "invalid system call '//'",
    "inject=1000:error=EIO": "invalid system call '1000'",
    "inject=0x2:error=EIO": "invalid system call '0x2'",
    "inject=open,none:error=EIO": "invalid system call 'none'",
    "inject=%all:error=EIO": "invalid system call '%all'",
    "inject=clock:error=EIO": "invalid system call 'clock'",
    "inject= open:error=EIO": "invalid system call ' open'",
    "inject=": "invalid system call ''",
    "fault=open:retval=1": "invalid fault argument 'open:retval=1'",
    "fault=open:signal=SIGUSR1": "invalid fault argument 'open:signal=SIGUSR1'",
    "trace=nosuch": "invalid system call 'nosuch'",
    "trace=/o[": "regcomp: o[: Invalid regular expression",
    # accepted
    "inject=open:error=ENOENT:": None,
    "inject=open::error=ENOENT": None,
    "inject=open:error=eio": None,
    "inject=open:signal=sigusr1": None,
    "inject=open:error=EIO:when=2:when=3": None,
    "inject=?nosuch:error=EIO": None,
    "inject=?nosuch,open:error=EIO": None,
    "inject=%net:error=EIO": None,
    "inject=/^open$:error=EIO": None,
    "inject=002:error=EIO": None,
    "inject=%fstatfs:error=EIO": None,
    "trace=?nosuch,open": None,
    "trace=file": None,
    "trace=/": None,
    "trace=none": None,
}


@pytest.mark.parametrize("expr", sorted(CASES))
def test_strace_words_and_usage_status(expr):
    r = emutrace(["--strace", "-o", "/dev/null", "-e", expr, built("hello")])
    want = CASES[expr]
    if want is None:
        assert r.returncode == 0 and r.stderr == b"", r.stderr
    else:
        assert r.returncode == 125 and r.stdout == b""
        assert r.stderr.decode() == f"emutrace: {want}\n"


@pytest.mark.skipif(not ptrace_works(), reason="ptrace does not work here (or no strace)")
@pytest.mark.parametrize("expr", sorted(CASES))
def test_the_installed_strace_agrees(expr):
    r = subprocess.run(["strace", "-o", "/dev/null", "-e", expr, "true"], capture_output=True, text=True)
    if CASES[expr] is None:
        assert r.returncode == 0
    else:
        assert r.returncode == 1 and r.stderr.splitlines()[0] == f"strace: {CASES[expr]}"


def test_sets_name_what_strace_names():
    assert syscalls_of("%net") == syscalls_of("%network") == syscalls_of("network")
    assert syscalls_of("2") == syscalls_of("002") == {"open"}
    assert syscalls_of("/^open") == {n for n in syscalls_of("all") if n.startswith("open")} >= {"open", "openat"}
    assert syscalls_of("?nosuch") == frozenset() and syscalls_of("none") == frozenset()
    assert "read" in syscalls_of("all") and syscalls_of("all") == syscalls_of("/")


def test_a_set_of_nothing_injects_nothing():
    names, tamper = parse_inject("?nosuch:error=EIO")
    assert names == [] and tamper.error == 5
    with pytest.raises(InjectError):
        parse_inject("nosuch:error=EIO")
