"""The one shape the tracer reads guest memory through.

Decoders (library calls, system calls), the call log's copies of memory as it was at a return,
and the unwinder all take a GuestReader. Unlike AddressSpace.read and Machine.read, which raise
on memory the guest cannot read, a reader never raises: what it cannot read is None, so a
decoder shows an address where it cannot show a value, as strace and ltrace do.

Readers: memory.MemView (an address space, checked against the guest's permissions), the
tracer's TraceMem (the same, with a C string read in one piece), guestlog's captured copies
(bytes copied by the return trampoline, live memory for the rest), and the strace decoder's
NoMem (nothing readable: an exit with no memory to look at).
"""
from __future__ import annotations

from typing import Optional, Protocol, Tuple, runtime_checkable


@runtime_checkable
class GuestReader(Protocol):
    def read(self, addr: int, size: int) -> Optional[bytes]:
        """size bytes at addr, or None when any of them cannot be read."""

    def cstring(self, addr: int, limit: int) -> Optional[Tuple[bytes, bool]]:
        """(the bytes before the NUL, True) for a C string of at most limit bytes; (the first
        limit bytes, False) for a longer one; None for NULL or unreadable memory."""


def read_u64(mem: GuestReader, addr: int) -> Optional[int]:
    """The little-endian quadword at addr, or None when it cannot be read."""
    data = mem.read(addr, 8)
    return int.from_bytes(data, "little") if data is not None and len(data) == 8 else None
