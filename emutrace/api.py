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

This is the same machinery as the command line (emutrace.session.Session, the library-call
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
"""
from __future__ import annotations

import os
import queue
import struct
import threading
from collections import Counter
from typing import Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union
from weakref import WeakKeyDictionary

from emutrace.kernel import errno as _E
from emutrace.kernel.files import OpenFile, O_RDONLY, O_WRONLY
from emutrace.kernel.limits import BY_NAME as _BOUNDS
from emutrace.kernel.table import BY_NAME
from emutrace.kernel.vfs import S_IFIFO, StatInfo, VfsError

from .events import Call, Exit, Return, Signal, Syscall
from .filters import CallFilter, compile_pattern, FilterError
from .kernel.world import World
from .machine.cpu import REG
from .machine.memory import GuestFault, OutOfMemory, PAGE, PROT_READ, PROT_WRITE, page_up
from .machine.record import record
from .options import TraceConfig
from .output import JsonLines, LtraceText, open_stream, StraceText, Writer
from .session import EmutraceError, LimitReached, Options, Result
from .session import Session as CoreSession

__all__ = ["Session", "Result", "LibraryCall", "SystemCall", "GuestMemory", "EmutraceError",
           "ApiError", "ProgramNotFound", "CannotExecute", "LimitReached", "GuestMemoryError",
           "Call", "Return", "Syscall", "Signal", "Exit"]

PathLike = Union[str, "os.PathLike[str]"]
Value = Union[int, float, bool, str, bytes, None]


class ApiError(EmutraceError):
    """A bad argument to the API, or a method called at the wrong time."""

    def __init__(self, message: str):
        super().__init__(message, 125)


class ProgramNotFound(EmutraceError):
    """The program (or its interpreter, or a library it needs) does not exist in the root."""


class CannotExecute(EmutraceError):
    """The program exists but cannot run: not ELF, wrong machine, not executable, malformed."""


class GuestMemoryError(EmutraceError):
    """A hook read or wrote guest memory that is not mapped with the needed permission."""

    def __init__(self, addr: int, what: str = "access"):
        super().__init__(f"cannot {what} guest memory at {addr:#x}", 125)
        self.addr = addr


# ---------------------------------------------------------------- guest memory

# process → [its address space, next free byte, end] of the chunk alloc() carves from; the API's
# own, not an attribute on the kernel's Process (weak: freed with the process)
_ARENAS: "WeakKeyDictionary[object, list]" = WeakKeyDictionary()


class GuestMemory:
    """Reads and writes guest memory with the guest's own permissions, and allocates in it."""

    ARENA_NAME = "[emutrace-api]"

    def __init__(self, proc):
        self._proc = proc

    def read(self, addr: int, size: int) -> bytes:
        try:
            return self._proc.aspace.read(addr, size)
        except GuestFault as e:
            raise GuestMemoryError(e.addr, "read") from None

    def write(self, addr: int, data: bytes) -> None:
        try:
            self._proc.aspace.write(addr, bytes(data))
        except GuestFault as e:
            raise GuestMemoryError(e.addr, "write") from None

    def read_u64(self, addr: int) -> int:
        return struct.unpack("<Q", self.read(addr, 8))[0]

    def write_u64(self, addr: int, value: int) -> None:
        self.write(addr, struct.pack("<Q", value & 0xFFFFFFFFFFFFFFFF))

    def read_bytes_z(self, addr: int, limit: int = 1 << 20) -> bytes:
        """A NUL-terminated byte string (without the NUL), at most `limit` bytes."""
        try:
            return self._proc.aspace.read_cstr(addr, limit)
        except GuestFault as e:
            raise GuestMemoryError(e.addr, "read") from None

    def read_string(self, addr: int, limit: int = 1 << 20, encoding: str = "utf-8") -> Optional[str]:
        """A C string as text (undecodable bytes escaped), or None for a NULL pointer."""
        if not addr:
            return None
        return self.read_bytes_z(addr, limit).decode(encoding, "surrogateescape")

    def write_string(self, addr: int, text: Union[str, bytes], encoding: str = "utf-8") -> None:
        data = text.encode(encoding, "surrogateescape") if isinstance(text, str) else bytes(text)
        self.write(addr, data + b"\0")

    def alloc(self, data: Union[int, bytes]) -> int:
        """Guest memory that lives as long as the process: `data` bytes copied in, or an int size
        of zeroed bytes. 16-byte aligned, readable and writable, never freed (it is not malloc's)."""
        blob = bytes(data) if not isinstance(data, int) else b"\0" * data
        size = max(16, (len(blob) + 15) & ~15)
        proc = self._proc
        arena = _ARENAS.get(proc)
        if arena is None or arena[0] is not proc.aspace or arena[1] + size > arena[2]:
            chunk = max(16 * PAGE, page_up(size))
            try:
                start = proc.aspace.find_free(chunk)
                proc.aspace.map(start, chunk, PROT_READ | PROT_WRITE, self.ARENA_NAME)
            except OutOfMemory as e:
                raise EmutraceError(f"cannot allocate guest memory: {e}", 125) from None
            arena = _ARENAS[proc] = [proc.aspace, start, start + chunk]
        addr = arena[1]
        arena[1] += size
        if blob:
            self.write(addr, blob)
        return addr

    def alloc_string(self, text: Union[str, bytes], encoding: str = "utf-8") -> int:
        """A new NUL-terminated guest string; returns its address."""
        data = text.encode(encoding, "surrogateescape") if isinstance(text, str) else bytes(text)
        return self.alloc(data + b"\0")


def _to_u64(value: Value, memory: GuestMemory) -> int:
    """A Python value as a register: ints (two's complement), bools, None (NULL), strings and
    bytes (copied into new guest memory: the register gets the address)."""
    if value is None:
        return 0
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value & 0xFFFFFFFFFFFFFFFF
    if isinstance(value, (str, bytes, bytearray)):
        return memory.alloc_string(value)
    raise ApiError(f"cannot pass a {type(value).__name__} to the guest (use int, str, bytes or None)")


def _signed(v: int) -> int:
    return v - (1 << 64) if v & (1 << 63) else v


# ---------------------------------------------------------------- library calls

class LibraryCall:
    """One library call, as a hook sees it.

    At entry (on_call): `name`, `library` (the module that defines the function, e.g.
    'libc.so.6'), `caller` (the calling module), `return_address`, `args` (the arguments as the
    trace decodes them, e.g. ['"HOME"']), `arg(i)` / `float_arg(i)` / `string_arg(i)` (raw
    values by the SysV ABI), `reg(name)` / `set_reg(name, v)`, `set_arg(i, v)`, `memory`.
    `returns(v)` makes the function return v without running (or: return v from the hook).
    At return (on_return): `return_value` (rax, unsigned), `signed_return`, `float_return`,
    `string_return`; `set_return(v)` (or returning v from the hook) changes what the caller gets.
    """

    def __init__(self, proc, frame, regs, library: str):
        self._proc = proc
        self._frame = frame
        self._regs = regs
        self.name: str = frame.site.name
        self.library: str = library
        self.caller: str = frame.site.caller.name
        self.return_address: int = frame.ret_addr
        self.id: int = frame.id
        self.pid: int = proc.pid
        self.tid: int = proc.thread.tid
        self.depth: int = frame.depth
        self.args: List[str] = list(getattr(frame.state, "left_args", None) or [])
        self.memory = GuestMemory(proc)
        self.skipped = False              # True once the call was replaced by returns()
        self.returned = False             # True in on_return hooks
        self._ret: Value = None
        self._ret_set = False
        self._types = None                # the session's dwarf.calls.DebugTypes (named_args)
        self._named = None

    def __repr__(self) -> str:
        return f"<LibraryCall {self.name}({', '.join(self.args)}) from {self.caller} in {self.library or '?'}>"

    # -- arguments -------------------------------------------------------------
    def arg(self, i: int) -> int:
        """Integer/pointer argument i (0-based; 6 and up from the stack), unsigned 64-bit."""
        return self._regs.int_arg(i)

    def signed_arg(self, i: int) -> int:
        return _signed(self.arg(i))

    def float_arg(self, i: int) -> float:
        """Floating-point argument i (xmm0..xmm7), counted among floating-point arguments only."""
        return self._regs.float_arg(i)

    def string_arg(self, i: int, limit: int = 1 << 20) -> Optional[str]:
        """Argument i read as a C string (None for NULL)."""
        return self.memory.read_string(self.arg(i), limit)

    @property
    def named_args(self) -> Dict[str, object]:
        """The arguments by name, with the types of the defining module's debug information
        (DWARF in the file, or its debug file under the root by build-id or .gnu_debuglink:
        Debian's libc6-dbg): int, float and bool values as Python numbers, everything else
        (strings, enum names, structures `{x=1, y=2}`) as the trace's text; None for an argument
        the compiler optimized out. {} when the function has no debug information. Read at the
        call's entry (in on_call hooks)."""
        if self._named is None:
            self._named = {}
            types = self._types
            if types is not None:
                from .dwarf.calls import definition     # deferred: only named_args reads DWARF
                from .traceview import mem_view
                found = definition(self._proc.modules, self.name)
                sig = types.signature(found[0], found[1], self.name) if found else None
                if sig is not None:
                    cv = types.enter(sig, self._proc.machine, mem_view(self._proc), None)
                    if cv is not None:
                        self._named = cv.by_name()
        return self._named

    def set_arg(self, i: int, value: Value) -> None:
        """Change integer/pointer argument i (0..5) before the function runs."""
        if not 0 <= i < 6:
            raise ApiError("set_arg: only the six register arguments (0..5) can be changed")
        self._check_entry("set_arg")
        self.set_reg(("rdi", "rsi", "rdx", "rcx", "r8", "r9")[i], _to_u64(value, self.memory))

    def reg(self, name: str) -> int:
        if name not in REG:
            raise ApiError(f"unknown register {name!r}")
        return self._proc.machine.reg(name)

    def set_reg(self, name: str, value: int) -> None:
        if name not in REG or name == "rip":
            raise ApiError(f"cannot set register {name!r}")
        self._proc.machine.set_reg(name, value)

    # -- replacing the call --------------------------------------------------------
    def returns(self, value: Value = 0) -> None:
        """Skip the function: the caller gets `value` (int, bool, None → NULL, str/bytes → a new
        guest string, float → xmm0)."""
        self._check_entry("returns")
        self._ret, self._ret_set = value, True

    def _check_entry(self, what: str) -> None:
        if self.returned:
            raise ApiError(f"{what}() is only possible at the call's entry (use set_return in on_return)")

    def _apply(self) -> None:
        v = self._ret
        if isinstance(v, float):
            self._proc.machine.set_xmm(0, struct.pack("<d", v) + b"\0" * 8)
        else:
            self._proc.machine.set_reg("rax", _to_u64(v, self.memory))
        self.skipped = True

    # -- the return ------------------------------------------------------------
    @property
    def return_value(self) -> int:
        return self._proc.machine.reg("rax")

    @property
    def signed_return(self) -> int:
        return _signed(self.return_value)

    @property
    def float_return(self) -> float:
        return struct.unpack("<d", self._proc.machine.xmm(0)[:8])[0]

    @property
    def string_return(self) -> Optional[str]:
        return self.memory.read_string(self.return_value)

    def set_return(self, value: Value) -> None:
        """Change the value the caller receives (at return)."""
        if isinstance(value, float):
            self._proc.machine.set_xmm(0, struct.pack("<d", value) + b"\0" * 8)
        else:
            self._proc.machine.set_reg("rax", _to_u64(value, self.memory))


def _pattern(text: str):
    try:
        return compile_pattern(text)
    except FilterError as e:
        raise ApiError(str(e)) from None


def _split_pattern(pattern: str, library: Optional[str]):
    if not isinstance(pattern, str) or not pattern:
        raise ApiError("a hook needs a function name or pattern")
    sym, at, lib = pattern, "", ""
    if not (pattern.startswith("/") and pattern.endswith("/")):
        sym, at, lib = pattern.partition("@")
    if at and library is not None:
        raise ApiError("give the library either in the pattern (name@lib) or as library=, not both")
    lib = library if library is not None else (lib if at else None)
    return _pattern(sym or "*"), (_pattern(lib) if lib else None)


class _CallHooks:
    """The LibcallTracer's intercept: finds the hooks of each call site once, runs them."""

    def __init__(self, api: "Session"):
        self.api = api
        self.entry: List[Tuple[object, object, Callable]] = []
        self.ret: List[Tuple[object, object, Callable]] = []
        self._by_site: Dict[int, tuple] = {}
        self.tracer = None

    def names(self, symbol: str) -> bool:
        return any(sym(symbol) for sym, _, _ in self.entry + self.ret)

    def __bool__(self) -> bool:
        return bool(self.entry or self.ret)

    def _for(self, proc, site):
        got = self._by_site.get(id(site))
        if got is None:
            library = site.definer or (self.tracer._definer(proc, site.name) if self.tracer else "")
            pick = lambda hooks: [fn for sym, lib, fn in hooks
                                  if sym(site.name) and (lib is None or lib(library))]
            got = self._by_site[id(site)] = (site, pick(self.entry), pick(self.ret), library)
        return got

    def wants(self, proc, site) -> bool:
        """Does a hook name this site? (Those stay on the hooked path.)"""
        _, on_entry, on_return, _ = self._for(proc, site)
        return bool(on_entry or on_return)

    def enter(self, proc, frame, regs) -> bool:
        _, on_entry, on_return, library = self._for(proc, frame.site)
        if not on_entry and not on_return:
            return False
        call = LibraryCall(proc, frame, regs, library)
        call._types = self.api._debug_types()
        for fn in on_entry:
            r = fn(call)
            if r is not None and not call._ret_set:
                call.returns(r)
            if call._ret_set:
                break
        if call._ret_set:
            call._apply()
            self._run_return_hooks(call, on_return)
            return True
        if on_return:
            frame.api_call = call
        return False

    def leave(self, proc, frame, regs) -> None:
        call = frame.api_call
        if call is not None:
            self._run_return_hooks(call, self._for(proc, frame.site)[2])

    @staticmethod
    def _run_return_hooks(call: LibraryCall, hooks) -> None:
        call.returned = True
        for fn in hooks:
            r = fn(call)
            if r is not None:
                call.set_return(r)


class _CallFilter:
    """The user's ltrace-style filter, plus every function a hook names (in the program)."""

    def __init__(self, base, hooks: _CallHooks):
        self.base, self.hooks = base, hooks

    def traces_module(self, name: str, is_main: bool) -> bool:
        return bool(self.base and self.base.traces_module(name, is_main)) or (is_main and bool(self.hooks))

    def matches(self, symbol: str, caller: str, is_main: bool, definer: str) -> bool:
        if self.base is not None and self.base.matches(symbol, caller, is_main, definer):
            return True
        return is_main and self.hooks.names(symbol)


# ---------------------------------------------------------------- system calls

def _errno(value: Union[int, str]) -> int:
    if isinstance(value, str):
        by_name = {n: k for k, n in _E.NAME.items()}
        if value not in by_name:
            raise ApiError(f"unknown errno name {value!r}")
        return by_name[value]
    if isinstance(value, int) and 0 < value < 4096:
        return value
    raise ApiError(f"an errno is a positive number below 4096 or a name like 'EACCES', not {value!r}")


class SystemCall:
    """One system call, as a hook sees it.

    `name`, `nr`, `args` (six raw unsigned values), `arg(i)`, `signed_arg(i)`, `string_arg(i)`,
    `path` (the first path argument as the program gave it, or None), `pid`, `memory`.
    At entry (on_syscall): `deny(errno)` fails it (errno as a number or a name, 'EACCES'),
    `fake(v)` returns v; either way the kernel does not run it. Returning an int from the hook
    is the same as fake(). At return (on_syscall_return): `result` (negative: -errno), `errno`
    (its name or None); `fake(v)` / `deny(e)` / returning an int changes what the program gets.
    """

    def __init__(self, proc, nr: int, row, args: tuple):
        self._proc = proc
        self.nr = nr
        self.name: str = row.name if row is not None else f"syscall_{nr:#x}"
        self._kinds: Tuple[str, ...] = tuple(row.args) if row is not None else ()
        self.args: Tuple[int, ...] = tuple(args)
        self.pid: int = proc.pid
        self.tid: int = proc.thread.tid
        self.memory = GuestMemory(proc)
        self.result: Optional[int] = None
        self._set: Optional[int] = None

    def __repr__(self) -> str:
        return f"<SystemCall {self.name} args={[hex(a) for a in self.args[:len(self._kinds) or 6]]}>"

    def arg(self, i: int) -> int:
        return self.args[i]

    def signed_arg(self, i: int) -> int:
        return _signed(self.args[i])

    def string_arg(self, i: int, limit: int = 4096) -> Optional[str]:
        return self.memory.read_string(self.args[i], limit)

    @property
    def path(self) -> Optional[str]:
        for i, kind in enumerate(self._kinds):
            if kind.split(":")[0] == "path":
                try:
                    return self.string_arg(i)
                except GuestMemoryError:
                    return None
        return None

    @property
    def errno(self) -> Optional[str]:
        r = self.result
        return _E.NAME.get(-r) if r is not None and -4096 < r < 0 else None

    def deny(self, errno: Union[int, str] = "EPERM") -> None:
        self._set = -_errno(errno)

    def fake(self, value: int) -> None:
        if not isinstance(value, int):
            raise ApiError("a system call's result is an int")
        self._set = _signed(value & 0xFFFFFFFFFFFFFFFF)


class _SyscallHooks:
    """The Kernel's intercept: counts every syscall and runs the hooks registered for it."""

    def __init__(self):
        self.entry: List[Tuple[object, Callable]] = []
        self.ret: List[Tuple[object, Callable]] = []
        self.counts: Counter = Counter()
        self._by_name: Dict[str, tuple] = {}

    def _for(self, name: str):
        got = self._by_name.get(name)
        if got is None:
            got = self._by_name[name] = ([fn for p, fn in self.entry if p(name)],
                                         [fn for p, fn in self.ret if p(name)])
        return got

    @staticmethod
    def _run(sc: SystemCall, hooks) -> Optional[int]:
        for fn in hooks:
            r = fn(sc)
            if r is not None and sc._set is None:
                sc.fake(r)
            if sc._set is not None:
                return sc._set
        return None

    def enter(self, proc, nr, row, args):
        name = row.name if row is not None else f"syscall_{nr:#x}"
        self.counts[name] += 1
        on_entry, on_return = self._for(name)
        if not on_entry:
            return None
        return self._run(SystemCall(proc, nr, row, args), on_entry)

    def exit(self, proc, nr, row, args, ret):
        on_return = self._for(row.name if row is not None else f"syscall_{nr:#x}")[1]
        if not on_return or not isinstance(ret, int):
            return ret
        sc = SystemCall(proc, nr, row, args)
        sc.result = ret
        r = self._run(sc, on_return)
        return ret if r is None else r


# ---------------------------------------------------------------- captured standard streams

class _Capture(OpenFile):
    """The guest's stdout or stderr going to a buffer instead of the host's."""
    kind = "stream"
    seekable = False

    def __init__(self, path: str, buf: bytearray):
        super().__init__(path, O_WRONLY, None)
        self.buf = buf

    def write(self, data):
        if not self.writable:
            raise VfsError(_E.EBADF)
        self.buf += data
        return len(data)

    def pread(self, n, off):
        raise VfsError(_E.ESPIPE)

    def pwrite(self, data, off):
        raise VfsError(_E.ESPIPE)

    def seek(self, off, whence):
        raise VfsError(_E.ESPIPE)

    def stat(self):
        return StatInfo(mode=S_IFIFO | 0o600, ino=0xE0001, dev=0xC, blksize=4096)


class _Input(_Capture):
    """The guest's stdin read from bytes the caller gave."""

    def __init__(self, data: bytes):
        OpenFile.__init__(self, "pipe:[stdin]", O_RDONLY, None)
        self.data = bytes(data)
        self.off = 0

    def read(self, n):
        if not self.readable:
            raise VfsError(_E.EBADF)
        chunk = self.data[self.off:self.off + n]
        self.off += len(chunk)
        return chunk

    def write(self, data):
        raise VfsError(_E.EBADF)


class _Core(CoreSession):
    """emutrace.session.Session whose first process gets the API's standard streams."""

    def __init__(self, argv, world, options, program, streams):
        self._api_streams = streams
        super().__init__(argv, world=world, options=options, program=program)

    def _initial_process(self):
        proc = super()._initial_process()
        for fd, f in self._api_streams.items():
            proc.fds.install(f, at=fd)
        return proc


# ---------------------------------------------------------------- events

class _Cancelled(BaseException):
    """Ends a run whose events() generator was closed early."""


class _Sink:
    """Receives every trace event (as the CLI's formatters do): counts, callbacks, formatters."""

    def __init__(self, api: "Session"):
        self.api = api

    def event(self, ev) -> None:
        api = self.api
        api._n_events += 1
        if isinstance(ev, Call):
            api._call_counts[ev.name] += 1
        for fn in api._event_fns:
            fn(ev)

    def close(self) -> None:
        pass


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
    env           added to emutrace's fixed environment (PATH, HOME=/root, LANG=C, TERM=dumb);
                  a value of None removes the name; inherit_env=True starts from the host's
    seed, clock   randomness seed; start of the virtual clock (seconds since the epoch)
    uid, gid      the guest's ids (default 0, root of its sandbox)
    rw            host directories granted real writes: ["/tmp/out"] or [("/host/dir", "/guest/dir")]
    net           let sockets reach non-loopback hosts (default: ENETUNREACH; loopback is the guest's own)
    timeout       wall seconds before LimitReached (0: none); max_insns, max_mem, max_procs: limits
    max_disk      bytes the overlay may hold (default 1 GiB; ENOSPC past it); limits: {name: n} for
                  the other rows of syscalls.limits.BOUNDS ("files", "buffers", "threads", ...)
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
            from .dwarf.calls import DebugTypes     # deferred: only hooks asking named_args read DWARF
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
        """Attach the tracer (as tracer.build_observers does for the command line)."""
        from .tracer import Tracer     # deferred (to the next import): a session that traces nothing loads no tracer
        core = self.core
        tracer = Tracer(core, [_Sink(self)] + self._sinks)
        core.kernel.intercept = self._sys_hooks
        if self.trace_syscalls:
            from .systrace import SyscallObserver     # deferred: loaded only when system calls are traced
            tracer.syscalls = SyscallObserver(core, tracer.emit, self.string_limit)
            core.kernel.observer = tracer.syscalls
        if self.trace_calls or self._call_hooks:
            from .libcalls import LibcallTracer     # deferred (and below): a session that traces no calls loads no call tracer
            from .protos import load_prototypes
            from .tracer import _symbolize
            from .values import CallFormatter
            try:
                base = CallFilter(self._calls_expr) if self.trace_calls else None
            except FilterError as e:
                raise ApiError(str(e)) from None
            fmt = CallFormatter(string_limit=self.string_limit, demangle=self.demangle,
                                symbolize=lambda addr: _symbolize(core, addr))
            lt = LibcallTracer(core, tracer.emit, fmt, load_prototypes(), _CallFilter(base, self._call_hooks),
                               self.string_limit)
            lt.intercept = self._call_hooks
            # (sites the hooks name keep Python hooks; a jsonl trace shows each call's time and
            # position, which calls logged by guest code do not carry: docs/time.md)
            lt.log_in_guest = not self.hook_returns and not any(isinstance(k, JsonLines) for k in self._sinks)
            self._call_hooks.tracer = lt
            tracer.libcalls = lt
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
