"""Trace events: what the tracer reports and the formatters print. Plain data, already decoded,
so formatters never touch the emulator."""
from __future__ import annotations

from typing import List, Optional

from emutrace.record import field, record


@record
class Call:
    id: int
    pid: int
    tid: int
    time_ns: int
    depth: int
    name: str                 # as displayed (demangled with -C)
    lib: str                  # defining module
    caller: str               # calling module
    caller_addr: int
    text: str                 # ltrace's text up to the first output argument: 'strtol("42", '
    args: List[str] = field(default_factory=list)   # arguments decoded at entry
    kind: str = "call"        # call | function (ftrace)
    via: str = ""             # plt | plt.got | got | static: where the call was caught (library calls)
    type: str = "call"
    stack: Optional[list] = None    # ltrace -w N: backtrace.StackFrame list, innermost first
    typed: Optional[list] = None    # --ftrace -a: [{name, type, value, text}] from DWARF


@record
class Return:
    id: int
    pid: int
    tid: int
    time_ns: int
    depth: int
    name: str
    right: str                # the rest of the argument list, decoded at return
    args: List[str]
    ret: str
    duration_ns: int = 0
    unwound: bool = False     # left by longjmp or an exception, not by a return
    kind: str = "call"
    type: str = "return"
    typed: Optional[dict] = None    # --ftrace -a: {"return": {name, type, value, text}, "outputs": [...]}


@record
class Syscall:
    pid: int
    tid: int
    time_ns: int
    name: str
    nr: int
    line: str                 # strace-style 'openat(AT_FDCWD, "/etc/x", O_RDONLY) = 3'
    args: List[int]
    ret: Optional[int]        # None when the call does not return (exit, execve)
    errno: Optional[str] = None
    duration_ns: int = 0
    type: str = "syscall"
    stack: Optional[list] = None    # strace -k: backtrace.StackFrame list, innermost first
    dump: Optional[str] = None      # strace -e read=/write=: the hex dump lines of the data


@record
class Signal:
    pid: int
    tid: int
    time_ns: int
    signo: int
    name: str
    line: str                 # '--- SIGSEGV {si_signo=SIGSEGV, ...} ---' (strace style)
    info: dict = field(default_factory=dict)
    type: str = "signal"
    stack: Optional[list] = None    # strace -k: the interrupted code's backtrace


@record
class Exit:
    pid: int
    tid: int
    time_ns: int
    status: int
    signal: int
    signal_name: str = ""
    core: bool = False
    type: str = "exit"
