"""Files without a path (Linux's anon_inode filesystem): eventfd, timerfd, signalfd, inotify,
pidfd. Each is one small OpenFile subclass in its own module; what they share lives here:
the "anon_inode:[kind]" name /proc/self/fd shows, the stat Linux gives them, and the count of
live objects of each kind the kernel keeps (KernelObjects), so that a bound on kernel objects
has one number per kind to check."""
from __future__ import annotations

from collections import Counter
from typing import Optional

from emutrace.kernel import errno as E
from emutrace.kernel.files import OpenFile
from emutrace.kernel.vfs import StatInfo, VfsError
from emutrace.linux.fcntl import O_RDWR

ANON_INODE_DEV = 0xE             # the anon_inode filesystem's device number (as epoll's)


class KernelObjects:
    """How many objects of each kind are alive, kernel-wide (every guest process together)."""

    def __init__(self):
        self.live: Counter = Counter()

    def add(self, kind: str) -> None:
        self.live[kind] += 1

    def drop(self, kind: str) -> None:
        self.live[kind] -= 1
        if self.live[kind] <= 0:
            del self.live[kind]

    def count(self, kind: Optional[str] = None) -> int:
        return self.live[kind] if kind is not None else sum(self.live.values())


def objects_of(kernel) -> KernelObjects:
    if kernel.objects is None:
        kernel.objects = KernelObjects()
    return kernel.objects


class AnonInodeFile(OpenFile):
    """An open file of the anon_inode filesystem; `kind` names it ("eventfd", "timerfd", ...)."""
    kind = "anon"
    seekable = False
    link = ""           # the name /proc/PID/fd/N shows, when not "anon_inode:[kind]"

    def __init__(self, kernel, flags: int):
        super().__init__(self.link or f"anon_inode:[{self.kind}]", O_RDWR | flags, None)
        self.kernel = kernel
        self.ino = kernel.vfs.new_ino()
        self._objects = objects_of(kernel)
        self._objects.add(self.kind)

    def stat(self) -> StatInfo:
        return StatInfo(mode=0o600, ino=self.ino, dev=ANON_INODE_DEV, blksize=4096)

    def pread(self, n, off):
        raise VfsError(E.ESPIPE)

    def seek(self, off: int, whence: int) -> int:
        return 0                    # Linux's noop_llseek: the position of a stream stays 0

    def close(self) -> None:
        self._objects.drop(self.kind)


def install(proc, f: AnonInodeFile, cloexec: bool) -> int:
    """Give the new object the lowest free fd; EMFILE (RLIMIT_NOFILE) drops it again."""
    proc.fds.limit = min(proc.rlimit(7), 1 << 20)        # RLIMIT_NOFILE, as open() applies it
    try:
        return proc.fds.install(f, cloexec=cloexec)
    except VfsError:
        f.close()
        raise
