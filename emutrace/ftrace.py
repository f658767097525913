"""--ftrace: the entry and return of every function, nested.

Which functions: those of the program (emutrace.funcs: .symtab, else .dynsym and .eh_frame
FDEs named `fun_<addr>`), and with --ftrace-libs those each library exports (.dynsym), as the
libraries arrive (module_loaded). `-x` chains (`fib+leaf`, `/^str/`, `*@libc.so.6`, see
emutrace.filters) select among them.

How: one exact-address UC_HOOK_CODE per selected function entry, and the return caught at the
return address, matched by stack pointer, through the CallStacks the library-call tracer uses
too — so with both on there is one stack per thread and one nesting. Nothing is written into
guest memory, so unwinders (C++ exceptions, longjmp) see the program as it is; frames they
abandon are reported as unwound at the next event that shows them gone.

Nesting rules, at a function's entry with stack pointer `rsp` (pointing at its return address):
- frames whose return slot is below `rsp` are gone (longjmp, exception): unwound first;
- a frame with the same return slot on top means either the same call seen again (the entry
  re-executed by a self tail call turned into a loop; or, the first time only, a library
  call's PLT jump landing on the function the call reached, which the library-call tracer
  reports already): not a new frame; or a tail call (`jmp` from another function, or from
  the library function a traced library call reached): the callee nests under the caller and
  both close at the one return;
- a signal handler nests under whatever it interrupted (its frame is below it), and closes
  when it returns to the signal trampoline.

Cost: each hook is checked by Unicorn at every hooked instruction (a linear list), so a run with
thousands of functions hooked (--ftrace-libs, or a static program whose .symtab holds its C
library) pays a few microseconds per event more.
"""
from __future__ import annotations

import struct
from functools import partial
from typing import Dict, Optional
from weakref import WeakKeyDictionary

from unicorn import UC_HOOK_CODE

from emutrace.loader.modules import Module, module_at
from emutrace.machine.tlb import host_lookups

from emutrace.events import Call, Return
from emutrace.funcs import discover
from emutrace.frames import CallStacks, Frame, Regs
from emutrace.traceview import mem_view
from emutrace.linux.mman import PROT_EXEC


_UNSET = object()
OTHER_STACK = 8 << 20          # past Linux's default RLIMIT_STACK: not the thread's own stack


class FuncSite:
    """One hooked function entry."""
    __slots__ = ("name", "module", "display", "proto", "plan")

    def __init__(self, name: str, module: Module, proto=None):
        self.name = name
        self.module = module
        self.display = None          # demangled (-C) at the first call: most functions never run
        self.proto = proto
        self.plan = _UNSET           # -a: its arguments' plan (dwarf.plan), made at the first call


class _Plain:
    """The call state of a function traced without argument decoding (--ftrace)."""
    __slots__ = ("display_name", "text", "left_args", "args", "right", "ret", "values")

    def __init__(self, display_name: str):
        self.display_name = display_name
        self.text = display_name + "("
        self.left_args = []
        self.args = []
        self.right = ""
        self.ret = ""
        self.values = None           # -a: the call's decoded arguments (dwarf.plan.CallValues)


class _ProcFunctions:
    """What the function tracer keeps about one process."""
    __slots__ = ("modules", "ret_ok")

    def __init__(self):
        self.modules: set = set()                      # paths of the modules hooked
        self.ret_ok: Dict[int, Optional[str]] = {}     # return address → its module's name, or None


class FunctionTracer:
    """Session observer for function entries and returns (see the module docstring).

    `decode`: decode arguments and return values with the call formatter (ltrace's `-x`
    output; unknown prototypes show as ltrace shows them); off for --ftrace, whose formats
    show names only."""

    def __init__(self, world, emit, calls: CallStacks, select, formatter=None, protos=None,
                 decode: bool = False, args=None):
        self.world = world                  # the run's World: its clock stamps each call
        self.emit = emit
        self.calls = calls
        self.select = select                     # a filters.CallFilter over (name, module)
        self.fmt = formatter
        self.protos = protos
        self.decode = decode and formatter is not None
        # -a: (dwarf.calls.DebugTypes, [(CallFilter, ArgSpec)] or None for every function,
        # whether an output shows typed values: jsonl, Chrome)
        self.args, self.arg_specs, self.typed = args if args is not None else (None, None, False)
        self._discovered: Dict[str, Dict[int, str]] = {}
        self.tops: Dict[tuple, int] = {}         # (pid, tid) → stack top (for stack use)
        # per attached process, kept here rather than on the kernel's Process; weak, so an ended
        # process is freed with it
        self._procs: "WeakKeyDictionary[object, _ProcFunctions]" = WeakKeyDictionary()

    # -- set-up ---------------------------------------------------------------------
    def attach(self, proc) -> None:
        self.calls.attach(proc)
        self._procs[proc] = _ProcFunctions()

    def started(self, proc) -> None:
        self.tops[(proc.pid, proc.thread.tid)] = proc.machine.reg("rsp")
        for m in list(proc.modules):
            self.module_loaded(proc, m)

    def module_loaded(self, proc, module: Module) -> None:
        pf = self._procs.get(proc)
        if pf is None or module.path in pf.modules or not proc.modules:
            return
        is_main = module is proc.modules[0]
        if not self.select.traces_module(module.name, is_main):
            return
        pf.modules.add(module.path)
        funcs = self._discovered.get(module.path)
        if funcs is None:
            funcs = self._discovered[module.path] = discover(module.elf, program=is_main)
        uc = proc.machine.uc
        lo = hi = None
        for addr, name in funcs.items():
            if ".cold" in name or not self.select.matches(name, module.name, is_main, None):
                continue                 # `f.cold` parts are jumped to, never called
            at = addr + module.base
            site = FuncSite(name, module, self.protos.get(name) if self.protos and self.decode else None)
            proc.machine.hook_add(UC_HOOK_CODE, self._on_entry, (proc, site), at, at)
            lo = at if lo is None else min(lo, at)
            hi = at if hi is None else max(hi, at)
        if lo is not None:
            # code already translated gets the hooks too. Unicorn finds the range's first page
            # through a fetch fill, and a library's pages may not be executable yet (ld.so maps
            # the whole file read-only, then its text over it): that lookup is emutrace's, so
            # the fill must not take its refusal for the guest's fault (a SIGSEGV in the mmap)
            with host_lookups(proc.aspace):
                uc.ctl_remove_cache(lo, hi + 1)

    # -- the hot path -----------------------------------------------------------------
    def _on_entry(self, uc, addr, size, ud):
        proc, site = ud
        m = proc.machine
        if self.args is None:
            rsp = m.reg("rsp")
        else:
            words = m.call_words()              # (rdi, rsi, rdx, rcx, r8, r9, rsp): -a's arguments
            rsp = words[6]
        ret_addr = struct.unpack("<Q", m.read(rsp, 8))[0]
        stack = self.calls.stack(proc)
        if stack:
            top = stack[-1]
            if top.rsp <= rsp:
                self.calls.unwind_to(proc, stack, rsp, ret_addr)
                if stack and stack[-1].rsp == rsp:
                    top = stack[-1]
                    if top.entry == addr or (top.kind == "call" and not top.landed):
                        top.landed = True
                        return           # the same call (see the module docstring)
        tid = proc.thread.tid
        key = (proc.pid, tid)
        if key not in self.tops:
            self.tops[key] = rsp
        now = self.world.elapsed_at(addr)       # (the hook runs at addr: exact there)
        if self.decode:
            st = self.fmt.enter(site.name, site.proto, Regs(m, proc.aspace), mem_view(proc))
        else:
            if site.display is None:
                site.display = self.fmt.display_name(site.name) if self.fmt is not None else site.name
            st = _Plain(site.display)
            if self.args is not None:               # -a: the arguments, decoded by the function's plan
                plan = site.plan
                if plan is _UNSET:
                    plan = self._plan(site, addr)
                if plan is not None:
                    st.values = plan.enter(words, m, partial(mem_view, proc), self.typed)
                    if st.values is None:
                        site.plan = None            # its types cannot be rendered: names only
                    else:
                        st.left_args = st.values.texts
        fid = self.calls.new_id()
        frame = Frame(fid, site, rsp, ret_addr, st, len(stack), now, kind="function", owner=self, entry=addr)
        stack.append(frame)
        caller = self._caller(proc, ret_addr)
        self.emit(Call(fid, proc.pid, tid, now, frame.depth, st.display_name, site.module.name,
                       caller or "", ret_addr, st.text, list(st.left_args), kind="function",
                       typed=st.values.typed if not self.decode and st.values is not None else None))
        if caller is not None:
            self.calls.hook_return(proc, uc, ret_addr)

    def _plan(self, site: FuncSite, addr: int):
        """-a: the plan of a function with DWARF (dwarf.plan), made at its first call; None
        for one without, or not selected by -A."""
        site.plan = None
        for flt, spec in self.arg_specs or [(None, None)]:
            if flt is None or flt.matches(site.name, site.module.name, True, None):
                sig = self.args.signature(site.module, addr, site.name)
                site.plan = self.args.plan(sig, spec) if sig is not None else None
                break
        return site.plan

    def _caller(self, proc, ret_addr: int) -> Optional[str]:
        """The module a return address is in; None when it cannot be one (not executable code:
        `_start` is jumped to with argc where a return address would be)."""
        known = self._procs[proc].ret_ok
        ok = known.get(ret_addr, False)
        if ok is False:
            vma = proc.aspace.find(ret_addr)
            if vma is None or not vma.prot & PROT_EXEC:
                ok = None
            else:
                mod = module_at(proc.modules, ret_addr)
                ok = mod.name if mod is not None else (vma.name.rsplit("/", 1)[-1] or "?")
            known[ret_addr] = ok
        return ok

    # -- CallStacks' owner interface ------------------------------------------------------
    def returned(self, proc, frame: Frame) -> None:
        st = frame.state
        typed = None
        if self.decode:
            self.fmt.exit(st, Regs(proc.machine, proc.aspace), mem_view(proc))
        elif st.values is not None:
            calls = self.calls
            rax = calls.ret_rax if calls.ret_frame is frame else proc.machine.reg("rax")
            st.ret, ret_typed, outs = st.values.plan.leave(st.values, rax, proc.machine, partial(mem_view, proc),
                                                           self.typed)
            if outs:
                st.args = [f"{name}={text}" for name, text in outs]
            typed = {"return": ret_typed, "outputs": [{"name": n, "text": t} for n, t in outs]} \
                if self.typed else None
        now = self.calls.returned_at(self.world, frame)
        self.emit(Return(frame.id, proc.pid, proc.thread.tid, now, frame.depth, st.display_name, st.right,
                         list(st.args), st.ret, now - frame.time_ns, kind="function", typed=typed))

    def unwound(self, proc, frame: Frame) -> None:
        st = frame.state
        now = self.world.elapsed_ns
        self.emit(Return(frame.id, proc.pid, proc.thread.tid, now, frame.depth, st.display_name, "",
                         list(st.left_args), "", now - frame.time_ns, unwound=True, kind="function"))

    def finish(self, proc) -> None:
        self.calls.finish(proc)

    # -- for the Cosmopolitan-style text --------------------------------------------------
    def stack_use(self, ev) -> Optional[int]:
        """Bytes of stack between the thread's top and the call's return slot, for a Call
        event just emitted (its frame is on top of the stack, or close to it)."""
        stack = self.calls.stacks.get((ev.pid, ev.tid))
        top = self.tops.get((ev.pid, ev.tid))
        if not stack or top is None:
            return None
        for frame in reversed(stack):
            if frame.id == ev.id:
                use = top - frame.rsp
                # a call on another stack than the thread's (a Go goroutine's, a sigaltstack, a
                # coroutine's): its distance to the thread's top means nothing
                return use if 0 <= use <= OTHER_STACK else -1
        return None
