"""eventfd/eventfd2: a 64-bit counter behind a file descriptor (libuv's and glib's wake-up).

read takes the whole counter (or 1 with EFD_SEMAPHORE) and blocks while it is 0; write adds
to it and blocks while the sum would pass 0xfffffffffffffffe. Readable while the counter is
not 0, writable while 1 more still fits: the readiness poll/select/epoll see.
"""
from __future__ import annotations

import struct

from emutrace.kernel import errno as E
from emutrace.kernel.anonfd import AnonInodeFile, install
from emutrace.kernel.files import WouldBlock
from emutrace.kernel.vfs import VfsError
from emutrace.linux.fcntl import O_CLOEXEC, O_NONBLOCK
from emutrace.linux.poll import EFD_SEMAPHORE, POLLIN, POLLOUT

EFD_CLOEXEC, EFD_NONBLOCK = O_CLOEXEC, O_NONBLOCK
EFD_FLAGS = EFD_SEMAPHORE | EFD_CLOEXEC | EFD_NONBLOCK
COUNTER_MAX = 0xFFFFFFFFFFFFFFFE


class EventFd(AnonInodeFile):
    kind = "eventfd"

    def __init__(self, kernel, initval: int, flags: int):
        super().__init__(kernel, flags & O_NONBLOCK)
        self.count = initval
        self.semaphore = bool(flags & EFD_SEMAPHORE)

    def read(self, n: int) -> bytes:
        if n < 8:
            raise VfsError(E.EINVAL)
        if self.count == 0:
            raise WouldBlock()
        taken = 1 if self.semaphore else self.count
        self.count -= taken
        return struct.pack("<Q", taken)

    def write(self, data: bytes) -> int:
        if len(data) < 8:
            raise VfsError(E.EINVAL)
        (add,) = struct.unpack_from("<Q", data)
        if add == 0xFFFFFFFFFFFFFFFF:
            raise VfsError(E.EINVAL)
        if self.count + add > COUNTER_MAX:
            raise WouldBlock()
        self.count += add
        return 8

    def ready(self) -> int:
        return (POLLIN if self.count else 0) | (POLLOUT if self.count < COUNTER_MAX else 0)


def _create(proc, initval: int, flags: int) -> int:
    if flags & ~EFD_FLAGS:
        return -E.EINVAL
    return install(proc, EventFd(proc.kernel, initval & 0xFFFFFFFF, flags), bool(flags & EFD_CLOEXEC))


def sys_eventfd(proc, initval, *_):
    return _create(proc, initval, 0)


def sys_eventfd2(proc, initval, flags, *_):
    return _create(proc, initval, flags & 0xFFFFFFFF)
