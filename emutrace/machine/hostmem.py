"""Host memory behind guest pages: anonymous host mappings committed lazily by the host kernel.

A HostBuffer is one anonymous private host mapping made with Python's mmap module (every host
Python has it). Untouched pages cost nothing: the host commits a page when it is first written.
Three things the guest address space needs from it:

- `release(off, size)`: give the pages back to the host; they read as zeros afterwards (what
  munmap, MADV_DONTNEED and a shrinking brk mean for the guest). madvise(MADV_DONTNEED) where the
  host has it (Linux: private anonymous pages are dropped and read back as zeros); elsewhere the
  range is cleared, which keeps the guest's view right but not the host's memory figure.
- `touched(off, size)`: the runs of pages the host holds (written, or read since the mapping was
  made), so fork and mremap copy only those. mincore(2) where the host C library has it; elsewhere
  every 64 KiB chunk that is not all zeros.
- `address`: where Unicorn finds the bytes (uc_mem_map_ptr).

MAP_NORESERVE keeps a host in overcommit mode 0 or 1 from charging the whole reservation at once;
a host in strict mode (2) may refuse a large one, which the guest sees as ENOMEM.
"""
from __future__ import annotations

import ctypes
import mmap
import re
from typing import Iterator, Optional, Tuple

PAGE = 0x1000
SCAN_CHUNK = 64 << 10             # the fallback's granularity for "touched"
MINCORE_SPAN = 1 << 30            # address range per mincore call (a 256 KiB result vector)

# Linux's and the BSDs' value; Python's mmap module names it only from 3.13 on
_MAP_NORESERVE = getattr(mmap, "MAP_NORESERVE", 0x4000 if hasattr(mmap, "MAP_POPULATE") else 0)
_MADV_DONTNEED = getattr(mmap, "MADV_DONTNEED", None)
_RESIDENT = re.compile(rb"[^\x00]+")      # runs of resident pages in a mincore vector


def _libc_mincore():
    # the C library already loaded into this process (not ctypes.util.find_library, which
    # runs ldconfig or a compiler in a child process)
    try:
        fn = ctypes.CDLL(None, use_errno=True).mincore
    except (OSError, AttributeError, TypeError):          # (Windows: CDLL(None) is a TypeError)
        return None
    fn.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p)
    fn.restype = ctypes.c_int
    return fn


_mincore = _libc_mincore()


class HostBuffer:
    """`size` bytes of anonymous host memory, zero-filled and committed page by page on use."""

    __slots__ = ("size", "_map", "_pin", "address")

    def __init__(self, size: int):
        flags = getattr(mmap, "MAP_PRIVATE", 0) | getattr(mmap, "MAP_ANONYMOUS", 0) | _MAP_NORESERVE
        try:
            self._map = mmap.mmap(-1, size, flags=flags) if flags else mmap.mmap(-1, size)
        except TypeError:                                   # Windows: no flags argument
            self._map = mmap.mmap(-1, size)
        self.size = size
        self._pin = ctypes.c_char.from_buffer(self._map)   # (the export keeps the mapping in place)
        self.address = ctypes.addressof(self._pin)

    @property
    def memory(self) -> mmap.mmap:
        """The memory as a Python buffer: `b.memory[off:off + n] = data` stores without a C call
        of Unicorn's, bounds-checked (a closed buffer raises ValueError, never touches memory)."""
        return self._map

    def release(self, off: int, size: int) -> None:
        """Return [off, off+size) (page-aligned) to the host; it reads as zeros afterwards."""
        if size <= 0:
            return
        if _MADV_DONTNEED is not None:
            try:
                self._map.madvise(_MADV_DONTNEED, off, size)
                return
            except OSError:
                pass
        ctypes.memset(self.address + off, 0, size)

    def touched(self, off: int, size: int) -> Iterator[Tuple[int, int]]:
        """(offset, size) runs inside [off, off+size) that may hold non-zero bytes."""
        end = off + size
        if _mincore is not None:
            vec = ctypes.create_string_buffer(min(MINCORE_SPAN, size) // PAGE + 1)
            pos = off
            while pos < end:
                n = min(MINCORE_SPAN, end - pos)
                if _mincore(self.address + pos, n, vec) != 0:
                    break                                   # (fall back to scanning the rest)
                for m in _RESIDENT.finditer(ctypes.string_at(vec, n // PAGE)):
                    yield pos + m.start() * PAGE, (m.end() - m.start()) * PAGE
                pos += n
            else:
                return
            off = pos
        zero = bytes(SCAN_CHUNK)
        pos = off
        while pos < end:
            n = min(SCAN_CHUNK, end - pos)
            if ctypes.string_at(self.address + pos, n) != zero[:n]:
                yield pos, n
            pos += n

    def close(self) -> None:
        self._pin = None
        try:
            self._map.close()
        except BufferError:             # still exported somewhere: the host frees it at exit
            pass


# Host address space all guest memory may reserve together (one host process runs every guest
# process): a 47-bit host has 128 TiB, and Python needs some of it for itself.
VA_BUDGET = (1 << 46) + (1 << 44)
_reserved = [0]


def reserve(size: int) -> bool:
    """Claim `size` bytes of the budget; False when it would be exceeded."""
    if _reserved[0] + size > VA_BUDGET:
        return False
    _reserved[0] += size
    return True


def unreserve(size: int) -> None:
    _reserved[0] -= size


# Files at least this large are read as a view of the host file, not a copy (file_view).
FILE_VIEW_MIN = 1 << 20


def file_view(f, size: int):
    """The whole of the open host file `f` (`size` bytes) as a read-only mapping, which slices,
    struct.unpack_from and find read as they read bytes, or None (a small file, a member of a
    tar root, a host that cannot map it): then the caller reads a copy. Pages come from the
    host's page cache as they are read, so a 100 MB program (node) costs the host what its
    loader and tracer read of it, not 100 MB of Python bytes for the whole run."""
    if size < FILE_VIEW_MIN:
        return None
    try:
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError, AttributeError, TypeError, OverflowError):
        return None


def forget_resident(view, start: int = 0, size: int = -1) -> None:
    """The pages of a file_view in [start, start+size) (all of it by default) leave this
    process's resident set (the host's page cache keeps them; a later read faults them back):
    as a program's segments are copied into guest memory. Nothing where the host has no
    madvise, or for a copy."""
    if _MADV_DONTNEED is None or not isinstance(view, mmap.mmap):
        return
    lo = start & ~(PAGE - 1)
    hi = len(view) if size < 0 else min(len(view), start + size)
    if hi > lo:
        try:
            view.madvise(_MADV_DONTNEED, lo, hi - lo)
        except (OSError, ValueError):
            pass


def new_buffer(size: int) -> Optional[HostBuffer]:
    """A HostBuffer, or None when the host refuses the reservation."""
    try:
        return HostBuffer(size)
    except (OSError, ValueError, OverflowError, MemoryError):
        return None
