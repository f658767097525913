"""emutrace's Python API: run a program inside the emulator, watch it, and steer its calls.

    import emutrace

    s = emutrace.Session(["./getenv_time"], env={"HOME": "/home/ci"}, capture_output=True)

    @s.on_call("getenv")
    def home(call):                           # runs at the call's entry, before getenv does
        if call.string_arg(0) == "HOME":
            return "/nowhere"                 # getenv does not run: it returns a new guest string

    s.on_call("time", lambda call: 1234)      # time() returns 1234 without running
    s.on_syscall("openat", lambda sc: sc.deny("EACCES") if sc.path == "/etc/passwd" else None)
    s.on_event(print)                         # every trace event, as it happens
    r = s.run()
    print(r.exit_code, r.stdout.decode(), r.calls["getenv"])

This is the same machinery as the command line (emutrace.session.Run, the library-call
tracer, the syscall observer, the formatters); the API adds:

- a friendly constructor: the program and its world in keyword arguments (`root` may be a host
  directory or a tar archive; `env` adds to emutrace's fixed environment, a value of None
  removes a name; `capture_output` sends the guest's fd 1 and 2 to buffers; `stdin` gives bytes);
- hooks: `on_call(pattern, fn)` / `on_return(pattern, fn)` on library calls, by name, glob
  (`str*`), /regex/ and library (`malloc@libc.so*`, or `library=`), and `on_syscall(name, fn)` /
  `on_syscall_return(name, fn)` on system calls. A hook gets a LibraryCall or SystemCall; what it
  returns (anything but None) becomes the result without running the real thing, as do
  `call.returns(v)`, `sc.deny(errno)` and `sc.fake(v)`;
- events: `on_event(fn)` calls fn with each event (emutrace.events: Call, Return, Syscall,
  Signal, Exit) while the program runs; `events()` is a generator that runs the program in a
  worker thread and yields the events as they happen (the hooks then run in that thread too);
- `write_trace(path, format)` writes the trace a CLI run would write (jsonl, text or strace);
- `run()` returns a Result: exit status or signal, captured output, counts of calls and syscalls.

Which calls can be hooked: those emutrace catches, i.e. calls that cross from a traced module to
another one. By default that is every call the program itself makes to a library (as ltrace
does; in a static program, its calls to known C-library functions); `calls="*@*"` (ltrace's -e
syntax) catches library-to-library calls too. A function you hook is always traced, so its calls
appear among the events.

Errors raise EmutraceError or a subclass: ApiError (a bad argument), ProgramNotFound (127),
CannotExecute (126), LimitReached (timeout, instruction limit, deadlock: 124/125), GuestMemoryError
(a hook read or wrote guest memory it may not). An exception raised by your own hook ends the
run and propagates out of run() unchanged.

The package: Session here; errors.py (the exceptions), memory.py (GuestMemory), calls.py
(LibraryCall and the call hooks), syscalls.py (SystemCall and the syscall hooks), core.py (the
captured streams and the Run under a Session).
"""
from __future__ import annotations

import os
import queue
import threading
from collections import Counter
from typing import Callable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from emutrace.kernel.limits import BY_NAME as _BOUNDS
from emutrace.kernel.table import BY_NAME

from emutrace.events import Call, Exit, Return, Signal, Syscall
from emutrace.filters import CallFilter, FilterError
from emutrace.kernel.world import World
from emutrace.options import TraceConfig
from emutrace.output import JsonLines, LtraceText, open_stream, StraceText, Writer
from emutrace.session import EmutraceError, LimitReached, Options, Result
from emutrace.api.calls import LibraryCall, _CallFilter, _CallHooks, _pattern, _split_pattern
from emutrace.api.core import _Cancelled, _Capture, _Core, _Input, _Sink
from emutrace.api.errors import ApiError, CannotExecute, GuestMemoryError, ProgramNotFound
from emutrace.api.memory import GuestMemory, Value
from emutrace.api.syscalls import SystemCall, _SyscallHooks

__all__ = ["Session", "Result", "LibraryCall", "SystemCall", "GuestMemory", "EmutraceError",
           "ApiError", "ProgramNotFound", "CannotExecute", "LimitReached", "GuestMemoryError",
           "Call", "Return", "Syscall", "Signal", "Exit"]

PathLike = Union[str, "os.PathLike[str]"]


# ---------------------------------------------------------------- the session

def _default_cwd(root: str) -> str:
    """As the command line: the host's cwd when the root is / or contains it, else /."""
    host_cwd = os.getcwd()
    if not os.path.isdir(root):
        return "/"
    r = os.path.abspath(root)
    if r == os.path.abspath(os.sep):
        return host_cwd.replace(os.sep, "/") if os.sep != "/" else host_cwd
    if host_cwd == r or host_cwd.startswith(r + os.sep):
        return "/" + os.path.relpath(host_cwd, r).replace(os.sep, "/").lstrip("./")
    return "/"


class Session:
    """One program run inside the emulator. Configure it, add hooks, then run() once.

    argv          the program and its arguments (a str is a program without arguments); a name
                  without a slash is looked up in the guest's PATH, inside the root
    root          the guest's file system: a host directory or a .tar/.tar.gz archive (default /);
                  read-only, writes go to a throw-away overlay
    cwd           the guest's working directory (default: the host's when inside the root, else /)
    env           added to emutrace's fixed environment (PATH, HOME=/root, TERM=dumb and LANG, the
                  root's UTF-8 locale: C.UTF-8 on Debian, else C);
                  a value of None removes the name; inherit_env=True starts from the host's
    seed, clock   randomness seed; start of the virtual clock (seconds since the epoch)
    uid, gid      the guest's ids (default 0, root of its sandbox)
    rw            host directories granted real writes: ["/tmp/out"] or [("/host/dir", "/guest/dir")]
    net           let sockets reach non-loopback hosts (default: ENETUNREACH; loopback is the guest's own)
    timeout       wall seconds before LimitReached (0: none); max_insns, max_mem, max_procs: limits
    max_disk      bytes the overlay may hold (default 1 GiB; ENOSPC past it); limits: {name: n} for
                  the other rows of emutrace.kernel.limits.BOUNDS ("files", "buffers", "threads", ...)
    loader        'auto', 'interp' (the program's ld.so) or 'builtin' (emutrace links)
    stdin         bytes for the guest's fd 0 (default None: the host's stdin)
    capture_output  the guest's fd 1 and 2 go to buffers: Result.stdout / Result.stderr
    trace_calls   report library calls as events (default True); `calls` narrows them with
                  ltrace's -e syntax ("malloc+free", "*@MAIN", "*@*")
    trace_syscalls  report system calls as events (default False; counts are always kept)
    string_limit, demangle   how arguments are decoded in events, as -s and -C
    hook_returns  catch every call and return with a Python hook (the CLI's --hook-returns);
                  by default calls without a hook of yours are logged in guest code
    """

    def __init__(self, argv: Union[str, Sequence[str]], *, root: PathLike = "/", cwd: Optional[str] = None,
                 env: Optional[Mapping[str, Optional[str]]] = None, inherit_env: bool = False,
                 seed: int = 0, clock: Optional[int] = None, uid: int = 0, gid: int = 0,
                 rw: Sequence[Union[PathLike, Tuple[PathLike, str]]] = (), net: bool = False,
                 timeout: float = 0.0, max_insns: int = 0, max_mem: Optional[int] = None,
                 max_procs: Optional[int] = None, max_disk: Optional[int] = None,
                 limits: Optional[Mapping[str, int]] = None,
                 loader: str = "auto", stdin: Optional[Union[bytes, str]] = None,
                 capture_output: bool = False, trace_calls: bool = True,
                 calls: Optional[Union[str, Sequence[str]]] = None, trace_syscalls: bool = False,
                 string_limit: int = 32, demangle: bool = False, program: Optional[str] = None,
                 hook_returns: bool = False):
        argv = [argv] if isinstance(argv, (str, os.PathLike)) else list(argv)
        if not argv or not all(isinstance(a, (str, os.PathLike)) for a in argv):
            raise ApiError("argv must be a program name or a non-empty list of strings")
        self.argv = [os.fspath(a) for a in argv]
        root = os.fspath(root)
        if not os.path.isdir(root):
            from emutrace.kernel.tarfs import is_tar_archive     # deferred: tarfile, gzip, lzma and bz2 load only for a tar root
            if not is_tar_archive(root):
                raise ApiError(f"root {root}: not a directory or a tar archive")
        if loader not in ("auto", "interp", "builtin"):
            raise ApiError("loader is 'auto', 'interp' or 'builtin'")
        world = World(seed=seed, uid=uid, gid=gid)
        if clock is not None:
            world.clock_start = int(clock)
        if inherit_env:
            world.env = dict(os.environ)
        world.auto_locale = not inherit_env and "LANG" not in (env or {})
        for k, v in (env or {}).items():
            if "=" in k or not k:
                raise ApiError(f"bad environment name {k!r}")
            if v is None:
                world.env.pop(k, None)
            else:
                world.env[k] = str(v)
        grants = []
        for g in rw:
            host, guest = (g if isinstance(g, tuple) else (g, None))
            host = os.fspath(host)
            if not os.path.isdir(host):
                raise ApiError(f"rw {host}: not a directory")
            grants.append((host, guest or os.path.abspath(host)))
        opts = Options(root=root, rw=tuple(grants), cwd=cwd or _default_cwd(root), loader=loader,
                       max_procs=max_procs, timeout=float(timeout), max_insns=int(max_insns), net=net)
        if max_mem is not None:
            opts.max_mem = int(max_mem)
        if max_disk is not None:
            opts.max_disk = int(max_disk)
        if limits:
            unknown = [k for k in limits if k not in _BOUNDS]
            if unknown:
                raise ApiError(f"limits: unknown bound {unknown[0]!r} (one of: {', '.join(_BOUNDS)})")
            opts.limits = tuple((k, int(v)) for k, v in limits.items())
        self._stdout = bytearray() if capture_output else None
        self._stderr = bytearray() if capture_output else None
        streams = {}
        if stdin is not None:
            streams[0] = _Input(stdin.encode() if isinstance(stdin, str) else bytes(stdin))
        if capture_output:
            streams[1] = _Capture("pipe:[stdout]", self._stdout)
            streams[2] = _Capture("pipe:[stderr]", self._stderr)
        try:
            self.core = _Core(self.argv, world, opts, program or self.argv[0], streams)
        except OSError as e:        # an unreadable or corrupt tar root
            raise EmutraceError(f"{e.filename + ': ' if e.filename else ''}{e.strerror or e}", 125) from None
        self.trace_calls = trace_calls
        self.hook_returns = hook_returns
        self.trace_syscalls = trace_syscalls
        self.string_limit = string_limit
        self.demangle = demangle
        self._calls_expr = [calls] if isinstance(calls, str) else list(calls or [])
        self._call_hooks = _CallHooks(self)
        self._sys_hooks = _SyscallHooks()
        self._event_fns: List[Callable] = []
        self._sinks: List = []
        self._call_counts: Counter = Counter()
        self._n_events = 0
        self._ran = False
        self.result: Optional[Result] = None

    def _debug_types(self):
        """One reader of debug information per session (LibraryCall.named_args), made at the
        first hooked call."""
        if getattr(self, "_dwarf", None) is None:
            from emutrace.dwarf.calls import DebugTypes     # deferred: only hooks asking named_args read DWARF
            self._dwarf = DebugTypes(self.core.opts.root, self.core.kernel.notify, self.string_limit)
        return self._dwarf

    # -- what the session is made of -------------------------------------------------
    @property
    def world(self) -> World:
        return self.core.world

    @property
    def vfs(self):
        return self.core.vfs

    @property
    def reads(self) -> List[str]:
        """Host files opened for reading so far (`ARCHIVE!/path` for a tar root)."""
        return list(self.core.vfs.reads)

    @property
    def stdout(self) -> Optional[bytes]:
        """What the guest wrote to fd 1 so far (capture_output=True), even after an error."""
        return bytes(self._stdout) if self._stdout is not None else None

    @property
    def stderr(self) -> Optional[bytes]:
        return bytes(self._stderr) if self._stderr is not None else None

    # -- hooks -----------------------------------------------------------------------
    def _before_run(self, what: str) -> None:
        if self._ran:
            raise ApiError(f"{what}: the session has already run")

    def on_call(self, pattern: str, fn: Optional[Callable[[LibraryCall], Value]] = None, *,
                library: Optional[str] = None):
        """Call fn(call) at the entry of each matching library call (see LibraryCall).

        pattern: a name ('getenv'), a glob ('str*'), a /regex/, optionally '@library' (a glob on
        the defining module's name: 'malloc@libc.so*'); or give library=. fn's return value, if
        not None, is returned to the caller and the function does not run. Usable as a decorator."""
        self._before_run("on_call")
        sym, lib = _split_pattern(pattern, library)

        def add(f):
            self._call_hooks.entry.append((sym, lib, f))
            return f
        return add(fn) if fn is not None else add

    def on_return(self, pattern: str, fn: Optional[Callable[[LibraryCall], Value]] = None, *,
                  library: Optional[str] = None):
        """Call fn(call) when a matching call returns (also after returns() replaced it); a value
        other than None replaces the return value."""
        self._before_run("on_return")
        sym, lib = _split_pattern(pattern, library)

        def add(f):
            self._call_hooks.ret.append((sym, lib, f))
            return f
        return add(fn) if fn is not None else add

    def _syscall_pred(self, name: str):
        if not isinstance(name, str) or not name:
            raise ApiError("a syscall hook needs a name or pattern")
        if not any(c in name for c in "*?[/") and name not in BY_NAME:
            raise ApiError(f"unknown system call {name!r}")
        return _pattern(name)

    def on_syscall(self, name: str, fn: Optional[Callable[[SystemCall], Optional[int]]] = None):
        """Call fn(sc) before each matching system call (a name, glob or /regex/); fn may
        deny or fake it (see SystemCall). Usable as a decorator."""
        self._before_run("on_syscall")
        pred = self._syscall_pred(name)

        def add(f):
            self._sys_hooks.entry.append((pred, f))
            return f
        return add(fn) if fn is not None else add

    def on_syscall_return(self, name: str, fn: Optional[Callable[[SystemCall], Optional[int]]] = None):
        """Call fn(sc) after each matching system call with sc.result set; fn may change it."""
        self._before_run("on_syscall_return")
        pred = self._syscall_pred(name)

        def add(f):
            self._sys_hooks.ret.append((pred, f))
            return f
        return add(fn) if fn is not None else add

    def on_event(self, fn: Callable[[object], None]) -> Callable:
        """Call fn(event) for every trace event while the program runs (emutrace.events types)."""
        self._before_run("on_event")
        self._event_fns.append(fn)
        return fn

    def write_trace(self, path: Optional[PathLike] = None, format: str = "jsonl") -> None:
        """Also write the trace as the command line would: format 'jsonl', 'text' (ltrace style,
        with syscalls interleaved when trace_syscalls) or 'strace'; path None means stderr."""
        self._before_run("write_trace")
        if format not in ("jsonl", "text", "strace"):
            raise ApiError("write_trace: format is 'jsonl', 'text' or 'strace'")
        tc = TraceConfig(output=os.fspath(path) if path is not None else None, syscalls=self.trace_syscalls,
                         strace=format == "strace", string_limit=self.string_limit, demangle=self.demangle,
                         format="jsonl" if format == "jsonl" else "text")
        try:
            writer = Writer(open_stream(tc.output), own=tc.output is not None)
        except OSError as e:
            raise ApiError(f"write_trace: {e.filename}: {e.strerror}") from None
        cls = {"jsonl": JsonLines, "text": LtraceText, "strace": StraceText}[format]
        sink = cls(writer, self.core.world, tc)
        if format == "jsonl":
            sink.position = self.core.position      # (as the command line's: docs/time.md)
        self._sinks.append(sink)

    # -- running -----------------------------------------------------------------------
    def _wire(self) -> None:
        """Attach the tracer (through the functions tracer.build_observers wires the command
        line's with)."""
        # deferred (to the next import): a session that traces nothing loads no tracer
        from emutrace.tracer import Tracer, call_formatter, trace_calls, trace_syscalls
        core = self.core
        tracer = Tracer(core.world, [_Sink(self)] + self._sinks)
        core.hooks.chain("intercept", self._sys_hooks)
        if self.trace_syscalls:
            trace_syscalls(core, tracer, self.string_limit)
        if self.trace_calls or self._call_hooks:
            from emutrace.protos import load_prototypes     # deferred: a session that traces no calls loads no prototypes
            try:
                base = CallFilter(self._calls_expr) if self.trace_calls else None
            except FilterError as e:
                raise ApiError(str(e)) from None
            # (sites the hooks name keep Python hooks; a jsonl trace shows each call's time and
            # position, which calls logged by guest code do not carry: docs/time.md)
            lt = trace_calls(core, tracer, call_formatter(core, self.string_limit, self.demangle), load_prototypes(),
                             _CallFilter(base, self._call_hooks), self.string_limit,
                             guest_log=not self.hook_returns and not any(isinstance(k, JsonLines) for k in self._sinks))
            core.hooks.chain("call_intercept", self._call_hooks)
            lt.dwarf = self._debug_types()     # functions no prototype names: their library's DWARF, as the CLI's
            self._call_hooks.tracer = lt
        core.add_observer(tracer)

    def run(self) -> Result:
        """Run the program to its end; returns its Result. Raises EmutraceError subclasses."""
        self._before_run("run")
        self._ran = True
        try:
            self._wire()
            try:
                self.core.start()
            except EmutraceError as e:
                if e.status == 127:
                    raise ProgramNotFound(str(e), 127) from None
                if e.status == 126:
                    raise CannotExecute(str(e), 126) from None
                raise
            core_result = self.core.run()
        except OSError as e:
            raise EmutraceError(f"{e.filename + ': ' if e.filename else ''}{e.strerror or e}", 125) from None
        finally:
            for s in self._sinks:
                s.close()
        self.result = Result(status=core_result.status, signal=core_result.signal, core=core_result.core,
                             stdout=self.stdout, stderr=self.stderr, calls=Counter(self._call_counts),
                             syscalls=Counter(self._sys_hooks.counts), events=self._n_events)
        return self.result

    def events(self, buffer: int = 1024) -> Iterator[object]:
        """Run the program and yield its trace events as they happen.

        The emulator runs in a worker thread (so hooks run there too) and waits while `buffer`
        events are unread. When the generator finishes, `self.result` holds the Result; an error
        of the run is raised here. Leaving the loop early stops the emulator (`self.result`
        stays None)."""
        self._before_run("events")
        q: "queue.Queue" = queue.Queue(maxsize=max(1, buffer))
        stop = threading.Event()
        done = object()

        def put(item):
            while True:
                if stop.is_set():
                    raise _Cancelled()
                try:
                    q.put(item, timeout=0.05)
                    return
                except queue.Full:
                    continue

        self._event_fns.append(put)

        def work():
            err = None
            try:
                self.run()
            except _Cancelled:
                return
            except BaseException as e:      # handed to the consumer
                err = e
            try:
                put((done, err))
            except _Cancelled:
                pass

        worker = threading.Thread(target=work, name="emutrace-run", daemon=True)
        worker.start()
        try:
            while True:
                item = q.get()
                if isinstance(item, tuple) and len(item) == 2 and item[0] is done:
                    if item[1] is not None:
                        raise item[1]
                    return
                yield item
        finally:
            stop.set()
            while worker.is_alive():        # a program making no events must stop too
                self._interrupt()
                worker.join(0.05)

    def _interrupt(self) -> None:
        """Stop the emulator between two instructions (from another thread): the run then ends
        at the event this causes, which the closed generator refuses."""
        proc = self.core.kernel.current
        machine = proc.machine if proc is not None else None
        if machine is not None:
            try:
                machine.uc.emu_stop()
            except Exception:
                pass
