"""Formatters: trace events in, text out. ltrace's and strace's text formats, and JSON lines.

Each writes every event as it happens and flushes, so a killed run keeps its trace up to the
kill. No formatter touches the emulator: everything arrives decoded in the events.
"""
from __future__ import annotations

import json
import sys
import time
from emutrace.record import asdict
from typing import Dict, List, Optional, TextIO

from emutrace.events import Call, Exit, Return, Signal, Syscall
from emutrace.values import close_call, DEFAULT_ALIGN, LEAF_COLUMN
from emutrace.machine.abi import STRACE_COLUMN, result_at


def open_stream(path: Optional[str]) -> TextIO:
    if path is None:
        return sys.stderr
    return open(path, "w", encoding="utf-8", errors="backslashreplace")


class PerProcessFiles:
    """strace -ff -o BASE: each thread's lines go to BASE.TID, without their `[pid TID] ` prefix
    (the sinks print it for every line under -f). A line without the prefix (a -k backtrace's
    frames, a continuation) belongs to the thread of the line before it."""

    def __init__(self, base: str):
        self.base = base
        self.files: dict = {}
        self.tid = None
        self.rest = ""

    def _file(self, tid: str):
        f = self.files.get(tid)
        if f is None:
            f = self.files[tid] = open_stream(f"{self.base}.{tid}")
        return f

    def write(self, text: str) -> None:
        lines = (self.rest + text).split("\n")
        self.rest = lines.pop()
        for line in lines:
            if line.startswith("[pid "):
                tid, _, body = line[5:].partition("] ")
                if tid.strip().isdigit():           # (strace pads it: '[pid  1000] ')
                    self.tid, line = tid.strip(), body
            if self.tid is not None:
                self._file(self.tid).write(line + "\n")

    def flush(self) -> None:
        for f in self.files.values():
            f.flush()

    def close(self) -> None:
        if self.rest:
            self.write("\n")
        for f in self.files.values():
            f.close()


class Timestamps:
    """-t / -tt / -ttt / -r prefixes, on the virtual clock."""

    def __init__(self, world, level: int, relative: bool):
        self.world = world
        self.level = level
        self.relative = relative
        self.last = 0

    def prefix(self, time_ns: int) -> str:
        out = ""
        if self.relative:
            d = time_ns - self.last
            self.last = time_ns
            out += f"{d // 10**9:3d}.{d % 10**9 // 1000:06d} "
        if self.level:
            t = self.world.realtime_base_ns() + time_ns
            sec, ns = divmod(t, 10**9)
            if self.level >= 3:
                out += f"{sec}.{ns // 1000:06d} "
            else:
                hms = time.strftime("%H:%M:%S", time.gmtime(sec))
                out += f"{hms}.{ns // 1000:06d} " if self.level == 2 else f"{hms} "
        return out


class Writer:
    """Streams trace text: signals and exits are flushed at once; system-call lines too when the
    trace shares stderr with the program (so the two keep their order); everything else at least
    every FLUSH_EVERY seconds of wall time, so a run that is killed keeps its trace up to a
    moment before the kill without paying a flush per line."""
    FLUSH_EVERY = 0.2
    MAX_BUFFER = 1 << 16

    def __init__(self, stream: TextIO, own: bool):
        self.stream = stream
        self.own = own
        # a system call line is flushed at once when the trace shares its stream with the
        # program's output (stderr), so the two keep their order; a trace file (-o) gets the
        # time-based flush of library calls: a flush per line costs ~4 µs, a fifth of a call
        self.sync_syscalls = not own
        self.buf: List[str] = []
        self.size = 0
        self.lines = 0          # lines written (counted at each flush: the status line reads it)
        self.last = time.monotonic()

    interactive = False     # on a terminal it shares with the program: every write at once

    def write(self, text: str, urgent: bool = False) -> None:
        self.buf.append(text)
        self.size += len(text)
        if urgent or self.interactive or self.size > self.MAX_BUFFER:
            self.flush()
        else:
            now = time.monotonic()
            if now - self.last > self.FLUSH_EVERY:
                self.flush(now)

    def write_syscall(self, text: str) -> None:
        """write(text, urgent=sync_syscalls): a system call's line (StraceText.line_writer)."""
        self.buf.append(text)
        self.size += len(text)
        if self.sync_syscalls or self.size > self.MAX_BUFFER:
            self.flush()
        else:
            now = time.monotonic()
            if now - self.last > self.FLUSH_EVERY:
                self.flush(now)

    def flush(self, now: float = 0.0) -> None:
        if self.buf:
            text = "".join(self.buf)
            self.lines += text.count("\n")
            self.stream.write(text)
            self.buf.clear()
            self.size = 0
        self.stream.flush()
        self.last = now or time.monotonic()

    def close(self) -> None:
        self.flush()
        if self.own:
            self.stream.close()


class LtraceText:
    """ltrace's output: `name(args) = ret`, nested calls as <unfinished ...> / <... resumed>."""

    def __init__(self, writer: Writer, world, cfg, multi_pid: bool = False):
        self.w = writer
        self.cfg = cfg
        self.ts = Timestamps(world, cfg.timestamps, cfg.relative)
        self.open: Optional[Call] = None      # a call whose line is still open
        self.multi = multi_pid or cfg.follow
        self.summary: Dict[str, List[int]] = {}
        self.calls_by_id: Dict[int, Call] = {}
        # no prefix, address or indentation before a call: its line is its text (event's fast path)
        self.align = cfg.align or DEFAULT_ALIGN     # ltrace -a N
        self.plain = not (cfg.summary or self.multi or cfg.timestamps or cfg.relative or cfg.indent
                          or cfg.show_ip or getattr(cfg, "call_stack", 0) or self.align != DEFAULT_ALIGN)

    position = None             # () -> (instructions retired in the run, rip), for -ii

    def _prefix(self, ev) -> str:
        p = f"[pid {ev.tid}] " if self.multi else ""
        return p + self.ts.prefix(ev.time_ns)

    def _ip(self, addr: int) -> str:
        """-i: ltrace's [caller's address]; -ii adds the call's position, `@N` instructions
        retired in the run when the call was made (docs/time.md)."""
        if self.cfg.show_ip >= 2 and self.position is not None:
            return f"[{addr:#x} @{self.position()[0]}] "
        return f"[{addr:#x}] "

    def _close_open(self) -> None:
        if self.open is not None:
            self.w.write(" <unfinished ...>\n")
            self.open = None

    def _indent(self, depth: int) -> str:
        return " " * (self.cfg.indent * depth) if self.cfg.indent else ""

    def event(self, ev) -> None:
        if self.plain:
            # the common case, as the general code below prints it: a call, then its return
            t = type(ev)
            if t is Call:
                if self.open is not None:
                    self.w.write(" <unfinished ...>\n")
                self.w.write(ev.text)
                self.open = ev
                self.calls_by_id[ev.id] = ev
                return
            if t is Return and not ev.unwound:
                call = self.open
                if call is not None and call.id == ev.id and self.calls_by_id.get(ev.id) is call:
                    del self.calls_by_id[ev.id]
                    self.open = None
                    spent = f" <{ev.duration_ns // 10**9}.{ev.duration_ns % 10**9 // 1000:06d}>" \
                        if self.cfg.show_time_spent else ""
                    self.w.write(result_at(ev.right + ")", ev.ret, LEAF_COLUMN, len(call.text)) + spent + "\n")
                    return
        if self.cfg.summary:
            self._count(ev)
            return
        if isinstance(ev, Call):
            self._close_open()
            ip = self._ip(ev.caller_addr) if self.cfg.show_ip else ""
            self.w.write(self._prefix(ev) + ip + self._indent(ev.depth) + ev.text)
            self.open = ev
            self.calls_by_id[ev.id] = ev
        elif isinstance(ev, Return):
            call = self.calls_by_id.pop(ev.id, None)
            if ev.unwound:
                if self.open is not None and self.open.id == ev.id:
                    self._close_open()
                return
            spent = f" <{ev.duration_ns // 10**9}.{ev.duration_ns % 10**9 // 1000:06d}>" if self.cfg.show_time_spent else ""
            if self.open is not None and self.open.id == ev.id:
                ip = f"[{call.caller_addr:#x}] " if self.cfg.show_ip and call else ""
                head = self._prefix(call) + ip + self._indent(ev.depth) + call.text if call else ""
                line = close_call(head + ev.right, ev.ret, self.align)
                self.w.write(line[len(head):] + spent + "\n" + _ltrace_stack_lines(call.stack if call else None))
                self.open = None
            else:
                self._close_open()
                head = self._prefix(ev) + self._indent(ev.depth) + f"<... {ev.name} resumed> "
                self.w.write(close_call(head + ev.right, ev.ret, self.align) + spent + "\n"
                             + _ltrace_stack_lines(call.stack if call else None))
        elif isinstance(ev, Syscall):
            if not self.cfg.syscalls:
                return
            self._close_open()
            name, _, rest = ev.line.partition("(")
            args, _, ret = rest.rpartition(") = ")
            text = self._prefix(ev) + f"SYS_{name}({args}"
            self.w.write((close_call(text, ret, self.align) if ev.ret is not None else text + ") = ?") + "\n"
                         + _stack_lines(ev.stack), urgent=self.w.sync_syscalls)
        elif isinstance(ev, Signal):
            if ev.type == "stop":
                return                   # (ltrace's format shows the stop signal only)
            self._close_open()
            from emutrace.decode.sigdesc import signal_description     # deferred: an ltrace-format run rarely prints a signal
            self.w.write(self._prefix(ev) + f"--- {ev.name} ({signal_description(ev.signo)}) ---\n", urgent=True)
        elif isinstance(ev, Exit):
            self._close_open()
            if ev.signal:
                self.w.write(self._prefix(ev) + f"+++ killed by {ev.signal_name} +++\n", urgent=True)
            else:
                self.w.write(self._prefix(ev) + f"+++ exited (status {ev.status}) +++\n", urgent=True)

    def leaf_lines(self, lines: List[str]) -> None:
        """Finished lines of leaf calls (a call and its return with nothing between them), each
        as event() prints the pair in plain output, ending in leaf_suffix: the call log's common
        case, without making the two events."""
        if self.open is not None:
            self.w.write(" <unfinished ...>\n")
            self.open = None
        self.w.write("".join(lines))

    @property
    def leaf_suffix(self) -> str:
        return " <0.000000>\n" if self.cfg.show_time_spent else "\n"

    @property
    def own_file(self) -> bool:
        """The trace goes to a file of its own (-o), not to a stream it shares with the program."""
        return self.w.own

    def _count(self, ev) -> None:
        if isinstance(ev, Call):
            self.calls_by_id[ev.id] = ev
        elif isinstance(ev, Return) and not ev.unwound:
            self.calls_by_id.pop(ev.id, None)
            row = self.summary.setdefault(ev.name, [0, 0])
            row[0] += 1
            row[1] += ev.duration_ns

    def close(self) -> None:
        if self.cfg.summary:
            from emutrace.values import format_summary     # deferred: only -c prints a summary
            rows = [(name, calls, ns / 1e9) for name, (calls, ns) in self.summary.items()]
            self.w.write(format_summary(rows))
        else:
            if self.open is not None:
                self.w.write(" <no return ...>\n")
                self.open = None
        self.w.close()


def _stack_lines(stack) -> str:
    """strace -k's frame lines under an event ('' without a stack)."""
    if not stack:
        return ""
    from emutrace.backtrace import format_frame     # deferred: only -k and -w print frames
    return "".join(format_frame(f) + "\n" for f in stack)


def _ltrace_stack_lines(stack) -> str:
    """ltrace -w's frame lines under a call, and the blank line ltrace ends them with."""
    if not stack:
        return ""
    from emutrace.backtrace import format_ltrace_frame     # deferred: only -k and -w print frames
    return "".join(format_ltrace_frame(f) + "\n" for f in stack) + "\n"


def strace_align(prefix: str, line: str) -> str:
    """strace pads a call to column 40 before ` = result` (the result never holds ') = ')."""
    head, sep, ret = line.rpartition(") = ")
    if not sep:
        return prefix + line
    return result_at(prefix + head + ")", ret, STRACE_COLUMN)


def cfg_signals_hide(cfg, signo: int) -> bool:
    """-e signal=SET: whether a signal's '--- SIG... ---' line is left out."""
    sel = cfg.signals
    if sel is None:
        return False
    if isinstance(sel, tuple):                  # ('not', set): every signal but those
        return signo in sel[1]
    return signo not in sel


class StraceText:
    """strace's output: one line per system call, signals and exits between them."""

    def __init__(self, writer: Writer, world, cfg, multi_pid: bool = False):
        self.w = writer
        self.cfg = cfg
        self.ts = Timestamps(world, cfg.timestamps, cfg.relative)
        self.multi = multi_pid or cfg.follow or cfg.always_show_pid
        # strace's prefix: '[pid  1000] ' on a terminal or pipe; into one -o file with -f (or
        # --always-show-pid) the pid alone, '1000  ' (strace's print_pid_pfx)
        self.pid_column = bool(cfg.output) and not getattr(cfg, "separate", False) \
            and (cfg.follow or cfg.always_show_pid)
        self.summary: Dict[str, List] = {}
        self.col = cfg.align - 1 if cfg.align else STRACE_COLUMN    # -a N: ' = ' starts at column N
        self.numbers = cfg.syscall_numbers          # -n: '[ nr] ' before each call

    def _prefix(self, ev) -> str:
        if not self.multi:
            return self.ts.prefix(ev.time_ns)
        pid = f"{ev.tid:<5} " if self.pid_column else f"[pid {ev.tid:5}] "
        return pid + self.ts.prefix(ev.time_ns)

    def line_writer(self):
        """What a system call's whole line may be written with, without its Syscall event
        (SyscallObserver's lines): the line is what event() would print when it has no prefix,
        no time spent and no stack. None when this sink prints more (-f's pid, -t, -r, -T) or
        something else (-c's table)."""
        cfg = self.cfg
        if cfg.summary or self.multi or cfg.timestamps or cfg.relative or cfg.show_time_spent \
                or self.col != STRACE_COLUMN or self.numbers:
            return None
        return self.w.write_syscall

    def event(self, ev) -> None:
        if self.cfg.summary:
            if isinstance(ev, Syscall):
                row = self.summary.setdefault(ev.name, [0, 0, 0])
                row[0] += 1
                row[1] += 1 if ev.errno else 0
                row[2] += ev.duration_ns
            return
        if isinstance(ev, Syscall):
            cfg = self.cfg
            # (the common line, without a prefix's, a time's or a stack's calls when it has none)
            prefix = self._prefix(ev) if self.multi or cfg.timestamps or cfg.relative else ""
            if self.numbers:
                prefix += f"[{ev.nr:4d}] "
            spent = f" <{ev.duration_ns // 10**9}.{ev.duration_ns % 10**9 // 1000:06d}>" if cfg.show_time_spent and ev.ret is not None else ""
            line = ev.line
            head, sep, ret = line.rpartition(") = ")             # (strace_align, written out)
            # (-ff: the `[pid N] ` that PerProcessFiles takes off is not part of the alignment)
            width = self.col + (len(f"{ev.tid:5}") + 7 if self.multi and getattr(cfg, "separate", False) else 0)
            line = result_at(prefix + head + ")", ret, width) if sep else prefix + line
            self.w.write_syscall(line + spent + "\n" + (_stack_lines(ev.stack) if ev.stack else "")
                                 + (ev.dump or ""))
        elif isinstance(ev, Signal):
            if cfg_signals_hide(self.cfg, ev.signo):
                return
            self.w.write(self._prefix(ev) + ev.line + "\n" + _stack_lines(ev.stack), urgent=True)
        elif isinstance(ev, Exit):
            from emutrace.decode.strace import format_exited, format_killed     # deferred: the strace decoders load only for the strace format
            if not ev.signal and "exit" in self.cfg.quiet:            # -qq: no '+++ exited with N +++'
                return
            line = format_killed(ev.signal, ev.core) if ev.signal else format_exited(ev.status)
            self.w.write(self._prefix(ev) + line + "\n", urgent=True)

    def close(self) -> None:
        if self.cfg.summary:
            from emutrace.decode.strace import format_summary     # deferred: the strace decoders load only for the strace format
            rows = [(name, c, e, ns / 1e9) for name, (c, e, ns) in self.summary.items()]
            self.w.write(format_summary(rows))
        self.w.close()


def _grouped(n: int) -> str:
    """12345678 → 12'345'678 (kprintf's `'` flag)."""
    return f"{n:,}".replace(",", "'")


class FtraceText:
    """--ftrace's text: Cosmopolitan's `--ftrace` lines, one per function entry,

        FUN <pid> <tid> <nanoseconds> <stack use> <2×depth spaces>&<name>

    as its ftracer prints them (`FUN %6P %6H %'18T %'*ld %*s%t`): nanoseconds on the virtual
    clock, stack use in bytes between the thread's stack top (the stack pointer at program
    start; for other threads, at their first traced call) and the call's return slot, numbers
    grouped with `'`. Returns are not printed (the indentation shows them). Library calls, when
    traced too, are FUN lines at their place in the nesting, named `&name@library`. System
    calls (-S) are Cosmopolitan's --strace lines, `SYS <pid> <tid> <nanoseconds> <call>`.
    Unlike Cosmopolitan, a function entered twice in a row (recursion) is printed twice.

    With -c: a table of calls, total and self time per function, as `uftrace report` prints
    it, sorted by total time. The total time of a recursive function counts its outermost calls
    only; self time is total minus the time of the calls it made."""

    STACK_DIGITS = len(_grouped(8 << 20))          # Cosmopolitan sizes the column by the stack

    def __init__(self, writer: Writer, world, cfg, stack_use=None):
        self.w = writer
        self.cfg = cfg
        self.stack_use = stack_use or (lambda ev: None)
        self.frames: Dict[tuple, List[list]] = {}     # (pid, tid) → [[id, name, start, children]]
        self.rows: Dict[str, List[int]] = {}           # name → [calls, total ns, self ns]
        self.active: Dict[tuple, Dict[str, int]] = {}  # (pid, tid) → name → open instances
        self.uses: Dict[int, str] = {}                 # -a: call id → its stack use's text, for its RET line
        self.last_ns = 0

    def _prefix(self, tag: str, ev) -> str:
        return f"{tag} {ev.pid:6d} {ev.tid:6d} {_grouped(ev.time_ns):>18} "

    def event(self, ev) -> None:
        self.last_ns = max(self.last_ns, ev.time_ns)
        if self.cfg.summary:
            self._count(ev)
            return
        if isinstance(ev, Call):
            use = self.stack_use(ev)
            name = ev.name if ev.kind == "function" or not ev.lib else f"{ev.name}@{ev.lib}"
            used = "-" if use == -1 else _grouped(use or 0)      # (-1: on another stack, see ftrace.py)
            if self.cfg.ftrace_args is not None and (ev.typed is not None or ev.kind != "function"):
                name += "(" + ", ".join(ev.args) + ")"     # -a: uftrace's notation
                self.uses[ev.id] = _grouped(use or 0) if use == -1 else used
            self.w.write(self._prefix("FUN", ev) + f"{used:>{self.STACK_DIGITS}} "
                         + "  " * ev.depth + "&" + name + "\n")
        elif isinstance(ev, Return):
            use = self.uses.pop(ev.id, None)
            lib = ev.kind != "function"
            if use is not None and ((ev.ret and ev.ret != "<void>") or (ev.args and not lib)) and not ev.unwound:
                outs = "(" + ", ".join(ev.args) + ")" if ev.args and not lib else ""
                self.w.write(self._prefix("RET", ev) + f"{use:>{self.STACK_DIGITS}} " + "  " * ev.depth
                             + "&" + ev.name + outs + (" = " + ev.ret if ev.ret else "") + "\n")
        elif isinstance(ev, Syscall):
            self.w.write(self._prefix("SYS", ev) + ev.line + "\n", urgent=self.w.sync_syscalls)
        elif isinstance(ev, Signal):
            self.w.write(self._prefix("SIG", ev) + (ev.line or f"--- {ev.name} ---") + "\n", urgent=True)
        elif isinstance(ev, Exit):
            what = f"killed by {ev.signal_name or ev.signal}" if ev.signal else f"exited with {ev.status}"
            self.w.write(self._prefix("EXI", ev) + f"+++ {what} +++\n", urgent=True)

    # -- the -c table --------------------------------------------------------------------
    def _count(self, ev) -> None:
        if isinstance(ev, Call):
            key = (ev.pid, ev.tid)
            active = self.active.setdefault(key, {})
            outer = active.get(ev.name, 0) == 0
            active[ev.name] = active.get(ev.name, 0) + 1
            self.frames.setdefault(key, []).append([ev.id, ev.name, ev.time_ns, 0, outer])
            self.rows.setdefault(ev.name, [0, 0, 0])[0] += 1
        elif isinstance(ev, Return):
            stack = self.frames.get((ev.pid, ev.tid))
            if stack and any(f[0] == ev.id for f in stack):
                while stack:
                    done = stack[-1][0] == ev.id
                    self._close(ev.pid, ev.tid, stack, ev.time_ns)
                    if done:
                        break
        elif isinstance(ev, Exit):
            for (pid, tid), stack in self.frames.items():
                if pid == ev.pid:
                    while stack:
                        self._close(pid, tid, stack, ev.time_ns)

    def _close(self, pid: int, tid: int, stack: List[list], now: int) -> None:
        fid, name, start, children, outer = stack.pop()
        dur = now - start
        row = self.rows[name]
        if outer:
            row[1] += dur
        row[2] += dur - children
        active = self.active[(pid, tid)]
        active[name] -= 1
        if stack:
            stack[-1][3] += dur

    @staticmethod
    def _time(ns: int) -> str:
        if ns < 1_000_000:
            return f"{ns / 1e3:7.3f} us"
        if ns < 1_000_000_000:
            return f"{ns / 1e6:7.3f} ms"
        return f"{ns / 1e9:7.3f}  s"

    def close(self) -> None:
        if self.cfg.summary:
            for (pid, tid), stack in self.frames.items():
                while stack:
                    self._close(pid, tid, stack, self.last_ns)
            rows = sorted(self.rows.items(), key=lambda kv: (-kv[1][1], -kv[1][2], -kv[1][0], kv[0]))
            out = ["  Total time   Self time       Calls  Function",
                   "  ==========  ==========  ==========  ===================="]
            for name, (calls, total, self_ns) in rows:
                out.append(f"  {self._time(total)}  {self._time(self_ns)}  {calls:10d}  {name}")
            self.w.write("\n".join(out) + "\n")
        self.w.close()


class JsonLines:
    """One JSON object per event (schema in docs/trace-formats.md)."""

    position = None             # () -> (instructions retired in the run, rip): the tracer sets it

    def __init__(self, writer: Writer, world, cfg, multi_pid: bool = False):
        self.w = writer
        self.cfg = cfg

    def event(self, ev) -> None:
        if isinstance(ev, Syscall) and not (self.cfg.syscalls or self.cfg.strace):
            return
        d = asdict(ev)
        if d.get("stack", 0) is None:          # only -k / -w events carry a stack
            del d["stack"]
        if self.position is not None:
            d["pos"] = list(self.position())   # [instructions retired in the run, rip]: docs/time.md
        if d.get("typed", 0) is None:          # only --ftrace -a events carry typed values
            del d["typed"]
        if d.get("dump", 0) is None:           # only -e read=/write= calls carry a dump
            del d["dump"]
        d.pop("text", None)
        d.pop("right", None)
        self.w.write(json.dumps(d, separators=(",", ":"), ensure_ascii=False) + "\n",
                     urgent=not isinstance(ev, (Call, Return)) and (self.w.sync_syscalls
                                                                     or not isinstance(ev, Syscall)))

    def close(self) -> None:
        self.w.close()
