"""Which call sites guest code logs, and each logged site's record layout (FastSite)."""
from __future__ import annotations


from typing import TYPE_CHECKING, NamedTuple, Optional, Tuple


from emutrace.nativelog import native_site
from emutrace.values import LEAF_COLUMN
from emutrace.renderops import BLOCK, CSTR, CSTRN, FIXED_SIZE, LENGTH, RAXRDX, RETLEN, WORD
from emutrace.guestlog.format import (HEAD, RET_SIZE, OUT_MAX, RET_CSTR, RET_WSTR, RET_OUTLEN, OUTLEN_WIDE, OUTLEN_32,
                                      RET_PAIR, IN_CSTR, IN_WSTR, FIXED, area_size)
from emutrace.guestlog.render import _left_renderer, _leaf_renderer

if TYPE_CHECKING:
    from emutrace.guestlog.log import GuestLog

# Never logged by guest code: they read their own return address (the caller's object for
# dlsym/dlopen), return twice or switch stacks, or exist only to unwind or never return.
HOOKED_ONLY = frozenset("""
    dlopen dlmopen dlsym dlvsym dlinfo dladdr dladdr1 __libc_dlopen_mode __libc_dlsym
    savectx vfork __vfork fork _Fork clone
    getcontext setcontext swapcontext makecontext longjmp _longjmp siglongjmp __longjmp_chk
    __libc_start_main __libc_start_call exit _exit _Exit abort pthread_exit __cxa_throw
    __cxa_rethrow __cxa_end_catch __cxa_begin_catch _Unwind_RaiseException _Unwind_Resume
    _Unwind_ForcedUnwind _Unwind_Backtrace _Unwind_Resume_or_Rethrow _Unwind_Find_FDE
    backtrace __stack_chk_fail __tls_get_addr __cyg_profile_func_enter __cyg_profile_func_exit
    mcount _mcount __fentry__
""".split())

# Functions that return twice by saving their return address and stack pointer (setjmp's
# family): logged with a return stub of their return address instead of the shadow stack
# (GuestLog._return_stub). A stub writes the return record and jumps to that address, both at the
# first return and at each longjmp to the buffer, which saved the stub's address; a return with
# no open frame to match (longjmp's) prints nothing and ends the frames deeper than it, as the
# hooked path's return hook does at that address.
RETURNS_TWICE = frozenset("setjmp _setjmp __setjmp sigsetjmp __sigsetjmp".split())

# Entry points that walk the stack: every replaced return address is written back first.
UNWINDERS = ("_Unwind_RaiseException", "_Unwind_ForcedUnwind", "_Unwind_Backtrace", "_Unwind_Resume",
             "_Unwind_Resume_or_Rethrow", "__libc_unwind_link_get", "backtrace")


class Shape(NamedTuple):
    """What a site's trampoline is made of besides where it is and the site's own numbers (its
    tag, its GOT slot): sites of one shape share their code (GuestLog._placed)."""
    twice: bool                     # setjmp's family: returns through a return stub
    strings: tuple                  # FastSite.strings: the copies at the call
    native_point: bool              # a C hook completes the record (printflog)
    size: int                       # the call record's size
    ret_kind: int
    out: Optional[Tuple[int, int]]
    in_string: Optional[int]


def shape_of(fs: "FastSite") -> Shape:
    return Shape(fs.site.name in RETURNS_TWICE, fs.strings, fs.native_point, fs.size, fs.ret_kind, fs.out,
                 fs.in_string)


def capture_plan(plan, wide_ret_cap: Optional[int] = None) -> Optional[Tuple[Tuple[int, int, Optional[int]], ...]]:
    """The captures ((word index, bytes, length word index or None), ...) that make a compiled
    prototype loggable by guest code, or None when it needs more than the argument words, C
    strings and buffers with a length argument at the call. A returned wide string (wcschr's)
    is loggable when the return trampoline copies what its renderer reads (wide_ret_cap bytes)."""
    if plan is None or plan.nwords > 6:
        return None
    if plan.right is not None and output_of(plan) is None:
        return None
    ret = plan.ret
    if ret is not None:
        # a word, or a string the return trampoline copies (a C string, or a wide string of
        # wide_ret_cap bytes), or a structure in rax and rdx (which it copies)
        if ret.capture not in (WORD, CSTR, FIXED_SIZE, RAXRDX):
            return None
        if ret.capture == RAXRDX and plan.right is not None:
            return None
        if ret.capture == FIXED_SIZE and ret.cap != wide_ret_cap:
            return None
    caps = []
    size = HEAD
    for i, op in plan.left_items:
        if op.capture == WORD:
            continue
        if op.capture not in _LENGTH_WORD or (op.capture == BLOCK and op.cap > OUT_MAX):
            return None
        caps.append((i, op.cap, _LENGTH_WORD[op.capture](op)))
        size += area_size(op.cap)
    if size > RET_SIZE + OUT_MAX:
        return None             # (more than a record may take: the ring keeps that much free)
    return tuple(caps)


# A capture at the call: its length word's index in the record's layout (None: a C string, up
# to its NUL; FIXED: a fixed number of bytes, as far as readable: a wide string, or a structure
# with no pointer in it, as sigprocmask's sigset_t). A C string bounded by a length word (CSTRN,
# strncpy's source) is copied as a C string: its renderers take the length word from the op
# (op.len_arg), not from the copy.
_LENGTH_WORD = {CSTR: lambda op: None, CSTRN: lambda op: None, LENGTH: lambda op: op.len_arg,
                FIXED_SIZE: lambda op: FIXED, BLOCK: lambda op: FIXED}


def output_of(plan) -> Optional[Tuple[int, int]]:
    """(word index, size word) of the one output argument the return trampoline copies (a
    structure or array with no pointer in it, as clock_gettime's or stat's: its size; a string
    as long as the returned value, as read's: the most characters shown, limit + 1), when every
    other argument after the split renders from its word alone; None otherwise."""
    out = None
    for i, op in plan.right_items:
        if op.capture == WORD or (op.capture in _IN_FLAG and (plan.ret is None or plan.ret.capture == WORD)):
            continue            # (a string shown at the return besides it: string_at_return)
        if op.capture not in _OUT_SIZE_WORD or op.cap > OUT_MAX or out is not None:
            return None
        out = (i, _OUT_SIZE_WORD[op.capture](op))
    if out is not None and string_at_return(plan) == (None, None):
        return None             # (two strings besides it)
    return out


# a string argument shown at the return (after the split), copied there: its flag
_IN_FLAG = {CSTR: IN_CSTR, FIXED_SIZE: IN_WSTR}


def string_at_return(plan) -> Tuple[Optional[int], int]:
    """(word index, IN_CSTR or IN_WSTR) of the one C or wide string shown after the split besides
    the output argument (mbstowcs's source), which the return trampoline copies too; (None, 0)
    when there is none, (None, None) when there are more."""
    got: Tuple[Optional[int], Optional[int]] = (None, 0)
    for i, op in plan.right_items:
        if op.capture in _IN_FLAG:
            if got[0] is not None:
                return None, None
            got = (i, _IN_FLAG[op.capture])
    return got


_OUT_SIZE_WORD = {BLOCK: lambda op: op.cap, RETLEN: lambda op: op.limit + 1}


def _outlen_kind(plan) -> int:
    """The return record's "captured" word of a site whose output string is as long as the
    returned value (RET_OUTLEN and its flags), 0 for any other site."""
    for _, op in plan.right_items:
        if op.capture == RETLEN:
            return RET_OUTLEN | (OUTLEN_WIDE if op.kind == "retwstr" else 0) | (OUTLEN_32 if op.size == 4 else 0)
    return 0


class FastSite:
    """A call site logged by guest code: its tag in the records, the layout of its record, and
    `left(record words, data, offset)`: its shown arguments rendered from the record, and
    `leaf(...)`: the whole line of a call that returned before any other was logged."""
    __slots__ = ("tag", "site", "plan", "strings", "size", "entry", "left", "leaf", "quick", "ret_string",
                 "ret_kind", "out", "pair_end", "in_string")
    # True for a site whose trampoline has an instruction where a C hook completes the record
    # (emutrace.printflog.PrintfSite: `placed(gl, proc, address)` hooks it); its leaf lines
    # come from `leaf` whatever the return captured
    native_point = False

    def __init__(self, tag: int, site, plan, caps, entry: int):
        self.tag = tag
        self.site = site
        self.plan = plan
        self.entry = entry
        off = HEAD
        strings = []
        for i, cap, j in caps:
            strings.append((i, off, cap, j))
            off += area_size(cap)
        self.strings = tuple(strings)
        self.size = off
        self.pair_end = off + RET_SIZE      # a call record and the return record right after it
        self.left = _left_renderer(plan, self.strings)
        self.leaf = self._first_leaf         # compiled on first use: most sites are never called
        self.quick = self._first_quick
        # a returned C string (strchr, getenv...) or wide string (wcschr): the return trampoline
        # copies it (RET_CSTR up to its NUL, RET_WSTR a fixed number of bytes)
        self.ret_string = plan.ret is not None and plan.ret.capture in (CSTR, FIXED_SIZE)
        self.ret_kind = (RET_WSTR if plan.ret.capture == FIXED_SIZE else RET_CSTR) if self.ret_string else 0
        if plan.ret is not None and plan.ret.capture == RAXRDX:
            self.ret_kind = RET_PAIR        # (rdx, which the return trampoline copies)
        # an output argument (clock_gettime's timespec, read's buffer): the return trampoline
        # copies it
        self.out = output_of(plan) if plan.right is not None else None
        if self.out is not None and not self.ret_string:
            self.ret_kind = _outlen_kind(plan)
            # a string shown at the return besides it (mbstowcs's source): copied there too
            self.in_string, flag = string_at_return(plan)
            self.ret_kind |= flag
        else:
            self.in_string = None

    def native_leaf(self, gl: "GuestLog"):
        """What the compiled leaf_run renders this site's leaf calls by (an
        emutrace.machine._native.Site), or None: decode's Python paths render them."""
        # the bytes the return copies of a returned string, or of a string shown at the return
        # besides the output argument (mbstowcs's source): wide ones 4 per character
        wide = self.ret_kind == RET_WSTR or (self.ret_kind >= RET_OUTLEN and self.ret_kind & IN_WSTR)
        return native_site(self.site.display, self.plan, self.strings, self.size, LEAF_COLUMN,
                           gl.wret_cap if wide else gl.ret_cap,
                           self.ret_kind if self.ret_kind >= RET_OUTLEN else 0)

    def _compile(self, suffix: str):
        self.leaf, self.quick = _leaf_renderer(self.site.display, self.plan, self.strings, self.size, suffix,
                                               self.ret_kind != 0 or self.out is not None)

    def _first_leaf(self, w, data, off, rax, suffix):
        self._compile(suffix)
        return self.leaf(w, data, off, rax, suffix)

    def _first_quick(self, data, off, top, suffix, append):
        self._compile(suffix)
        return self.quick(data, off, top, suffix, append)


