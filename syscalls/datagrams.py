"""One direction of an AF_UNIX SOCK_DGRAM or SOCK_SEQPACKET socket pair: a queue of whole
messages instead of a byte stream. A read takes one message; what does not fit the reader's
buffer is lost, and the caller learns the message's real length (recvmsg's MSG_TRUNC). A write
is one message, sent whole or not at all: bigger than the send buffer is EMSGSIZE, no room yet
waits (or EAGAIN), as Linux's unix_dgram_sendmsg does. A SOCK_SEQPACKET reader sees end of file
once its peer is gone; a SOCK_DGRAM one does not (Linux shuts down only connection-oriented
peers at close): it waits, or gets EAGAIN.
"""
from __future__ import annotations

from collections import deque

from emutrace.kernel import errno as E
from emutrace.kernel.files import Pipe, WouldBlock
from emutrace.kernel.vfs import VfsError

# Linux: net.core.wmem_default, and the skb header room unix_dgram_sendmsg keeps free of it
SNDBUF = 212992
SNDBUF_OVERHEAD = 32


class DatagramQueue(Pipe):
    def __init__(self, limits=None, capacity: int = SNDBUF, ends: bool = True):
        super().__init__(limits, capacity)
        self.ends = ends              # the last writer gone is end of file (SOCK_SEQPACKET)
        self.buf = deque()            # messages; an empty datagram is one too
        self.queued = 0               # their bytes, counted against capacity and "buffers"

    def room(self) -> int:
        room = self.capacity - self.queued
        if self.limits is not None:
            room = min(room, self.limits.room("buffers"))
        return room

    def take_message(self, n: int, peek: bool = False):
        """(the first n bytes of the next message, its whole length); (b"", 0) at end of file
        (no writer left); WouldBlock when empty."""
        if not self.buf:
            if self.at_end():
                return b"", 0
            raise WouldBlock()
        message = self.buf[0] if peek else self.buf.popleft()
        if not peek:
            self.queued -= len(message)
            if self.held is not None:
                self.held.resize(self.queued)
        return message[:n], len(message)

    def at_end(self) -> bool:
        return self.writers == 0 and self.ends

    def take(self, n: int) -> bytes:
        return self.take_message(n)[0]

    def put(self, data: bytes) -> int:
        if self.readers == 0:
            raise VfsError(E.EPIPE)
        if len(data) > self.capacity - SNDBUF_OVERHEAD:
            raise VfsError(E.EMSGSIZE)
        if self.room() < len(data):
            raise WouldBlock()
        if self.held is not None:
            self.held.resize(self.queued + len(data))
        self.buf.append(bytes(data))
        self.queued += len(data)
        return len(data)
