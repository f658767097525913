"""A retired engine reused by the next process, with the translations that still hold.

Why: most of a short process's host time is Unicorn translating ld.so's, libc's and the shell's
code, the same bytes at the same addresses as in the process before it (docs/processes.md). A
retired engine is kept (syscalls/engines.py's pool) and given to the next exec with its
translations, where they are still right. What Unicorn 2.1.4 does fixes the shape of this:

- deleting a code or block hook drops every translation it instrumented, so the engine keeps its
  instruction counter's block hook (Machine.renew), and the process's own code and block hooks
  go first, while its TLB fill can still answer the page lookups their deletion makes;
- unmapping a region drops its translations, so the next address space adopts the retired one's
  Backings (Unicorn's regions, mapped once with mem_map_ptr), their pages given back to the host
  (zero for the new process);
- the host's writes into guest memory (mmap's preadv, the pages released here) are not seen by
  QEMU's self-modifying-code check, so whether a kept translation is right is decided by bytes:
  each page the retired process could fetch from is digested at retirement (`suspects`), and the
  new process's first access with execute to that page compares (`resolve`, called by the TLB
  fill, emutrace/machine/tlb.py): other bytes, or a code or block hook of the new process over
  the page (the kept translations were made without it), and the page's translations and the
  counter's counts of it are dropped. The guest's own stores are seen by QEMU (the regions and
  their dirty-code bits are kept), and Unicorn's writes (uc_mem_write) invalidate as they do on
  any engine.

A translation block may run into the next page (two pages at most); QEMU looks the second page up
while it walks its hash table, where dropping translations is unsafe. So a page is resolved with
its successor: checked too when it is executable now, else the blocks that run into it dropped.
A page not resolved in a process stays a suspect, with its digest, for the next one.

Determinism: a kept block is a translation of the same bytes at the same address under the same
hooks, and its instruction count comes from the shared table by bytes (the counter starts with no
counts), so the clock, RDTSC and every trace time are those of a new engine.
"""
from __future__ import annotations

import bisect
import ctypes
from typing import Dict, List, Optional

from emutrace.linux.mman import PROT_EXEC
from emutrace.machine import tlb
from emutrace.machine.digest import blake2b
from emutrace.machine.pages import PAGE


def _digest(aspace, page: int) -> Optional[bytes]:
    """The page's bytes as this address space's host memory holds them (None: no Backing)."""
    backs = aspace.backs
    k = bisect.bisect_right(aspace._bstarts, page) - 1
    if k < 0 or backs[k].end <= page:
        return None
    return blake2b(ctypes.string_at(backs[k].host(page), PAGE), digest_size=16).digest()


class Retired:
    """What a pooled engine keeps: the Machine (renewed), the Backings (pages released), the
    pages whose translations may still be there, with the digest of the bytes they were made
    from (None: drop whatever is there)."""

    __slots__ = ("machine", "backs", "suspects", "host_cost")

    def __init__(self, machine, backs, suspects: Dict[int, Optional[bytes]]):
        self.machine = machine
        self.backs = backs
        self.suspects = suspects
        self.host_cost = machine.host_cost


def retire(aspace) -> Retired:
    """Take the engine and Backings of an address space no process uses any more (between
    slices: its engine is not running), for another process. The address space is closed."""
    machine = aspace.machine
    suspects = dict(aspace.suspects)          # (those this process never resolved: as they were)
    for page in aspace.exec_seen:
        v = aspace.find(page)
        if v is not None and v.prot & PROT_EXEC and v.shm is None:
            suspects[page] = _digest(aspace, page)
    with tlb.host_lookups(aspace, flush_after=False):
        # the process's code and block hooks first (their deletion drops their blocks, looking
        # the pages up through this address space's fill), then its shared-memory regions
        hooks = machine.engine_hooks
        keep = _kept(machine)
        for handle in hooks.code_handles(but=keep):
            hooks.delete(handle)
        for v in aspace.vmas:
            if v.shm is not None:
                aspace.uc.mem_unmap(v.start, v.end - v.start)
    machine = machine.renew()
    tlb.flush(machine.uc)           # (and QEMU's jump cache: each page's first access asks the fill)
    backs = aspace.backs
    for b in backs:
        b.buf.release(b.buf_off, b.end - b.start)
    aspace.backs, aspace._bstarts = [], []
    aspace.machine = None
    aspace.close()
    return Retired(machine, backs, suspects)


def adopt(aspace, retired: Retired, slab: int) -> None:
    """A new address space on a reused engine takes its Backings and its suspect pages. Before
    anything is mapped."""
    aspace.backs = list(retired.backs)
    aspace._bstarts = [b.start for b in aspace.backs]
    aspace.suspects = retired.suspects
    aspace.resolve_suspect = resolve
    aspace.claimed = Claims(slab)


class _Slab:
    __slots__ = ("start", "end")

    def __init__(self, start: int, end: int):
        self.start, self.end = start, end


class Claims:
    """The SLAB-aligned ranges a process on a reused engine has backed (AddressSpace.back): what
    a new engine's Backings would cover, which find_free keeps shared mappings out of (the
    adopted Backings cover what earlier processes used, and must not move the guest's mappings)."""

    def __init__(self, slab: int):
        self.slab = slab
        self.slabs: List[_Slab] = []

    def claim(self, start: int, end: int) -> None:
        lo = start & ~(self.slab - 1)
        hi = (end + self.slab - 1) & ~(self.slab - 1)
        slabs = self.slabs
        for s in slabs:
            if s.start <= lo and hi <= s.end:
                return
        keep = [s for s in slabs if s.end < lo or s.start > hi]
        for s in slabs:
            if not (s.end < lo or s.start > hi):
                lo, hi = min(lo, s.start), max(hi, s.end)
        keep.append(_Slab(lo, hi))
        keep.sort(key=lambda s: s.start)
        self.slabs = keep


def _kept(machine) -> tuple:
    counter = machine.counter
    return counter.keep if hasattr(counter, "keep") else (counter.handle,)


def _hooked(aspace, page: int) -> bool:
    """A code or block hook of this process covers the page (kept blocks were made without it)."""
    machine = aspace.machine
    for begin, end in machine.engine_hooks.code_ranges(but=_kept(machine)):
        if begin > end or (begin < page + PAGE and end >= page):
            return True
    return False


def _drop(aspace, lo: int, hi: int) -> None:
    with tlb.host_lookups(aspace, flush_after=False):
        aspace.drop_translations(lo, hi)


def _check(aspace, page: int) -> None:
    want = aspace.suspects.pop(page)
    if want is None or _hooked(aspace, page) or _digest(aspace, page) != want:
        _drop(aspace, page, page + PAGE)


def resolve(aspace, page: int) -> None:
    """The TLB fill gives `page` execute for the first time in this process, and it is a suspect
    (see the module's docstring)."""
    _check(aspace, page)
    after = page + PAGE
    if after in aspace.suspects:
        v = aspace.find(after)
        if v is not None and v.prot & PROT_EXEC and v.shm is None:
            _check(aspace, after)
        else:
            _drop(aspace, after - 1, after)     # (the blocks of page that run into the next)


def forget(aspace, lo: int, hi: int) -> None:
    """Translations of [lo, hi) were dropped: no suspect there any more."""
    suspects = aspace.suspects
    if suspects:
        if (hi - lo) // PAGE < len(suspects):
            for page in range(lo & ~(PAGE - 1), hi, PAGE):
                suspects.pop(page, None)
        else:
            for page in [p for p in suspects if lo <= p < hi]:
                del suspects[page]


def pages(retired: Retired) -> List[int]:
    return sorted(retired.suspects)
