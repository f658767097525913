"""AF_NETLINK sockets: the one use of them the sandbox serves is mqueue notification.

A C library implements mq_notify(SIGEV_THREAD) with a netlink socket: its helper thread blocks in
recv() on it, and the kernel sends the registration's 32-byte cookie there when a message arrives
(last byte NOTIFY_WOKENUP) or when the registration is removed (NOTIFY_REMOVED); the library then
runs the callback on a new thread (glibc's and musl's mq_notify.c). So a netlink socket can be
made (SOCK_RAW or SOCK_DGRAM, any protocol Linux numbers), polled and read.

The kernel's netlink families themselves (routing, audit, uevents, sock_diag...) are not in the
sandbox: bind, connect and send on a netlink socket fail with EACCES, as a seccomp or LSM denial
would. glibc's getaddrinfo(AI_ADDRCONFIG) and getifaddrs then take their fallbacks, just as when
socket() itself was refused.
"""
from __future__ import annotations

import struct

from emutrace.kernel import errno as E
from emutrace.kernel.datagrams import DatagramQueue
from emutrace.kernel.files import OpenFile, WouldBlock
from emutrace.kernel.vfs import StatInfo, VfsError
from emutrace.linux.fcntl import O_RDWR, S_IFSOCK
from emutrace.linux.net import (AF_NETLINK, MSG_PEEK, SOCK_DGRAM, SOCK_RAW, SOL_SOCKET, SO_DOMAIN, SO_ERROR, SO_PROTOCOL, SO_TYPE)
from emutrace.linux.poll import POLLIN, POLLOUT

MAX_LINKS = 32                         # netlink protocols are numbered below this
# struct sockaddr_nl {nl_family, nl_pad, nl_pid, nl_groups}: where the kernel's messages come from
KERNEL_ADDRESS = struct.pack("<HHII", AF_NETLINK, 0, 0, 0)


class NetlinkSocket(OpenFile):
    kind = "socket"
    seekable = False

    def __init__(self, stype: int, protocol: int, flags: int, ino: int, limits=None):
        super().__init__(f"socket:[{ino}]", O_RDWR | flags, None)
        self.stype, self.protocol, self.ino = stype, protocol, ino
        self.rx = DatagramQueue(limits)      # what the kernel sent; never end of file
        self.rx.readers = self.rx.writers = 1

    def deliver(self, message: bytes) -> None:
        """A message from the kernel; dropped when nobody reads or the receive buffer is full,
        as netlink's unicast is."""
        if self.rx.readers == 0:
            return
        try:
            self.rx.put(message)
        except WouldBlock:
            pass

    def recv(self, n: int, flags: int):
        """(up to n bytes of the next message, its whole length)."""
        return self.rx.take_message(n, peek=bool(flags & MSG_PEEK))

    def read(self, n: int) -> bytes:
        return self.rx.take(n)

    def write(self, data: bytes) -> int:
        raise VfsError(E.EACCES)

    def ready(self) -> int:
        return (POLLIN if self.rx.buf else 0) | POLLOUT

    def stat(self):
        return StatInfo(mode=S_IFSOCK | 0o777, ino=self.ino, dev=0x8, blksize=4096)

    def option(self, level: int, name: int) -> int:
        if level != SOL_SOCKET:
            return 0
        return {SO_TYPE: self.stype, SO_DOMAIN: AF_NETLINK, SO_PROTOCOL: self.protocol}.get(name, 0)

    def close(self) -> None:
        self.rx.readers = 0


def new_socket(proc, stype: int, protocol: int, flags: int):
    """A NetlinkSocket, or -errno as Linux's netlink_create gives it."""
    if stype not in (SOCK_RAW, SOCK_DGRAM):
        return -E.ESOCKTNOSUPPORT
    if not 0 <= protocol < MAX_LINKS:
        return -E.EPROTONOSUPPORT
    return NetlinkSocket(stype, protocol, flags, proc.kernel.vfs.new_ino(), proc.kernel.limits)
