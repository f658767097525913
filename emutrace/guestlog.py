"""Library calls logged by guest code, not by a Python callback per call.

A Python hook costs ~0.5 µs before it does anything and a few µs with register reads; a few
instructions in guest memory cost ~0.1 µs. So, once ld.so has bound the program (at its entry),
each traced PLT entry whose prototype guest code can capture whole (integer words; C strings,
wide strings and length-bounded buffers copied at the call; a returned C string and one
pointer-free output argument copied at the return) is patched with a `jmp` to its own
trampoline, and each traced -fno-plt GOT slot is pointed at one. A trampoline:

- appends a call record (site tag, the six argument registers, the return slot and return
  address, the bytes of each string argument) to the running thread's ring buffer;
- pushes (return slot, return address, what to copy at the return) on the thread's shadow
  stack in guest memory and puts the return trampoline's address in the return slot;
- jumps on to the function (through the GOT slot: lazy binding keeps working).

The return trampoline pops the shadow stack (entries whose slot lies below the stack pointer
belong to frames left by longjmp), appends a return record (slot, return address, rax, the
returned string's and the output argument's bytes) and jumps to the real return address,
borrowing registers through the control page (never the stack) so that the caller finds
registers and stack as a native return leaves them. Python reads the ring in bulk — at every system call, at the
end of every time slice, before every Python hook that reports something, and when it fills —
and turns the records into the same Call and Return events as the hooked path, in order.

A return address replaced on the stack is foreign to an unwinder, so the unwinder's entry
points (_Unwind_RaiseException, _Unwind_ForcedUnwind, _Unwind_Backtrace, _Unwind_Resume...)
carry a Python hook that first writes every replaced return address of the thread back and
hands those frames to the hooked path: C++ exceptions, thread cancellation and backtrace()
see the real stack. setjmp's family, which saves its return address and returns again at each
longjmp, returns through a stub of that return address instead (RETURNS_TWICE). Other functions
that read their own return address or return twice (dlsym, dlopen, vfork, getcontext...) are
never logged here: they keep the hooked path.
`--hook-returns` turns all of this off.

Per thread: a ring (RING_SIZE bytes) and a shadow stack, whose pointers live in a control page
the trampolines address absolutely; the scheduler swaps them when it switches threads. A
thread stopped in the middle of a trampoline is stepped out of it before anything else runs,
so records are never half-written when Python looks at them.

In Unicorn every guest load and store, every translated block (each conditional branch ends
one) and every indirect jump costs a helper call, so the trampolines check nothing they need
not: the ring and the shadow stack each end in a guard page (PROT_NONE, as large as the largest
record; shadow entries are 64 bytes, so none straddles a page's end), and a store that runs into
one faults. The session hands the fault to fault_fixup, which gives back the registers the
trampoline borrowed (kept in the control page), empties the ring or doubles the shadow stack,
and starts the trampoline over from its first instruction. For that to be clean every
trampoline writes the ring's pointer, the shadow stack's top and the return slot only after
its last store that can fault (the common call, _plain_trampoline, publishes its record before
its shadow entry: the fix-up takes the record back). The shadow stack's base holds a sentinel entry whose slot lies
above every stack address, so the return trampoline's search ends there (the return address
was lost) without a bounds check of its own.
"""
from __future__ import annotations

import struct
from typing import Dict, List, NamedTuple, Optional, Tuple

from emutrace.events import Call
from emutrace.frames import Frame
from emutrace.errors import EmutraceError
from emutrace.machine.budget import OutOfMemory
from emutrace.machine.pages import page_up
from emutrace.machine.native import native
from emutrace.machine.reader import GuestReader
from emutrace.machine.x86enc import (ARG_REGS, Asm, JA, JAE, JB, JBE, JE, JNE, R10, R11, RAX, RBX, RCX, RDI, RDX, RSI,
                                     RSP, in_rel32, rel32)
from emutrace.escapes import escape_bytes
from emutrace.nativelog import native_site
from emutrace.renderops import BLOCK, CSTR, CSTRN, FIXED_SIZE, LENGTH, RAXRDX, RETLEN, WORD
from emutrace.values import DEFAULT_ALIGN, FastCallState

# control page: the running thread's pointers, then where the trampolines keep the registers
# they borrow (never the stack: what they left below the stack pointer would show up in the
# program's uninitialized variables)
RPTR, REND, SHTOP, SHEND, SHBASE = 0, 8, 16, 24, 32
CTRL_WORDS = 5
S_RAX, S_R10, S_RBX, S_RCX, S_RSI, S_RDI, S_JMP, S_RDX = 64, 72, 80, 88, 96, 104, 112, 120
S2_RCX, S2_RDX = 128, 136          # the return trampoline's copies keep rcx and rdx here
S_OUTP, S_OUTN = 144, 152          # ... and the output argument's address and size
S_INP, S_KIND = 160, 168           # ... and the string shown at the return's, and the return kind
S_STUB = 176                       # a returns-twice site's trampoline keeps its return stub here
HEAD = 72                          # call record: tag, 6 argument words, slot, return address
RET_SIZE = 48                      # return record: RET_TAG, slot, return address, rax, captured?,
                                   # output bytes; then the returned string's bytes when captured,
                                   # then the output argument's bytes
SHADOW_ENTRY = 64                  # shadow stack entry: return slot, return address, return kind
                                   # | output size << 8, output argument's address, (unused),
                                   # string shown at the return's address, (unused x2): a power of
                                   # two, so that no entry straddles a page's end (the guard's)
OUT_MAX = 512                      # the largest output argument copied at the return
RET_TAG = (1 << 64) - 1
RET_CSTR, RET_WSTR = 1, 2          # a return record's "captured" word: what the area after it holds
# ... or, for an output string whose length is the returned value (read's buffer), RET_OUTLEN and
# its flags: the output copy is min(rax, the shadow entry's size word) characters of 4 bytes
# (OUTLEN_WIDE) or of 1 and the byte after them; rax read as 32 bits (OUTLEN_32) or 64
RET_OUTLEN, OUTLEN_WIDE, OUTLEN_32 = 4, 1, 2
# ... or, for a structure returned in rax and rdx, RET_PAIR: the output copy is rdx (8 bytes)
RET_PAIR = 8
# ... with, for a site whose arguments after the split show a string besides the output argument
# (mbstowcs's source), a flag: that string's copy follows the output copy, a C string of ret_cap
# bytes (IN_CSTR) or a wide one of wret_cap (IN_WSTR), copied at the return as the hooked path
# reads it there
IN_CSTR, IN_WSTR = 16, 32
_KIND_MASK = 15                    # (the return kind without those flags)
_NO_FRAME = 1 << 64                # above every stack address: no frame open
RING_SIZE = 1 << 20                # (a full ring ends the time slice by a fault: a larger ring fills
                                   # less often; at 256 KiB freshcalls paid ~1,800 instructions per
                                   # 8 calls for it)
SHADOW_SIZE = 64 << 10             # 1023 open calls per thread; doubled when full
SHADOW_GUARD = 4096                # (past the shadow stack: a push there faults)
# Where emutrace's pages go: away from where the program's own mmaps land (top-down from below
# the stack), so the program sees the same addresses however it is traced. Rings and the
# control page lie far below everything; trampolines must be within a rel32 jump of their
# module, so they go 1 GiB below it.
LOG_TOP = 0x100000000000
TRAMPOLINE_GAP = 1 << 30

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
STUB_SIZE = 256                    # bytes of code per return stub (194 used)
STUBS_MAX = 2047                   # distinct return addresses of such calls (the table ends in 0)

# Entry points that walk the stack: every replaced return address is written back first.
UNWINDERS = ("_Unwind_RaiseException", "_Unwind_ForcedUnwind", "_Unwind_Backtrace", "_Unwind_Resume",
             "_Unwind_Resume_or_Rethrow", "__libc_unwind_link_get", "backtrace")

FIXED = -1                         # a capture of a fixed number of bytes, not bounded by an argument
_ALIGN_PAD = DEFAULT_ALIGN - 3          # a leaf line: text + ") " + padding + "= " + ret
_Q = struct.Struct("<Q")
# system calls before which a flush may leave the ring undecoded (GuestLog.flush): they start no
# thread or process, trace nothing, print nothing, make no signal of their own and leave
# emutrace's own mappings alone (no mmap, munmap, mremap, madvise: the ring stays where it is). A
# call that blocks ends the slice, whose end decodes everything. bash's read loop makes read,
# lseek, isatty's ioctl and sigprocmask in every line, as does much stdio; programs that walk
# files (git status, ls -l, find, tar) make open, fstatat, getdents, close, access and the
# extended-attribute reads for each.
QUIET_SYSCALLS = frozenset((
    0,      # read
    2,      # open
    3,      # close
    4,      # stat
    5,      # fstat
    6,      # lstat
    8,      # lseek
    14,     # rt_sigprocmask (a signal it unblocks is delivered after the slice's end: settled)
    16,     # ioctl
    17,     # pread64
    21,     # access
    39,     # getpid
    63,     # uname
    72,     # fcntl (a lock that must wait blocks: the slice ends)
    78,     # getdents
    79,     # getcwd
    89,     # readlink
    95,     # umask
    96,     # gettimeofday
    97,     # getrlimit
    102,    # getuid
    104,    # getgid
    107,    # geteuid
    108,    # getegid
    110,    # getppid
    186,    # gettid
    191,    # getxattr (ls -l asks for each file's ACL)
    192,    # lgetxattr
    193,    # fgetxattr
    194,    # listxattr
    195,    # llistxattr
    196,    # flistxattr
    201,    # time
    217,    # getdents64
    228,    # clock_gettime
    257,    # openat (a FIFO's open that must wait blocks: the slice ends)
    262,    # newfstatat
    267,    # readlinkat
    269,    # faccessat
    318,    # getrandom
    332,    # statx
    439,    # faccessat2
))
# ... and the writes, when the trace has a file of its own (-o): to a terminal the trace shares
# with the program, a write's call would show after the text the write put there
QUIET_WRITES = frozenset((
    1,      # write
    18,     # pwrite64
    20,     # writev
    296,    # pwritev
    328,    # pwritev2
))
_HEADW = struct.Struct("<9Q")      # tag, rdi..r9, slot, return address
_RETW = struct.Struct("<5Q")


def free_near(aspace, size: int, near: int, targets) -> Optional[int]:
    """A free range of `size` bytes TRAMPOLINE_GAP below `near` (a module) from which every
    address in `targets` (and `near`) is one rel32 jump away; None when there is none."""
    try:
        base = aspace.find_free(size, top=max(near - TRAMPOLINE_GAP, 1 << 20))
    except OutOfMemory:
        return None
    if all(in_rel32(base, t) for t in (near, *targets)):
        return base
    return None


PATCH_SPAN_MAX = 64                # bytes between two patched entries rewritten with them


def patch_jmps(m, patches) -> None:
    """Overwrite the instruction at each (at, target)'s `at` (a PLT entry) with `jmp target` and
    drop its translation: one write and one cache removal per run of nearby entries (a PLT's
    are 16 bytes apart), not per entry (~27,000 instructions each); the bytes between them are
    written back as they were."""
    patches = sorted(patches)
    i = 0
    while i < len(patches):
        j = i + 1
        while j < len(patches) and patches[j][0] - patches[j - 1][0] <= PATCH_SPAN_MAX:
            j += 1
        lo, hi = patches[i][0], patches[j - 1][0] + 5
        span = bytearray(m.read(lo, hi - lo))
        for at, target in patches[i:j]:
            span[at - lo:at - lo + 5] = b"\xe9" + struct.pack("<i", target - (at + 5))
        m.write(lo, bytes(span))
        m.uc.ctl_remove_cache(lo, hi)
        i = j


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


class _Template:
    """A shape's trampoline, assembled once: its code at address 0 for tag 0, where each site's
    own numbers go, its copies' loads (offset → (resume offset, area)) and its stores that may
    fault in a guard page (offset → (what is full, restart offset, borrowed registers, bytes
    to take back))."""
    __slots__ = ("code", "fields", "loads", "restarts")

    def __init__(self, code: bytes, fields: Dict[str, int], loads: Dict[int, Tuple[int, int]], restarts: dict):
        self.code, self.fields, self.loads, self.restarts = code, fields, loads, restarts


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
        return native_site(self.site.display, self.plan, self.strings, self.size, _ALIGN_PAD,
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


def _left_renderer(plan, strings):
    """fn(w, data, off) -> [str]: w is the record's words (tag first), data[off:] the record."""
    at = {i: (a_off, cap, j) for i, a_off, cap, j in strings}
    parts = []
    for i, op in plan.left_items:
        if i in at:
            a_off, cap, j = at[i]
            f = op.from_bytes
            if op.capture == CSTRN:         # (its length word is the op's, the copy a C string's)
                parts.append(lambda w, data, off, i=i + 1, j=op.len_arg + 1, f=f, a=a_off, c=cap:
                             f(w[i], data[off + a:off + a + c], w[j]))
            elif j is None or j == FIXED:
                parts.append(lambda w, data, off, i=i + 1, f=f, a=a_off, c=cap: f(w[i], data[off + a:off + a + c]))
            else:
                parts.append(lambda w, data, off, i=i + 1, j=j + 1, f=f, a=a_off, c=cap:
                             f(w[i], data[off + a:off + a + min(w[j], c)], w[j]))
        else:
            parts.append(lambda w, data, off, i=i + 1, f=op.word: f(w[i], None))
    if len(parts) == 1:
        p0, = parts
        return lambda w, data, off: [p0(w, data, off)]
    if len(parts) == 2:
        p0, p1 = parts
        return lambda w, data, off: [p0(w, data, off), p1(w, data, off)]
    if len(parts) == 3:
        p0, p1, p2 = parts
        return lambda w, data, off: [p0(w, data, off), p1(w, data, off), p2(w, data, off)]
    return lambda w, data, off: [p(w, data, off) for p in parts]


MEMO_MAX = 4096                    # finished lines kept per call site (see _leaf_renderer)
QUOTED_MAX = 1 << 16               # quoted C strings kept, by their bytes
_QUOTED: Dict[bytes, str] = {}


def _leaf_renderer(display: str, plan, strings, size: int, suffix: str = "\n", captures: bool = True):
    """(leaf, quick) for a site, compiled from one body (renderers that are plain expressions
    inlined). leaf(w, data, off, rax, suffix) is the finished line of a leaf call whose return
    captured nothing: what decode's general path makes of it. quick(data, off, top, suffix,
    append) appends the same line made from the record pair at data[off:] (the call record, its
    return record right after it) and returns the tag of the record after the pair (8 bytes of it
    must be there); or appends nothing and returns None when that is not such a leaf call, or a
    frame at `top` or below is open. One unpack of only the words the line shows, the check, the
    line and the next tag in one call: what decode's loop over runs of leaf calls needs. Its lines
    end with `suffix` as compiled (the sink's, which never changes: decode passes no other).

    A line that depends only on what the function keys it by is kept (up to MEMO_MAX per site):
    the argument words, the bytes of C-string arguments up to their NUL, and rax (unless the
    function returns nothing). So a call repeated with the same values, as in a loop, is rendered
    once. Sites with other captures (buffers, wide strings) or renderers that read more than
    their word are rendered each time.
    """
    at = {i: (a_off, cap, j) for i, a_off, cap, j in strings}
    env = {"memo": {}, "MEMO_MAX": MEMO_MAX, "Q": _QUOTED, "QUOTED_MAX": QUOTED_MAX, "P": display + "(",
           "esc": escape_bytes}
    used = set()        # the argument words (1-6) the line reads
    exprs = []          # each shown argument's text, as an expression
    key = []            # what the line depends on, when that is known (None: not memoized)
    pre = []            # statements before the key is built (C strings' bytes)
    fill = []           # statements run only when the line is not kept
    for k, (i, op) in enumerate(plan.left_items):
        word = f"w{i + 1}"
        used.add(i + 1)
        if i in at:
            a_off, cap, j = at[i]
            env[f"f{k}"] = op.from_bytes
            if op.capture == CSTR:
                # a C string: its text is its bytes up to the NUL, quoted (see the op's
                # from_bytes) (the NUL is searched in place: one slice, the string's, per call)
                pre += [f"n{k} = data.find(b'\\0', off + {a_off}, off + {a_off + cap})",
                        f"b{k} = data[off + {a_off}:n{k}] if 0 <= n{k} - off - {a_off} < {op.limit} and {word} "
                        f"else None"]
                fill += [f"s{k} = Q.get(b{k}) if b{k} is not None else None",
                         f"if s{k} is None:",
                         f"    s{k} = f{k}({word}, data[off + {a_off}:off + {a_off + cap}])",
                         f"    if b{k} is not None and len(Q) < QUOTED_MAX:",
                         f"        Q[b{k}] = s{k}"]
                exprs.append(f"s{k}")
                if key is not None:
                    key.append(f"b{k}")     # (the text is the bytes': b is None for NULL)
                continue
            # every byte was copied (the quick path has no faults): the op's expression, or its
            # from_bytes renderer on the copy (and the length word of a buffer)
            n = None
            if op.capture in (LENGTH, CSTRN):
                lw = (j if op.capture == LENGTH else op.len_arg) + 1
                n = f"w{lw}"
                used.add(lw)
            expr = op.inline(word, area=f"off + {a_off}", n=n)
            if expr is None:
                expr = (f"f{k}({word}, data[off + {a_off}:off + {a_off + cap}])" if n is None else
                        f"f{k}({word}, data[off + {a_off}:off + {a_off + cap}], {n})" if op.capture == CSTRN else
                        f"f{k}({word}, data[off + {a_off}:off + {a_off} + min({n}, {cap})], {n})")
            exprs.append(expr)
            key = None
            continue
        expr = op.inline(word)
        if expr is None:
            env[f"f{k}"] = op.word
            expr = f"f{k}({word}, None)"
        exprs.append(expr)
        if op.capture != WORD:
            key = None
        elif key is not None:
            key.append(word)
    ret = plan.ret
    rexpr = '"<void>"' if ret is None else ret.inline("rax")
    if rexpr is None:
        env["fr"] = ret.word
        env["_void"] = lambda r: "<void>" if r is None else r
        rexpr = "_void(fr(rax, None))"
    if ret is not None and ret.capture != WORD:
        key = None
    text = " + \", \" + ".join(["P + " + exprs[0]] + exprs[1:]) if exprs else "P"
    fill += [f"text = {text}",
             f"pad = {_ALIGN_PAD} - len(text)",
             f"line = text + (\") \" + \" \" * pad if pad > 0 else \") \") + \"= \" + {rexpr}"]
    if key is not None:
        items = key + (["rax"] if ret is not None else [])     # (a void function's rax is noise)
        key_expr = "(" + ", ".join(items) + ("," if items else "") + ")"

    def body(memo: str, tail: str, kept_with_tail: bool, done: str) -> List[str]:
        """The line's statements: from the site's memo or made, and `tail` after it (kept in the
        memo with the line when the tail cannot change); `done` is what is done with the line
        ({} in it)."""
        out = ["    " + x for x in pre]
        if key is None:
            return out + ["    " + x for x in fill] + ["    " + done.format(f"line + {tail}")]
        strings_ok = " and ".join(f"b{k} is not None" for k in range(len(exprs)) if f"b{k}" in key)
        out += [f"    key = {key_expr}" + (f" if {strings_ok} else None" if strings_ok else ""),
                f"    line = {memo}.get(key) if key is not None else None",
                "    if line is None:"] + ["        " + x for x in fill]
        if kept_with_tail:
            out.append(f"        line += {tail}")
        out += [f"        if key is not None and len({memo}) < MEMO_MAX:",
                f"            {memo}[key] = line",
                "    " + done.format("line" if kept_with_tail else f"line + {tail}")]
        return out

    words = sorted(used)
    leaf = ["def leaf(w, data, off, rax, suffix):"]
    if words:
        leaf.append(f"    {', '.join(f'w{i}' for i in words)}, = {', '.join(f'w[{i}]' for i in words)},")
    # quick's unpack: the used words, the slot and return address, the return record after the
    # string areas (RET_TAG, slot, return address, rax, captured?, output bytes) and the next
    # record's tag, for decode's loop. Its lines are kept with the suffix they were made with
    # (SUF, the sink's, which does not change): a call with another one is left to the general
    # path.
    layout = "".join("Q" if i in used else "8x" for i in range(1, 7))
    # A site whose returns copy nothing (no returned string, no output argument: `captures`
    # false) has both flags 0 in every return record that matches its slot and return address,
    # which the return trampoline wrote from the entry this site's trampoline pushed.
    flags = "QQ" if captures else "16x"
    env["U"] = struct.Struct(f"<8x{layout}QQ{size - HEAD}x4Q{flags}Q").unpack_from
    env["RET_TAG"] = RET_TAG
    env["SUF"] = suffix
    env["qmemo"] = {}
    names = [f"w{i}" for i in words] + ["slot", "ret", "tag", "rslot", "rret", "rax"] + \
        (["captured", "outn"] if captures else []) + ["nxt"]
    check = "tag != RET_TAG or rslot != slot or rret != ret or top <= slot" + \
        (" or captured or outn" if captures else "")
    quick = ["def quick(data, off, top, suffix, append):",
             f"    {', '.join(names)}, = U(data, off)",
             f"    if {check}:",
             "        return None"]
    src = leaf + body("memo", "suffix", False, "return {}") + quick + \
        body("qmemo", "SUF", True, "append({}); return nxt")
    exec(compile("\n".join(src) + "\n", f"<leaf {display}>", "exec"), env)
    return env["leaf"], env["quick"]


def area_size(cap: int) -> int:
    """Bytes a capture of `cap` bytes takes in a record: copied a qword at a time, the last store
    may reach 7 bytes past `cap`."""
    return (cap + 7 + 7) & ~7


class _Captured:
    """What the renderers of a return read, a GuestReader: the bytes the return trampoline copied
    (a returned C string or wide string, an output argument), live memory for anything else."""
    __slots__ = ("items", "fallback", "block", "wide")

    def __init__(self):
        self.items: List[Tuple[int, bytes]] = []
        self.fallback: Optional[GuestReader] = None    # live memory
        self.block = None               # (address, size, bytes copied) of an output argument
        self.wide = None                # (address, bytes copied, bytes asked) of a returned wide string

    def read(self, addr: int, size: int):
        wd = self.wide
        if wd is not None and wd[0] <= addr < wd[0] + wd[2]:
            data, d = wd[1], addr - wd[0]
            # what was copied; past it, unreadable at the return (as an output argument)
            return data[d:d + size] if d + size <= len(data) else None
        b = self.block
        if b is not None and b[0] <= addr < b[0] + b[1]:
            data = b[2]
            if addr + size <= b[0] + len(data):
                return data[addr - b[0]:addr - b[0] + size]
            return None                 # past what was readable at the return
        return self.fallback.read(addr, size)

    def cstring(self, addr: int, limit: int):
        for a, area in self.items:
            if a == addr:
                if area is None:
                    return None
                nul = area.find(b"\0")
                if nul >= 0:
                    return area[:nul], True
                return area[:limit], False
        b = self.block
        if b is not None and b[0] == addr:
            # an output string (read's buffer): its first limit + 1 bytes were asked for, those
            # copied are the ones readable (as MemView.cstring reads them)
            data = b[2]
            nul = data.find(b"\0", 0, limit + 1)
            if nul >= 0:
                return data[:nul], True
            return (data[:limit], False) if len(data) > limit else None
        return self.fallback.cstring(addr, limit)


class ThreadLog:
    """One thread's ring buffer and shadow stack (guest addresses) and how far Python has read."""
    __slots__ = ("ring", "read", "shadow", "shadow_size", "ctrl")

    def __init__(self, ring: int, shadow: int, shadow_size: int):
        self.ring = ring
        self.read = ring
        self.shadow = shadow
        self.shadow_size = shadow_size
        self.ctrl: Optional[bytes] = None     # the control words while the thread is not loaded


class GuestLog:
    """The guest-side call log of one engine (one address space): control page, return
    trampoline, per-thread rings, and the trampoline regions of its modules."""

    def __init__(self, tracer, proc, maxrec: int, ret_cap: int):
        self.tracer = tracer
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

    # -- set-up ---------------------------------------------------------------------
    def _map(self, proc) -> None:
        aspace = proc.aspace
        base = aspace.find_free(2 * 4096, top=LOG_TOP)
        aspace.map(base, 4096, 5, "[emutrace]")              # the return trampoline (r-x)
        aspace.map(base + 4096, 4096, 3, "[emutrace]")       # control words (rw-)
        self.ctrl = base + 4096
        a = Asm(base)
        self._return_code(a)
        code = a.link()
        self.ret_tramp = a.addr("ret")
        self.ret_printf = a.addr("ret_printf")
        self.lost = a.addr("lost")
        self.twice_miss, self.twice_full = a.addr("twice_miss"), a.addr("twice_full")
        proc.machine.write(base, code)
        self._ours(proc.machine, base, base + len(code))
        self.attach_machine(proc)

    def _return_code(self, a: Asm) -> None:
        # Reached by `ret` from a logged call: rsp = slot + 8. The registers it uses are kept in
        # the control page and restored, and the real return address is put back in the slot
        # (the final jump goes through it), so the caller finds registers and stack as a native
        # return leaves them.
        # printf-family sites return to the instruction before it, which alone carries the
        # printf hooks' C return hook (emutrace.printflog): the other returns skip Unicorn's
        # dispatch of a hook that would find nothing to do. It falls through.
        # No store checks for room: the ring and the shadow stack end in guard pages, and a store
        # that faults there restarts the trampoline at `ret` once Python has made room
        # (fault_fixup). So nothing is published (RPTR, SHTOP, the slot) before the last store
        # that can fault.
        a.label("ret_printf")
        a.raw(b"\x90")
        a.label("ret")
        a.movabs(R11, self.ctrl)
        a.store(R11, S_RSI, RSI)
        a.store(R11, S_R10, R10)
        a.load(R10, R11, SHTOP)
        # The common return first, in as few translated blocks as it can (each conditional
        # branch ends one) and memory operations (each costs a helper call): the top entry is
        # this frame's ((slot ^ rsp - 8) == 0) and its call copies nothing at the return (the
        # entry's kind-and-size word is 0), in one test. The record is the one the general path
        # below writes for such an entry.
        a.lea(R11, RSP, -8)                 # the slot the return address was in
        a.raw(b"\x4d\x33\x5a" + bytes([(-SHADOW_ENTRY) & 0xFF]))         # xor r11, [r10-64] (slot)
        a.raw(b"\x4d\x0b\x5a" + bytes([(16 - SHADOW_ENTRY) & 0xFF]))     # or r11, [r10-48] (kind, size)
        a.jcc(JNE, "slow")
        a.movabs(RSI, self.ctrl)
        a.load(RSI, RSI, RPTR)
        restore = (("rsi", S_RSI), ("r10", S_R10))
        start = a.addr("ret")
        self._ring_store(a, self.restarts, "ring", start, restore)
        a.store_imm(RSI, 40, 0)             # (the record's last word first: only it can fault)
        a.store_imm(RSI, 32, 0)
        a.store_imm(RSI, 0, -1)             # RET_TAG
        a.lea(R11, RSP, -8)
        a.store(RSI, 8, R11)
        a.load(R11, R10, 8 - SHADOW_ENTRY)
        a.store(RSI, 16, R11)
        a.store(RSI, 24, RAX)
        a.store(RSP, -8, R11)               # the slot holds the real return address again
        a.add_imm(RSI, RET_SIZE)
        a.sub_imm(R10, SHADOW_ENTRY)
        a.movabs(R11, self.ctrl)
        a.store(R11, RPTR, RSI)
        a.store(R11, SHTOP, R10)
        a.load(RSI, R11, S_RSI)
        a.load(R10, R11, S_R10)
        a.jmp_mem(RSP, -8)
        a.label("slow")
        a.movabs(R11, self.ctrl)
        a.load(RSI, R11, RPTR)
        # room for the largest return record, or the ring is full (the guard faults): the
        # stores after this one stay in the ring
        self._ring_store(a, self.restarts, "ring", start, restore)
        a.store_imm(RSI, self.maxrec - 8, 0)
        for r, save in ((RCX, S_RCX), (RDI, S_RDI)):
            a.store(R11, save, r)
        a.lea(RCX, RSP, -8)
        # the top entry is this frame's (a call that copies at the return: one branch)...
        a.sub_imm(R10, SHADOW_ENTRY)
        a.cmp_mem_reg(R10, 0, RCX)
        a.jcc(JE, "matched")
        # ... or pop entries of deeper frames (below the slot: left by longjmp) up to this
        # frame's; an entry above it (an outer frame's, or the sentinel at the base: the stack
        # is empty) means the return address was lost
        a.jcc(JA, "lost")
        a.label("pop")
        a.sub_imm(R10, SHADOW_ENTRY)
        a.cmp_mem_reg(R10, 0, RCX)
        a.jcc(JB, "pop")
        a.jcc(JNE, "lost")
        a.label("matched")
        self._return_record_head(a)
        a.load(RCX, R10, 24)
        a.store(R11, S_OUTP, RCX)
        a.load(RCX, R10, 40)
        a.store(R11, S_INP, RCX)
        a.load(RDI, R10, 16)                # the return kind (with its flags) | output size << 8
        a.mov(RCX, RDI)
        a.raw(b"\x48\xc1\xe9\x08")          # shr rcx, 8: the output size
        a.raw(b"\x81\xe7\xff\x00\x00\x00")  # and edi, 0xff: the return kind
        a.store(RSI, 32, RDI)               # (with its flags)
        a.store(R11, S_KIND, RDI)
        a.raw(b"\x83\xe7" + bytes([_KIND_MASK]))      # and edi, _KIND_MASK
        self._output_length(a)
        a.store(R11, S_OUTN, RCX)
        a.store(RSI, 40, RCX)
        a.mov(RCX, RDI)
        a.raw(b"\x48\x85\xc9")             # test rcx, rcx
        a.jcc(JE, "nocap")
        a.raw(b"\x48\x83\xf9" + bytes([RET_OUTLEN]))   # cmp rcx, RET_OUTLEN
        a.jcc(JAE, "nocap")                 # (an output string's length, not a returned string)
        # the function returns a C string: copy it, as the entry copies string arguments; or a
        # wide string: a fixed number of bytes, as the entry copies wide string arguments
        a.store(R11, S_RAX, RAX)
        a.store(R11, S_RBX, RBX)
        a.mov(RDI, RAX)
        a.mov(RAX, RSI)
        a.raw(b"\x48\x83\xf9" + bytes([RET_WSTR]))     # cmp rcx, RET_WSTR
        a.jcc(JE, "rwide")
        self._copy(a, RDI, None, RET_SIZE, self.ret_cap, "rs", S2_RCX, S2_RDX)
        a.mov(RSI, RAX)
        a.add_imm(RSI, area_size(self.ret_cap))
        a.jmp("rcopied")
        a.label("rwide")
        self._copy(a, RDI, FIXED, RET_SIZE, self.wret_cap, "rw", S2_RCX, S2_RDX)
        a.mov(RSI, RAX)
        a.add_imm(RSI, area_size(self.wret_cap))
        a.label("rcopied")
        a.load(RAX, R11, S_RAX)
        a.load(RBX, R11, S_RBX)
        a.label("nocap")
        a.add_imm(RSI, RET_SIZE)
        a.load(RCX, R11, S_OUTN)
        a.raw(b"\x48\x85\xc9")             # test rcx, rcx
        a.jcc(JE, "noout")
        # rdx, for a structure returned in rax and rdx
        a.raw(b"\x48\x83\x7e\xf0" + bytes([RET_PAIR]))   # cmp qword [rsi-16] (captured), RET_PAIR
        a.jcc(JNE, "outcopy")
        a.store(RSI, 0, RDX)
        a.add_imm(RSI, 8)
        a.jmp("noout")
        a.label("outcopy")
        # an output argument: its bytes as the function left them
        a.store(R11, S_RAX, RAX)
        a.store(R11, S_RBX, RBX)
        a.load(RDI, R11, S_OUTP)
        a.mov(RAX, RSI)
        self._copy(a, RDI, RCX, 0, OUT_MAX, "ro", S2_RCX, S2_RDX)
        a.mov(RSI, RAX)
        a.load(RCX, R11, S_OUTN)
        a.add_imm(RCX, 7)
        a.raw(b"\x48\x83\xe1\xf8")         # and rcx, -8
        a.raw(b"\x48\x01\xce")             # add rsi, rcx
        a.load(RAX, R11, S_RAX)
        a.load(RBX, R11, S_RBX)
        a.label("noout")
        # the string shown at the return besides the output argument (mbstowcs's source)
        for flag, length, cap, tag in ((IN_CSTR, None, self.ret_cap, "ric"), (IN_WSTR, FIXED, self.wret_cap, "riw")):
            a.raw(b"\x41\xf6\x83" + struct.pack("<i", S_KIND) + bytes([flag]))   # test byte [r11+S_KIND], flag
            a.jcc(JE, f"{tag}no")
            a.store(R11, S_RAX, RAX)
            a.store(R11, S_RBX, RBX)
            a.load(RDI, R11, S_INP)
            a.mov(RAX, RSI)
            self._copy(a, RDI, length, 0, cap, tag, S2_RCX, S2_RDX)
            a.mov(RSI, RAX)
            a.add_imm(RSI, area_size(cap))
            a.load(RAX, R11, S_RAX)
            a.load(RBX, R11, S_RBX)
            a.label(f"{tag}no")
        a.label("published")
        a.store(R11, RPTR, RSI)
        for r, save in ((RCX, S_RCX), (RSI, S_RSI), (RDI, S_RDI), (R10, S_R10)):
            a.load(r, R11, save)
        a.jmp_mem(RSP, -8)                  # (the slot: the real return address)
        a.label("lost")                     # hooked: the return address cannot be found
        a.jmp("ret")
        # hooked: a returns-twice call's return address has no stub yet (Python makes one), a
        # return stub found the ring full (Python empties it); both go back where S_JMP says
        for name in ("twice_miss", "twice_full"):
            a.label(name)
            a.movabs(R11, self.ctrl)
            a.jmp_mem(R11, S_JMP)

    @staticmethod
    def _return_record_head(a: Asm) -> None:
        # The matched shadow entry (r10) popped; the return record's tag, slot (rcx), return
        # address and rax at rsi; the real return address back in the slot (rdi keeps it). (No
        # store after the probe of the slow path can fault: publishing here is safe.)
        a.store(R11, SHTOP, R10)
        a.store_imm(RSI, 0, -1)             # RET_TAG
        a.store(RSI, 8, RCX)
        a.load(RDI, R10, 8)
        a.store(RSI, 16, RDI)
        a.store(RSI, 24, RAX)
        a.store(RSP, -8, RDI)               # the slot holds the real return address again

    @staticmethod
    def _output_length(a: Asm) -> None:
        # rcx: the shadow entry's size word, rdi: its return kind. For an output string as long
        # as the returned value (RET_OUTLEN), rcx becomes the bytes to copy: min(rax, rcx)
        # characters, times 4 for wide ones; for a C string one byte more, which MemView.cstring
        # reads too (unreadable there, the string shows as its pointer). rax is unsigned, as the
        # generic interpreter reads a length from it; a 4-byte return value is its low half.
        # Uses r10 (the shadow entry is not read after this).
        a.raw(b"\x48\x83\xff" + bytes([RET_OUTLEN]))   # cmp rdi, RET_OUTLEN
        a.jcc(JB, "olsized")
        a.raw(b"\x48\x83\xff" + bytes([RET_PAIR]))     # cmp rdi, RET_PAIR (rcx: 8, rdx's bytes)
        a.jcc(JAE, "olsized")
        a.mov(R10, RAX)
        a.raw(b"\x40\xf6\xc7" + bytes([OUTLEN_32]))    # test dil, OUTLEN_32
        a.jcc(JE, "ol64")
        a.raw(b"\x41\x89\xc2")                         # mov r10d, eax
        a.label("ol64")
        a.raw(b"\x49\x39\xca")                         # cmp r10, rcx
        a.jcc(JAE, "olcapped")
        a.mov(RCX, R10)
        a.label("olcapped")
        a.raw(b"\x40\xf6\xc7" + bytes([OUTLEN_WIDE]))  # test dil, OUTLEN_WIDE
        a.jcc(JE, "olnarrow")
        a.raw(b"\x48\xc1\xe1\x02")                     # shl rcx, 2
        a.jmp("olsized")
        a.label("olnarrow")
        a.raw(b"\x48\xff\xc1")                         # inc rcx
        a.label("olsized")

    def attach_machine(self, proc) -> None:
        """Hooks and callbacks on this engine (the first one, or a forked child's copy)."""
        m = self.m = proc.machine
        m.guest_log = self
        m.flush_log = self.flush
        m.thread_switch = self.switch
        m.fault_fixup = self.fault_fixup
        m.in_guest_code = self.in_code
        for lo, hi in self.code_ranges:         # (a forked child's engine: the ranges it copied)
            m.counter.skip(lo, hi)
        m.hook_code(self._on_lost, self.lost, self.lost)
        m.hook_code(self._on_twice_miss, self.twice_miss, self.twice_miss)
        m.hook_code(self._on_twice_full, self.twice_full, self.twice_full)
        loaded = m.loaded or proc.thread
        if loaded not in self.threads:
            self._new_thread(proc, loaded)

    def clone_for(self, child) -> "GuestLog":
        """A forked child's engine holds a copy of every page: the same addresses serve it."""
        c = GuestLog.__new__(GuestLog)
        c.tracer, c.maxrec, c.ret_cap = self.tracer, self.maxrec, self.ret_cap
        c.held = False
        c.code_ranges = list(self.code_ranges)
        c.loads, c.faulted = dict(self.loads), {}
        c.leaf_suffix = self.leaf_suffix        # (the sites, and their compiled lines, are shared)
        c.native_sites = self.native_sites
        c.ctrl, c.ret_tramp, c.lost = self.ctrl, self.ret_tramp, self.lost
        c.ret_printf = self.ret_printf
        c.twice_miss, c.twice_full = self.twice_miss, self.twice_full
        c.stub_table, c.stub_code, c.stub_count = self.stub_table, self.stub_code, self.stub_count
        parent_thread = self.m.loaded
        tl = self.threads.get(parent_thread)
        c.threads = {}
        if tl is not None:
            t = ThreadLog(tl.ring, tl.shadow, tl.shadow_size)
            t.read = child.machine.read_u64(c.ctrl + RPTR)
            c.threads[child.thread] = t
        c.attach_machine(child)
        c.restarts, c.patched, c.unwind_hooked = dict(self.restarts), set(self.patched), set()
        c.templates = {}
        c.native_points, c.printf_hooks = list(self.native_points), None
        for fs, at in c.native_points:          # (the child's engine has hooks of its own)
            fs.placed(c, child, at)
        return c

    def _new_thread(self, proc, thread) -> ThreadLog:
        # the ring, its guard (room for the largest record: a store past the ring's end faults
        # there, see fault_fixup), then the shadow stack and its guard
        aspace = proc.aspace
        guard = page_up(self.maxrec)
        size = RING_SIZE + guard + SHADOW_SIZE + SHADOW_GUARD
        base = aspace.find_free(size, top=LOG_TOP)
        aspace.map(base, RING_SIZE, 3, "[emutrace]")
        aspace.map(base + RING_SIZE, guard, 0, "[emutrace]")
        tl = ThreadLog(base, base + RING_SIZE + guard, SHADOW_SIZE)
        self._map_shadow(aspace, tl.shadow, SHADOW_SIZE)
        self.threads[thread] = tl
        self._load(tl)
        return tl

    def _map_shadow(self, aspace, base: int, size: int) -> None:
        """A shadow stack of `size` bytes at `base`, its guard after it, and its sentinel entry
        at its base: a slot above every stack address, which the return trampoline's search
        stops at (an empty stack: the return address is lost)."""
        aspace.map(base, size, 3, "[emutrace]")
        aspace.map(base + size, SHADOW_GUARD, 0, "[emutrace]")
        self.m.write(base, struct.pack("<2Q", _NO_FRAME - 1, 0))

    def _words(self, tl: ThreadLog) -> bytes:
        return struct.pack("<5Q", tl.ring, tl.ring + RING_SIZE - self.maxrec, tl.shadow + SHADOW_ENTRY,
                           tl.shadow + tl.shadow_size, tl.shadow)

    def _load(self, tl: ThreadLog) -> None:
        self.m.write(self.ctrl, tl.ctrl if tl.ctrl is not None else self._words(tl))
        tl.ctrl = None

    def switch(self, old, new) -> None:
        """The scheduler loads another thread on this engine: its ring and shadow stack too."""
        m = self.m
        if old is not None:
            tl = self.threads.get(old)
            if tl is not None:
                if getattr(old, "alive", True):
                    tl.ctrl = m.read(self.ctrl, 8 * CTRL_WORDS)
                else:
                    del self.threads[old]
        tl = self.threads.get(new)
        if tl is None:
            self._new_thread(new.proc, new)
        else:
            self._load(tl)

    def is_return_entry(self, addr: int) -> bool:
        """Is `addr` one of the return trampoline's entries (what a logged call's trampoline puts
        in its return slot: the shared one, or printf sites' own just before it)?"""
        return addr == self.ret_tramp or addr == self.ret_printf

    def _ours(self, m, lo: int, hi: int) -> None:
        """[lo, hi) holds guest code of ours: never stopped inside, and not counted as the
        guest's work (tracing does not move the guest's clock: docs/time.md)."""
        self.code_ranges.append((lo, hi))
        m.counter.skip(lo, hi)

    def in_code(self, addr: int) -> bool:
        for lo, hi in self.code_ranges:
            if lo <= addr < hi:
                return True
        return False

    # -- trampolines ------------------------------------------------------------------
    def build(self, proc, near: int, entries: List[Tuple[FastSite, int, Optional[int]]]) -> bool:
        """Trampolines for (site, GOT slot, PLT entry or None), placed within a rel32 jump of
        `near` (the module) and of every entry and slot.

        A PLT entry is patched with a jmp to its trampoline, which goes on through the entry's
        GOT slot, so lazy binding keeps working. Without an entry (-fno-plt), the slot's
        function address moves into the trampoline region and the slot is pointed at the
        trampoline. False when no free range is near enough."""
        m = proc.machine
        n = len(entries)
        if self.stub_table is None and any(fs.site.name in RETURNS_TWICE for fs, _, _ in entries):
            self._map_stubs(proc)
        got_sites = [k for k, (_, _, e) in enumerate(entries) if e is None]
        est = sum(400 + 220 * len(fs.strings) for fs, _, _ in entries)     # generous; checked after assembly
        size = page_up(8 * len(got_sites) + est)
        base = free_near(proc.aspace, size, near,
                         [slot for _, slot, _ in entries] + [e for _, _, e in entries if e is not None])
        if base is None:
            return False
        data = base             # the function addresses of -fno-plt slots
        through = {}
        for j, k in enumerate(got_sites):
            through[k] = data + 8 * j
        code = bytearray(b"\xcc" * (8 * len(got_sites)))
        tramps, points, loads, restarts = [], [], {}, {}
        for k, (fs, slot, entry) in enumerate(entries):
            at = base + len(code)
            tramps.append(at)
            tc, point = self._placed(fs, at, through.get(k, slot), loads, restarts)
            code += tc
            points.append(point)
        if len(code) > size:
            return False
        self.loads.update(loads)
        self.restarts.update(restarts)
        for k, addr in through.items():
            struct.pack_into("<Q", code, addr - base, m.read_u64(entries[k][1]))
        proc.aspace.map(base, size, 5, "[emutrace]")
        m.write(base, bytes(code))
        self._ours(m, base, base + len(code))
        for k, (fs, slot, entry) in enumerate(entries):
            if fs.native_point:
                self.native_points.append((fs, points[k]))
                fs.placed(self, proc, points[k])
        patch_jmps(m, [(entry, tramps[k]) for k, (fs, slot, entry) in enumerate(entries) if entry is not None])
        for k, (fs, slot, entry) in enumerate(entries):
            if entry is not None:
                self.patched.add(entry)
            else:
                m.write(slot, struct.pack("<Q", tramps[k]))     # the slot the caller reads
                fs.entry = tramps[k]
        return True

    def _placed(self, fs: FastSite, at: int, through: int, loads: Dict[int, Tuple[int, int]],
                restarts: dict) -> Tuple[bytes, Optional[int]]:
        """The code of fs's trampoline at `at` (and the address of its C hook instruction, or
        None): its shape's code (assembled once per shape: most of a program's sites share a
        few shapes, and assembling one in Python costs ~0.4 ms) with the site's own numbers
        written in. Its string copies' loads go in `loads`, its stores that may fault in a guard
        page in `restarts`."""
        shape = shape_of(fs)
        t = self.templates.get(shape)
        if t is None:
            t = self.templates[shape] = self._template(shape)
        code = bytearray(t.code)
        struct.pack_into("<i", code, t.fields["tag"], fs.tag)
        off = t.fields["through"]
        struct.pack_into("<i", code, off, rel32(at + off + 4, through))
        if "start" in t.fields:
            struct.pack_into("<Q", code, t.fields["start"], at)
        for off, (resume, area) in t.loads.items():
            loads[at + off] = (at + resume, area)
        for off, (full, start, restore, unpublish) in t.restarts.items():
            restarts[at + off] = (full, at + start, restore, unpublish)
        point = t.fields.get("np")
        return bytes(code), (None if point is None else at + point)

    def _template(self, shape: "Shape") -> "_Template":
        """A shape's trampoline assembled at address 0 for tag 0, with where the site's own
        numbers go (`fields`: offsets of the tag's imm32, the rel32 to the GOT slot, the imm64
        of the trampoline's own address, the C hook's instruction)."""
        fields: Dict[str, int] = {}
        loads: Dict[int, Tuple[int, int]] = {}
        restarts: dict = {}
        code = self._trampoline(shape, 0, 0, 0, loads, restarts, fields)
        return _Template(code, fields, loads, restarts)

    def _trampoline(self, shape: "Shape", at: int, tag: int, through: int, loads: Dict[int, Tuple[int, int]],
                    restarts: dict, fields: Optional[Dict[str, int]] = None) -> bytes:
        """The trampoline of a site of `shape` assembled at `at`: it logs the call with `tag` and
        goes on through the qword at `through` (the GOT slot). Where those numbers went is put
        in `fields` (offsets from `at`); its string copies' loads in `loads`, its stores that may
        fault in a guard page in `restarts`."""
        # At a function's entry: [rsp] is the return address; r11 is free (the psABI lets PLT
        # code clobber it); every other register is preserved. No check for room: a store in
        # the ring's or the shadow stack's guard page faults, and the trampoline starts over
        # from its start once Python has made room (fault_fixup), so RPTR, SHTOP and the return
        # slot are written only after the last store that can fault. The record's highest word
        # is stored first: when it is in the ring, so is every later store (the string copies
        # included).
        fields = {} if fields is None else fields
        a = Asm(at)
        start = at
        if not (shape.twice or shape.strings or shape.native_point):
            self._plain_trampoline(a, shape, tag, through, start, restarts, fields)
            return a.link()
        a.movabs(R11, self.ctrl)
        a.store(R11, S_RAX, RAX)
        if shape.twice:
            self._find_stub(a, fields)     # (it keeps r10 in S_R10)
        else:
            a.store(R11, S_R10, R10)
        if shape.strings:
            a.store(R11, S_RBX, RBX)
        restore = (("rax", S_RAX), ("r10", S_R10)) + ((("rbx", S_RBX),) if shape.strings else ())
        a.load(RAX, R11, RPTR)
        a.load(R10, RSP, 0)                           # the return address
        self._ring_store(a, restarts, "ring", start, restore)
        if shape.size > HEAD:
            a.store_imm(RAX, shape.size - 8, 0)       # (overwritten by a copy or the C hook)
        else:
            a.store(RAX, 64, R10)
        a.store_imm(RAX, 0, tag)
        fields["tag"] = len(a.code) - 4
        for i, r in enumerate(ARG_REGS):
            a.store(RAX, 8 + 8 * i, r)
        a.store(RAX, 56, RSP)                         # the return slot
        if shape.size > HEAD:
            a.store(RAX, 64, R10)
        if not shape.twice:
            # the shadow entry: slot, return address, return kind | output size << 8, output
            # argument, string shown at the return (before the C hook, which reads SHTOP as
            # this call's entry and must run once: nothing after it faults)
            a.load(R11, R11, SHTOP)
            size = 8 if shape.ret_kind == RET_PAIR else shape.out[1] if shape.out is not None else 0
            # (no entry straddles a page's end: only the first store can fault)
            self._ring_store(a, restarts, "shadow", start, restore)
            a.store(R11, 0, RSP)
            a.store(R11, 8, R10)
            a.store_imm(R11, 16, shape.ret_kind | size << 8)
            if shape.out is not None:
                a.store(R11, 24, ARG_REGS[shape.out[0]])
            if shape.in_string is not None:
                a.store(R11, 40, ARG_REGS[shape.in_string])
            a.movabs(R11, self.ctrl)
        if shape.native_point:
            # a C hook runs here (rax and the control page's RPTR: the record, whose head is
            # written; SHTOP: this call's shadow entry; every argument register as at the call)
            # and writes what follows the head (emutrace.printflog)
            fields["np"] = len(a.code)
            a.raw(b"\x90")
        for k2, (i, off, cap, j) in enumerate(shape.strings):
            length = None if j is None else FIXED if j == FIXED else ARG_REGS[j]
            self._copy(a, ARG_REGS[i], length, off, cap, f"c{k2}", loads=loads)
        if shape.strings:
            a.load(RBX, R11, S_RBX)
        a.add_imm(RAX, shape.size)
        a.store(R11, RPTR, RAX)                       # the record is complete: publish it
        if shape.twice:
            a.load(R10, R11, S_STUB)
            a.store(RSP, 0, R10)                      # the return comes to the stub
        else:
            a.load(RAX, R11, SHTOP)
            a.add_imm(RAX, SHADOW_ENTRY)
            a.store(R11, SHTOP, RAX)
            a.movabs(R10, self.ret_printf if shape.native_point else self.ret_tramp)
            a.store(RSP, 0, R10)                      # the return comes to the return trampoline
        a.load(R10, R11, S_R10)
        a.load(RAX, R11, S_RAX)
        a.jmp_rip_mem(through)
        fields["through"] = len(a.code) - 4
        return a.link()

    def _plain_trampoline(self, a: Asm, shape: "Shape", tag: int, through: int, start: int, restarts: dict,
                          fields: Dict[str, int]) -> None:
        # The common site (no string argument, no C hook, not setjmp's): rax alone is borrowed,
        # the control page addressed with movabs (no base register), r11 holds the return
        # address. The record is published before the shadow entry is written (a fault there
        # takes it back: fault_fixup's `unpublish`), which spares a second borrowed register.
        ctrl = self.ctrl
        a.store_rax_abs(ctrl + S_RAX)
        a.load_rax_abs(ctrl + RPTR)
        a.load(R11, RSP, 0)                           # the return address
        self._ring_store(a, restarts, "ring", start, (("rax", S_RAX),))
        a.store(RAX, 64, R11)                         # (the record's last word first)
        a.store_imm(RAX, 0, tag)
        fields["tag"] = len(a.code) - 4
        for i, r in enumerate(ARG_REGS):
            a.store(RAX, 8 + 8 * i, r)
        a.store(RAX, 56, RSP)                         # the return slot
        a.add_imm(RAX, shape.size)
        a.store_rax_abs(ctrl + RPTR)                  # the record is complete: publish it
        a.load_rax_abs(ctrl + SHTOP)
        self._ring_store(a, restarts, "shadow", start, (("rax", S_RAX),), shape.size)
        a.store(RAX, 0, RSP)
        a.store(RAX, 8, R11)
        size = 8 if shape.ret_kind == RET_PAIR else shape.out[1] if shape.out is not None else 0
        a.store_imm(RAX, 16, shape.ret_kind | size << 8)
        if shape.out is not None:
            a.store(RAX, 24, ARG_REGS[shape.out[0]])
        if shape.in_string is not None:
            a.store(RAX, 40, ARG_REGS[shape.in_string])
        a.add_imm(RAX, SHADOW_ENTRY)
        a.store_rax_abs(ctrl + SHTOP)
        a.movabs(R11, self.ret_tramp)
        a.store(RSP, 0, R11)                          # the return comes to the return trampoline
        a.load_rax_abs(ctrl + S_RAX)
        a.jmp_rip_mem(through)
        fields["through"] = len(a.code) - 4

    @staticmethod
    def _ring_store(a: Asm, into: dict, full: str, start: int, restore, unpublish: int = 0) -> None:
        """The next instruction is a store that faults when the ring (full "ring") or the shadow
        stack ("shadow") has no room: fault_fixup restores `restore` ((register, where it is
        kept), ...), takes back a record of `unpublish` bytes already published, makes room and
        starts the trampoline over at `start`."""
        into[a.here] = (full, start, restore, unpublish)

    def _map_stubs(self, proc) -> None:
        """The table of return stubs (read by the trampolines; zeros: empty) and their code."""
        table = page_up(16 * (STUBS_MAX + 1))
        code = page_up(STUB_SIZE * STUBS_MAX)
        base = proc.aspace.find_free(table + code, top=LOG_TOP)
        proc.aspace.map(base, table, 1, "[emutrace]")
        proc.aspace.map(base + table, code, 5, "[emutrace]")
        self.stub_table, self.stub_code = base, base + table
        self._ours(proc.machine, base + table, base + table + code)

    def _find_stub(self, a: Asm, fields: Dict[str, int]) -> None:
        """The stub of the return address [rsp] into [r11+S_STUB], from the table of stubs (r11:
        the control page; rax saved). None yet: the trampoline's start (a.base: where its imm64
        is goes in `fields`) goes in S_JMP and the `twice_miss` hook makes one (Python), after
        which the trampoline starts over."""
        a.store(R11, S_R10, R10)
        a.load(R10, RSP, 0)
        a.movabs(RAX, self.stub_table)
        a.label("scan")
        a.cmp_mem_reg(RAX, 0, R10)
        a.jcc(JE, "found")
        a.raw(b"\x48\x83\x38\x00")                     # cmp qword [rax], 0
        a.jcc(JE, "miss")
        a.add_imm(RAX, 16)
        a.jmp("scan")
        a.label("miss")
        a.movabs(R10, a.base)
        fields["start"] = len(a.code) - 8
        a.store(R11, S_JMP, R10)
        a.load(R10, R11, S_R10)
        a.load(RAX, R11, S_RAX)
        a.movabs(R11, self.twice_miss)      # (far from the trampolines: an absolute jump)
        a.jmp_reg(R11)
        a.label("found")
        a.load(R10, RAX, 8)
        a.store(R11, S_STUB, R10)
        a.load(R10, R11, S_R10)

    def _stub_code(self, ret: int, at: int) -> bytes:
        """The return stub of return address `ret`, at `at`: reached by the return (rsp = the slot
        + 8) or by longjmp to a buffer the call filled; it appends a return record, as the return
        trampoline does for a call that copies nothing at its return, and jumps to `ret`. Full
        ring: the `twice_full` hook flushes it and the stub starts over (S_JMP). Every register
        but r11 is as the function or longjmp left it."""
        a = Asm(at)
        a.movabs(R11, self.ctrl)
        a.store(R11, S_RSI, RSI)
        a.load(RSI, R11, RPTR)
        a.cmp_reg_mem(RSI, R11, REND)
        a.jcc(JAE, "full")
        a.store(R11, S_RCX, RCX)
        a.store_imm(RSI, 0, -1)             # RET_TAG
        a.lea(RCX, RSP, -8)
        a.store(RSI, 8, RCX)                # the slot
        a.movabs(RCX, ret)
        a.store(RSI, 16, RCX)
        a.store(RSI, 24, RAX)
        a.store_imm(RSI, 32, 0)
        a.store_imm(RSI, 40, 0)
        a.add_imm(RSI, RET_SIZE)
        a.store(R11, RPTR, RSI)
        a.load(RCX, R11, S_RCX)
        a.load(RSI, R11, S_RSI)
        a.movabs(R11, ret)
        a.jmp_reg(R11)
        a.label("full")
        a.movabs(RSI, at)
        a.store(R11, S_JMP, RSI)
        a.load(RSI, R11, S_RSI)
        a.movabs(R11, self.twice_full)
        a.jmp_reg(R11)
        code = a.link()
        assert len(code) <= STUB_SIZE
        return code

    def _on_twice_miss(self, addr: int) -> None:
        """A returns-twice call whose return address has no stub yet: make one; the trampoline
        then starts over (S_JMP) and finds it."""
        m = self.m
        ret = m.read_u64(m.reg("rsp"))
        n = self.stub_count
        if n >= STUBS_MAX:
            raise EmutraceError(f"more than {STUBS_MAX} places call setjmp: run again with --hook-returns", 125)
        at = self.stub_code + n * STUB_SIZE
        m.write(at, self._stub_code(ret, at))
        m.write(self.stub_table + 16 * n, struct.pack("<QQ", ret, at))
        self.stub_count = n + 1

    def _on_twice_full(self, addr: int) -> None:
        """A return stub found the ring full: empty it; the stub then starts over (S_JMP)."""
        self.flush(self.tracer.session.kernel.current, safe=True)

    def _copy(self, a: Asm, src: int, length: Optional[int], off: int, cap: int, tag: str,
              save_rcx: int = S_RCX, save_rdx: int = S_RDX, loads: Optional[Dict[int, Tuple[int, int]]] = None) -> None:
        """Copy a C string (length None: up to its NUL), a buffer (min(length register, cap)
        bytes) or `cap` bytes (length FIXED: a wide string, ended by Python) into [rax+off...];
        nothing for NULL. A qword at a time, each load aligned: an aligned qword never reaches
        into another page, so the copy faults only where a byte-wise copy would. The bytes before
        the first 8-aligned address come from the aligned qword that holds the first byte, shifted
        down. Every conditional branch ends Unicorn's translated block, and each block costs a
        helper call or two, so the loop makes one branch per qword: the NUL test and the length
        test are merged into one. rcx, rdx, rbx, r10 and r11 are used (rcx and rdx restored, rbx
        by the caller); r11 is the control page on entry and on exit. Its loads go in `loads`
        (self.loads unless given): load address → (where a fault in it resumes, `off`)."""
        done, body, loop = f"{tag}done", f"{tag}body", f"{tag}q"
        at_loads = []                   # (the addresses of its two loads)
        a.store(R11, save_rcx, RCX)
        a.store(R11, save_rdx, RDX)
        a.mov(R11, src)
        a.raw(b"\x45\x31\xd2")                         # xor r10d, r10d
        a.raw(b"\x4d\x85\xdb")                         # test r11, r11
        a.jcc(JE, done)
        if length == FIXED:
            a.raw(b"\xb9" + struct.pack("<I", cap))            # mov ecx, cap
        elif length is not None:
            a.mov(RCX, length)
            a.raw(b"\x48\x81\xf9" + struct.pack("<i", cap))   # cmp rcx, cap
            a.jcc(JBE, f"{tag}short")
            a.raw(b"\xb9" + struct.pack("<I", cap))            # mov ecx, cap
            a.label(f"{tag}short")
            a.raw(b"\x48\x85\xc9")                     # test rcx, rcx (nothing read for none)
            a.jcc(JE, done)
        # the head: src's first 8 - (src & 7) bytes, from the aligned qword holding them
        a.mov(RBX, R11)
        a.raw(b"\x83\xe3\x07")                         # and ebx, 7
        a.jcc(JE, body)
        if length is not None:
            a.mov(RDX, RCX)                             # (the length, while cl is the shift)
        a.raw(b"\x8d\x0c\xdd\x00\x00\x00\x00")             # lea ecx, [rbx*8]
        a.raw(b"\x48\xf7\xdb")                         # neg rbx
        at_loads.append(a.here)
        a.raw(b"\x49\x8b\x1c\x1b")                     # mov rbx, [r11+rbx] (aligned)
        a.raw(b"\x48\xd3\xeb")                         # shr rbx, cl
        a.raw(b"\x48\x89\x98" + struct.pack("<i", off))    # mov [rax+off], rbx
        if length is None:
            # the bytes past the head are not the string's: set to 0xff for the NUL test
            a.raw(b"\xf7\xd9")                         # neg ecx
            a.raw(b"\x83\xc1\x40")                     # add ecx, 64
            a.raw(b"\x49\xc7\xc2\xff\xff\xff\xff")         # mov r10, -1
            a.raw(b"\x49\xd3\xe2")                     # shl r10, cl
            a.raw(b"\x4c\x09\xd3")                     # or rbx, r10
            a.movabs(RDX, 0x0101010101010101)
            self._zero_byte_mask(a)
            a.jcc(JNE, done)
        a.mov(R10, R11)
        a.raw(b"\x41\x83\xe2\x07")                     # and r10d, 7
        a.raw(b"\x49\xf7\xda")                         # neg r10
        a.raw(b"\x49\x83\xc2\x08")                     # add r10, 8: the bytes copied
        if length is not None:
            a.mov(RCX, RDX)
        a.label(body)
        if length is None:
            a.movabs(RDX, 0x0101010101010101)
            a.raw(b"\x49\x81\xfa" + struct.pack("<i", cap))   # cmp r10, cap
        else:
            a.raw(b"\x49\x39\xca")                     # cmp r10, rcx
        a.jcc(JAE, done)
        a.label(loop)
        at_loads.append(a.here)
        a.raw(b"\x4b\x8b\x1c\x13")                     # mov rbx, [r11+r10] (aligned)
        a.raw(b"\x4a\x89\x9c\x10" + struct.pack("<i", off))    # mov [rax+r10+off], rbx
        a.add_imm(R10, 8)
        if length is None:
            # on while no byte of rbx is zero and r10 < cap: rcx = the zero-byte mask | (r10 >=
            # cap ? -1 : 0), as ~(r10 - cap) >> 63 (arithmetic) is
            self._zero_byte_mask(a)
            a.mov(RBX, R10)
            a.raw(b"\x48\x81\xeb" + struct.pack("<i", cap))   # sub rbx, cap
            a.raw(b"\x48\xf7\xd3")                     # not rbx
            a.raw(b"\x48\xc1\xfb\x3f")                 # sar rbx, 63
            a.raw(b"\x48\x09\xd9")                     # or rcx, rbx
            a.jcc(JE, loop)
        else:
            a.raw(b"\x49\x39\xca")                     # cmp r10, rcx
            a.jcc(JB, loop)
        a.label(done)
        if loads is None:
            loads = self.loads
        for at in at_loads:
            loads[at] = (a.addr(done), off)             # a fault in the copy resumes here
        a.movabs(R11, self.ctrl)
        a.load(RCX, R11, save_rcx)
        a.load(RDX, R11, save_rdx)

    @staticmethod
    def _zero_byte_mask(a: Asm) -> None:
        """rcx = (rbx - rdx) & ~rbx & (rdx << 7), rdx being 0x0101..01: non-zero when a byte of
        rbx is zero (the flags say so); rbx is clobbered."""
        a.mov(RCX, RBX)
        a.raw(b"\x48\x29\xd1")                         # sub rcx, rdx
        a.raw(b"\x48\xf7\xd3")                         # not rbx
        a.raw(b"\x48\x21\xd9")                         # and rcx, rbx
        a.mov(RBX, RDX)
        a.raw(b"\x48\xc1\xe3\x07")                     # shl rbx, 7
        a.raw(b"\x48\x21\xd9")                         # and rcx, rbx

    # -- Python's side --------------------------------------------------------------------
    def _grow_shadow(self, proc, base: int, top: int) -> None:
        tl = self.threads[self.m.loaded or proc.thread]
        size = tl.shadow_size * 2
        new = proc.aspace.find_free(size + SHADOW_GUARD, top=LOG_TOP)
        self._map_shadow(proc.aspace, new, size)
        used = top - base
        self.m.write(new, self.m.read(base, used))
        proc.aspace.unmap(base, tl.shadow_size + SHADOW_GUARD)
        tl.shadow, tl.shadow_size = new, size
        self.m.write(self.ctrl + SHTOP, struct.pack("<QQQ", new + used, new + size, new))

    def _on_lost(self, addr: int) -> None:
        slot = self.m.reg("rsp") - 8
        raise EmutraceError(f"lost the return address of a library call (stack slot {slot:#x}): the "
                            "program moved it; run again with --hook-returns", 125)

    def flush(self, proc, safe: bool = False, syscall: Optional[int] = None) -> None:
        """Report every record of the loaded thread; empty its ring unless it is inside a
        trampoline (whose record may be half-written) — `safe`: it is at a point where none is.

        `syscall`: the number of the system call this flush comes before. At a quiet one
        (_may_hold) nothing is decoded: the records stay in the ring, which goes on filling, and
        are decoded together later — when it fills, at the slice's end, or before anything else
        is printed (settle) — as one run, in which the call making the system call meets its
        return and decodes as one leaf pair on the fast paths instead of a Frame, a Call and a
        Return. The lines are the same: nothing can print between (see _may_hold)."""
        m = self.m
        tl = self.threads.get(m.loaded)
        if tl is None:
            return
        ctrl = self.ctrl
        end = m.read_u64(ctrl)
        if end != tl.read and not proc.traced:
            tl.read = end                   # (a child run without -f: its calls are not reported)
        if end != tl.read:
            if syscall is not None and self._may_hold(proc, syscall):
                self.held = True
                return
            if not tl.ring <= end <= tl.ring + RING_SIZE or end < tl.read:
                raise EmutraceError("the program overwrote emutrace's call log", 125)
            start = tl.read
            data = m.read_fast(start, end - start)
            tl.read = end
            self.held = False
            self.decode(proc, data, start)
        if end != tl.ring and (safe or not self.in_code(m.reg("rip"))):
            m.write(ctrl, _Q.pack(tl.ring))
            tl.read = tl.ring

    def _may_hold(self, proc, nr: int) -> bool:
        """May the flush before system call `nr` leave the ring undecoded? Only when its lines
        are all that could be printed until the next flush, and printed the same:
        plain ltrace text without durations (leaf_out, leaf_suffix "\n"), no system call traced,
        no other thread or process that could run (their lines would come first), a call that
        makes no thread or process, no injection acting at the return, no copy fault (its
        records are keyed by ring address). Held records never outlive their slice: the slice's
        end flushes everything (a system call that blocks ends the slice), and signals are delivered and threads switched between slices
        (Tracer.signal and Tracer.exited settle besides, should a line ever come sooner)."""
        tracer = self.tracer
        sink = tracer.leaf_out
        if sink is None or sink.leaf_suffix != "\n" or self.faulted or tracer.intercept is not None:
            return False
        if nr not in QUIET_SYSCALLS and not (nr in QUIET_WRITES and sink.own_file):
            return False
        kernel = proc.kernel
        return len(kernel.sched.tasks) < 2 and (kernel.observer is None or not proc.traced) \
            and kernel.intercept is None

    def settle(self, proc) -> None:
        """Decode the records a flush held back (see flush): before anything else is printed."""
        if self.held:
            self.flush(proc)

    def decode(self, proc, data: bytes, start: int) -> None:
        """Turn the records into Call and Return events, as the hooked path makes them. A call
        whose return record follows it directly (a leaf: the common case) becomes a finished
        line for the sink's `leaf_lines` when the output is plain ltrace text, with no events."""
        tracer = self.tracer
        sites = tracer.fast_sites
        calls = tracer.calls
        key = (proc.pid, proc.thread.tid)
        stack = calls.stacks.get(key)
        if stack is None:
            stack = calls.stacks[key] = []
        emit = tracer.emit
        sink = tracer.leaf_out
        suffix = sink.leaf_suffix if sink is not None else ""
        lines: List[str] = []
        append = lines.append
        now = tracer.session.world.elapsed_ns
        rt, rtp = self.ret_tramp, self.ret_printf      # (the return slot of a logged call)
        live = tracer.mem_view(proc)
        faulted = self.faulted
        unpack_head, unpack_ret, unpack_tag = _HEADW.unpack_from, _RETW.unpack_from, _Q.unpack_from
        if self.leaf_suffix is None:
            self.leaf_suffix = suffix
        # (a fault in a copy: the general path; so for another suffix, which quick's kept lines
        # do not end with: the sink's never changes, so this is only a safeguard)
        quick = sink is not None and not faulted and suffix is self.leaf_suffix
        progs = self.native_sites
        if len(progs) < len(sites) and native is not None:
            progs.extend(fs.native_leaf(self) for fs in sites[len(progs):])
        leaf_run = native.leaf_run if quick and native is not None else None
        ret_area = self.ret_area
        off, n = 0, len(data)
        try:
            while off < n:
                if data[off] == 0xFF and data[off + 7] == 0xFF:          # RET_TAG
                    slot, orig, rax, captured, outn = unpack_ret(data, off + 8)
                    ret_mem = None
                    rdx = unpack_tag(data, off + RET_SIZE)[0] if captured == RET_PAIR else None
                    if captured or outn:
                        ret_mem = self._ret_memory(data, off, start, rax, captured, outn, stack, slot, live)
                    off += RET_SIZE + ret_area(captured) + ((outn + 7) & ~7)
                    rsp = slot + 8
                    if lines:
                        sink.leaf_lines(lines)
                        lines.clear()
                    while stack and stack[-1].rsp < rsp:
                        frame = stack.pop()
                        if frame.rsp == slot and (frame.ret_addr == orig or frame.ret_addr == rt or frame.ret_addr == rtp):
                            calls.ret_frame, calls.ret_rax, calls.ret_mem = frame, rax, ret_mem
                            calls.ret_rdx = rdx
                            frame.owner.returned(proc, frame)
                            calls.ret_mem = calls.ret_rdx = None
                        else:
                            frame.owner.unwound(proc, frame)
                    continue
                tag = unpack_tag(data, off)[0]
                fs = sites[tag]
                if leaf_run is not None and progs[tag] is not None:
                    # the same runs of leaf calls, rendered by the compiled path; it stops at
                    # the first record it does not render, which the Python path then takes
                    off2, k = leaf_run(data, off, stack[-1].rsp if stack else None, progs, suffix, lines)
                    if k:
                        calls.next_id += k
                        off = off2
                        continue
                if quick:
                    # runs of leaf calls whose returns captured nothing, the common case, in a
                    # loop of their own (it is most of a traced call's cost: kept to the least
                    # work; FastSite.quick checks and renders a pair in one call)
                    top = stack[-1].rsp if stack else _NO_FRAME
                    before = len(lines)
                    while True:
                        end = off + fs.pair_end
                        if end + 8 > n:         # (quick reads the next record's tag too)
                            break
                        tag = fs.quick(data, off, top, suffix, append)
                        if tag is None:
                            break
                        off = end
                        if tag == RET_TAG:
                            break
                        fs = sites[tag]
                        if leaf_run is not None and progs[tag] is not None:
                            break           # (back to the compiled path)
                    if len(lines) > before:
                        calls.next_id += len(lines) - before
                        continue
                w = unpack_head(data, off)
                slot, ret = w[7], w[8]
                if stack:
                    top = stack[-1]
                    if top.rsp < slot or (top.rsp == slot and ret != rt and ret != rtp and top.ret_addr != ret):
                        if lines:
                            sink.leaf_lines(lines)
                            lines.clear()
                        calls.unwind_to(proc, stack, slot, ret)
                plan = fs.plan
                nxt = off + fs.size
                left = None
                if sink is not None and nxt < n and data[nxt] == 0xFF and data[nxt + 7] == 0xFF:
                    rslot, rorig, rax, captured, outn = unpack_ret(data, nxt + 8)
                    if rslot == slot and rorig == ret:
                        # a leaf call: nothing happened between its call and its return
                        calls.next_id += 1
                        if not (captured or outn or faulted) or fs.native_point:
                            lines.append(fs.leaf(w, data, off, rax, suffix))
                            off = nxt + RET_SIZE
                            continue
                        left = self._left(w, data, off, start, fs)
                        rop = plan.ret
                        text = fs.site.display + "(" + ", ".join(left)
                        if captured == RET_PAIR:
                            rax |= unpack_tag(data, nxt + RET_SIZE)[0] << 64      # (rdx)
                        if captured or outn:
                            mem = self._ret_memory(data, nxt, start, rax, captured, outn, None, w[1:7], live, fs)
                            r = rop.word(rax, mem) if rop is not None else None
                            if plan.right is not None:
                                right = plan.right(w[1:7], mem, rax)
                                if right:
                                    text += (", " if left else "") + ", ".join(right)
                            nxt += ret_area(captured) + ((outn + 7) & ~7)
                        else:
                            r = rop.word(rax, None) if rop is not None else None
                        pad = _ALIGN_PAD - len(text)
                        lines.append(text + (") " + " " * pad if pad > 0 else ") ") + "= " +
                                     ("<void>" if r is None else r) + suffix)
                        off = nxt + RET_SIZE
                        continue
                if left is None:
                    left = self._left(w, data, off, start, fs)
                if lines:
                    sink.leaf_lines(lines)
                    lines.clear()
                site = fs.site
                words = w[1:7]
                st = FastCallState(site.name, site.display, plan, words, site.display + "(" + ", ".join(left), left)
                fid = calls.next_id
                calls.next_id = fid + 1
                frame = Frame(fid, site, slot, ret, st, len(stack), now, owner=tracer, entry=fs.entry)
                stack.append(frame)
                caller = ret if ret != rt and ret != rtp else next(
                    (f.ret_addr for f in reversed(stack) if f.rsp == slot and f.ret_addr != rt and f.ret_addr != rtp), ret)
                emit(Call(fid, proc.pid, key[1], now, frame.depth, st.display_name, site.definer,
                          site.caller.name, caller, st.text, left[:], via=site.via))
                off = nxt
        except (IndexError, struct.error):
            raise EmutraceError("the program overwrote emutrace's call log", 125) from None
        finally:
            if lines:
                sink.leaf_lines(lines)

    def _left(self, w, data: bytes, off: int, start: int, fs: FastSite) -> List[str]:
        """The rendered arguments of the call record at data[off:]."""
        if self.faulted and fs.strings:
            return self._left_after_fault(w, data, off, start, fs)
        return fs.left(w, data, off)

    def _ret_memory(self, data: bytes, off: int, start: int, rax: int, captured: int, outn: int,
                    stack, words_or_slot, live, fs: Optional[FastSite] = None) -> "_Captured":
        """What the renderers of the return value and of the output argument read: the bytes the
        return trampoline copied (the returned string; the output argument at its address,
        found in the call's words: those given, or those of the frame being returned to)."""
        mem = _Captured()
        mem.fallback = live
        o = off + RET_SIZE
        if captured == RET_WSTR:
            # a returned wide string: as far as it was readable at the return
            area = data[o:o + self.wret_cap]
            if self.faulted:
                got = self.faulted.pop(start + o, None)
                if got is not None:
                    area = area[:got]
            if rax:
                mem.wide = (rax, area, self.wret_cap)
            o += area_size(self.wret_cap)
        elif captured == RET_CSTR:
            area = data[o:o + self.ret_cap]
            if self.faulted and self.faulted.pop(start + o, None) is not None:
                area = None
            mem.items = [(rax, area)]
            o += area_size(self.ret_cap)
        ins = captured & (IN_CSTR | IN_WSTR)
        if not (outn or ins):
            return mem
        # (a fault in a copy is forgotten here whatever becomes of the copy: one left behind
        # would keep decode off its quick paths)
        block = data[o:o + outn]
        if outn and self.faulted:
            got = self.faulted.pop(start + o, None)
            if got is not None:
                block = block[:got]
        o += (outn + 7) & ~7
        if ins:
            # the string shown at the return besides it: as far as it was readable (a C string
            # with no NUL before unreadable memory: unreadable, as MemView.cstring has it)
            cap = self.ret_cap if ins == IN_CSTR else self.wret_cap
            area = data[o:o + cap]
            got = self.faulted.pop(start + o, None) if self.faulted else None
            if got is not None:
                area = None if ins == IN_CSTR else area[:got]
        if fs is None:              # a frame's return: its call's words are in its state
            words, fs = self._frame_words(stack, words_or_slot)
        else:
            words = words_or_slot
        if fs is None or words is None:
            return mem
        if outn and fs.out is not None:
            mem.block = (words[fs.out[0]], outn, block)
        if ins and fs.in_string is not None:
            w = words[fs.in_string]
            if ins == IN_CSTR:
                mem.items = [(w, area)]
            elif w:
                mem.wide = (w, area, cap)
        return mem

    def _frame_words(self, stack, slot: int):
        """The argument words and FastSite of the logged frame returning at `slot`."""
        for frame in reversed(stack):
            if frame.rsp == slot:
                st = frame.state
                fs = self.tracer.fast_by_site.get(id(frame.site))
                return getattr(st, "words", None), fs
            if frame.rsp > slot:
                break
        return None, None

    def _left_after_fault(self, w, data: bytes, off: int, start: int, fs: FastSite) -> List[str]:
        """The shown arguments of a record one of whose copies faulted: a C string with no NUL
        before unreadable memory shows as its address (as MemView.cstring has it), a buffer or
        a wide string as far as it was readable, a C string bounded by a length word (CSTRN)
        from the bytes readable (its renderer knows what MemView.cstring makes of them)."""
        ops = dict(fs.plan.left_items)
        at = {}
        for i, a_off, cap, j in fs.strings:
            size = cap if j is None or j == FIXED else min(w[1 + j], cap)
            area = data[off + a_off:off + a_off + size]
            got = self.faulted.pop(start + off + a_off, None)
            if got is not None:
                bounded = ops[i].capture == CSTRN
                area = None if (j is None and not bounded) or not got else area[:got]
            at[i] = (area, j)
        out = []
        for i, op in fs.plan.left_items:
            if i in at:
                area, j = at[i]
                out.append(op.from_bytes(w[1 + i], area, w[1 + op.len_arg]) if op.capture == CSTRN
                           else op.from_bytes(w[1 + i], area) if j is None or j == FIXED
                           else op.from_bytes(w[1 + i], area, w[1 + j]))
            else:
                out.append(op.word(w[1 + i], None))
        return out

    def fault_fixup(self, proc, rip: int) -> bool:
        """A fault at one of our instructions: a string argument's copy that met unreadable
        memory (the copy ends there; the call goes on as natively), or a store in the ring's or
        the shadow stack's guard page (the ring is emptied or the shadow stack grown, and the
        trampoline starts over with the registers it borrowed given back)."""
        got = self.loads.get(rip)
        if got is not None:
            done, area_off = got
            m = self.m
            rax, r10 = m.reg("rax"), m.reg("r10")
            self.faulted[rax + area_off] = r10
            m.set_reg("rip", done)
            return True
        restart = self.restarts.get(rip)
        if restart is None:
            return False
        full, start, borrowed, unpublish = restart
        m = self.m
        ctrl = self.ctrl
        for reg, kept in borrowed:
            m.set_reg(reg, m.read_u64(ctrl + kept))
        m.set_reg("rip", start)
        if unpublish:
            m.write(ctrl + RPTR, _Q.pack(m.read_u64(ctrl + RPTR) - unpublish))
        tl = self.threads.get(m.loaded or proc.thread)
        if full == "ring":
            if tl is None or m.read_u64(ctrl + RPTR) == tl.ring:
                raise EmutraceError("the program overwrote emutrace's call log", 125)
            self.flush(proc, safe=True)
        else:
            top, end, base = struct.unpack("<3Q", m.read(ctrl + SHTOP, 24))
            if tl is None or base != tl.shadow or not base < top <= end == base + tl.shadow_size:
                raise EmutraceError("the program overwrote emutrace's call log", 125)
            self._grow_shadow(proc, base, top)
        return True

    # -- unwinders ----------------------------------------------------------------------
    def hook_unwinders(self, proc, module) -> None:
        done = self.unwind_hooked
        syms = module.elf.dynsyms or module.elf.symtab
        for s in syms:
            if s.name in UNWINDERS and s.defined and s.value:
                addr = module.base + s.value
                if addr not in done:
                    done.add(addr)
                    self.m.hook_code(self._on_unwinder, addr, addr)

    def _on_unwinder(self, addr: int) -> None:
        proc = self.tracer.session.kernel.current
        self.restore(proc)

    def restore(self, proc) -> None:
        """Write every replaced return address of the running thread back; its open logged calls
        are closed by return hooks from now on, like hooked ones."""
        self.flush(proc)
        m = self.m
        base = m.read_u64(self.ctrl + SHBASE) + SHADOW_ENTRY     # (past the sentinel)
        top = m.read_u64(self.ctrl + SHTOP)
        if top <= base:
            return
        raw = m.read(base, top - base)
        real: Dict[int, int] = {}
        for i in range(0, len(raw), SHADOW_ENTRY):
            slot, orig = struct.unpack_from("<QQ", raw, i)
            if not self.is_return_entry(orig):
                real[slot] = orig
                try:
                    if self.is_return_entry(m.read_u64(slot)):
                        m.write(slot, _Q.pack(orig))
                except Exception:
                    pass
        m.write(self.ctrl + SHTOP, _Q.pack(base))
        calls = self.tracer.calls
        stack = calls.stacks.get((proc.pid, proc.thread.tid), [])
        for frame in stack:
            if self.is_return_entry(frame.ret_addr) and frame.rsp in real:
                frame.ret_addr = real[frame.rsp]
            if frame.rsp in real:
                calls.hook_return(proc, m.uc, frame.ret_addr)
