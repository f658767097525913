"""The remote serial protocol's framing: `$data#cs` packets, acks, binary escapes, Ctrl-C.

A Channel wraps two host file descriptors (a TCP connection's socket, or stdin/stdout for
`--gdb -`). It reads packets one at a time, answers each with `+` (or `-` for a bad checksum,
after which gdb sends it again) until QStartNoAckMode, and writes replies. A lone 0x03 byte
between packets is gdb's interrupt (Ctrl-C); it is returned as the packet b"\\x03".

Nothing here knows what a packet means (emutrace/gdb/server.py does).
"""
from __future__ import annotations

import os
import re
import select
from typing import Optional

MAX_PACKET = 1 << 16            # what qSupported advertises (PacketSize): longer input is refused
INTERRUPT = b"\x03"


class Disconnected(Exception):
    """gdb closed the connection (or it broke)."""


def checksum(data: bytes) -> int:
    return sum(data) & 0xFF


# (byte, its escape): `}` first, since the other escapes bring one in
_ESCAPES = tuple((bytes((b,)), bytes((0x7D, b ^ 0x20))) for b in (0x7D, 0x23, 0x24, 0x2A))
_ESCAPED = re.compile(rb"}(.)", re.DOTALL)


def escape(data: bytes) -> bytes:
    """Binary data for a reply (vFile:pread, qXfer): #, $, } and * escaped as } + (byte ^ 0x20).
    (bytes.replace, not a loop over the bytes: gdb reads the libraries' files through this, and
    a loop cost ~0.1 s of every session.)"""
    out = bytes(data)
    for plain, escaped in _ESCAPES:
        if plain in out:
            out = out.replace(plain, escaped)
    return out


def unescape(data: bytes) -> bytes:
    """Binary data of an X or vFile:pwrite packet (a lone } at the end stays as it is)."""
    return _ESCAPED.sub(lambda m: bytes((m[1][0] ^ 0x20,)), bytes(data))


class Channel:
    def __init__(self, rfd: int, wfd: int):
        self.rfd, self.wfd = rfd, wfd
        self.ack = True
        self._buf = bytearray()
        self.bad = 0                # packets refused (bad checksum, too long): for tests and logs

    # -- raw bytes ----------------------------------------------------------------------
    def _fill(self, timeout: Optional[float] = None) -> bool:
        """Read what is available (waiting up to timeout; None: forever). False on timeout."""
        if timeout is not None:
            r, _, _ = select.select([self.rfd], [], [], timeout)
            if not r:
                return False
        try:
            data = os.read(self.rfd, 65536)
        except OSError:
            data = b""
        if not data:
            raise Disconnected()
        self._buf += data
        return True

    def send_raw(self, data: bytes) -> None:
        view = memoryview(data)
        try:
            while view:
                n = os.write(self.wfd, view)
                view = view[n:]
        except OSError:
            raise Disconnected() from None

    # -- packets ----------------------------------------------------------------------------
    def send(self, payload) -> None:
        if isinstance(payload, str):
            payload = payload.encode("latin-1")
        self.send_raw(b"$" + payload + b"#%02x" % checksum(payload))

    def poll_interrupt(self) -> bool:
        """While the guest runs: has gdb sent Ctrl-C? (Other bytes are kept for later.)"""
        try:
            while self._fill(0):
                pass
        except Disconnected:
            raise
        i = self._buf.find(INTERRUPT)
        if i >= 0 and b"$" not in self._buf[:i]:
            del self._buf[i]
            return True
        return False

    def _drop_retransmissions(self, packet: bytes) -> None:
        """gdb sends a packet again when its ack is late (2 s: a loaded machine, a slow start-up);
        the copies waiting behind it are the same request, answered once."""
        try:
            while self._fill(0):
                pass
        except Disconnected:
            return
        while self._buf.startswith(packet):
            del self._buf[:len(packet)]

    def receive(self) -> bytes:
        """The next packet's payload (or INTERRUPT); acks it. Raises Disconnected at the end."""
        while True:
            buf = self._buf
            # skip acks and noise before the next packet or interrupt
            while buf and buf[0] not in (0x24, 0x03):
                del buf[0]
            if buf[:1] == INTERRUPT:
                del buf[0]
                return INTERRUPT
            end = buf.find(b"#")
            if buf[:1] == b"$" and end >= 0 and len(buf) >= end + 3:
                payload = bytes(buf[1:end])
                cs = bytes(buf[end + 1:end + 3])
                del buf[:end + 3]
                try:
                    good = int(cs, 16) == checksum(payload)
                except ValueError:
                    good = False
                if not self.ack:
                    return payload          # (no-ack mode: checksums are not checked, as gdbserver)
                if good and len(payload) <= MAX_PACKET:
                    self._drop_retransmissions(bytes(b"$" + payload + b"#" + cs))
                    self.send_raw(b"+")
                    return payload
                self.bad += 1
                self.send_raw(b"-")
                continue
            if buf[:1] == b"$" and len(buf) > MAX_PACKET + 4 and end < 0:
                self.bad += 1               # a runaway packet: drop it and ask again
                del buf[:]
                self.send_raw(b"-")
                continue
            self._fill()
