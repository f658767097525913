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
