"""The record side at run time: each thread's ring and shadow stack, the control page, the flush
of the ring at system calls and slice ends, and the fix-up of a fault in a trampoline."""
from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Dict, Optional


from emutrace.errors import EmutraceError
from emutrace.machine.pages import page_up
from emutrace.machine.x86enc import Asm
from emutrace.guestlog.format import (CTRL_WORDS, RPTR, SHTOP, SHBASE, SHADOW_ENTRY, _NO_FRAME, RING_SIZE, SHADOW_SIZE,
                                      SHADOW_GUARD, LOG_TOP, STUB_SIZE, STUBS_MAX, _Q)
from emutrace.guestlog.sites import UNWINDERS

if TYPE_CHECKING:
    from emutrace.guestlog.log import GuestLog

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


class ThreadLog:
    """One thread's ring buffer and shadow stack (guest addresses) and how far Python has read."""
    __slots__ = ("ring", "read", "shadow", "shadow_size", "ctrl")

    def __init__(self, ring: int, shadow: int, shadow_size: int):
        self.ring = ring
        self.read = ring
        self.shadow = shadow
        self.shadow_size = shadow_size
        self.ctrl: Optional[bytes] = None     # the control words while the thread is not loaded


class RingSide:
    """GuestLog's runtime of the record side (a part of GuestLog: see log.py)."""

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


    def attach_machine(self, proc) -> None:
        """Hooks and callbacks on this engine (the first one, or a forked child's copy)."""
        m = self.m = proc.machine
        self.tracer.guest_logs[id(m)] = self    # (the guest-log phases reach this engine's log so)
        for lo, hi in self.code_ranges:         # (a forked child's engine: the ranges it copied)
            if (lo, hi) not in m.own_code:
                m.add_own_code(lo, hi)
        m.hook_code(self._on_lost, self.lost, self.lost)
        m.hook_code(self._on_twice_miss, self.twice_miss, self.twice_miss)
        m.hook_code(self._on_twice_full, self.twice_full, self.twice_full)
        loaded = m.loaded or proc.thread
        if loaded not in self.threads:
            self._new_thread(proc, loaded)

    def clone_for(self, child) -> "GuestLog":
        """A forked child's engine holds a copy of every page: the same addresses serve it."""
        c = type(self).__new__(type(self))
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
        m.add_own_code(lo, hi)

    def in_code(self, addr: int) -> bool:
        return self.m.in_own_code(addr)

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
        self.flush(self.kernel.current, safe=True)

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
        if sink is None or sink.leaf_suffix != "\n" or self.faulted or tracer.hooks.call_intercept is not None:
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
        proc = self.kernel.current
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
