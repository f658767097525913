"""The guest address space: the list of mappings (VMAs) behind mmap/munmap/mprotect/brk.

emutrace owns the bytes: private mappings sit on Backings, large lazily committed host
reservations (emutrace/hostmem.py) that Unicorn maps once with mem_map_ptr and never splits;
mprotect, munmap and mremap change only the VMAs (and Unicorn's TLB, filled from them by
emutrace/tlb.py), return released pages to the host, and drop translated code only where exec
changes. This module knows what each range is (permissions, name for /proc/self/maps), where free
space is, and how much the guest has mapped and committed, so a memory bomb gets ENOMEM at
--max-mem instead of growing the host. Guest-visible reads and writes made on
the guest's behalf (syscall buffers) check the guest's permissions and raise GuestFault,
which the syscall layer turns into EFAULT.

MAP_SHARED mappings are backed by a SharedMemory (shm.py): host memory allocated once and mapped
into every engine that maps it (Unicorn's mem_map_ptr), so processes see each other's writes.
Beside this module: the mapping records (vma.py), pages and the fixed layout (pages.py), the
--max-mem budget (budget.py), and the guest-checked reads and writes (guestaccess.py).
"""
from __future__ import annotations

import bisect
import ctypes
from typing import Iterator, List, Optional, Tuple

from unicorn import UC_HOOK_MEM_WRITE, UcError

from unicorn import unicorn_const as UCC

from emutrace.machine import enginehooks, hostmem, tlb
from emutrace.machine.codewatch import CodeWatch
from emutrace.linux.mman import PROT_EXEC, PROT_READ, PROT_WRITE
from emutrace.machine.budget import MemoryBudget, OutOfMemory
from emutrace.machine.guestaccess import GuestAccess, GuestFault
from emutrace.machine.pages import ADDRESS_TOP, LOW_LIMIT, MMAP_TOP, PAGE, page_down, page_up
from emutrace.machine.shm import SharedMemory
from emutrace.machine.vma import Backing, Vma

MAX_MAP_COUNT = 65530        # vm.max_map_count's default
SLAB = 2 << 20               # host memory comes in Backings aligned to this


def _closed_access(addr: int, *_):
    raise GuestFault(addr)


class AddressSpace(GuestAccess):
    """The guest's mappings (VMAs) and the host memory under them (Backings).

    Memory counts: `mapped` is every byte of every mapping (what RLIMIT_AS limits); `committed`
    is what --max-mem limits, counted as Linux's overcommit accounting does: private writable
    mappings without MAP_NORESERVE (charged when mapped, or when mprotect first makes them
    writable) and shared ones by their size, plus each page of a MAP_NORESERVE mapping once the
    guest writes to it. PROT_NONE and read-only reservations are not charged."""

    def __init__(self, uc, budget, engine_cost: int = 0):
        """`budget`: the run's MemoryBudget (or an int: a budget of that size for this address
        space alone); `engine_cost`: what the engine under it costs the host, charged with it
        (OutOfMemory when that does not fit)."""
        self.uc = uc
        self.budget = budget if isinstance(budget, MemoryBudget) else MemoryBudget(budget)
        if not self.budget.fits(engine_cost):
            raise self.budget.refuse()
        self.engine_cost = engine_cost
        self._charged = 0                    # what this address space has in the budget now
        self.users = 0                       # processes on it (adopt/leave); at 0 it is retired
        self.vmas: List[Vma] = []
        self._starts: List[int] = []
        self.backs: List[Backing] = []
        self._bstarts: List[int] = []
        self.mapped = 0
        self.committed = 0                   # accounted mappings' bytes (see the class docstring)
        self.nr_touched: set = set()         # pages of MAP_NORESERVE mappings written to
        self._settle()
        self.brk_start = 0
        self.brk = 0
        self.mmap_top = MMAP_TOP
        self.raw_read = lambda addr, size: bytes(uc.mem_read(addr, size))   # use_machine: faster ones
        self.raw_write = lambda addr, data: uc.mem_write(addr, bytes(data))
        self.denied = None            # (Unicorn error, address) of the last access refused
        self.windows: dict = {}       # write windows by guest address (write_window); any change of
                                      # the mappings or of the host memory under them empties it
        self._alias_hooks: List[int] = []    # write hooks on shared views of code (_watch_code_aliases)
        self.code_watch: Optional[CodeWatch] = None     # written-then-executed pages (codewatch.py)
        # a reused engine's pages whose translations may be stale -> digest (reuse.py), and the
        # pages this process's TLB fill gave execute (digested when the engine is pooled)
        self.suspects: dict = {}
        self.exec_seen: set = set()
        self.claimed = None         # (reuse.Claims: the slabs this process backed, on a reused engine)
        self.resolve_suspect = None  # (reuse.resolve, on a reused engine)
        tlb.attach(uc, self)

    def watch_code(self, hooks) -> None:
        """Report memory written and then executed on hooks' `code_unpacked` phase (codewatch.py),
        from now on. Before any guest code runs."""
        self.code_watch = CodeWatch(self, hooks)
    def dispose(self) -> None:
        """Forget the engine and the host memory this address space holds (Machine.dispose)."""
        self.__dict__.clear()

    @property
    def max_mem(self) -> int:
        return self.budget.limit

    def _settle(self) -> None:
        """The budget learns what this address space holds now."""
        now = self.committed + len(self.nr_touched) * PAGE + self.engine_cost
        self.budget.used += now - self._charged
        self._charged = now

    def adopt(self) -> None:
        """One more process runs on this address space (a new program, a fork, a vfork child)."""
        self.users += 1

    def leave(self) -> None:
        """A process no longer runs on it (it ended or exec'd): with the last one, everything
        it held goes back to the budget. Its pages stay readable (the first process is looked
        at after the run), but nothing it maps any more is charged to the run."""
        self.users -= 1
        if self.users <= 0:
            self.budget.used -= self._charged
            self._charged = 0
            self.budget = MemoryBudget(self.budget.limit)
            self._settle()

    def use_machine(self, machine) -> None:
        """Raw access through the machine's direct C calls, not the binding's (hot: every read(2));
        the machine is the engine under this address space, closed with it (close)."""
        self.raw_read, self.raw_write = machine.read_fast, machine.write
        self.machine = machine

    machine = None              # the Machine whose engine maps this address space (use_machine)
    over_budget = None          # the MAP_NORESERVE page whose first write --max-mem refused last (touch)
    closed = False              # True once close() gave everything back

    def close(self, keep_engine: bool = False) -> None:
        """Give the host everything now, with no process left on it (users 0, after leave()):
        the host buffers under private mappings, the references to shared memory, the engine
        (Machine.close: uc_close; with keep_engine, Machine.reset_engine: the engine stays, with
        no hook and no mapping, for another address space). Not from inside the engine's own
        emu_start (see Machine.close). What stays is an empty address space: reads of it raise
        GuestFault."""
        if self.closed:
            return
        machine = self.machine
        if machine is not None:              # (first: the engine stops pointing into the buffers)
            machine.reset_engine() if keep_engine else machine.close()
        for buf in {id(b.buf): b.buf for b in self.backs}.values():    # (pieces may share one)
            hostmem.unreserve(buf.size)
            buf.close()
        self.backs, self._bstarts = [], []
        self.vmas, self._starts = [], []
        self.windows = {}
        self.nr_touched = set()
        self._alias_hooks = []
        self.page_perms = {}
        self._tlb_fill = None                # (a compiled hook holding a closure over self)
        self.raw_read = self.raw_write = _closed_access
        self.uc = self.machine = None
        self.closed = True

    # -- lookup ------------------------------------------------------------
    def _span(self, start: int, end: int) -> Tuple[int, int]:
        """Indices [i, j) of the mappings overlapping [start, end)."""
        i = bisect.bisect_right(self._starts, start) - 1
        if i < 0 or self.vmas[i].end <= start:
            i += 1
        j = bisect.bisect_left(self._starts, end, i)
        return i, j

    def _replace(self, i: int, j: int, new: List[Vma], start: int = 0, end: int = 0) -> None:
        """Mappings i..j-1 become `new` (sorted, covering what they leave of that place); the
        counters follow, and neighbours Linux would merge are merged. Permissions changed only
        in [start, end) when that is given (the TLB fill's cache forgets just those pages)."""
        vmas = self.vmas
        mapped, committed = self.mapped, self.committed
        for v in vmas[i:j]:
            mapped -= v.end - v.start
            if v.account:
                committed -= v.end - v.start
        for v in new:
            mapped += v.end - v.start
            if v.account:
                committed += v.end - v.start
        self.mapped, self.committed = mapped, committed
        self._settle()
        if self.windows:
            self.windows = {}
        vmas[i:j] = new
        self._starts[i:j] = [v.start for v in new]
        # merge around the change (a JIT's mprotect back and forth must not pile up mappings)
        k = max(i - 1, 0)
        hi = min(i + len(new) + 1, len(vmas))
        while k + 1 < hi:
            a, b = vmas[k], vmas[k + 1]
            if a.end == b.start and a.prot == b.prot and a.joins(b):    # (the cheap tests first)
                vmas[k:k + 2] = [a.piece(a.start, b.end)]   # (a fresh record: others may hold a)
                del self._starts[k + 1]
                hi -= 1
            else:
                k += 1
        perms = self.page_perms             # the TLB fill's cache of page permissions (tlb.py)
        if not end:
            perms.clear()
        elif (end - start) // PAGE < 64:
            for page in range(start, end, PAGE):
                perms.pop(page, None)
        else:
            tlb.forget(perms, start, end)

    def find(self, addr: int) -> Optional[Vma]:
        i = bisect.bisect_right(self._starts, addr) - 1
        if i >= 0 and self.vmas[i].start <= addr < self.vmas[i].end:
            return self.vmas[i]
        return None

    def overlapping(self, start: int, end: int) -> List[Vma]:
        i, j = self._span(start, end)
        return self.vmas[i:j]

    def is_free(self, start: int, end: int) -> bool:
        i, j = self._span(start, end)
        return i >= j

    def find_free(self, size: int, top: Optional[int] = None, shared: bool = False) -> int:
        """Highest free range of `size` below `top` (top-down, as Linux's mmap). A shared
        mapping also keeps out of the host memory under private ones (Backings): Unicorn maps
        it on memory of its own, and carving a Backing costs a walk of all its pages."""
        top = page_down(top or self.mmap_top)
        taken = self.vmas
        # (on a reused engine, the Backings a new engine would have: reuse.py's `claimed`; the
        # adopted ones must not move the guest's shared mappings)
        backs = self.backs if self.claimed is None else self.claimed.slabs
        if shared and backs:
            taken = sorted([*self.vmas, *backs], key=lambda r: r.start)
        end = top
        for v in reversed(taken):
            if v.start >= end:
                continue
            if v.end <= end and end - max(v.end, LOW_LIMIT) >= size:
                return end - size        # the gap [v.end, end) fits
            end = min(end, v.start)
        if end - size >= LOW_LIMIT:
            return end - size
        raise OutOfMemory("address space exhausted")

    # -- host memory (Backings) ----------------------------------------------
    def _back_span(self, start: int, end: int) -> Tuple[int, int]:
        i = bisect.bisect_right(self._bstarts, start) - 1
        if i < 0 or self.backs[i].end <= start:
            i += 1
        return i, bisect.bisect_left(self._bstarts, end, i)

    def host_pieces(self, start: int, end: int) -> Iterator[Tuple[int, int, int]]:
        """(guest address, size, host address) of the backed parts of [start, end)."""
        i, j = self._back_span(start, end)
        for b in self.backs[i:j]:
            lo, hi = max(b.start, start), min(b.end, end)
            yield lo, hi - lo, b.host(lo)

    def back(self, start: int, end: int) -> None:
        """Host memory under every page of [start, end): new Backings, in SLAB-aligned pieces,
        where none is yet (and no shared mapping is). OutOfMemory when the host refuses."""
        if self.claimed is not None:
            self.claimed.claim(start, end)
        k = bisect.bisect_right(self._bstarts, start) - 1
        if k >= 0 and self.backs[k].end >= end:
            return                                          # (the common case: all there)
        lo = max(start & ~(SLAB - 1), 0)
        hi = min((end + SLAB - 1) & ~(SLAB - 1), ADDRESS_TOP)
        i, j = self._back_span(lo, hi)
        taken = [(b.start, b.end) for b in self.backs[i:j]]
        taken += [(v.start, v.end) for v in self.overlapping(lo, hi) if v.shm is not None]
        taken.sort()
        pos = lo
        for a, b in taken + [(hi, hi)]:
            if a > pos and a > start and pos < end:          # a free piece touching [start, end)
                self._new_backing(pos, a)
            pos = max(pos, b)

    def _new_backing(self, start: int, end: int) -> None:
        size = end - start
        if not hostmem.reserve(size):
            self._drop_empty_backings()
            if not hostmem.reserve(size):
                raise OutOfMemory("host address space for guest memory exhausted")
        buf = hostmem.new_buffer(size)
        if buf is None:
            hostmem.unreserve(size)
            raise OutOfMemory("the host refused the memory")
        try:
            self.uc.mem_map_ptr(start, size, UCC.UC_PROT_ALL, buf.address)
        except UcError as e:
            buf.close()
            hostmem.unreserve(size)
            raise OutOfMemory(str(e)) from None
        b = Backing(start, end, buf)
        k = bisect.bisect_left(self._bstarts, start)
        self.backs.insert(k, b)
        self._bstarts.insert(k, start)

    def _carve(self, start: int, end: int) -> None:
        """No Backing under [start, end) (a shared mapping goes there): Unicorn drops that part
        of its regions (mem_map_ptr regions split without copying) and the host gets the
        pages back."""
        i, j = self._back_span(start, end)
        if i >= j:
            return
        pieces: List[Backing] = []
        for b in self.backs[i:j]:
            lo, hi = max(b.start, start), min(b.end, end)
            with tlb.host_lookups(self, flush_after=False):
                self.uc.mem_unmap(lo, hi - lo)
            b.buf.release(b.buf_off + lo - b.start, hi - lo)
            if b.start < lo:
                pieces.append(Backing(b.start, lo, b.buf, b.buf_off))
            if hi < b.end:
                pieces.append(Backing(hi, b.end, b.buf, b.buf_off + hi - b.start))
            if b.start >= lo and hi >= b.end:
                self._close_buffer(b)
        self.backs[i:j] = pieces
        self._bstarts[i:j] = [b.start for b in pieces]
        self.windows = {}

    def _close_buffer(self, gone: Backing) -> None:
        if not any(b.buf is gone.buf for b in self.backs if b is not gone):
            hostmem.unreserve(gone.buf.size)
            gone.buf.close()

    def _drop_empty_backings(self) -> None:
        """Give Unicorn and the host back the Backings no mapping uses (when host address space
        runs short: this walks their pages, see Backing)."""
        keep = []
        for b in self.backs:
            if self.is_free(b.start, b.end):
                with tlb.host_lookups(self, flush_after=False):
                    self.uc.mem_unmap(b.start, b.end - b.start)
                self._close_buffer(b)
            else:
                keep.append(b)
        self.backs = keep
        self._bstarts = [b.start for b in keep]
        self.windows = {}

    def release(self, start: int, end: int) -> None:
        """The host takes back the pages of [start, end); they read as zeros afterwards."""
        for lo, n, _ in self.host_pieces(start, end):
            b = self.backs[bisect.bisect_right(self._bstarts, lo) - 1]
            b.buf.release(b.buf_off + lo - b.start, n)
        if self.nr_touched:
            self._untouch(start, end)

    def _untouch(self, start: int, end: int) -> None:
        pages = self.nr_touched
        if (end - start) // PAGE < len(pages):
            for p in range(start, end, PAGE):
                pages.discard(p)
        else:
            pages.difference_update([p for p in pages if start <= p < end])
        self._settle()

    # -- commit charge ---------------------------------------------------------
    def charge(self, size: int) -> None:
        """OutOfMemory unless `size` more bytes fit under --max-mem (with what every other
        process of the run holds)."""
        if not self.budget.fits(size):
            raise self.budget.refuse()

    def touch(self, page: int) -> bool:
        """A MAP_NORESERVE page is written for the first time: False when that is over --max-mem."""
        if page in self.nr_touched:
            return True
        if not self.budget.fits(PAGE):
            self.over_budget = page          # (the session ends the process as Linux's OOM killer)
            return False
        self.nr_touched.add(page)
        self._settle()
        return True

    # -- changes -----------------------------------------------------------
    def _drop_code(self, start: int, end: int) -> None:
        """Unicorn forgets code translated from the executable mappings in [start, end): called
        before they change, while they still answer Unicorn's page lookups (emutrace/tlb.py)."""
        with tlb.host_lookups(self, flush_after=False):
            for v in self.overlapping(start, end):
                if v.prot & PROT_EXEC:
                    self.drop_translations(max(v.start, start), min(v.end, end))

    def drop_code(self) -> None:
        """Unicorn forgets every translation of this address space's code (a hook added on
        every instruction, from inside a hook, where dropping the whole cache is not safe:
        Unicorn 2.1.4 then chains the block it ran into freed code)."""
        self._drop_code(0, 1 << 64)

    def map(self, start: int, size: int, prot: int, name: str = "", offset: int = 0,
            noreserve: bool = False, contents: bool = False) -> int:
        """Map [start, start+size) fresh (zero-filled); anything there is unmapped first.
        Host memory comes now for pages the guest may touch, or the caller fills (`contents`);
        a PROT_NONE reservation gets it when mprotect opens it."""
        size = page_up(size)
        if start & (PAGE - 1) or size <= 0 or start + size > ADDRESS_TOP:
            raise OutOfMemory("bad range")
        account = bool(prot & PROT_WRITE) and not noreserve
        self.unmap(start, size)
        if account:
            self.charge(size)
        self._check_count(1)
        if prot or contents:
            self.back(start, start + size)
        i, j = self._span(start, start + size)
        self._replace(i, j, [Vma(start, start + size, prot, name, offset, None, 0, noreserve, account)],
                      start, start + size)
        return start            # (no TLB flush: unmap flushed whatever was there)

    def _check_count(self, more: int) -> None:
        if len(self.vmas) + more > MAX_MAP_COUNT:
            raise OutOfMemory("vm.max_map_count reached")

    def map_shared(self, start: int, size: int, prot: int, shm: SharedMemory, shm_off: int,
                   name: str = "", offset: int = 0, noreserve: bool = False) -> int:
        """Map [start, start+size) onto shm's memory from shm_off: the same bytes as every other
        mapping of shm, in this engine or another. Anything there is unmapped first."""
        size = page_up(size)
        if start & (PAGE - 1) or shm_off & (PAGE - 1) or size <= 0 or start + size > ADDRESS_TOP:
            raise OutOfMemory("bad range")
        self.unmap(start, size)
        if not noreserve:
            self.charge(size)
        self._check_count(1)
        try:
            shm.ensure(shm_off, shm_off + size)
        except (OSError, ValueError) as e:
            raise OutOfMemory(str(e)) from None
        self._carve(start, start + size)
        done = []
        try:
            for o, n, addr in shm.pieces(shm_off, shm_off + size):
                at = start + (o - shm_off)
                self.uc.mem_map_ptr(at, n, UCC.UC_PROT_ALL, addr)     # (the TLB fill decides)
                done.append((at, n))
        except UcError as e:
            for at, n in done:
                self.uc.mem_unmap(at, n)
            raise OutOfMemory(str(e)) from None
        i, j = self._span(start, start + size)
        self._replace(i, j, [Vma(start, start + size, prot, name, offset, shm, shm_off, noreserve,
                                 not noreserve)])
        self._watch_code_aliases()
        return start

    def guest_mapped(self) -> int:
        """What the program has mapped: emutrace's own pages ("[emutrace]": call-log rings and
        trampolines) are left out, so memory figures do not depend on how it is traced."""
        return self.mapped - sum(v.end - v.start for v in self.vmas if v.name == "[emutrace]")

    def shared(self) -> List[Vma]:
        return [v for v in self.vmas if v.shm is not None]

    def unmap(self, start: int, size: int) -> None:
        end = start + page_up(size)
        i, j = self._span(start, end)
        if i >= j:
            return
        if self.code_watch is not None:
            self.code_watch.forget(start, end)
        hit = self.vmas[i:j]
        if len(hit) == 1 and hit[0].start < start and hit[0].end > end:
            self._check_count(1)                    # a hole in one mapping makes two of it
        self._drop_code(start, end)
        # shared memory is Unicorn's own region per mapping: those go from Unicorn (their
        # host memory belongs to the SharedMemory)
        with tlb.host_lookups(self, flush_after=False):
            for v in hit:
                if v.shm is not None:
                    lo, hi = max(v.start, start), min(v.end, end)
                    self.uc.mem_unmap(lo, hi - lo)
        new = []
        if hit[0].start < start:
            new.append(hit[0].split(start)[0])
        if hit[-1].end > end:
            new.append(hit[-1].split(end)[1])
        self._replace(i, j, new, start, end)
        self.release(start, end)
        tlb.flush(self.uc)
        if self._alias_hooks or any(v.shm is not None for v in hit):
            self._watch_code_aliases()

    def protect(self, start: int, size: int, prot: int) -> bool:
        """False when part of the range is unmapped (mprotect's ENOMEM). OutOfMemory when it
        would make more mappings than vm.max_map_count, or commit more than --max-mem."""
        end = start + page_up(size)
        i, j = self._span(start, end)
        if j == i + 1:
            v = self.vmas[i]
            if v.start <= start and end <= v.end and v.shm is None:
                return self._protect_inside(i, v, start, end, prot)
        hit = self.vmas[i:j]
        covered = sum(min(v.end, end) - max(v.start, start) for v in hit)
        if covered != end - start:
            return False
        if all(v.prot == prot for v in hit):
            return True
        splits = (hit[0].start < start) + (hit[-1].end > end)
        if splits:
            self._check_count(splits)
        charge = sum(min(v.end, end) - max(v.start, start) for v in hit
                     if prot & PROT_WRITE and not v.account and not v.noreserve and v.shm is None)
        if charge:
            self.charge(charge)
        if prot:
            for v in hit:
                if v.shm is None:
                    self.back(max(v.start, start), min(v.end, end))
        # code translated from these pages (or written since without Unicorn watching: pages
        # without exec have fast stores) must not outlive a change of exec
        if any((v.prot ^ prot) & PROT_EXEC for v in hit):
            with tlb.host_lookups(self, flush_after=False):
                for v in hit:
                    if (v.prot ^ prot) & PROT_EXEC:
                        self.drop_translations(max(v.start, start), min(v.end, end))
        new = []
        removed = 0
        for v in hit:
            lo, hi = max(v.start, start), min(v.end, end)
            removed |= v.prot & ~prot
            if v.start < lo:
                new.append(v.piece(v.start, lo))
            mid = v.piece(lo, hi)
            mid.prot = prot
            if prot & PROT_WRITE and not mid.noreserve and mid.shm is None:
                mid.account = True
            new.append(mid)
            if hi < v.end:
                new.append(v.piece(hi, v.end))
        self._replace(i, j, new, start, end)
        if removed:
            # Unicorn's TLB may hold permissions the pages no longer have (an entry with fewer
            # than they now have only misses, and the fill answers anew)
            tlb.flush(self.uc)
        if any(v.shm is not None for v in hit):
            self._watch_code_aliases()
        return True

    def _protect_inside(self, i: int, v: Vma, start: int, end: int, prot: int) -> bool:
        """protect() of [start, end) inside the one private mapping v (= vmas[i]): what nearly
        every mprotect is (a JIT's W^X flip, a guard page, an allocator opening part of a
        reservation). The same steps as the general case, without its loops over mappings:
        at ~10,000 calls a second (a JVM's start) each step counts."""
        old = v.prot
        if old == prot:
            return True
        splits = (v.start < start) + (end < v.end)
        if splits:
            self._check_count(splits)
        if prot & PROT_WRITE and not v.account and not v.noreserve:
            self.charge(end - start)
        if prot:
            self.back(start, end)
        if (old ^ prot) & PROT_EXEC:
            with tlb.host_lookups(self, flush_after=False):
                self.drop_translations(start, end)
        mid = v.piece(start, end)
        mid.prot = prot
        if prot & PROT_WRITE and not mid.noreserve:
            mid.account = True
        if splits == 0:
            new = [mid]
        elif splits == 2:
            new = [v.piece(v.start, start), mid, v.piece(end, v.end)]
        elif v.start < start:
            new = [v.piece(v.start, start), mid]
        else:
            new = [mid, v.piece(end, v.end)]
        self._replace(i, i + 1, new, start, end)
        if old & ~prot:
            tlb.flush(self.uc)          # (see protect)
        return True

    def _watch_code_aliases(self) -> None:
        """Code reached through one view of shared memory and written through another (V8's
        dual-mapped code space: a memfd mapped RW and RX) is two Unicorn regions over the same
        host bytes, and Unicorn's self-modifying-code check sees only the region written to. So
        stores into a writable view of memory that is also mapped executable elsewhere are
        watched (a write hook on that view alone), and drop the code translated from the
        executable view at the same offset."""
        for h in self._alias_hooks:
            enginehooks.of(self.uc).delete(h)
        self._alias_hooks = []
        views: dict = {}
        for v in self.vmas:
            if v.shm is not None and v.prot & (PROT_WRITE | PROT_EXEC):
                views.setdefault(id(v.shm), []).append(v)
        for group in views.values():
            code = [v for v in group if v.prot & PROT_EXEC]
            for w in group:
                xs = [x for x in code if x is not w and x.shm_off < w.shm_off + (w.end - w.start)
                      and w.shm_off < x.shm_off + (x.end - x.start)]
                if w.prot & PROT_WRITE and xs:
                    self._alias_hooks.append(enginehooks.of(self.uc).add_binding(
                        UC_HOOK_MEM_WRITE, self._on_alias_write, (w, xs), w.start, w.end - 1))

    def _on_alias_write(self, uc, _access, addr, size, _value, views) -> None:
        w, xs = views
        off = w.shm_off + (addr - w.start)
        for x in xs:
            if x.shm_off <= off < x.shm_off + (x.end - x.start):
                at = x.start + (off - x.shm_off)
                self.drop_translations(at, at + size)

    def discard(self, start: int, end: int) -> None:
        """MADV_DONTNEED/MADV_FREE on private pages: they read as zeros from now on, and the
        host has them back. Code translated from them goes first (the host write is unseen
        by Unicorn)."""
        self._drop_code(start, end)
        self.release(start, end)        # (Unicorn's TLB stays valid: same host pages, now zero)

    def copy_touched(self, src: "AddressSpace", start: int, end: int, to: int) -> None:
        """The bytes of src's [start, end) at `to` here, where mappings are already made:
        only the pages src's host holds are copied (untouched ones read as zeros anyway)."""
        delta = to - start
        if src is self and self.nr_touched:         # (mremap: charged pages move with their bytes)
            self.nr_touched.update([p + delta for p in self.nr_touched if start <= p < end])
            self._settle()
        for lo, n, _ in src.host_pieces(start, end):
            b = src.backs[bisect.bisect_right(src._bstarts, lo) - 1]
            off = b.buf_off + lo - b.start
            for roff, rn in b.buf.touched(off, n):
                g = lo + (roff - off)
                for dlo, dn, dhost in self.host_pieces(g + delta, g + delta + rn):
                    ctypes.memmove(dhost, b.host(dlo - delta), dn)

    def copy_from(self, src: "AddressSpace") -> None:
        """Become a copy of src (fork): the same mappings; private ones with host memory for
        what src has backed and the pages src touched copied; shared ones onto the same
        SharedMemory. OutOfMemory, before anything is made, when the copy's charge does not
        fit in the budget (fork fails with ENOMEM, as Linux's does under strict overcommit)."""
        if not self.budget.fits(src.committed + len(src.nr_touched) * PAGE):
            raise self.budget.refuse()
        for v in src.vmas:
            if v.shm is not None:
                self.map_shared(v.start, v.end - v.start, v.prot, v.shm, v.shm_off, v.name, v.offset,
                                v.noreserve)
        for v in src.vmas:
            if v.shm is None:
                for lo, n, _ in src.host_pieces(v.start, v.end):
                    self.back(lo, lo + n)
        private = [v.piece(v.start, v.end) for v in src.vmas if v.shm is None]
        shared = [v for v in self.vmas]
        merged = sorted(private + shared, key=lambda v: v.start)
        self.vmas, self._starts = [], []
        self.mapped = self.committed = 0
        self._replace(0, 0, merged)
        self.nr_touched = set(src.nr_touched)
        self._settle()
        self.brk_start, self.brk, self.mmap_top = src.brk_start, src.brk, src.mmap_top
        for v in src.vmas:
            if v.shm is None:
                self.copy_touched(src, v.start, v.end, v.start)

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


    def maps_text(self) -> str:
        lines = []
        for v in self.vmas:
            perms = ("r" if v.prot & 1 else "-") + ("w" if v.prot & 2 else "-") + ("x" if v.prot & 4 else "-") \
                + ("s" if v.shm is not None else "p")
            name = v.name
            ino = 0
            lines.append(f"{v.start:08x}-{v.end:08x} {perms} {v.offset:08x} 00:00 {ino:<10d}" + (f" {name}" if name else ""))
        return "\n".join(lines) + "\n"

