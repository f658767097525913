"""Guest memory as a debugger reads and writes it: any mapped byte, whatever its protection (as
ptrace does), and nothing that is not mapped (gdb gets an error, never host memory)."""
from __future__ import annotations

from typing import Optional

from unicorn import UcError
from emutrace.linux.mman import PROT_EXEC



def _mapped_run(proc, addr: int, length: int) -> int:
    """How many bytes from addr are mapped, up to length."""
    aspace = proc.aspace
    n = 0
    while n < length:
        v = aspace.find(addr + n)
        if v is None:
            break
        n = min(length, v.end - addr)
    return n


def read_memory(proc, addr: int, length: int) -> Optional[bytes]:
    """The bytes at addr (fewer when the mapping ends), or None when addr is not mapped."""
    if proc is None or proc.aspace is None or addr < 0 or addr >= 1 << 64:
        return None
    n = _mapped_run(proc, addr, length)
    if n <= 0:
        return None
    try:
        return proc.aspace.raw_read(addr, n)
    except UcError:
        return None


def write_memory(proc, addr: int, data: bytes) -> bool:
    """Store data at addr (code translated from it is dropped); False when not all is mapped."""
    if proc is None or proc.aspace is None or not data:
        return not data
    if _mapped_run(proc, addr, len(data)) < len(data):
        return False
    aspace = proc.aspace
    try:
        aspace.raw_write(addr, data)
    except UcError:
        return False
    if any(v.prot & PROT_EXEC or v.shm is not None for v in aspace.overlapping(addr, addr + len(data))):
        aspace.drop_written_code(addr, addr + len(data))
    return True
