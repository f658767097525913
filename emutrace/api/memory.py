"""GuestMemory: a hook's view of the guest's memory (reads, writes, strings, new guest strings),
checked against the guest's permissions.
"""
from __future__ import annotations

import struct
from typing import Optional, Union
from weakref import WeakKeyDictionary
from emutrace.machine.budget import OutOfMemory
from emutrace.machine.guestaccess import GuestFault
from emutrace.machine.pages import PAGE, page_up
from emutrace.session import EmutraceError
from emutrace.linux.mman import PROT_READ, PROT_WRITE
from emutrace.api.errors import ApiError, GuestMemoryError

# what a hook may return or write: a number, a flag, a string (a new guest string), bytes, nothing
Value = Union[int, float, bool, str, bytes, None]


# process → [its address space, next free byte, end] of the chunk alloc() carves from; the API's
# own, not an attribute on the kernel's Process (weak: freed with the process)
_ARENAS: "WeakKeyDictionary[object, list]" = WeakKeyDictionary()


class GuestMemory:
    """Reads and writes guest memory with the guest's own permissions, and allocates in it."""

    ARENA_NAME = "[emutrace-api]"

    def __init__(self, proc):
        self._proc = proc

    def read(self, addr: int, size: int) -> bytes:
        try:
            return self._proc.aspace.read(addr, size)
        except GuestFault as e:
            raise GuestMemoryError(e.addr, "read") from None

    def write(self, addr: int, data: bytes) -> None:
        try:
            self._proc.aspace.write(addr, bytes(data))
        except GuestFault as e:
            raise GuestMemoryError(e.addr, "write") from None

    def read_u64(self, addr: int) -> int:
        return struct.unpack("<Q", self.read(addr, 8))[0]

    def write_u64(self, addr: int, value: int) -> None:
        self.write(addr, struct.pack("<Q", value & 0xFFFFFFFFFFFFFFFF))

    def read_bytes_z(self, addr: int, limit: int = 1 << 20) -> bytes:
        """A NUL-terminated byte string (without the NUL), at most `limit` bytes."""
        try:
            return self._proc.aspace.read_cstr(addr, limit)
        except GuestFault as e:
            raise GuestMemoryError(e.addr, "read") from None

    def read_string(self, addr: int, limit: int = 1 << 20, encoding: str = "utf-8") -> Optional[str]:
        """A C string as text (undecodable bytes escaped), or None for a NULL pointer."""
        if not addr:
            return None
        return self.read_bytes_z(addr, limit).decode(encoding, "surrogateescape")

    def write_string(self, addr: int, text: Union[str, bytes], encoding: str = "utf-8") -> None:
        data = text.encode(encoding, "surrogateescape") if isinstance(text, str) else bytes(text)
        self.write(addr, data + b"\0")

    def alloc(self, data: Union[int, bytes]) -> int:
        """Guest memory that lives as long as the process: `data` bytes copied in, or an int size
        of zeroed bytes. 16-byte aligned, readable and writable, never freed (it is not malloc's)."""
        blob = bytes(data) if not isinstance(data, int) else b"\0" * data
        size = max(16, (len(blob) + 15) & ~15)
        proc = self._proc
        arena = _ARENAS.get(proc)
        if arena is None or arena[0] is not proc.aspace or arena[1] + size > arena[2]:
            chunk = max(16 * PAGE, page_up(size))
            try:
                start = proc.aspace.find_free(chunk)
                proc.aspace.map(start, chunk, PROT_READ | PROT_WRITE, self.ARENA_NAME)
            except OutOfMemory as e:
                raise EmutraceError(f"cannot allocate guest memory: {e}", 125) from None
            arena = _ARENAS[proc] = [proc.aspace, start, start + chunk]
        addr = arena[1]
        arena[1] += size
        if blob:
            self.write(addr, blob)
        return addr

    def alloc_string(self, text: Union[str, bytes], encoding: str = "utf-8") -> int:
        """A new NUL-terminated guest string; returns its address."""
        data = text.encode(encoding, "surrogateescape") if isinstance(text, str) else bytes(text)
        return self.alloc(data + b"\0")


def _to_u64(value: Value, memory: GuestMemory) -> int:
    """A Python value as a register: ints (two's complement), bools, None (NULL), strings and
    bytes (copied into new guest memory: the register gets the address)."""
    if value is None:
        return 0
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value & 0xFFFFFFFFFFFFFFFF
    if isinstance(value, (str, bytes, bytearray)):
        return memory.alloc_string(value)
    raise ApiError(f"cannot pass a {type(value).__name__} to the guest (use int, str, bytes or None)")


def _signed(v: int) -> int:
    return v - (1 << 64) if v & (1 << 63) else v
