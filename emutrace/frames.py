"""Sites and frames: the ways into a traced function, and the per-thread shadow stacks of the
calls open through them, shared by the library-call tracer and the function tracer (and read by
the guest call log), with the argument source the formatters read.
"""
from __future__ import annotations

import struct
from functools import partial
from typing import Dict, List, Optional
from weakref import WeakKeyDictionary

from emutrace.loader.modules import Module

from emutrace.record import record

UNSET = object()                 # Site.plan before the formatter has compiled one


@record
class Site:
    """One way into a function from a traced module."""
    name: str
    caller: Module
    definer: Optional[str] = None     # resolved at the first call: libraries load after exec
    traced: bool = True
    proto: object = None
    is_main: bool = True
    static: bool = False
    via: str = "plt"                  # how the call is caught: plt | got (a redirected slot) | static
    plan: object = UNSET              # the formatter's compiled prototype (None: generic path)
    display: str = ""                 # the name as displayed (-C)


@record
class Frame:
    id: int
    site: Site
    rsp: int
    ret_addr: int
    state: object
    depth: int
    time_ns: int
    kind: str = "call"        # call | function (emutrace.ftrace)
    owner: object = None      # who reports its return: .returned(proc, frame), .unwound(proc, frame)
    entry: int = 0            # the hooked address the frame was entered at
    landed: bool = False      # ftrace: the call has reached the function it calls
    api_call: object = None   # the API's record of the call (emutrace.api), when a return hook waits


class _EngineReturns:
    """What CallStacks keeps about one engine (a vfork child shares its parent's)."""
    __slots__ = ("hooked", "cb")

    def __init__(self):
        self.hooked: set = set()      # return addresses with a hook on this engine
        self.cb = None                # the return callback all of them share


class CallStacks:
    """Per-thread shadow stacks of open calls, and the return-address hooks that close them.

    One instance is shared by the library-call tracer and the function tracer, so a run with
    both has one nesting. A frame is pushed at a call's entry with the stack pointer that points
    at its return address, and closed when execution reaches that return address with the stack
    pointer just above it. Frames left by longjmp or an exception are found at the next entry or
    return: a frame whose return slot lies below the stack pointer is gone, and so is one whose
    slot now holds another return address (a new call reused it), or, at a return address, one
    whose slot is just below the stack pointer but which returns elsewhere (longjmp back to a
    setjmp's return); they are reported as unwound. Frames sharing one return slot and address
    (tail calls) close together, innermost first."""

    def __init__(self):
        self.stacks: Dict[tuple, List[Frame]] = {}
        self.next_id = 1
        self.ret_frame: Optional[Frame] = None    # the frame being returned from, and rax then
        self.ret_rax = 0
        self.ret_mem = None                       # and memory as it was then (the call log's copy)
        self.ret_rdx: Optional[int] = None        # and rdx then (the call log's copy; None: live)
        # the address of the return hook running now (None: none): the clock can be read exactly
        # there (World.elapsed_at), not at a replay of the call log, which runs elsewhere
        self.at_return: Optional[int] = None
        # per engine, kept here rather than on the machine (whose layer knows nothing of calls);
        # weak, so an ended process's engine is freed with it
        self._engines: "WeakKeyDictionary[object, _EngineReturns]" = WeakKeyDictionary()

    def attach(self, proc) -> None:
        self._engine(proc.machine)

    def _engine(self, m) -> _EngineReturns:
        eng = self._engines.get(m)
        if eng is None:
            eng = self._engines[m] = _EngineReturns()
        return eng

    def stack(self, proc) -> List[Frame]:
        key = (proc.pid, proc.thread.tid)
        stack = self.stacks.get(key)
        if stack is None:
            stack = self.stacks[key] = []
        return stack

    def new_id(self) -> int:
        fid = self.next_id
        self.next_id += 1
        return fid

    @staticmethod
    def unwind_to(proc, stack: List[Frame], rsp: int, ret_addr: Optional[int] = None) -> None:
        """At an entry with this stack pointer (and return address): frames whose return slot is
        below it, or is its slot holding another return address, are gone."""
        while stack and (stack[-1].rsp < rsp or (stack[-1].rsp == rsp and ret_addr is not None
                                                  and stack[-1].ret_addr != ret_addr)):
            frame = stack.pop()                       # left by longjmp or an exception
            frame.owner.unwound(proc, frame)

    def hook_return(self, proc, uc, ret_addr: int) -> None:
        m = proc.machine
        eng = self._engine(m)
        if ret_addr not in eng.hooked:
            eng.hooked.add(ret_addr)
            if eng.cb is None:
                # called straight from the hook (no wrapper frame): the process is found there
                eng.cb = partial(self._return_at, proc.kernel, proc)
            m.hook_code(eng.cb, ret_addr, ret_addr)
            uc.ctl_remove_cache(ret_addr, ret_addr + 1)

    def _return_at(self, kernel, first, addr):
        # the process running on this engine now (a vfork child shares its parent's)
        proc = kernel.current or first
        if proc.machine.own_code:                      # calls logged by guest code come first
            kernel.hooks.fire("guest_log_flush", proc, None)
        stack = self.stacks.get((proc.pid, proc.thread.tid))
        if not stack:
            return
        rax, rsp = proc.machine.rax_rsp()
        self.at_return = addr
        try:
            while stack and stack[-1].rsp + 8 <= rsp:
                frame = stack.pop()
                if frame.rsp + 8 == rsp and frame.ret_addr == addr:
                    self.ret_frame, self.ret_rax, self.ret_mem = frame, rax, None   # rax as it returned it
                    frame.owner.returned(proc, frame)
                else:
                    frame.owner.unwound(proc, frame)
        finally:
            self.at_return = None

    def returned_at(self, world, frame: Frame) -> int:
        """The virtual time of frame's return: exact at its return hook (the block there counted up
        to the return address, as the entry's time is), the clock as it stands elsewhere."""
        if self.at_return is not None and self.at_return == frame.ret_addr:
            return world.elapsed_at(frame.ret_addr)
        return world.elapsed_ns

    def finish(self, proc) -> None:
        self.stacks.pop((proc.pid, proc.thread.tid), None)


class Regs:
    """The argument source the value formatter reads (SysV x86-64 ABI), fetched lazily."""
    __slots__ = ("m", "mem", "_regs", "_rsp")

    def __init__(self, machine, mem, regs=None):
        self.m = machine
        self.mem = mem
        self._regs = regs               # (rdi, rsi, rdx, rcx, r8, r9, rsp) when already read

    def _load(self):
        if self._regs is None:
            self._regs = self.m.call_regs()
        return self._regs

    def int_arg(self, i: int) -> int:
        r = self._load()
        if i < 6:
            return r[i]
        data = self.mem.read(r[6] + 8 * (i - 5), 8)
        return struct.unpack("<Q", data)[0] if data else 0

    def float_arg(self, i: int) -> float:
        if i >= 8:
            return 0.0
        return struct.unpack("<d", self.m.xmm(i)[:8])[0]

    def ret_int(self) -> int:
        return self.m.reg("rax")

    def ret_int_hi(self) -> int:
        """rdx: the second eightbyte of a structure returned in registers."""
        return self.m.reg("rdx")

    def ret_float(self) -> float:
        return struct.unpack("<d", self.m.xmm(0)[:8])[0]
