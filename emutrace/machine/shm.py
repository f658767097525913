"""The host memory behind MAP_SHARED mappings (SharedMemory): several address spaces (engines)
map the same pages, as Linux's page cache does.
"""
from __future__ import annotations

import ctypes
import mmap
import os
from typing import Callable, Iterator, List, Optional, Tuple
from emutrace.machine.pages import page_down, page_up


def _pread(fd: int, n: int, off: int) -> bytes:
    """n bytes at off of a host file, without moving its offset where the host has pread
    (Windows has none: seek, read and seek back)."""
    if hasattr(os, "pread"):
        return os.pread(fd, n, off)
    here = os.lseek(fd, 0, os.SEEK_CUR)
    try:
        os.lseek(fd, off, os.SEEK_SET)
        return os.read(fd, n)
    finally:
        os.lseek(fd, here, os.SEEK_SET)


class SharedMemory:
    """The pages behind MAP_SHARED mappings: of one shmem/tmpfs file (an overlay file, a memfd)
    or of one shared anonymous mapping. Several address spaces (engines) map the same host
    memory, as Linux's page cache does.

    The host memory comes in extents (page-aligned ranges of the object, each one anonymous host
    mmap), created when a mapping first needs that range; a file mapped further on later gets
    a new extent, never a moved one, so the engines that map the older ones stay valid. A new
    extent starts as `fill(offset, size)` says (the file's bytes; zeros by default). The object
    lives as long as a Vma (or a futex queue) refers to it."""

    def __init__(self, fill: Optional[Callable[[int, int], bytes]] = None,
                 host_file: Optional[Tuple[int, int, int]] = None):
        self.fill = fill
        # (host fd, offset in it, its size): extents inside the file map it copy-on-write, so
        # pages come from the host's page cache as they are read (a JVM maps its 130 MiB
        # class image); writes stay in this host process, shared by every engine that maps it
        self.host_file = None
        if host_file is not None:
            fd, base, fsize = host_file
            fd = os.dup(fd)
            self.host_file = (fd, base, fsize)
            self.fill = lambda o, n: _pread(fd, n, base + o)       # (the last, partial page)
        self.extents: List[Tuple[int, int, mmap.mmap, int]] = []     # (offset, size, buffer, host address)

    def __del__(self):
        if self.host_file is not None:
            os.close(self.host_file[0])

    def _split_at_file_end(self, holes):
        """Holes cut where the file's last whole page ends (Python maps no more of a file)."""
        if self.host_file is None:
            return holes
        fd, base, fsize = self.host_file
        cut = page_down(fsize - base)
        out = []
        for lo, hi in holes:
            if lo < cut < hi:
                out += [(lo, cut), (cut, hi)]
            else:
                out.append((lo, hi))
        return out

    def _extent(self, lo: int, hi: int) -> mmap.mmap:
        if self.host_file is not None:
            fd, base, fsize = self.host_file
            if hi <= page_down(fsize - base) and (base + lo) % mmap.ALLOCATIONGRANULARITY == 0:
                try:
                    return mmap.mmap(fd, hi - lo, flags=mmap.MAP_PRIVATE,
                                     prot=mmap.PROT_READ | mmap.PROT_WRITE, offset=base + lo)
                except (OSError, ValueError, AttributeError, TypeError):
                    pass                                    # (filled from fill() below)
        buf = mmap.mmap(-1, hi - lo)
        if self.fill is not None:
            data = self.fill(lo, hi - lo)
            if data:
                buf[:len(data)] = data
        return buf

    def ensure(self, off: int, end: int) -> None:
        """Give [off, end) host memory (page-aligned)."""
        off, end = page_down(off), page_up(end)
        holes = []
        pos = off
        for o, n, _, _ in self.extents:
            if o + n <= pos:
                continue
            if o >= end:
                break
            if o > pos:
                holes.append((pos, o))
            pos = max(pos, o + n)
        if pos < end:
            holes.append((pos, end))
        for lo, hi in self._split_at_file_end(holes):
            buf = self._extent(lo, hi)
            addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))   # the export pins the buffer
            self.extents.append((lo, hi - lo, buf, addr))
        if holes:
            self.extents.sort(key=lambda e: e[0])

    def pieces(self, off: int, end: int) -> Iterator[Tuple[int, int, int]]:
        """(object offset, size, host address) covering [off, end), which must exist (ensure)."""
        for o, n, _, addr in self.extents:
            lo, hi = max(o, off), min(o + n, end)
            if lo < hi:
                yield lo, hi - lo, addr + (lo - o)

    def read_into(self, data: bytearray, off: int = 0) -> None:
        """Copy the host memory that overlaps data's range [off, off+len(data)) into data."""
        end = off + len(data)
        for o, n, buf, _ in self.extents:
            lo, hi = max(o, off), min(o + n, end)
            if lo < hi:
                data[lo - off:hi - off] = buf[lo - o:hi - o]

    def write(self, off: int, data: bytes) -> None:
        """Write `data` at `off` into the host memory that exists there (the rest is not mapped)."""
        end = off + len(data)
        for o, n, buf, _ in self.extents:
            lo, hi = max(o, off), min(o + n, end)
            if lo < hi:
                buf[lo - o:hi - o] = data[lo - off:hi - off]

    def zero(self, off: int, end: int) -> None:
        for o, n, buf, _ in self.extents:
            lo, hi = max(o, off), min(o + n, end)
            if lo < hi:
                buf[lo - o:hi - o] = bytes(hi - lo)
