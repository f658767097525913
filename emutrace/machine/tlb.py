"""Unicorn's TLB filled from the guest's own page permissions (Unicorn's "virtual TLB" mode).

Why: in its default mode Unicorn 2.1 gives every x86 page read, write and execute rights in its
TLB, and it keeps a page's store fast path closed for good once a page may hold code, or once any
memory hook covers it (the invalid-access hook that reports faults covers every address). So
every store of the guest went through the soft-MMU's slow path: ~35 ns instead of ~2, most of
the gap between Unicorn and qemu-user on ordinary code, and most of what the call-log
trampolines cost.

Here Unicorn asks for each page it misses in its TLB, and gets the permissions of the guest
mapping that holds it (AddressSpace's VMAs: identity mapping, virtual = "physical"). A page
without execute permission then gets fast stores after its first write; pages that are writable
and executable (JIT code) keep the slow path, which is what notices self-modifying code. An
access the mapping does not allow is refused here, and the refusal is the fault's report:
(the Unicorn error the access would have raised, address) in `aspace.denied`, read by the
session when emu_start stops with UC_ERR_EXCEPTION. With this hook no memory hook is needed at
all.

Unicorn's TLB is QEMU's dynamically sized one, which resizes only when it is flushed: a TLB never
flushed keeps its first 256 entries (1 MiB), and a program with a larger working set misses on
most pages (each miss costs Unicorn's restoring the CPU state, then this hook). So the fill flushes
the whole TLB after every GROW_FILLS fills, and QEMU doubles a TLB whose entries were mostly in
use (and halves one mostly idle). What the guest sees does not change: the same fills give the
same answers.

One exception: when Unicorn drops translated code for a range (munmap, ctl_remove_cache) it finds
the range's first page through a fetch fill. That lookup is emutrace's, not the guest's, so
inside `host_lookups(aspace)` a mapped page is granted execute too; the entry it leaves behind is
flushed (by the unmap itself, or by the TLB flush that ends the block).
"""
from __future__ import annotations

import ctypes
from contextlib import contextmanager

import unicorn
from unicorn import UcError, unicorn_const as UCC
from unicorn.unicorn_py3.unicorn import uclib

from emutrace.errors import EmutraceError
from emutrace.machine import enginehooks
from emutrace.machine.native import native

# uc_mem_type of a TLB fill -> (the access's permission bit, error if unmapped, if forbidden)
_ACCESS = {
    UCC.UC_MEM_READ: (UCC.UC_PROT_READ, UCC.UC_ERR_READ_UNMAPPED, UCC.UC_ERR_READ_PROT),
    UCC.UC_MEM_WRITE: (UCC.UC_PROT_WRITE, UCC.UC_ERR_WRITE_UNMAPPED, UCC.UC_ERR_WRITE_PROT),
    UCC.UC_MEM_FETCH: (UCC.UC_PROT_EXEC, UCC.UC_ERR_FETCH_UNMAPPED, UCC.UC_ERR_FETCH_PROT),
}
_WX = UCC.UC_PROT_WRITE | UCC.UC_PROT_EXEC
_FILL_CB = ctypes.CFUNCTYPE(ctypes.c_bool, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int,
                            ctypes.c_void_p, ctypes.c_void_p)
_ENTRY = ctypes.c_uint64 * 2            # uc_tlb_entry: u64 paddr, u32 perms (+ padding)


def uc_prot(prot: int) -> int:
    """Linux PROT_* -> Unicorn's permissions: x86 cannot map execute-only or write-only pages,
    so exec and write imply read (PROT_* and UC_PROT_* share their bit values)."""
    return prot | UCC.UC_PROT_READ if prot & (UCC.UC_PROT_WRITE | UCC.UC_PROT_EXEC) else prot


_UC_PROT = [uc_prot(p) for p in range(8)]
PERMS_CACHE_MAX = 1 << 18       # pages in the fill's permission cache (1 GiB of guest memory)
GROW_FILLS = 1 << 13            # fills between the flushes that let Unicorn's TLB grow


def attach(uc, aspace) -> None:
    """Switch uc to the virtual TLB, filled from aspace's mappings. Before any code runs."""
    try:
        uc.ctl_set_tlb_mode(UCC.UC_TLB_VIRTUAL)
    except (UcError, AttributeError):
        _unsupported()
    find = aspace.find
    aspace.denied = None
    aspace.rwx_ran, aspace.rwx_rewritten = set(), set()     # (pages of writable code: rwx_rights)
    aspace.host_lookup = False
    if not hasattr(aspace, "exec_seen"):
        aspace.exec_seen, aspace.suspects = set(), {}
    # page -> Unicorn permissions, for pages looked up since the mappings last changed (the
    # AddressSpace empties it): a TLB that keeps missing on the same pages (a program sweeping
    # more memory than the TLB holds) skips the VMA search. With the compiled path this cache is
    # the C hook's own (see _tlbfill.c), which answers what it holds without a Python frame.
    compiled = getattr(native, "TlbFill", None)
    perms_of = aspace.page_perms = {}
    read = _ACCESS[UCC.UC_MEM_READ]

    def remember(vaddr, perms):
        # (a cache, so it starts over when full: a guest sweeping a huge uncharged read-only
        # mapping must not make the host hold an entry for each of its pages)
        if len(perms_of) >= PERMS_CACHE_MAX:
            perms_of.clear()
        perms_of[vaddr] = perms

    ran, rewritten = aspace.rwx_ran, aspace.rwx_rewritten
    seen = aspace.exec_seen

    def rwx_rights(vaddr, access, perms):
        """A page both writable and executable (a JIT's) gets write or execute, never both in
        one TLB entry, so the first fetch after a store comes back here: Unicorn dropped the
        translations the store overwrote, and the engine's instruction counter must drop its
        counts of that page too (a block translated again from other bytes at the same address
        and size would otherwise keep the old count: the clock and RDTSC would show it)."""
        if access == UCC.UC_MEM_FETCH:
            if vaddr in rewritten:
                rewritten.discard(vaddr)
                machine = aspace.machine
                if machine is not None:
                    machine.counter.forget(vaddr, vaddr + 0x1000)
            ran.add(vaddr)
            return perms & ~UCC.UC_PROT_WRITE
        if access == UCC.UC_MEM_WRITE:
            if vaddr in ran:
                ran.discard(vaddr)
                rewritten.add(vaddr)
            return perms & ~UCC.UC_PROT_EXEC
        return perms & ~(UCC.UC_PROT_WRITE if vaddr in ran else UCC.UC_PROT_EXEC)

    def fill(vaddr, access, entry):
        """The reference fill: the permissions of the page holding vaddr into Unicorn's entry, or
        False with the refusal in aspace.denied."""
        vaddr &= ~0xFFF
        need, unmapped, forbidden = _ACCESS.get(access, read)
        perms = perms_of.get(vaddr)
        watch = aspace.code_watch
        if perms is None or aspace.host_lookup or not perms & need:
            v = find(vaddr)
            if v is None:
                aspace.denied = (unmapped, vaddr)
                return False
            perms = _UC_PROT[v.prot & 7]
            if aspace.host_lookup:
                perms |= UCC.UC_PROT_EXEC
            else:
                cache = True
                if v.noreserve and perms & UCC.UC_PROT_WRITE and vaddr not in aspace.nr_touched:
                    # a MAP_NORESERVE page is charged when first written: until then its entry
                    # has no write permission, so the first store comes back here
                    if access != UCC.UC_MEM_WRITE:
                        perms &= ~UCC.UC_PROT_WRITE
                        cache = False
                    elif not aspace.touch(vaddr):
                        aspace.denied = (forbidden, vaddr)      # over --max-mem
                        return False
                if watch is not None:
                    # rights withheld until the access that needs them (codewatch.py); a store
                    # the cached rights lack comes back here, where the test above sees it
                    perms = watch.rights(vaddr, access, perms, v)
                    cache = True
                elif perms & _WX == _WX:
                    perms = rwx_rights(vaddr, access, perms)
                if cache:
                    remember(vaddr, perms)
        if not perms & need:
            aspace.denied = (forbidden, vaddr)
            return False
        if perms & UCC.UC_PROT_EXEC and vaddr not in seen and not aspace.host_lookup:
            seen.add(vaddr)             # (this page may get translations: reuse.py digests it)
            if aspace.suspects and vaddr in aspace.suspects:
                aspace.resolve_suspect(aspace, vaddr)   # (reuse.resolve, set by reuse.adopt)
        e = _ENTRY.from_address(entry)
        e[0] = vaddr
        e[1] = perms
        return True

    if compiled is not None:
        hooks = enginehooks.of(uc)
        hook = compiled(hooks.hook_add_address, uc._uch.value, UCC.UC_HOOK_TLB_FILL, fill)
        perms_of = aspace.page_perms = hook         # (fill reads it through the closure)
        aspace._tlb_fill = hooks.attach(hook)       # the engine keeps only a pointer: keep the hook alive
        hook.grow_tlb(ctypes.cast(_uc_ctl, ctypes.c_void_p).value, _FLUSH.value, GROW_FILLS)
        return
    since = [0]

    def pure_fill(_h, vaddr, access, entry, _user):
        since[0] += 1
        if since[0] >= GROW_FILLS:      # (as the compiled hook: see the module's docstring)
            since[0] = 0
            flush(uc)
        return fill(vaddr, access, entry)
    cb = _FILL_CB(pure_fill)
    try:
        enginehooks.of(uc).add(cb, UCC.UC_HOOK_TLB_FILL, 1, 0)
    except UcError:
        _unsupported()
    aspace._tlb_fill = cb               # the C side keeps only a pointer: keep the callback alive


def forget(perms, start: int, end: int) -> None:
    """The fill's permission cache (aspace.page_perms) forgets the pages of [start, end) and
    keeps every other: a munmap or mmap of a large range used to empty it, and each page the
    guest then touched asked Python again (17,000 of node's 24,000 fills reaching Python)."""
    if hasattr(perms, "forget"):
        perms.forget(start, end)            # (the compiled cache, _tlbfill.c)
    elif (end - start) // 0x1000 < len(perms):
        for page in range(start & ~0xFFF, end, 0x1000):
            perms.pop(page, None)
    else:
        for page in [p for p in perms if start <= p < end]:
            del perms[page]


def _unsupported():
    raise EmutraceError(f"this Unicorn ({getattr(unicorn, '__version__', '?')}) has no virtual TLB "
                        "mode: emutrace needs Unicorn 2.1 or later (pip install 'unicorn>=2.1')", 125)


# uc_ctl called without the binding's encoding and argument conversions (every mprotect flushes)
_uc_ctl = ctypes.PyDLL(uclib._name, handle=uclib._handle).uc_ctl
_uc_ctl.restype = ctypes.c_int
_FLUSH = ctypes.c_int((UCC.UC_CTL_IO_WRITE << 30) | UCC.UC_CTL_TLB_FLUSH)


def flush(uc) -> None:
    """Drop every TLB entry: the next access of each page asks the fill hook again."""
    if _uc_ctl(uc._uch, _FLUSH) != UCC.UC_ERR_OK:
        raise UcError(UCC.UC_ERR_ARG)


@contextmanager
def host_lookups(aspace, flush_after: bool = True):
    """Unicorn calls made inside look pages up for emutrace: see the module's docstring."""
    aspace.host_lookup = True
    compiled = aspace.page_perms if hasattr(aspace.page_perms, "bypass") else None
    if compiled is not None:
        compiled.bypass = True          # the C hook must not answer from its cache meanwhile
    try:
        yield
    finally:
        aspace.host_lookup = False
        if compiled is not None:
            compiled.bypass = False
        if flush_after:
            flush(aspace.uc)
