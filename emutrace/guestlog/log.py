"""GuestLog: one engine's guest-side call log, the record side (assemble.py, ring.py) and the
replay side (replay.py) of one object."""
from __future__ import annotations


from typing import Dict, List, Optional, Tuple


from emutrace.guestlog.format import RET_CSTR, RET_WSTR, IN_CSTR, IN_WSTR, area_size
from emutrace.guestlog.sites import Shape
from emutrace.guestlog.assemble import Assembler, _Template
from emutrace.guestlog.ring import RingSide, ThreadLog
from emutrace.guestlog.replay import Replay


class GuestLog(Assembler, RingSide, Replay):
    """The guest-side call log of one engine (one address space): control page, return
    trampoline, per-thread rings, and the trampoline regions of its modules."""

    def __init__(self, tracer, proc, maxrec: int, ret_cap: int):
        self.tracer = tracer
        self.kernel = proc.kernel           # (its current process: the one a hook without one ran in)
        self.maxrec = maxrec
        # bytes of a returned C string the return trampoline copies (and of a C string it copies
        # besides an output argument): limit + 2, every byte the live renderer's NUL search
        # reads (MemView.cstring(w, limit + 1)), so that one of limit + 1 characters before
        # unreadable memory shows as its pointer, as in the hooked path
        self.ret_cap = ret_cap
        self.threads: Dict[object, ThreadLog] = {}
        self.code_ranges: List[Tuple[int, int]] = []      # guest code of ours: never stop inside
        self.loads: Dict[int, Tuple[int, int]] = {}       # string-copy load → (resume address, area)
        self.faulted: Dict[int, int] = {}                 # area address → bytes copied before a fault
        # store instruction of a trampoline that may fault in a guard page → (what is full:
        # "ring" or "shadow", where the trampoline starts over, the registers it has borrowed
        # and where it keeps them): see fault_fixup
        self.restarts: Dict[int, Tuple[str, int, Tuple[Tuple[str, int], ...], int]] = {}
        self.patched: set = set()                         # PLT entries jumping to a trampoline
        self.templates: Dict[Shape, _Template] = {}       # the trampolines' code, by shape
        self.unwind_hooked: set = set()
        self.leaf_suffix: Optional[str] = None      # what the sites' quick lines end with
        # tag → the site's leaf lines rendered by the compiled path (None: it has not every
        # renderer, or there is no compiled path), made as the sites appear
        self.native_sites: list = [None]
        self.native_points: list = []     # (site, address) of the trampolines' C hook instructions
        self.printf_hooks = None          # this engine's printflog hooks, made with the first site
        self.m = None
        self.held = False                 # a flush left records undecoded (see flush)
        # the return stubs of returns-twice calls (_stub_code): their table ((return address,
        # stub), ... 0), their code and how many there are; mapped with the first such site
        self.stub_table: Optional[int] = None
        self.stub_code = 0
        self.stub_count = 0
        self._map(proc)

    @property
    def wret_cap(self) -> int:
        """Bytes of a returned wide string the return trampoline copies: limit + 1 characters
        (the wide renderer reads no further), one fewer than a C string's bytes."""
        return 4 * (self.ret_cap - 1)

    def ret_area(self, captured: int) -> int:
        """Bytes of the copies after a return record whose "captured" word is `captured` but the
        output argument's: the returned string's before it, the string shown at the return's
        after it."""
        if captured == RET_CSTR:
            return area_size(self.ret_cap)
        if captured == RET_WSTR:
            return area_size(self.wret_cap)
        if captured & IN_CSTR:
            return area_size(self.ret_cap)
        return area_size(self.wret_cap) if captured & IN_WSTR else 0

