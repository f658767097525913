"""Reads and writes made on the guest's behalf (system-call buffers, the loader's stack, the
decoders' views): each checks the guest's permissions in the address space's mappings and
raises GuestFault (EFAULT to the guest) where the guest itself would fault. AddressSpace
(memory.py) takes them from GuestAccess; MemView is the never-raising reader the trace
decoders get.
"""
from __future__ import annotations

import bisect
import mmap
import struct
from typing import List, Optional, Tuple
from emutrace.machine import tlb
from emutrace.linux.mman import PROT_EXEC, PROT_READ, PROT_WRITE
from emutrace.machine.pages import PAGE, page_down

WINDOWS_KEPT = 64            # write windows an address space remembers (write_window)


class GuestFault(Exception):
    """An access on the guest's behalf to memory the guest may not access (EFAULT)."""

    def __init__(self, addr: int):
        super().__init__(f"bad guest address {addr:#x}")
        self.addr = addr



class GuestAccess:
    """The guest-checked access of an AddressSpace (memory.py), which holds the mappings,
    the Backings and the engine it reads."""

    # -- guest-checked access ---------------------------------------------
    def check(self, addr: int, size: int, want: int) -> bool:
        """GuestFault unless the guest may access [addr, addr+size) as `want` says; then True
        when part of it may hold code (a mapping with exec, or a shared one, which another view
        may show with exec): a write there must drop_written_code."""
        end = addr + size
        start = addr
        starts, vmas = self._starts, self.vmas
        code = False
        while addr < end:
            i = bisect.bisect_right(starts, addr) - 1        # (find, written out: most system
            v = vmas[i] if i >= 0 else None                  # calls check a buffer)
            if v is None or v.end <= addr or (v.prot & want) != want:
                raise GuestFault(addr)
            if v.prot & PROT_EXEC or v.shm is not None:
                code = True
            if v.noreserve and want & PROT_WRITE:
                # written on the guest's behalf: charged as the guest's own stores are (tlb.py)
                for page in range(page_down(addr), min(v.end, end), PAGE):
                    if not self.touch(page):
                        raise self.budget.refuse()
            addr = v.end
        if want & PROT_WRITE and self.code_watch is not None:
            # written on the guest's behalf: a page that may hold code must come back to the fill
            if self.code_watch.system_write(start, end) or code:
                tlb.forget(self.page_perms, start, end)
                tlb.flush(self.uc)
        return code

    def drop_written_code(self, start: int, end: int) -> None:
        """Unicorn forgets code translated from [start, end), which was just written on the
        guest's behalf, and from the executable views of shared memory written there. Unicorn's
        own writes (uc_mem_write) do not: code a read(2) stored into an RWX page, over code that
        had run, ran stale (bins/codeio). The guest's own stores to such pages are watched by
        Unicorn (RWX) or by the alias hooks (_watch_code_aliases)."""
        code = []
        for v in self.overlapping(start, end):
            lo, hi = max(v.start, start), min(v.end, end)
            if v.prot & PROT_EXEC:
                code.append((lo, hi))
            if v.shm is not None and self._alias_hooks:     # (a writable view with code elsewhere
                for x in self.vmas:                           # has its alias hook)
                    if x is not v and x.shm is v.shm and x.prot & PROT_EXEC:
                        # the part of x showing the same bytes of the shared memory as [lo, hi)
                        a = max(x.start, x.start + (v.shm_off + (lo - v.start)) - x.shm_off)
                        b = min(x.end, x.start + (v.shm_off + (hi - v.start)) - x.shm_off)
                        if a < b:
                            code.append((a, b))
        if code:
            with tlb.host_lookups(self, flush_after=False):
                for a, b in code:
                    self.drop_translations(a, b)

    def drop_translations(self, lo: int, hi: int) -> None:
        """Unicorn drops its translations of [lo, hi), and the engine's instruction counter its
        counts of the blocks there: code translated again from other bytes at the same address
        and size is counted from those bytes (the counter's forget)."""
        self.uc.ctl_remove_cache(lo, hi)
        suspects = getattr(self, "suspects", None)
        if suspects:                    # (a reused engine's pages: emutrace/machine/reuse.py)
            for page in ([p for p in suspects if lo <= p < hi] if (hi - lo) >> 12 > len(suspects)
                         else range(lo & ~0xFFF, hi, 0x1000)):
                suspects.pop(page, None)
        machine = self.machine
        if machine is not None:
            machine.counter.forget(lo, hi)

    def write_window(self, addr: int, size: int) -> Optional[Tuple[int, "mmap.mmap", int]]:
        """Where a write of up to `size` bytes at addr, which check(addr, size, PROT_WRITE) has
        allowed, may go straight into host memory: (room, host memory, offset of addr in it),
        with room >= size bytes from addr inside one mapping and one Backing; or None, and the
        write goes through raw_write. Remembered in `windows` until the mappings change.

        Only private mappings without exec and without MAP_NORESERVE have windows. Unicorn
        drops translated code when it writes memory itself (uc_mem_write: QEMU's check for
        self-modifying code); a store into host memory is unseen by it. No code is translated
        from a page without exec (the TLB fill refuses the fetch), and code translated while a
        page had exec is dropped when mprotect takes exec away or gives it (protect), so such a
        store is what the guest's own store to that page is: a fast one. Shared mappings may be
        executable in another view (_watch_code_aliases), and a MAP_NORESERVE page is charged
        by check() when first written."""
        v = self.find(addr)
        if v is None or v.prot & (PROT_WRITE | PROT_EXEC) != PROT_WRITE or v.shm is not None or v.noreserve:
            return None
        k = bisect.bisect_right(self._bstarts, addr) - 1
        if k < 0:
            return None
        b = self.backs[k]
        room = min(v.end, b.end) - addr
        if room < size:
            return None
        if len(self.windows) >= WINDOWS_KEPT:
            self.windows = {}
        window = self.windows[addr] = (room, b.buf.memory, b.buf_off + (addr - b.start))
        return window

    def read(self, addr: int, size: int) -> bytes:
        if size <= 0:
            return b""
        self.check(addr, size, PROT_READ)
        return self.raw_read(addr, size)

    def write(self, addr: int, data: bytes) -> None:
        if not data:
            return
        if self.check(addr, len(data), PROT_WRITE):
            self.raw_write(addr, data)
            self.drop_written_code(addr, addr + len(data))
        else:
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


class MemView:
    """The `mem` object trace decoders receive: an address space as a reader.GuestReader."""

    __slots__ = ("aspace",)

    def __init__(self, aspace: GuestAccess):
        self.aspace = aspace

    def read(self, addr: int, size: int) -> Optional[bytes]:
        return self.aspace.peek(addr, size)

    def cstring(self, addr: int, limit: int):
        return self.aspace.cstring(addr, limit)
