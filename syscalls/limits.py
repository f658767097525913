"""Bounds on everything a guest can make the host hold, owned by the kernel (Kernel.limits).

A guest is untrusted: whatever it can create (overlay files, open files, pipe and socket
buffers, epoll watches, threads, timers, ...) lives in this host process's memory, so every such
thing is counted against a bound, and reaching the bound fails the guest's call with the errno
Linux gives when its own limit of that kind is reached, never the host's memory.

Each bound is one row of BOUNDS: a name, a default, the errno, the Linux setting it stands for.
Users set any of them with `--limit NAME=N` (and the overlay's size with `--max-disk`). A kernel
object added later plugs in with one row and a take()/give() pair:

    limits.take("timers")            # raises VfsError(EAGAIN) when the bound is reached
    ...
    limits.give("timers")            # when the object is gone

or, for what is held by an object that may be dropped anywhere, `limits.hold(obj, "name", n)`,
which gives back when the object is garbage (as overlay inodes are).
"""
from __future__ import annotations

import weakref
from typing import Dict, Optional, Tuple

from emutrace.record import record

from emutrace.kernel import errno as E
from emutrace.kernel.errors import VfsError

PAGE = 4096


@record(frozen=True)
class Bound:
    name: str
    default: int
    errno: int
    linux: str          # the Linux setting or resource this bound stands for
    what: str


# What one overlay inode and one overlay name cost the host, measured with tracemalloc on
# CPython 3.11 (OvNode + StatInfo + its table entry): charged to "disk" with the file's pages,
# so a guest cannot exhaust the host with millions of empty files either.
INODE_COST = 1024
DENTRY_COST = 256

BOUNDS: Tuple[Bound, ...] = (
    Bound("disk", 1 << 30, E.ENOSPC, "tmpfs size=",
          "bytes the overlay holds: file data in 4 KiB pages, 1 KiB per inode, 256 bytes plus the "
          "path per name (also /dev/shm, memfd, O_TMPFILE)"),
    Bound("inodes", 1 << 18, E.ENOSPC, "tmpfs nr_inodes=",
          "files, directories and symlinks in the overlay, open unlinked ones included"),
    Bound("files", 1 << 16, E.ENFILE, "fs.file-max",
          "open file descriptions of all processes together (each fd table also has RLIMIT_NOFILE)"),
    Bound("buffers", 64 << 20, E.EAGAIN, "fs.pipe-user-pages-soft, net.core.wmem_max",
          "bytes waiting in every pipe and socket buffer together: past it a writer waits, or gets EAGAIN"),
    Bound("pipe_size", 1 << 20, E.EPERM, "fs.pipe-max-size",
          "the largest capacity F_SETPIPE_SZ grants one pipe"),
    Bound("epoll_watches", 1 << 16, E.ENOSPC, "fs.epoll.max_user_watches",
          "fds registered in all epoll sets together"),
    Bound("unix_backlog", 4096, E.EAGAIN, "net.core.somaxconn",
          "connections waiting to be accepted on one AF_UNIX listener"),
    Bound("threads", 4096, E.EAGAIN, "kernel.threads-max",
          "threads of all processes together (processes also have --max-procs / RLIMIT_NPROC)"),
    Bound("timers", 4096, E.EAGAIN, "RLIMIT_SIGPENDING for timer_create",
          "POSIX timers, timerfds and other timer objects of all processes"),
    Bound("semaphores", 1 << 18, E.ENOSPC, "kernel.sem SEMMNS",
          "semaphores in all SysV semaphore sets together (IPC_INFO reports it as semmns)"),
    Bound("kobjects", 1 << 16, E.ENOSPC, "kernel.msgmni, kernel.sem, fs.inotify.max_user_watches ...",
          "any other per-process kernel object (IPC ids, inotify watches, ...) that has no row of its own"),
)

BY_NAME: Dict[str, Bound] = {b.name: b for b in BOUNDS}


class LimitError(ValueError):
    """A bad --limit / --max-disk value (the options report it as a usage error)."""


class KernelLimits:
    """The bound and the amount in use of each row of BOUNDS, for the whole emulated machine."""

    def __init__(self, overrides: Optional[Dict[str, int]] = None):
        self.max: Dict[str, int] = {b.name: b.default for b in BOUNDS}
        self.used: Dict[str, int] = {b.name: 0 for b in BOUNDS}
        self.peak: Dict[str, int] = dict(self.used)
        for name, value in (overrides or {}).items():
            self.set(name, value)

    def set(self, name: str, value: int) -> None:
        if name not in BY_NAME:
            raise LimitError(f"unknown limit {name!r} (one of: {', '.join(BY_NAME)})")
        if value < 0:
            raise LimitError(f"limit {name} must not be negative")
        self.max[name] = value

    def room(self, name: str) -> int:
        return max(0, self.max[name] - self.used[name])

    def take(self, name: str, n: int = 1) -> None:
        """Count n more of `name`, or fail with its errno if that would pass the bound."""
        used = self.used[name] + n
        if n > 0 and used > self.max[name]:
            raise VfsError(BY_NAME[name].errno, f"{name} limit ({self.max[name]}) reached")
        self.used[name] = used
        if used > self.peak[name]:
            self.peak[name] = used

    def force(self, name: str, n: int) -> None:
        """Count n more without failing: for what must not fail halfway (a rename's new names),
        and which the bound already limits elsewhere."""
        self.used[name] += n
        if self.used[name] > self.peak[name]:
            self.peak[name] = self.used[name]

    def give(self, name: str, n: int = 1) -> None:
        self.used[name] = max(0, self.used[name] - n)

    def hold(self, owner, name: str, n: int = 1) -> "Held":
        """Take n of `name` for as long as `owner` lives; the returned Held can be resized."""
        held = Held(self, name)
        held.resize(n)
        weakref.finalize(owner, held.release)
        return held


class Held:
    """An amount of one bound held by one object (an overlay inode's bytes): resized as the
    object grows and shrinks, given back when it is garbage. It keeps no reference to its owner."""
    __slots__ = ("limits", "name", "amount", "__weakref__")

    def __init__(self, limits: KernelLimits, name: str):
        self.limits, self.name, self.amount = limits, name, 0

    def resize(self, amount: int, force: bool = False) -> None:
        """Hold `amount` now (its errno when more does not fit, unless `force`: for what must
        not fail, such as pages a shared mapping wrote coming back into the file)."""
        delta = amount - self.amount
        if delta > 0:
            (self.limits.force if force else self.limits.take)(self.name, delta)
        elif delta < 0:
            self.limits.give(self.name, -delta)
        self.amount = amount

    def release(self) -> None:
        self.limits.give(self.name, self.amount)
        self.amount = 0


def pages(size: int) -> int:
    """The bytes of whole pages that `size` bytes of file data occupy, as tmpfs counts them."""
    return (size + PAGE - 1) // PAGE * PAGE


def parse_limit(spec: str) -> Tuple[str, int]:
    """NAME=N of --limit (N may end in K, M or G)."""
    name, sep, value = spec.partition("=")
    name = name.strip().replace("-", "_")
    if not sep or name not in BY_NAME:
        raise LimitError(f"--limit takes NAME=N, NAME one of: {', '.join(BY_NAME)}")
    return name, parse_count(value, f"--limit {name}")


def parse_count(text: str, what: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    t = text.strip().upper().rstrip("B") or "?"
    mult = units.get(t[-1], 1)
    digits = t[:-1] if t[-1] in units else t
    if not digits.isdigit():
        raise LimitError(f"{what} takes a number of bytes or items (suffixes K M G), not {text!r}")
    return int(digits) * mult
