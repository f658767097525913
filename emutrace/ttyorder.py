"""On a terminal, ltrace -S's order: a traced system call's line starts at the call's entry.

ltrace prints `SYS_write(1, "line 0\\n", 7` before the call runs and `) = 7` after it, so what
the call writes to the terminal lands inside its own line, after the line of the library call
that made it (`printf("line %d\\n", 0 <unfinished ...>`). emutrace decodes a system call's
arguments at entry anyway (strace's entry text: the input arguments, ending in ", " when output
arguments follow at exit); on a terminal (tracer.py: Writer.interactive) this module prints that
text at entry and the rest of the line at exit. Off a terminal nothing of it is wired: a trace
into a file or a pipe keeps its whole-line path and its cost.

Something printed between the entry and the exit (a signal, another thread's call) closes the
open line with ` <unfinished ...>`, and the exit then prints its whole line, as ltrace does with
lines it cannot keep open.
"""
from __future__ import annotations

from types import SimpleNamespace

from emutrace.events import Syscall
from emutrace.output import _stack_lines
from emutrace.values import close_call


class SyscallEntries:
    """Wraps an LtraceText sink (its event and leaf_lines) and is the SyscallObserver's
    enter_line: the open system call line, printed at entry, is finished at its exit."""

    def __init__(self, sink, world):
        self.sink = sink
        self.world = world
        self.head = None            # (tid, name, the prefix printed, the text printed) or None
        self._event = sink.event
        self._leaf_lines = sink.leaf_lines
        sink.event = self.event
        sink.leaf_lines = self.leaf_lines

    def entered(self, proc, name: str, entry) -> None:
        sink = self.sink
        if not isinstance(entry, str) or not sink.cfg.syscalls or sink.cfg.summary:
            return
        self._interrupt()
        sink._close_open()
        tid = proc.thread.tid
        prefix = sink._prefix(SimpleNamespace(tid=tid, time_ns=self.world.elapsed_ns))
        text = prefix + f"SYS_{name}(" + entry
        sink.w.write(text)          # (interactive: on the screen at once)
        self.head = (tid, name, prefix, text)

    def _interrupt(self) -> None:
        if self.head is not None:
            self.sink.w.write(" <unfinished ...>\n")
            self.head = None

    def event(self, ev) -> None:
        head = self.head
        if head is not None:
            tid, name, prefix, printed = head
            self.head = None
            if type(ev) is Syscall and ev.tid == tid and ev.name == name:
                sname, _, rest = ev.line.partition("(")
                args, _, ret = rest.rpartition(") = ")
                text = prefix + f"SYS_{sname}({args}"
                line = close_call(text, ret, self.sink.align) if ev.ret is not None else text + ") = ?"
                if line.startswith(printed):
                    self.sink.w.write(line[len(printed):] + "\n" + _stack_lines(ev.stack))
                    return
            self.sink.w.write(" <unfinished ...>\n")
        self._event(ev)

    def leaf_lines(self, lines) -> None:
        self._interrupt()
        self._leaf_lines(lines)
