"""Wiring: from a parsed command line to the observers on a Session and the formatters they feed.

Events flow one way: hooks (libcalls, ftrace, systrace) → emit() → every formatter.
Library calls and functions (--ftrace, -x) share one CallStacks, so together they nest as one
tree; --ftrace-depth drops the events nested deeper than asked (the frames are still tracked).
"""
from __future__ import annotations

import os
from typing import List

from emutrace.loader.modules import module_at

from emutrace.events import Call, Exit, Return, Signal
from emutrace.errors import EmutraceError


class Tracer:
    """The session observer: fans hook callbacks out to the call and syscall tracers."""

    traced_only = True                # it reports events: a process that is not traced gets none

    def __init__(self, world, sinks):
        self.world = world                # (the virtual time of signal and exit events)
        self.sinks = sinks
        self.libcalls = None
        self.functions = None
        self.syscalls = None
        self.max_depth = 0                # --ftrace-depth

    def emit(self, ev) -> None:
        if self.max_depth and isinstance(ev, (Call, Return)) and ev.depth >= self.max_depth:
            return
        for s in self.sinks:
            s.event(ev)

    def syscall_lines(self):
        """Where a system call's line may go without its event (SyscallObserver's lines): the
        one sink's line writer, when it is the only thing the event would reach."""
        from emutrace.output import StraceText      # deferred: output loads only where a trace is written
        if len(self.sinks) == 1 and not self.max_depth and isinstance(self.sinks[0], StraceText):
            return self.sinks[0].line_writer()
        return None

    def call_emit(self):
        """emit for the hot paths (library calls, system calls): the one sink's own event method
        when nothing else would happen in between (one sink, no depth limit)."""
        if len(self.sinks) == 1 and not self.max_depth:
            return self.sinks[0].event
        return self.emit

    # session observer interface (the library-call tracer first: at an address both hook, its
    # frame is the one kept)
    def attach(self, proc):
        if self.libcalls:
            self.libcalls.attach(proc)
        if self.functions:
            self.functions.attach(proc)

    def started(self, proc):
        if self.syscalls:
            self.syscalls.started(proc)
        if self.libcalls:
            self.libcalls.started(proc)
        if self.functions:
            self.functions.started(proc)

    def module_loaded(self, proc, module):
        if self.libcalls:
            self.libcalls.module_loaded(proc, module)
        if self.functions:
            self.functions.module_loaded(proc, module)

    def forked_untraced(self, parent, child):
        """A forked child that is not traced (no -f): its copy of the guest call log's code
        still needs its hooks (LibCalls.forked_untraced)."""
        if self.libcalls:
            self.libcalls.forked_untraced(parent, child)

    def forked(self, parent, child):
        """A forked child with its own engine (a copy of the parent's memory)."""
        if self.libcalls:
            self.libcalls.forked(parent, child)
        if self.functions:
            for module in list(child.modules):
                self.functions.module_loaded(child, module)

    def signal(self, proc, info):
        self._settle(proc)
        if self.syscalls:
            self.syscalls.signal(proc, info)
        else:
            from emutrace.decode.xlat import signal_name     # deferred: the name tables take ~2 ms to load
            fields = {k: v for k, v in info.items() if not k.startswith("_")}
            self.emit(Signal(proc.pid, proc.thread.tid, self.world.elapsed_ns, info["si_signo"],
                             signal_name(info["si_signo"]), "", fields))

    def _settle(self, proc) -> None:
        """A call the guest log held back at a system call (GuestLog.flush) is decoded before
        a signal's or an exit's line, which it precedes."""
        m = proc.machine
        gl = self.libcalls.guest_log_of(m) if m is not None and self.libcalls is not None else None
        if gl is not None and gl.held and gl.m is m:
            gl.settle(proc)

    def stopped(self, proc, sig):
        """A stop signal stopped the process (strace's '--- stopped by SIGSTOP ---'; ltrace
        shows only the signal)."""
        if self.syscalls:
            self.syscalls.stopped(proc, sig)

    def exited(self, proc, result):
        self._settle(proc)
        if self.libcalls:
            self.libcalls.finish(proc)
        if self.functions:
            self.functions.finish(proc)
        name = ""
        if result.signal:
            from emutrace.decode.xlat import signal_name       # (only then: the tables take ~2 ms to load)
            name = signal_name(result.signal)
        self.emit(Exit(proc.pid, proc.thread.tid, self.world.elapsed_ns, result.status, result.signal,
                       name, result.core))


def split_filters(cfg):
    """-e expressions: strace's trace=… forms go to system calls, the rest are ltrace filters."""
    sys_specs, call_exprs = [], []
    for e in cfg.filters:
        if e.startswith("trace="):
            sys_specs.append(e[len("trace="):])
        elif cfg.strace:
            sys_specs.append(e)
        else:
            call_exprs.append(e)
    return sys_specs, call_exprs


def build_observers(session, cfg) -> List:
    """Attach what the command line asks for; return the formatters to close at the end."""
    tc = cfg.trace
    from emutrace import powertools     # deferred: the power tools load only when an option asks for one
    extra_outputs = powertools.coverage(session, tc)       # --coverage (with --no-trace too)
    if not tc.enabled:
        if not tc.inject_calls:
            powertools.syscall_injection(session, tc)
            return extra_outputs
        # --inject-call under --no-trace: the calls must still be caught to be answered; their
        # lines go nowhere (an ltrace filter that shows none, written to the null device)
        tc.output, tc.filters, tc.syscalls, tc.strace = os.devnull, ["-*"], False, False
        tc.format, tc.summary = "text", False
    # deferred: a --no-trace run writes no trace (output loads values, protos and json, ~3 ms)
    from emutrace.output import FtraceText, JsonLines, LtraceText, PerProcessFiles, StraceText, Writer, open_stream
    sys_specs, call_exprs = split_filters(tc)
    if tc.inject_calls and not tc.libcalls:
        call_exprs = ["-*"]         # (-L or --strace: the calls are answered, not shown)
    functions = tc.ftrace or bool(tc.internal)
    stream = PerProcessFiles(tc.output) if tc.separate and tc.output else open_stream(tc.output)
    writer = Writer(stream, own=tc.output is not None)
    if tc.output is None and _on_terminal(stream):
        # as ltrace on a terminal: each call's line starts at its entry and is on the screen
        # before the program writes, so the two interleave in order. Calls then take the hooked
        # path (the guest log reports them at the end of a slice); a trace into a file or a pipe
        # keeps the guest log and the buffered writer
        writer.interactive = True
        tc.guest_log = False
    if tc.format == "jsonl":
        sink = JsonLines(writer, session.world, tc)
        sink.position = session.position
    elif tc.ftrace:
        sink = FtraceText(writer, session.world, tc)
    elif tc.strace:
        sink = StraceText(writer, session.world, tc)
    else:
        sink = LtraceText(writer, session.world, tc)
        if tc.show_ip >= 2:
            sink.position = session.position
    entries = None
    if writer.interactive and isinstance(sink, LtraceText) and tc.syscalls and not tc.summary:
        from emutrace.ttyorder import SyscallEntries    # deferred: only a terminal prints a call's entry
        entries = SyscallEntries(sink, session.world)
    sinks = [sink]
    tracer = Tracer(session.world, sinks)
    tracer.max_depth = tc.ftrace_depth
    try:
        _timeline_sinks(session, tc, sinks)
        if tc.strace or tc.syscalls or sys_specs:
            from emutrace.systrace import SyscallSelection, TraceSpecError     # deferred: loaded only when system calls are traced
            try:
                sel = SyscallSelection(sys_specs)
            except TraceSpecError as e:
                raise EmutraceError(str(e), 125) from None
            obs = trace_syscalls(session, tracer, tc.string_limit, tc.fd_paths, sel)
            obs.strace_options(tc)
            if entries is not None and obs.gate is None:
                obs.enter_line = entries.entered
        libcalls = (tc.libcalls and not tc.strace) or bool(tc.inject_calls)
        if libcalls or functions:
            from emutrace.filters import CallFilter, FilterError     # deferred (this block): -L and --strace runs load no call tracer
            from emutrace.frames import CallStacks
            from emutrace.protos import ConfError, load_prototypes
            try:
                protos = load_prototypes(extra_files=tc.proto_files)
            except ConfError as e:
                raise EmutraceError(f"prototypes: {e}", 125) from None
            except OSError as e:
                raise EmutraceError(f"-F {e.filename}: {e.strerror}", 125) from None
            fmt = call_formatter(session, tc.string_limit, tc.demangle)
            calls = CallStacks()
            try:
                flt = CallFilter(call_exprs, tc.libs) if libcalls else None
                # -x selects functions (ltrace's chains: fib+leaf, /regex/, *@libc.so.6); without
                # it, every function of the program, and of the libraries with --ftrace-libs
                select = CallFilter(tc.internal or (["*@*"] if tc.ftrace_libs else ["*@MAIN"])) \
                    if functions else None
            except FilterError as e:
                raise EmutraceError(str(e), 125) from None
            # library functions no prototype names take their types from the defining library's
            # DWARF (docs/dwarf.md); the reader reads nothing until such a call
            from emutrace.dwarf.calls import DebugTypes     # deferred with the call tracer (a small module: its reader loads at its first use)
            dwarf = DebugTypes(session.opts.root, session.kernel.notify, tc.string_limit,
                               lambda addr: _symbolize(session, addr))
            if libcalls:
                # calls logged by guest code carry no time of their own (their records are read
                # in bulk): an output that shows each call's time takes the hooked path, whose
                # hooks read the work-driven clock at the call and at the return (docs/time.md)
                lt = trace_calls(session, tracer, fmt, protos, flt, tc.string_limit, calls=calls,
                                 guest_log=tc.guest_log and not functions and not shows_call_times(tc))
                if not (tc.ftrace and tc.ftrace_args is None and tc.format != "jsonl" and not tc.chrome):
                    lt.dwarf = dwarf     # (--ftrace's text names library calls only: none read)
                if len(sinks) == 1 and isinstance(sink, LtraceText) and sink.plain and not tracer.max_depth:
                    tracer.libcalls.leaf_out = sink
            if functions:
                from emutrace.ftrace import FunctionTracer     # deferred: only --ftrace and -x need it
                # --ftrace's formats show names; -x alone is ltrace's: arguments decoded
                arg_types = _arg_types(tc, dwarf)
                tracer.functions = FunctionTracer(session.world, tracer.emit, calls, select, fmt, protos,
                                                  decode=not tc.ftrace, args=arg_types)
                if isinstance(sink, FtraceText):
                    sink.stack_use = tracer.functions.stack_use
        powertools.wire(session, tc, tracer)
    except BaseException:
        writer.close()
        for extra in sinks[1:]:
            extra.f.close()
        raise
    session.add_observer(tracer)
    return sinks + extra_outputs


def trace_syscalls(session, tracer, string_limit: int, fd_paths: bool = False, selection=None):
    """The run's system-call observer: made, given to the tracer and served as the kernel's
    observer (a role of the session's hooks). The command line and the Python API both wire it
    here."""
    from emutrace.systrace import SyscallObserver     # deferred: loaded only when system calls are traced
    obs = SyscallObserver(session, tracer.call_emit(), string_limit, fd_paths, selection,
                          lines=tracer.syscall_lines())
    tracer.syscalls = obs
    session.hooks.serve("observer", obs)
    return obs


def call_formatter(session, string_limit: int, demangle: bool):
    """The formatter of library-call and function arguments (addresses named from the session's
    modules)."""
    from emutrace.values import CallFormatter     # deferred: a run that traces no calls loads no formatter
    return CallFormatter(string_limit=string_limit, demangle=demangle,
                         symbolize=lambda addr: _symbolize(session, addr))


def trace_calls(session, tracer, fmt, protos, call_filter, string_limit: int, calls=None,
                guest_log: bool = True):
    """The run's library-call tracer, given to the tracer (guest_log: calls may be logged by
    guest code rather than hooked). The command line and the Python API both wire it here."""
    from emutrace.libcalls import LibcallTracer     # deferred: a run that traces no calls loads no call tracer
    lt = LibcallTracer(session.world, session.hooks, tracer.call_emit(), fmt, protos, call_filter, string_limit, calls=calls)
    lt.log_in_guest = guest_log
    tracer.libcalls = lt
    return lt


def _arg_types(tc, types):
    """--ftrace -a / -A: (DebugTypes, [(CallFilter, ArgSpec)] or None, typed) for the function tracer."""
    if tc.ftrace_args is None:
        return None
    from emutrace.dwarf.calls import ArgSpec     # deferred: only -a reads debug information
    from emutrace.filters import CallFilter, FilterError
    specs = None
    if tc.ftrace_args:
        try:
            specs = [(CallFilter([pat]), ArgSpec(rest))
                     for pat, _, rest in (a.partition("@") for a in tc.ftrace_args)]
        except FilterError as e:
            raise EmutraceError(f"-A: {e}", 125) from None
    # typed values (name, type, value, text) are made for the outputs that carry them (jsonl,
    # the Chrome timeline); --ftrace's text shows the text alone
    return types, specs, tc.format == "jsonl" or bool(tc.chrome)


def _on_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def _timeline_sinks(session, tc, sinks) -> None:
    """--chrome FILE and --folded FILE: extra sinks beside the text or jsonl one."""
    from emutrace.timeline import ChromeTrace, FoldedStacks     # deferred: only --chrome and --folded need it
    if tc.chrome:
        name = os.path.basename(session.program)
        sinks.append(ChromeTrace(open(tc.chrome, "w", encoding="utf-8"), name))
    if tc.folded:
        sinks.append(FoldedStacks(open(tc.folded, "w", encoding="utf-8")))


def _symbolize(session, addr: int):
    proc = session.kernel.current
    if proc is None:
        return None
    m = module_at(proc.modules, addr)
    return m.function_at(addr) if m else None


def shows_call_times(tc) -> bool:
    """Does this configuration show when library calls happen or how long they take (-c, -T, -t,
    -r, jsonl's time_ns and duration_ns, the Chrome timeline, folded stacks)?"""
    return bool(tc.summary or tc.show_time_spent or tc.timestamps or tc.relative or tc.format == "jsonl"
                or tc.chrome or tc.folded or tc.show_ip >= 2)
