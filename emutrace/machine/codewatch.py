"""Unpacked code: memory the guest wrote and then executed, seen page by page in the TLB fill.

Why here: emutrace owns Unicorn's TLB fill (tlb.py), so it decides which rights each TLB entry
grants. Withholding a right makes the first access that needs it come back to the fill, once per
page, and that is all the tracking costs: no memory hook, no per-instruction or per-block hook.

Each page of an address space is in one of three states:

    clean     not written since it was mapped (or since its code last ran): its entry gets no
              write right, so the first store comes back here and makes it `written`
    written   stored to (by the guest, with the pc of the writing block; or by a system call on
              its behalf, AddressSpace.check): its entry gets no execute right, so the first
              fetch comes back here: that page, with the written pages around it, is a region of
              unpacked code, reported once on the `code_unpacked` phase, and becomes `ran`
    ran       executed after a write: no write right again, so writing it once more (a second
              unpacking stage, or a JIT patching its code) starts over

A page that goes round more than MAX_ROUNDS times is a JIT's code page (V8, LuaJIT, a regex
compiler rewrite their code again and again): it is let go with full rights and counted, so a JIT
costs a bounded number of extra fills and the report can call the pattern by its name.

Pages of a mapping that is not writable are never `written`; pages of one that is not executable
never reach `ran` (the TLB refuses the fetch anyway). The fill's permission cache (tlb.py) stores
the rights given here, so its C hook answers the same way without entering Python.

Only address spaces made while some callback is registered on `code_unpacked` are watched:
without --report, nothing here runs."""
from __future__ import annotations

import hashlib
import weakref
from typing import Dict, Optional, Set

from unicorn import unicorn_const as UCC
from unicorn.x86_const import UC_X86_REG_RIP

from emutrace.machine.tlb import flush

PAGE = 0x1000
MAX_ROUNDS = 4                  # write -> execute rounds before a page counts as a JIT's
MAX_REGION = 16 << 20           # bytes of one region hashed and kept (a larger one is cut)
MAX_KEPT = 64 << 20             # bytes of regions kept per address space (for dumps and YARA)
W, X = UCC.UC_PROT_WRITE, UCC.UC_PROT_EXEC
UNSEEN = -1                     # writer of a page granted write before its first store


class CodeWatch:
    """The page states of one address space and the regions found in it."""

    def __init__(self, aspace, hooks):
        self._aspace = weakref.ref(aspace)      # (no cycle: the address space owns this watch)
        self.uc = aspace.uc
        self.hooks = hooks
        self.written: Dict[int, Optional[int]] = {}     # page -> pc of the block that wrote it (None: a system call)
        self.ran: Set[int] = set()
        self.rounds: Dict[int, int] = {}
        self.jit: Set[int] = set()                      # pages let go (see MAX_ROUNDS)
        self.kept = 0
        self.regions = 0

    def rights(self, page: int, access: int, perms: int, vma) -> int:
        """The rights a TLB entry of `page` gets for this fill (perms: what its mapping allows)."""
        if page in self.jit:
            return perms
        if access == UCC.UC_MEM_WRITE and perms & W:
            if page not in self.written:
                self.written[page] = self._pc()
                self.ran.discard(page)
            return perms & ~X if perms & X else perms
        if access == UCC.UC_MEM_FETCH and perms & X and page in self.written:
            self._executed(page, vma)
            return perms & ~W
        if page in self.written:
            return perms & ~X
        if perms & W and not perms & X and page not in self.ran and not (vma.name and vma.name[0] != "["):
            # a clean page of anonymous memory that cannot run now, read before it is written
            # (a heap or a buffer): counted as written from here on, by an unseen writer, so
            # its first store costs no second fill. Such a page read as zeros until now, and
            # zeros are cut from a region, so it can make no region unless it is written.
            self.written[page] = UNSEEN
            return perms
        if perms & W:
            return perms & ~W             # clean or ran: the next store comes back here
        return perms

    def system_write(self, start: int, end: int) -> bool:
        """A system call wrote [start, end) on the guest's behalf (read(2) into a buffer): those
        pages are written (by no guest pc). True when the TLB must forget them (a page already
        granted execute)."""
        stale = False
        for page in range(start & ~(PAGE - 1), end, PAGE):
            if page in self.jit or page in self.written:
                continue
            self.written[page] = None
            if page in self.ran:
                self.ran.discard(page)
                stale = True
        return stale

    def forget(self, start: int, end: int) -> None:
        """The mapping of [start, end) went away or was replaced: its pages start clean."""
        if (end - start) // PAGE < len(self.written) + len(self.ran):
            pages = range(start & ~(PAGE - 1), end, PAGE)
        else:
            pages = [p for p in set(self.written) | self.ran | self.jit if start <= p < end]
        for p in pages:
            self.written.pop(p, None)
            self.ran.discard(p)
            self.jit.discard(p)
            self.rounds.pop(p, None)

    def _pc(self) -> Optional[int]:
        try:
            return self.uc.reg_read(UC_X86_REG_RIP)
        except Exception:                 # noqa: BLE001 (no engine state to read: a system call's write)
            return None

    def _executed(self, page: int, vma) -> None:
        """The first fetch from a written page: the run of written pages around it, inside its
        mapping, is one region."""
        aspace = self._aspace()
        if aspace is None:
            return
        lo = page
        while lo - PAGE >= vma.start and lo - PAGE in self.written:
            lo -= PAGE
        hi = page + PAGE
        while hi < vma.end and hi in self.written and hi - lo < MAX_REGION:
            hi += PAGE
        writer = self.written.get(page)
        rounds = 0
        for p in range(lo, hi, PAGE):
            self.written.pop(p, None)
            self.ran.add(p)
            n = self.rounds[p] = self.rounds.get(p, 0) + 1
            rounds = max(rounds, n)
            if n > MAX_ROUNDS:
                self.jit.add(p)
                self.ran.discard(p)
        forget = getattr(aspace.page_perms, "forget", None)
        if forget is not None:                    # (the other pages' cached rights are stale now)
            forget(lo, hi)
        else:
            for p in range(lo, hi, PAGE):
                aspace.page_perms.pop(p, None)
        flush(self.uc)                     # (their TLB entries too; as a fill may: tlb.py)
        if rounds > MAX_ROUNDS:
            self.hooks.fire("code_unpacked", aspace, {"jit_page": page, "rounds": rounds})
            return
        data = aspace.peek(lo, hi - lo) or b""
        start = len(data) - len(data.lstrip(b"\0"))
        body = data.strip(b"\0")                  # (memory never written reads as zeros)
        if not body:
            return
        self.regions += 1
        keep = self.kept + len(body) <= MAX_KEPT
        if keep:
            self.kept += len(body)
        self.hooks.fire("code_unpacked", aspace, {
            "address": lo + start, "size": len(body), "sha256": hashlib.sha256(body).hexdigest(),
            "writer": writer, "entry": self._pc(), "rounds": rounds, "mapping": vma.name or "[anonymous]",
            "data": body if keep else None})
