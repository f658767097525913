"""Wiring: from a parsed command line to the observers on a Session and the formatters they feed.

Events flow one way: hooks (libcalls, systrace) → emit() → every formatter.
"""
from __future__ import annotations

from typing import List

from .events import Exit
from .output import JsonLines, LtraceText, StraceText, Writer, open_stream


class Tracer:
    """The session observer: fans hook callbacks out to the call and syscall tracers."""

    def __init__(self, session, sinks):
        self.session = session
        self.sinks = sinks
        self.libcalls = None
        self.syscalls = None

    def emit(self, ev) -> None:
        for s in self.sinks:
            s.event(ev)

    # session observer interface
    def attach(self, proc):
        if self.libcalls:
            self.libcalls.attach(proc)

    def started(self, proc):
        if self.libcalls:
            self.libcalls.started(proc)

    def module_loaded(self, proc, module):
        if self.libcalls:
            self.libcalls.module_loaded(proc, module)

    def signal(self, proc, info):
        if self.syscalls:
            self.syscalls.signal(proc, info)
        else:
            from syscalls.xlat import signal_name
            from .events import Signal
            fields = {k: v for k, v in info.items() if not k.startswith("_")}
            self.emit(Signal(proc.pid, proc.thread.tid, self.session.world.elapsed_ns, info["si_signo"],
                             signal_name(info["si_signo"]), "", fields))

    def exited(self, proc, result):
        from syscalls.xlat import signal_name
        if self.libcalls:
            self.libcalls.finish(proc)
        self.emit(Exit(proc.pid, proc.thread.tid, self.session.world.elapsed_ns, result.status, result.signal,
                       signal_name(result.signal) if result.signal else "", result.core))


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
    if not tc.enabled:
        return []
    from .session import EmutraceError
    sys_specs, call_exprs = split_filters(tc)
    stream = open_stream(tc.output)
    writer = Writer(stream, own=tc.output is not None)
    if tc.format == "jsonl":
        sink = JsonLines(writer, session.world, tc)
    elif tc.strace:
        sink = StraceText(writer, session.world, tc)
    else:
        sink = LtraceText(writer, session.world, tc)
    sinks = [sink]
    tracer = Tracer(session, sinks)
    try:
        if tc.strace or tc.syscalls or sys_specs:
            from .systrace import SyscallObserver, SyscallSelection, TraceSpecError
            try:
                sel = SyscallSelection(sys_specs)
            except TraceSpecError as e:
                raise EmutraceError(str(e), 125) from None
            tracer.syscalls = SyscallObserver(session, tracer.emit, tc.string_limit, tc.fd_paths, sel)
            session.kernel.observer = tracer.syscalls
        if tc.libcalls and not tc.strace:
            from .filters import CallFilter, FilterError
            from .libcalls import LibcallTracer
            from .protos import ConfError, load_prototypes
            from .values import CallFormatter
            try:
                protos = load_prototypes(extra_files=tc.proto_files)
            except (ConfError, OSError) as e:
                raise EmutraceError(f"prototypes: {e}", 125) from None
            try:
                flt = CallFilter(call_exprs, tc.libs)
            except FilterError as e:
                raise EmutraceError(str(e), 125) from None
            fmt = CallFormatter(string_limit=tc.string_limit, demangle=tc.demangle,
                                symbolize=lambda addr: _symbolize(session, addr))
            tracer.libcalls = LibcallTracer(session, tracer.emit, fmt, protos, flt, tc.string_limit)
    except BaseException:
        writer.close()
        raise
    session.add_observer(tracer)
    return sinks


def _symbolize(session, addr: int):
    proc = session.kernel.current
    if proc is None:
        return None
    from loader.modules import module_at
    m = module_at(proc.modules, addr)
    return m.function_at(addr) if m else None
