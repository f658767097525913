"""Descriptors the invoking shell handed emutrace beyond stdio (`3<input`, `9>>/dev/full`), passed
to the guest at the same numbers, as a program run by the shell directly would have them.

Why this is safe for the sandbox: such a descriptor is a grant the user made on the command line,
exactly like stdin and stdout. The guest gets only that open file (never a path to reopen it; its
name under /proc/self/fd is the synthetic one below), with the access mode the shell opened it with.
emutrace's own descriptors are never passed: Python opens every file close-on-exec (PEP 446),
and only the descriptors open without FD_CLOEXEC when the command starts are taken, which are
the ones its parent meant it to inherit. `--no-host-fds` passes none.

What the guest sees:
- /dev/null, /dev/zero, /dev/full, /dev/random, /dev/urandom (by their Linux device numbers) are
  the guest's own devices of that name, opened with the same access mode: deterministic, and
  /dev/full gives ENOSPC as Linux's does.
- anything else (a regular file, a pipe, a terminal, a socket) is a stream of the host's, read and
  written through, with the synthetic identity of the host's stdio (files.HostStream): a
  read-only regular file is a seekable regular file of its size, anything else a pipe.
"""
from __future__ import annotations

import os
from typing import List, Tuple

from emutrace.kernel.files import HostStream
from emutrace.linux.fcntl import O_ACCMODE, O_APPEND, O_RDONLY, O_RDWR

MAX_SCANNED = 1024              # descriptors looked at (a shell's are below 10; RLIMIT_NOFILE's default)
DEVICES = {(1, 3): "null", (1, 5): "zero", (1, 7): "full", (1, 8): "random", (1, 9): "urandom"}


def inherited() -> Tuple[int, ...]:
    """The descriptors >= 3 this process was started with (open, not close-on-exec), and 0 when
    stdin is a memory device (/dev/null). Call it first thing: anything emutrace opens later is
    close-on-exec anyway."""
    try:
        import fcntl     # deferred: POSIX only (Windows: ImportError, no descriptors passed)
    except ImportError:                 # (Windows: no descriptors are inherited that way)
        return ()
    candidates = range(3, MAX_SCANNED)     # (asked one by one: no host /proc is read)
    out: List[int] = []
    if _memory_device(0) is not None:
        out.append(0)           # (stdin from /dev/null is the guest's /dev/null: an input, as a file is)
    for fd in candidates:
        if fd < 3 or fd >= MAX_SCANNED:
            continue
        try:
            if fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC:
                continue
            os.fstat(fd)
        except OSError:
            continue
        out.append(fd)
    return tuple(out)


def _memory_device(fd: int):
    """'null', 'zero'... when fd is open on that Linux memory device, else None."""
    try:
        st = os.fstat(fd)
    except OSError:
        return None
    if (st.st_mode & 0o170000) != 0o020000:
        return None
    if hasattr(os, "major"):            # (a host without device numbers passes no memory devices)
        return DEVICES.get((os.major(st.st_rdev), os.minor(st.st_rdev)))
    return None


def _linux_flags(fd: int) -> int:
    """The Linux access mode and O_APPEND of a host descriptor (host values may differ: macOS)."""
    try:
        import fcntl        # deferred: POSIX only, and only a passed descriptor needs it
        host = fcntl.fcntl(fd, fcntl.F_GETFL)
    except (ImportError, OSError):      # (no fcntl: read and write, as a terminal is)
        return O_RDWR
    acc = host & os.O_ACCMODE if hasattr(os, "O_ACCMODE") else host & 3
    return (acc & O_ACCMODE) | (O_APPEND if host & os.O_APPEND else 0)


def guest_file(fd: int, open_device, born_ns: int):
    """The OpenFile the guest gets for host descriptor fd, or None when it is gone.
    open_device(name, flags) opens the guest's /dev/NAME."""
    try:
        st = os.fstat(fd)
        flags = _linux_flags(fd)
    except OSError:
        return None
    name = _memory_device(fd)
    if name is not None:
        return open_device(name, flags)
    path = "/dev/stdin" if (flags & O_ACCMODE) == O_RDONLY else "/dev/stdout"
    return HostStream(path, flags, fd, born_ns)
