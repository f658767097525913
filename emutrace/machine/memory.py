"""The guest address space: the list of mappings (VMAs) behind mmap/munmap/mprotect/brk.

Unicorn holds the bytes; this module knows what each range is (permissions, name for
/proc/self/maps), where free space is, and how much the guest has mapped, so a memory bomb
gets ENOMEM at --max-mem instead of growing the host. Guest-visible reads and writes made on
the guest's behalf (syscall buffers) check the guest's permissions and raise GuestFault,
which the syscall layer turns into EFAULT.

MAP_SHARED mappings are backed by a SharedMemory: host memory allocated once and mapped into
every engine that maps it (Unicorn's mem_map_ptr), so processes see each other's writes.
"""
from __future__ import annotations

import bisect
import ctypes
import mmap
import struct
from typing import Callable, Iterator, List, Optional, Tuple

from unicorn import UcError

from . import tlb
from .record import record
from .tlb import uc_prot

PAGE = 0x1000
PROT_READ, PROT_WRITE, PROT_EXEC = 1, 2, 4

# Fixed addresses (no ASLR): what Linux picks with randomisation off.
PIE_BASE = 0x555555554000
MMAP_TOP = 0x7FFFF7FFF000
STACK_TOP = 0x7FFFFFFFF000
STACK_SIZE = 8 << 20
LOW_LIMIT = 0x10000          # vm.mmap_min_addr


class GuestFault(Exception):
    """An access on the guest's behalf to memory the guest may not access (EFAULT)."""

    def __init__(self, addr: int):
        super().__init__(f"bad guest address {addr:#x}")
        self.addr = addr


class OutOfMemory(Exception):
    """The guest asked for more memory than --max-mem allows (ENOMEM)."""


def page_up(x: int) -> int:
    return (x + PAGE - 1) & ~(PAGE - 1)


def page_down(x: int) -> int:
    return x & ~(PAGE - 1)


class SharedMemory:
    """The pages behind MAP_SHARED mappings: of one shmem/tmpfs file (an overlay file, a memfd)
    or of one shared anonymous mapping. Several address spaces (engines) map the same host
    memory, as Linux's page cache does.

    The host memory comes in extents (page-aligned ranges of the object, each one anonymous host
    mmap), created when a mapping first needs that range; a file mapped further on later gets
    a new extent, never a moved one, so the engines that map the older ones stay valid. A new
    extent starts as `fill(offset, size)` says (the file's bytes; zeros by default). The object
    lives as long as a Vma (or a futex queue) refers to it."""

    def __init__(self, fill: Optional[Callable[[int, int], bytes]] = None):
        self.fill = fill
        self.extents: List[Tuple[int, int, mmap.mmap, int]] = []     # (offset, size, buffer, host address)

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
        for lo, hi in holes:
            buf = mmap.mmap(-1, hi - lo)
            if self.fill is not None:
                data = self.fill(lo, hi - lo)
                if data:
                    buf[:len(data)] = data
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


@record
class Vma:
    start: int
    end: int
    prot: int
    name: str = ""
    offset: int = 0
    shm: Optional[SharedMemory] = None      # MAP_SHARED: the memory it shows ...
    shm_off: int = 0                        # ... from this offset of it

    def split(self, at: int) -> Tuple["Vma", "Vma"]:
        left = Vma(self.start, at, self.prot, self.name, self.offset, self.shm, self.shm_off)
        right = Vma(at, self.end, self.prot, self.name, self.offset + (at - self.start) if self.name else 0,
                    self.shm, self.shm_off + (at - self.start) if self.shm is not None else 0)
        return left, right


class AddressSpace:
    def __init__(self, uc, max_mem: int):
        self.uc = uc
        self.max_mem = max_mem
        self.vmas: List[Vma] = []
        self._starts: List[int] = []
        self.mapped = 0
        self.brk_start = 0
        self.brk = 0
        self.mmap_top = MMAP_TOP
        self.raw_read = lambda addr, size: bytes(uc.mem_read(addr, size))   # use_machine: faster ones
        self.raw_write = lambda addr, data: uc.mem_write(addr, bytes(data))
        self.denied = None            # (Unicorn error, address) of the last access refused
        tlb.attach(uc, self)

    def use_machine(self, machine) -> None:
        """Raw access through the machine's direct C calls, not the binding's (hot: every read(2))."""
        self.raw_read, self.raw_write = machine.read_fast, machine.write

    # -- lookup ------------------------------------------------------------
    def _reindex(self) -> None:
        self.vmas.sort(key=lambda v: v.start)
        self._starts = [v.start for v in self.vmas]
        self.page_perms.clear()             # the TLB fill's cache of page permissions (tlb.py)

    def find(self, addr: int) -> Optional[Vma]:
        i = bisect.bisect_right(self._starts, addr) - 1
        if i >= 0 and self.vmas[i].start <= addr < self.vmas[i].end:
            return self.vmas[i]
        return None

    def overlapping(self, start: int, end: int) -> List[Vma]:
        i = max(0, bisect.bisect_right(self._starts, start) - 1)
        out = []
        for v in self.vmas[i:]:
            if v.start >= end:
                break
            if v.end > start:
                out.append(v)
        return out

    def is_free(self, start: int, end: int) -> bool:
        return not self.overlapping(start, end)

    def find_free(self, size: int, top: Optional[int] = None) -> int:
        """Highest free range of `size` below `top` (top-down, as Linux's mmap)."""
        top = page_down(top or self.mmap_top)
        end = top
        for v in reversed(self.vmas):
            if v.start >= end:
                continue
            if v.end <= end and end - max(v.end, LOW_LIMIT) >= size:
                return end - size        # the gap [v.end, end) fits
            end = v.start
        if end - size >= LOW_LIMIT:
            return end - size
        raise OutOfMemory("address space exhausted")

    # -- changes -----------------------------------------------------------
    def map(self, start: int, size: int, prot: int, name: str = "", offset: int = 0) -> int:
        """Map [start, start+size) fresh (zero-filled); anything there is unmapped first."""
        size = page_up(size)
        if start & (PAGE - 1) or size <= 0 or start + size > 1 << 47:
            raise OutOfMemory("bad range")
        self.unmap(start, size)
        if self.mapped + size > self.max_mem:
            raise OutOfMemory(f"guest memory limit ({self.max_mem} bytes) reached")
        try:
            self.uc.mem_map(start, size, uc_prot(prot))
        except UcError as e:
            raise OutOfMemory(str(e)) from None
        self.mapped += size
        self.vmas.append(Vma(start, start + size, prot, name, offset))
        self._reindex()
        return start

    def map_shared(self, start: int, size: int, prot: int, shm: SharedMemory, shm_off: int,
                   name: str = "", offset: int = 0) -> int:
        """Map [start, start+size) onto shm's memory from shm_off: the same bytes as every other
        mapping of shm, in this engine or another. Anything there is unmapped first."""
        size = page_up(size)
        if start & (PAGE - 1) or shm_off & (PAGE - 1) or size <= 0 or start + size > 1 << 47:
            raise OutOfMemory("bad range")
        self.unmap(start, size)
        if self.mapped + size > self.max_mem:
            raise OutOfMemory(f"guest memory limit ({self.max_mem} bytes) reached")
        try:
            shm.ensure(shm_off, shm_off + size)
        except (OSError, ValueError) as e:
            raise OutOfMemory(str(e)) from None
        done = []
        try:
            for o, n, addr in shm.pieces(shm_off, shm_off + size):
                at = start + (o - shm_off)
                self.uc.mem_map_ptr(at, n, uc_prot(prot), addr)
                done.append((at, n))
        except UcError as e:
            for at, n in done:
                self.uc.mem_unmap(at, n)
            raise OutOfMemory(str(e)) from None
        self.mapped += size
        self.vmas.append(Vma(start, start + size, prot, name, offset, shm, shm_off))
        self._reindex()
        return start

    def guest_mapped(self) -> int:
        """What the program has mapped: emutrace's own pages ("[emutrace]": call-log rings and
        trampolines) are left out, so memory figures do not depend on how it is traced."""
        return self.mapped - sum(v.end - v.start for v in self.vmas if v.name == "[emutrace]")

    def shared(self) -> List[Vma]:
        return [v for v in self.vmas if v.shm is not None]

    def unmap(self, start: int, size: int) -> None:
        end = start + page_up(size)
        hit = self.overlapping(start, end)
        if not hit:
            return
        # Unicorn first, while the VMA list still answers its page lookups (emutrace/machine/tlb.py)
        with tlb.host_lookups(self, flush_after=False):     # the unmap flushes those pages
            for v in hit:
                lo, hi = max(v.start, start), min(v.end, end)
                self.uc.mem_unmap(lo, hi - lo)
        for v in hit:
            lo, hi = max(v.start, start), min(v.end, end)
            self.mapped -= hi - lo
            self.vmas.remove(v)
            if v.start < lo:
                self.vmas.append(v.split(lo)[0])
            if hi < v.end:
                self.vmas.append(v.split(hi)[1])
        self._reindex()

    def protect(self, start: int, size: int, prot: int) -> bool:
        """False when part of the range is unmapped (mprotect's ENOMEM)."""
        end = start + page_up(size)
        hit = self.overlapping(start, end)
        covered = sum(min(v.end, end) - max(v.start, start) for v in hit)
        if covered != end - start:
            return False
        with tlb.host_lookups(self):    # (the VMA list unchanged until Unicorn is done)
            for v in hit:
                lo, hi = max(v.start, start), min(v.end, end)
                self.uc.mem_protect(lo, hi - lo, uc_prot(prot))
                if (v.prot ^ prot) & PROT_EXEC:
                    # code translated from these pages (or written since without Unicorn
                    # watching: pages without exec have fast stores) must not outlive the change
                    self.uc.ctl_remove_cache(lo, hi)
        # (the flush ending the block: Unicorn flushes its TLB when write permission changes,
        # not for read or exec)
        for v in hit:
            lo, hi = max(v.start, start), min(v.end, end)
            self.vmas.remove(v)
            if v.start < lo:
                left, v = v.split(lo)
                self.vmas.append(left)
            if hi < v.end:
                v, right = v.split(hi)
                self.vmas.append(right)
            v.prot = prot
            self.vmas.append(v)
        self._reindex()
        return True

    def set_brk(self, new: int) -> int:
        if new < self.brk_start:
            return self.brk
        old_top, new_top = page_up(self.brk), page_up(new)
        try:
            if new_top > old_top:
                if not self.is_free(old_top, new_top):
                    return self.brk
                self.map(old_top, new_top - old_top, PROT_READ | PROT_WRITE, "[heap]")
            elif new_top < old_top:
                self.unmap(new_top, old_top - new_top)
        except OutOfMemory:
            return self.brk
        self.brk = new
        return new

    # -- guest-checked access ---------------------------------------------
    def check(self, addr: int, size: int, want: int) -> None:
        end = addr + size
        while addr < end:
            v = self.find(addr)
            if v is None or (v.prot & want) != want:
                raise GuestFault(addr)
            addr = v.end

    def read(self, addr: int, size: int) -> bytes:
        if size <= 0:
            return b""
        self.check(addr, size, PROT_READ)
        return self.raw_read(addr, size)

    def write(self, addr: int, data: bytes) -> None:
        if not data:
            return
        self.check(addr, len(data), PROT_WRITE)
        self.raw_write(addr, data)

    def read_u64(self, addr: int) -> int:
        return struct.unpack("<Q", self.read(addr, 8))[0]

    def write_u64(self, addr: int, v: int) -> None:
        self.write(addr, struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF))

    def write_u32(self, addr: int, v: int) -> None:
        self.write(addr, struct.pack("<I", v & 0xFFFFFFFF))

    def read_cstr(self, addr: int, limit: int = 4096) -> bytes:
        """A NUL-terminated string; GuestFault if it starts unmapped, ENAMETOOLONG-style cut at limit."""
        out = bytearray()
        while len(out) < limit:
            v = self.find(addr)
            if v is None or not v.prot & PROT_READ:
                raise GuestFault(addr)
            chunk = self.raw_read(addr, min(v.end - addr, 256, limit - len(out)))
            nul = chunk.find(b"\0")
            if nul >= 0:
                out += chunk[:nul]
                return bytes(out)
            out += chunk
            addr += len(chunk)
        return bytes(out)

    def read_ptr_array(self, addr: int, limit: int = 1 << 16) -> List[int]:
        out = []
        while addr and len(out) < limit:
            p = self.read_u64(addr)
            if p == 0:
                break
            out.append(p)
            addr += 8
        return out

    # -- decoder-facing (never raises) --------------------------------------
    def peek(self, addr: int, size: int) -> Optional[bytes]:
        try:
            return self.read(addr, size)
        except GuestFault:
            return None

    def cstring(self, addr: int, limit: int):
        """(bytes, terminated) for trace decoders, or None when unreadable."""
        if not addr:
            return None
        try:
            s = self.read_cstr(addr, limit + 1)
        except GuestFault:
            return None
        if len(s) > limit:
            return s[:limit], False
        return s, True

    def maps_text(self) -> str:
        lines = []
        for v in self.vmas:
            perms = ("r" if v.prot & 1 else "-") + ("w" if v.prot & 2 else "-") + ("x" if v.prot & 4 else "-") \
                + ("s" if v.shm is not None else "p")
            name = v.name
            ino = 0
            lines.append(f"{v.start:08x}-{v.end:08x} {perms} {v.offset:08x} 00:00 {ino:<10d}" + (f" {name}" if name else ""))
        return "\n".join(lines) + "\n"


class MemView:
    """The `mem` object trace decoders receive: read(addr,size)->bytes|None, cstring(addr,limit)."""

    __slots__ = ("aspace",)

    def __init__(self, aspace: AddressSpace):
        self.aspace = aspace

    def read(self, addr: int, size: int) -> Optional[bytes]:
        return self.aspace.peek(addr, size)

    def cstring(self, addr: int, limit: int):
        return self.aspace.cstring(addr, limit)
