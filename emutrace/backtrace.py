"""Backtraces of the guest for strace's `-k` / `-kk` and ltrace's `-w N`.

A backtrace is the unwinder's frames (emutrace.unwind), each symbolized as strace prints it
(ltrace's -w lines differ in the address only: absolute, see format_ltrace_frame):

     > /usr/lib/x86_64-linux-gnu/libc.so.6(__write+0x10) [0xf8350]

the module's canonical path, the nearest function symbol at or before the frame's address with
the distance from it, and the address relative to the module's first mapped byte. A caller's
frame is looked up at its return address minus one (the call instruction), as libdw does, so a
call that ends a function is not named after the next one. `-kk` adds ` file:line` (strace's
--stack-trace=source) from the module's DWARF line table when it has one (emutrace.dwarfline).
"""
from __future__ import annotations

import bisect
from typing import Dict, List, Optional

from emutrace.loader.modules import module_at

from emutrace.dwarf.lines import LineTable
from emutrace.machine.reader import read_u64
from emutrace.record import record
from emutrace.sysgate import guest_realpath
from emutrace.traceview import mem_view
from emutrace.dwarf.unwind import DWARF_REGS, RA, Unwinder


@record
class StackFrame:
    pc: int
    module: str = ""              # canonical path; "" outside any module (anonymous code)
    offset: int = 0               # pc - the module's first mapped address
    function: str = ""
    function_offset: int = 0
    file: str = ""
    line: int = 0


def format_frame(f: StackFrame) -> str:
    """strace's frame line (unwind.c's formats); -kk's source position follows a symbol only."""
    if not f.module:
        return f" > unexpected_backtracing_error [{f.pc:#x}]"
    if f.function:
        where = f" {f.file}:{f.line}" if f.file else ""
        return f" > {f.module}({f.function}+{f.function_offset:#x}) [{f.offset:#x}]{where}"
    return f" > {f.module}() [{f.offset:#x}]"


def format_ltrace_frame(f: StackFrame) -> str:
    """ltrace -w's frame line (ltrace built with libunwind: `MODULE(FUNCTION+0xOFF) [0xPC]`, the
    absolute address; `(???)` without a symbol, `unmapped_area` outside every module). ltrace
    prints a blank line after the frames (ltrace_stack_lines)."""
    module = f.module or "unmapped_area"
    if f.function:
        return f" > {module}({f.function}+{f.function_offset:#x}) [{f.pc:#x}]"
    return f" > {module}(???) [{f.pc:#x}]"


class Backtracer:
    """Takes a process's backtrace now: `frames(proc)`."""

    def __init__(self, vfs, cwd: Optional[str] = None, source_lines: bool = False, demangle: bool = False,
                 depth: int = 0):
        self.vfs, self.cwd = vfs, cwd          # (the run's VFS: module paths are shown canonical)
        self.source_lines = source_lines
        self.demangle = demangle
        self.depth = depth or 256
        self.unwinder = Unwinder()
        self._paths: Dict[str, str] = {}
        self._lines: Dict[int, object] = {}
        self._names: Dict[str, str] = {}

    def frames(self, proc, at_call: bool = False) -> List[StackFrame]:
        """The backtrace of proc's thread now. at_call: the thread is at a function's first
        instruction (a library call caught at its entry, maybe in a stub outside any module):
        the walk starts at the caller, from the return address on top of the stack."""
        m = proc.machine
        mem = mem_view(proc)
        regs = {i: m.reg(name) for i, name in enumerate(DWARF_REGS)}
        rip = m.reg("rip")
        if at_call:
            rip = read_u64(mem, regs[7])
            regs[7] += 8
            if rip is None:
                return []
        else:
            if mem.read(rip, 2) == b"\x0f\x05":
                rip += 2            # in a system call: strace shows the address after `syscall`
        regs[RA] = rip
        mods = proc.modules
        raw = self.unwinder.unwind(regs, lambda a: module_at(mods, a), mem, self.depth,
                                   exact=not at_call)
        return [self.symbolize(proc, rf.pc, exact=(i == 0 and not at_call) or rf.signal)
                for i, rf in enumerate(raw)]

    def symbolize(self, proc, pc: int, exact: bool = True) -> StackFrame:
        look = pc if exact else pc - 1
        mod = module_at(proc.modules, look)
        if mod is None:
            return StackFrame(pc)
        f = StackFrame(pc, self._canonical(mod.path), pc - mod.lo)
        addrs, names = mod._index()
        i = bisect.bisect_right(addrs, look) - 1
        if i >= 0:
            f.function, f.function_offset = self._display(names[i]), pc - addrs[i]
        if self.source_lines:
            table = self._line_table(mod)
            if table is not None:
                hit = table.lookup(look - mod.base)
                if hit is not None:
                    f.file, f.line = hit
        return f

    def _display(self, name: str) -> str:
        if not self.demangle:
            return name
        got = self._names.get(name)
        if got is None:
            from emutrace.demangle import demangle     # deferred: only C++ names are demangled
            got = self._names[name] = demangle(name) or name
        return got

    def _canonical(self, path: str) -> str:
        got = self._paths.get(path)
        if got is None:
            got = self._paths[path] = guest_realpath(self.vfs, path, self.cwd) or path
        return got

    def _line_table(self, mod):
        key = id(mod.elf)
        if key not in self._lines:
            self._lines[key] = LineTable.of_elf(mod.elf)
        return self._lines[key]
