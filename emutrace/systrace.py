"""System-call tracing: the kernel's observer, turning each syscall into a decoded event.

Decoding uses the one syscall table (emutrace.kernel.table) through emutrace.decode.strace;
`-e trace=` selects by strace's grammar (emutrace.syscallset: names, numbers, %classes, /regex, ?, !).
"""
from __future__ import annotations

import weakref
from typing import Callable, List, Optional

from emutrace.decode.strace import format_signal, SyscallFormatter
from emutrace.decode.strace.common import UnlinkedPath
from emutrace.decode.xlat import signal_name
from emutrace.kernel import errno as E
from emutrace.kernel.table import BY_NAME, Syscall as Row
from emutrace.kernel.vfs import VfsError

from emutrace.events import Signal, Syscall
from emutrace.syscallset import SyscallSetError, syscalls_of
from emutrace.traceview import mem_view

def _link_path(vfs, f):
    """strace's reading of /proc/PID/fd/N: a link ending in ' (deleted)' loses that mark, as an
    UnlinkedPath, unless the whole text names that very file (a file so named)."""
    link = vfs.fd_link(f)
    if not link.endswith(" (deleted)"):
        return link
    path = link[:-len(" (deleted)")]
    try:
        node = vfs.lookup(link, "/", follow=False)
    except VfsError:
        return UnlinkedPath(path)
    mine = f.node
    same = mine is not None and (node.ov is mine.ov if node.ov is not None or mine.ov is not None
                                 else node.host == mine.host)
    return link if same else UnlinkedPath(path)

from emutrace.machine.abi import STRACE_COLUMN, result_at

class TraceSpecError(ValueError):
    pass


class SyscallSelection:
    """strace's `-e trace=SET`: the grammar of emutrace.syscallset, and a leading ! to negate."""

    def __init__(self, specs: List[str]):
        self.names: Optional[set] = None
        for spec in specs:
            negate = spec.startswith("!")
            try:
                chosen = set(syscalls_of(spec[1:] if negate else spec))
            except SyscallSetError as e:
                raise TraceSpecError(str(e)) from None
            if negate:
                base = set(BY_NAME) if self.names is None else self.names
                self.names = base - chosen
            else:
                self.names = chosen if self.names is None else self.names | chosen

    def wants(self, name: str) -> bool:
        return self.names is None or name in self.names


class SyscallObserver:
    """emit(event) gets each call's Syscall event; lines(text), when given, gets the text of a
    call's whole line instead (strace's line, ' = ' at column 40, '\\n'), when the event would only
    be printed as that line (StraceText.line_writer): a call of a compiled row with nothing
    to add to its line (no -P/-z gate, no injection mark, no -k stack)."""

    # on a terminal, (proc, name, entry text) at a traced call's entry, so its line starts before
    # the call writes (ttyorder.SyscallEntries: ltrace -S's order); None off a terminal
    enter_line = None

    # settings that add to a line or may drop it: configure() sets them and decides write_line
    _LINE_EXTRAS = frozenset({"gate", "marker", "backtracer", "lines"})

    def __init__(self, session, emit, string_limit: int = 32, fd_paths: bool = False,
                 selection: Optional[SyscallSelection] = None, lines: Optional[Callable[[str], None]] = None):
        # what it reads of the run: the clock and the kernel (the current process), not the session
        self.world = session.world
        self.kernel = session.kernel
        self.emit = emit
        self.sel = selection or SyscallSelection([])
        self.fmt = SyscallFormatter(string_limit=string_limit, fd_paths=fd_paths, fd_path=self._fd_path)
        self.fmt.pidfd_pid = self._fd_pidfd     # (pidfd_getfd's target: the descriptor of that process)
        self.gate = None            # sysgate.SyscallGate: -P paths, -z/-Z/status=
        self.marker = None          # inject.SyscallInjector.mark: " (INJECTED)" / " (DELAYED)"
        self.backtracer = None      # backtrace.Backtracer: -k, -kk
        self.lines = lines          # the sink's direct line writer, or None
        self.write_line = lines     # lines, or None while an extra above is set (configure)
        self.dumper = None          # iodump.IoDumper: -e read=/write= hex dumps
        self._mem = None            # the memory view of the last traced call's process (_view)
        self._mem_of = None         # (that process, weakly: the observer keeps no process alive)

    def configure(self, **extras) -> None:
        """Set what adds to a line or may drop it (gate, marker, backtracer) or writes it
        (lines), and decide again whether a call's line may be written directly."""
        for name, value in extras.items():
            if name not in self._LINE_EXTRAS:
                raise TypeError(f"SyscallObserver.configure: no setting {name!r}")
            setattr(self, name, value)
        plain = self.gate is None and self.marker is None and self.backtracer is None
        self.write_line = self.lines if plain else None

    def strace_options(self, tc) -> None:
        """strace's decoding options of the run (-x/-xx, -X, -e trace-fds=)."""
        self.fmt.hex_strings = tc.hex_strings
        self.fmt.xlat_style = tc.xlat_style
        self.fmt.verbose = bool(tc.verbose)
        if tc.raw:
            self.fmt.raw_calls = frozenset(tc.raw)
        if tc.decode_fds:
            self.fmt.fd_paths = True
            self.fmt.decode_fds = frozenset(tc.decode_fds)
            self.fmt.fd_dev = self._fd_dev
            self.fmt.fd_pidfd = self._fd_pidfd
            self.fmt.fd_signalfd = self._fd_signalfd
        if tc.read_fds is not None or tc.write_fds is not None:
            from emutrace.decode.strace.iodump import IoDumper     # deferred: only -e read=/write= dump data
            self.dumper = IoDumper(tc.read_fds, tc.write_fds)
            self.configure(lines=None)          # (every such call goes through its event)
        if tc.trace_fds is not None:
            from emutrace.sysgate import SyscallGate     # deferred: only -P, -z and trace-fds= gate calls
            gate = self.gate or SyscallGate(None, None)
            gate.fds = tc.trace_fds
            self.configure(gate=gate)

    def _fd_proc(self):
        """Whose descriptors -y shows: the calling process, or the one fmt.fd_owner names (a
        descriptor number of another process: pidfd_getfd's target)."""
        owner = self.fmt.fd_owner
        return self.kernel.current if owner is None else self.kernel.process(owner)

    def _fd_pidfd(self, fd: int):
        """The pid a pidfd open on fd refers to, else None (strace's <pid:N>)."""
        proc = self._fd_proc()
        f = proc.fds.fds.get(fd) if proc is not None else None
        target = getattr(f, "target", None) if getattr(f, "kind", None) == "pidfd" else None
        return target.pid if target is not None else None

    def _fd_signalfd(self, fd: int):
        """The mask of a signalfd open on fd (what /proc/PID/fdinfo shows), else None."""
        proc = self._fd_proc()
        f = proc.fds.fds.get(fd) if proc is not None else None
        return f.mask if getattr(f, "kind", None) == "signalfd" else None

    def _fd_dev(self, fd: int):
        """('char' or 'block', major, minor) of a device open on fd (strace -yy's <char 1:5>)."""
        proc = self._fd_proc()
        f = proc.fds.fds.get(fd) if proc is not None else None
        if f is None:
            return None
        try:
            st = f.stat()
        except Exception:                       # (a file that cannot say: no decoration)
            return None
        kind = {0o020000: "char", 0o060000: "block"}.get(st.mode & 0o170000)
        if kind is None:
            return None
        rdev = st.rdev
        major = ((rdev >> 8) & 0xfff) | ((rdev >> 32) & ~0xfff & 0xffffffff)
        minor = (rdev & 0xff) | ((rdev >> 12) & ~0xff & 0xffffffff)
        return kind, major, minor

    def _fd_path(self, fd: int):
        proc = self._fd_proc()
        if proc is None:
            return None
        if fd == -100:                          # AT_FDCWD</cwd> under -y
            path = proc.cwd
        else:
            f = proc.fds.fds.get(fd)
            path = _link_path(proc.kernel.vfs, f) if f is not None else None
        # strace reads the link /proc/PID/fd/N (or cwd) into PATH_MAX bytes: a longer path
        # (Linux's d_path fails with ENAMETOOLONG) gets no decoration
        return path if path is None or len(path.encode("utf-8", "surrogateescape")) < 4096 else None

    def started(self, proc):
        """strace's first line: the execve that started the program, decoded from the initial stack."""
        sc = BY_NAME.get("execve")
        if sc is None or not self.sel.wants("execve"):
            return
        m = proc.machine
        rsp = m.reg("rsp")
        mem = mem_view(proc)
        raw = mem.read(rsp, 8)
        if raw is None:
            return
        argc = int.from_bytes(raw, "little")
        argv = rsp + 8
        envp = argv + 8 * (argc + 1)
        p = envp
        while (w := mem.read(p, 8)) is not None and w != bytes(8):
            p += 8
        execfn = 0
        auxv = p + 8
        while (pair := mem.read(auxv, 16)) is not None:
            key, val = int.from_bytes(pair[:8], "little"), int.from_bytes(pair[8:], "little")
            if key == 31:                       # AT_EXECFN
                execfn = val
            if key == 0:
                break
            auxv += 16
        args = (execfn, argv, envp, 0, 0, 0)
        if self.gate is not None and not (self.gate.enter(proc, sc, args) and self.gate.shows(0)):
            return
        state = self.fmt.enter(sc, args, mem, tid=proc.thread.tid)
        stack = self.backtracer.frames(proc) if self.backtracer is not None else None
        self.emit(Syscall(proc.pid, proc.thread.tid, self.world.elapsed_ns, "execve", sc.nr,
                          self.fmt.exit(state, 0, mem), list(args), 0, None, 0, stack=stack))

    def syscall_enter(self, proc, nr, sc, args):
        """The call's trace state: (row, args, its CompiledRow or None, the entry text or (no
        CompiledRow) the formatter's _State, the values the row's finish reads, start time,
        memory view)."""
        if sc is None:
            sc = Row(nr, f"syscall_{nr:#x}", ("hex",) * 6)
        names = self.sel.names                  # (self.sel.wants, without its frame)
        if names is not None and sc.name not in names:
            return None
        if self.gate is not None and not self.gate.enter(proc, sc, args):
            return None
        mem = self._mem
        if mem is None or mem.aspace is not proc.aspace or self._mem_of() is not proc:
            mem = self._view(proc)
        fmt = self.fmt
        tid = proc.thread.tid
        got = fmt.compiled_rows.get(id(sc))
        if got is not None and got[0] is sc and got[1] is not None:     # (rt_sigreturn has its own decoder)
            row = got[1]
            entry, kept = row.begin(args, mem)          # (fmt.enter, without its frame and _State)
            fmt.last_name[tid] = sc.name
            if self.enter_line is not None:
                self.enter_line(proc, sc.name, entry)
            return (sc, args, row, entry, kept, self.world.elapsed_ns, mem)
        sp = proc.machine.reg("rsp") if sc.name == "rt_sigreturn" else None
        state = fmt.enter(sc, args, mem, tid=tid, sp=sp)
        if self.enter_line is not None:
            self.enter_line(proc, sc.name, state.a.entry)
        return (sc, args, None, state, None, self.world.elapsed_ns, mem)

    def _view(self, proc):
        """mem_view(proc), kept for the next call: most calls come from the process before."""
        mem = self._mem = mem_view(proc)
        self._mem_of = weakref.ref(proc)
        return mem

    def syscall_exit(self, proc, st, ret):
        if st is None:
            return
        sc, args, row, entry, kept, t0, mem = st
        if mem.aspace is not proc.aspace:
            mem = self._view(proc)
        if ret.__class__ is not int and ret is not None and not isinstance(ret, int):  # NORETURN (execve, rt_sigreturn)
            if row is not None:
                line = self.fmt.no_return(row.state(sc, args, entry, kept, proc.thread.tid))
            elif sc.name != "rt_sigreturn":
                line = self.fmt.no_return(entry)
            else:
                line = self.fmt.exit(entry, proc.machine.reg("rax"), mem)
            ret = None
        elif row is not None:
            write = self.write_line
            if write is not None and row.line is not None:
                line = row.line(entry, kept, ret, mem)      # (a plain number: the whole line)
                if line is not None:
                    write(line)
                    return
            head, text = row.finish(entry, kept, ret, mem)
            if write is not None and ") = " not in text:
                # (StraceText.event's line, without the event: its ' = ' at column 40)
                write(result_at(head, text, STRACE_COLUMN) + "\n")
                return
            line = head + " = " + text
        else:
            line = self.fmt.exit(entry, ret, mem)
        if self.marker is not None:
            line += self.marker(proc)
        if self.gate is not None and not self.gate.shows(ret):
            return
        err = E.NAME.get(-ret) if ret is not None and -4096 < ret < 0 else None
        now = self.world.elapsed_ns
        stack = self.backtracer.frames(proc) if self.backtracer is not None else None
        dump = self.dumper.dump(sc.name, args, ret, mem) if self.dumper is not None else None
        self.emit(Syscall(proc.pid, proc.thread.tid, now, sc.name, sc.nr, line, list(args), ret, err, now - t0,
                          stack=stack, dump=dump))

    def syscall_noreturn(self, proc, st):
        if st is None:
            return
        sc, args, row, entry, kept, t0, _mem = st
        if self.gate is not None and not self.gate.shows(None):
            return
        now = self.world.elapsed_ns
        stack = self.backtracer.frames(proc) if self.backtracer is not None else None
        state = row.state(sc, args, entry, kept, proc.thread.tid) if row is not None else entry
        self.emit(Syscall(proc.pid, proc.thread.tid, now, sc.name, sc.nr, self.fmt.no_return(state),
                          list(args), None, None, now - t0, stack=stack))

    def signal(self, proc, info):
        fields = {k: v for k, v in info.items() if not k.startswith("_")}
        stack = self.backtracer.frames(proc) if self.backtracer is not None else None
        self.emit(Signal(proc.pid, proc.thread.tid, self.world.elapsed_ns, info["si_signo"],
                         signal_name(info["si_signo"]), format_signal(fields), fields, stack=stack))

    def stopped(self, proc, sig):
        name = signal_name(sig)
        self.emit(Signal(proc.pid, proc.thread.tid, self.world.elapsed_ns, sig, name,
                         f"--- stopped by {name} ---", {}, type="stop"))

