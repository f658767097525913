"""Wiring of the power tools on a session, from the command line's TraceConfig:
-e inject= / fault= and --inject-call (emutrace.inject), -P and -z / -Z / status=
(emutrace.sysgate), -k / -kk / -w N (emutrace.backtrace), --coverage (emutrace.coverage).

tracer.build_observers calls `coverage(session, tc)` first (coverage runs with --no-trace too),
then `wire(session, tc, tracer)` once the call and syscall tracers exist. The tools' modules
are imported only when their option is given: a plain run loads none of them.
"""
from __future__ import annotations

from emutrace.events import Call


class CoverageOutput:
    """The coverage recorder as one of build_observers' outputs: close() writes the file."""

    def __init__(self, recorder, f, fmt: str):
        self.recorder, self.f, self.fmt = recorder, f, fmt

    def close(self) -> None:
        with self.f:
            self.recorder.write(self.f, self.fmt)


def coverage(session, tc) -> list:
    if not tc.coverage:
        return []
    from emutrace.coverage import BlockRecorder, open_output     # deferred: only --coverage needs it
    f = open_output(tc.coverage, tc.coverage_format)      # (an OSError here: one line, status 125)
    rec = BlockRecorder(session.kernel.notify)
    session.add_observer(rec)
    return [CoverageOutput(rec, f, tc.coverage_format)]


def syscall_injection(session, tc) -> None:
    """-e inject=/fault=: the kernel's intercept (any API intercept runs behind it)."""
    if not tc.inject:
        return None
    from emutrace.inject import SyscallInjector     # deferred: only inject= and --inject-call need it
    inj = SyscallInjector.from_exprs(tc.inject)
    session.hooks.chain("intercept", inj)
    for warning in inj.warnings():
        session.kernel.notify(warning)
    return inj


def wire(session, tc, tracer) -> None:
    from emutrace.session import EmutraceError     # deferred: the session imports the tracer's modules that import this one
    inj = syscall_injection(session, tc)
    paths = None
    if tc.trace_paths:
        from emutrace.sysgate import PathSelection, guest_realpath     # deferred: only -P and status= need it
        paths = PathSelection(tc.trace_paths, lambda p: guest_realpath(session.vfs, p, session.opts.cwd), session.kernel.notify)
    obs = tracer.syscalls
    if obs is not None:
        if inj is not None:
            obs.configure(marker=inj.mark)
        if paths is not None or tc.status is not None:
            from emutrace.sysgate import SyscallGate     # deferred: only -P and status= need it
            gate = SyscallGate(paths, tc.status)
            if obs.gate is not None:            # (-e trace-fds= made one first: keep its fds)
                gate.fds = obs.gate.fds
            obs.configure(gate=gate)
        if tc.stack_trace:
            from emutrace.backtrace import Backtracer     # deferred: only -k and -w need the unwinder
            # strace -k demangles C++ names whether or not -C is given (libdw + libiberty)
            obs.configure(backtracer=Backtracer(session.vfs, session.opts.cwd, source_lines=tc.stack_trace > 1, demangle=True))
    elif tc.stack_trace or tc.status is not None:
        raise EmutraceError("-k, -z, -Z and -e status= act on system calls: add -S or --strace", 125)
    lt = tracer.libcalls
    if tc.inject_calls:
        if lt is None:
            raise EmutraceError("--inject-call needs library calls caught (not with -L)", 125)
        from emutrace.inject import CallInjector, InjectingFilter, parse_inject_call     # deferred: only inject= and --inject-call need it
        ci = CallInjector([parse_inject_call(t) for t in tc.inject_calls])
        session.hooks.chain("call_intercept", ci)
        lt.filter = InjectingFilter(lt.filter, ci)
    if tc.call_stack and lt is not None:
        from emutrace.backtrace import Backtracer     # deferred: only -k and -w need the unwinder
        bt = Backtracer(session.vfs, session.opts.cwd, demangle=tc.demangle, depth=tc.call_stack)
        lt.log_in_guest = False                 # each call must reach Python to take its stack
        lt.leaf_out = None
        emit = lt.emit

        def emit_with_stack(ev):
            if type(ev) is Call:
                proc = session.kernel.current
                if proc is not None:
                    # caught at the function's entry: the backtrace starts at its caller
                    ev.stack = bt.frames(proc, at_call=True)
            emit(ev)
        lt.emit = emit_with_stack
    if paths is not None and lt is not None:
        lt.log_in_guest = False                 # each call's arguments are read at its entry
        lt.leaf_out = None
        lt.emit = _calls_naming(paths.paths, session, lt.emit)


def _calls_naming(paths, session, emit):
    """-P for library calls: only the calls one of whose arguments is a selected path (a C
    string equal to it), and their returns."""
    from emutrace.events import Return     # deferred: only -P with call tracing needs it
    shown = set()

    def emit_if_named(ev):
        t = type(ev)
        if t is Call:
            proc = session.kernel.current
            if proc is None or not _names_a_path(proc, paths):
                return
            shown.add(ev.id)
        elif t is Return:
            if ev.id not in shown:
                return
            shown.discard(ev.id)
        emit(ev)
    return emit_if_named


def _names_a_path(proc, paths) -> bool:
    m, mem = proc.machine, proc.aspace
    for reg in ("rdi", "rsi", "rdx", "rcx", "r8", "r9"):
        addr = m.reg(reg)
        if addr < 0x1000:
            continue
        try:
            text = mem.read_cstr(addr, 4096)
        except Exception:                   # not a pointer to readable memory: names nothing
            continue
        if text.decode("utf-8", "surrogateescape") in paths:
            return True
    return False
