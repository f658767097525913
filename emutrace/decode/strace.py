"""Format system calls the way strace 6.1 prints them (its default, abbreviated style).

    fmt = SyscallFormatter(string_limit=32, fd_paths=False, fd_path=None)
    state = fmt.enter(sc, args, mem)        # decodes what is known at entry (input strings, structs)
    line = fmt.exit(state, ret, mem)        # decodes outputs; 'read(3, "abc", 4096) = 3'
    fmt.unfinished(state)                   # 'read(3,  <unfinished ...>' (strace prints two spaces)
    fmt.resumed(state, ret, mem)            # '<... read resumed>"abc", 4096) = 3'
    fmt.no_return(state)                    # 'exit_group(0) = ?'

`sc` is a table.Syscall, `args` the six raw register values, `ret` the raw return value
(-errno on error). `mem.read(addr, size) -> bytes | None` and
`mem.cstring(addr, limit) -> (bytes, nul_found) | None` read guest memory.
enter() also takes tid= (restart_syscall names the thread's previous call) and sp= (the stack
pointer at rt_sigreturn: its {mask=[...]} is read from the signal frame).

Dates ('time(NULL) = 1700000000 (2023-11-14T22:13:20+0000)', utimensat comments) are printed in
UTC so a trace never depends on the host's time zone; localtime=True gives strace's host-local form.
With align=40 the " = " is padded to column 40 as strace does ('close(3)' + 32 spaces + '= 0');
pass col= to exit()/resumed()/no_return() when the line already has a prefix ('[pid 12] ').
With fd_paths (strace -y) descriptors print as 3</etc/passwd>, using fd_path(fd) -> str | None
(fd_path(-100) is asked for AT_FDCWD's directory).

Also: format_signal(siginfo) '--- SIGSEGV {...} ---', format_exited(status), format_killed(signo,
core), format_summary(rows) (strace -c's table), format_return(ret, kind), format_siginfo(dict),
format_sockaddr(bytes), format_wait_status(int), quote_string(bytes), fmt.struct(name, mem, addr).
Syscalls with their own decoders are in CUSTOM_DECODERS, struct decoders in STRUCT_DECODERS.
"""
from __future__ import annotations

import functools
import re
import struct
import time as _time
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ..kernel import errno as _errno
from ..kernel import table as _table
from . import xlat as _x
from ..machine.reader import GuestReader
from ..kernel.layouts import SIGINFO, STAT, STATX
from ..machine.words import s32 as _s32, s64 as _s64

__all__ = ["SyscallFormatter", "format_signal", "format_exited", "format_killed", "format_summary",
           "quote_string", "format_return", "format_siginfo", "format_sockaddr",
           "format_wait_status", "siginfo_from_bytes", "PATH_MAX", "NEVER_FAILS",
           "CUSTOM_DECODERS", "STRUCT_DECODERS"]

PATH_MAX = 4096
_ERESTART = {512: ("ERESTARTSYS", "To be restarted if SA_RESTART is set"),
             513: ("ERESTARTNOINTR", "To be restarted"),
             514: ("ERESTARTNOHAND", "To be restarted if no handler"),
             516: ("ERESTART_RESTARTBLOCK", "Interrupted by signal")}
_MASK64 = (1 << 64) - 1
# errno values strace knows that syscalls/errno.py does not list
_EXTRA_ERRNO = {133: ("EHWPOISON", "Memory page has hardware error")}
# syscalls whose return value is never an error (strace's NF flag): getpid() = -5 is a value
NEVER_FAILS = frozenset({"getpid", "getppid", "getuid", "getgid", "geteuid", "getegid", "getpgrp",
                         "umask", "setfsuid", "setfsgid", "gettid"})


# ---------------------------------------------------------------------------------------------
# small helpers

def _hex(v: int) -> str:
    v &= _MASK64
    return "0" if v == 0 else "%#x" % v


def _ptr(v: int) -> str:
    v &= _MASK64
    return "NULL" if v == 0 else "%#x" % v


def _is_error(ret: int) -> bool:
    return -4095 <= ret < 0


def _clock_t(v: int) -> str:
    """clock_t ticks with strace's seconds comment (USER_HZ = 100)."""
    if v == 0:
        return "0"
    return f"{v} /* {v // 100}.{v % 100:02d} s */"


def _fmt_time(sec: int, nsec: Optional[int] = None, digits: int = 9, local: bool = False) -> str:
    """2023-11-14T22:13:20+0000, as strace's sprinttime. strace uses the tracer's local time;
    emutrace prints UTC unless asked (local=True), so traces do not depend on the host."""
    try:
        tm = _time.localtime(sec) if local else _time.gmtime(sec)
    except (OverflowError, OSError, ValueError):
        return ""
    text = _time.strftime("%Y-%m-%dT%H:%M:%S", tm)
    if nsec is not None:
        text += "." + ("%09d" % nsec)[:digits]
    return text + (_time.strftime("%z", tm) if local else "+0000")


_ESCAPES = {ord('"'): '\\"', ord("\\"): "\\\\", ord("\f"): "\\f", ord("\n"): "\\n",
            ord("\r"): "\\r", ord("\t"): "\\t", ord("\v"): "\\v"}


@functools.lru_cache(maxsize=None)
def _quote_tables(extra_escape: str):
    """(each byte's text, the pattern of bytes printed in octal that an octal digit follows) for
    quote_string: printable ASCII as is, the C escapes, every other byte (and those of
    extra_escape) in octal."""
    extra = {ord(c) for c in extra_escape}
    octal = [c for c in range(256) if c in extra or (c not in _ESCAPES and not 0x20 <= c < 0x7f)]
    table = [_ESCAPES.get(c) or chr(c) for c in range(256)]
    for c in octal:
        table[c] = "\\%o" % c
    before_digit = re.compile(b"[" + b"".join(b"\\x%02x" % c for c in octal) + b"](?=[0-7])")
    return table, before_digit


_SHORT_MAX = 8                  # byte strings this short are quoted once and remembered ...
_SHORT_QUOTED: Dict[bytes, str] = {}
_SHORT_QUOTED_MAX = 4096        # ... up to this many of them


def quote_string(data: bytes, force_hex: bool = False, quotes: bool = True,
                 extra_escape: str = "") -> str:
    """strace's string_quote: printable ASCII as is, \\n \\t \\r \\v \\f \\" \\\\ escaped, other bytes as
    the shortest octal escape (\\0, \\33, \\177) unless an octal digit follows (then 3 digits).
    force_hex prints every byte as \\xNN (getrandom). extra_escape: characters printed in octal
    too (strace -y escapes < and > in paths)."""
    if data.__class__ is bytes and len(data) <= _SHORT_MAX and quotes and not force_hex and not extra_escape:
        # read(2)'s and write(2)'s few bytes, the same ones again and again: quoted once
        got = _SHORT_QUOTED.get(data)
        if got is None:
            got = _quote(data, False, True, "")
            if len(_SHORT_QUOTED) < _SHORT_QUOTED_MAX:
                _SHORT_QUOTED[bytes(data)] = got
        return got
    return _quote(data, force_hex, quotes, extra_escape)


def _quote(data: bytes, force_hex: bool, quotes: bool, extra_escape: str) -> str:
    if force_hex:
        text = "".join(["\\x%02x" % c for c in data])
    else:
        if not extra_escape and data.isascii():
            text = data.decode("ascii")
            if text.isprintable() and '"' not in text and "\\" not in text:
                return f'"{text}"' if quotes else text     # (most strings: nothing to escape)
        table, octal_before_digit = _quote_tables(extra_escape)
        out = [table[c] for c in data]
        for m in octal_before_digit.finditer(data):
            out[m.start()] = "\\%03o" % data[m.start()]
        text = "".join(out)
    return f'"{text}"' if quotes else text


def _rlim(v: int) -> str:
    if v == _MASK64:
        return "RLIM64_INFINITY"
    if v > 1024 and v % 1024 == 0:
        return f"{v // 1024}*1024"
    return str(v)


def _inet_ntop6(b: bytes) -> str:
    """glibc's inet_ntop(AF_INET6): longest zero run as ::, dotted quad for v4-mapped/compat."""
    words = struct.unpack(">8H", b)
    best_base, best_len, cur_base, cur_len = -1, 0, -1, 0
    for i, w in enumerate(words):
        if w == 0:
            if cur_base < 0:
                cur_base, cur_len = i, 1
            else:
                cur_len += 1
        else:
            if cur_base >= 0 and (best_base < 0 or cur_len > best_len):
                best_base, best_len = cur_base, cur_len
            cur_base = -1
    if cur_base >= 0 and (best_base < 0 or cur_len > best_len):
        best_base, best_len = cur_base, cur_len
    if best_base >= 0 and best_len < 2:
        best_base = -1
    out = ""
    i = 0
    while i < 8:
        if best_base >= 0 and best_base <= i < best_base + best_len:
            if i == best_base:
                out += ":"
            i += 1
            continue
        if i:
            out += ":"
        if i == 6 and best_base == 0 and (best_len == 6 or (best_len == 5 and words[5] == 0xffff)):
            out += ".".join(str(x) for x in b[12:16])
            break
        out += "%x" % words[i]
        i += 1
    if best_base >= 0 and best_base + best_len == 8:
        out += ":"
    return out


# ---------------------------------------------------------------------------------------------
# the argument list being built for one call

class _Args:
    """Arguments printed at entry, then the ones printed at exit.

    now(text): known at entry. later(fn): printed at exit, fn(ret, mem) -> text; every argument
    after it is printed at exit too (strace's order: such a text is kept as is, not as a
    function). split(text, fn): text at entry, fn's text
    right after it at exit ('[10] => [10]'). tail(fn): text appended at exit without a separator
    (clone's ', parent_tid=...')."""

    __slots__ = ("entry", "n", "items", "deferring")

    def __init__(self):
        self.entry = ""
        self.n = 0
        self.items: List[Tuple[str, Callable]] = []
        self.deferring = False

    def now(self, text: str):
        if self.deferring:
            self.items.append((", ", text))
        else:
            self.entry += (", " if self.n else "") + text
        self.n += 1

    def later(self, fn: Callable):
        if self.deferring:
            self.items.append((", ", fn))
        else:
            if self.n:
                self.entry += ", "
            self.items.append(("", fn))
            self.deferring = True
        self.n += 1

    def split(self, text: str, fn: Callable):
        if self.deferring:
            self.items.append((", ", lambda ret, mem, t=text: t + fn(ret, mem)))
        else:
            self.entry += (", " if self.n else "") + text
            self.items.append(("", fn))
            self.deferring = True
        self.n += 1

    def tail(self, fn: Callable):
        self.items.append(("", fn))
        self.deferring = True

    def exit_text(self, ret: int, mem) -> str:
        return "".join(sep + (fn if fn.__class__ is str else fn(ret, mem)) for sep, fn in self.items)


_parse_kind = functools.lru_cache(maxsize=None)(_table.parse_kind)   # a few hundred distinct kinds


def _plan_of(kinds) -> list:
    """(how, decoder, parameter, argument index, base kind) per decoded argument of a row's
    kinds, `how` saying which table the decoder is from: parsed once per distinct argument list,
    not at every call."""
    plan = []
    for i, kind in enumerate(kinds):
        base, param = _parse_kind(kind)
        if base == "skip":
            continue
        if base in _BY_HAND:
            plan.append((_HAND, _BY_HAND[base], param, i, base))
        elif base in _AT_EXIT:
            plan.append((_EXIT, _AT_EXIT[base], param, i, base))
        else:
            plan.append((_ENTRY, _AT_ENTRY.get(base, _DEFAULT), param, i, base))
    return plan


_PLANS: Dict[tuple, list] = {}


class _State:
    """What enter() learned; pass it back to exit()/unfinished()/resumed()/no_return()."""

    __slots__ = ("sc", "name", "args", "a", "ret_kind", "aux", "tid", "saved")

    def __init__(self, sc, args, tid):
        self.sc = sc
        self.name = sc.name
        try:
            a, b, c, d, e, f = args             # (the syscall hook's six register words)
            self.args = (a & _MASK64, b & _MASK64, c & _MASK64, d & _MASK64, e & _MASK64, f & _MASK64)
        except (TypeError, ValueError):
            self.args = tuple([int(x) & _MASK64 for x in args[:6]] + [0] * (6 - len(args[:6])))
        self.a = _Args()
        self.ret_kind = sc.ret
        self.aux: Optional[Callable] = None      # fn(ret, mem) -> str | None, printed ' (...)'
        self.tid = tid
        self.saved: Dict[str, object] = {}


# ---------------------------------------------------------------------------------------------

class SyscallFormatter:
    def __init__(self, string_limit: int = 32, fd_paths: bool = False,
                 fd_path: Optional[Callable[[int], Optional[str]]] = None, align: int = 0,
                 localtime: bool = False):
        self.string_limit = string_limit
        self.fd_paths = fd_paths
        self.fd_path = fd_path
        self.align = align
        self.localtime = localtime
        self._last_name: Dict[object, str] = {}

    # ------------------------------------------------------------------ public API
    def enter(self, sc, args: Sequence[int], mem: GuestReader, tid=None, sp: Optional[int] = None) -> _State:
        """Decode the arguments known at entry. tid keys restart_syscall's 'interrupted' name;
        sp (the stack pointer) lets rt_sigreturn print the mask of the signal frame."""
        st = _State(sc, args, tid)
        if sp is not None:
            st.saved["sp"] = sp
        if sc.name in NEVER_FAILS:
            st.saved["never_fails"] = True
        custom = _CUSTOM.get(sc.name)
        if custom is not None:
            custom(self, st, mem)
        else:
            self._generic(st, mem, sc.args)
        self._last_name[tid] = sc.name
        return st

    def exit(self, state: _State, ret: int, mem: GuestReader, col: int = 0) -> str:
        ret = _s64(ret)
        a = state.a
        items = a.items
        if not items:
            head = f"{state.name}({a.entry})"
        elif len(items) == 1 and items[0][1].__class__ is not str:
            sep, fn = items[0]
            head = f"{state.name}({a.entry}{sep}{fn(ret, mem)})"
        else:
            head = f"{state.name}({a.entry}{a.exit_text(ret, mem)})"
        return self._finish(head, self._ret_text(state, ret, mem), col)

    def unfinished(self, state: _State) -> str:
        return f"{state.name}({state.a.entry} <unfinished ...>"

    def resumed(self, state: _State, ret: int, mem, col: int = 0) -> str:
        ret = _s64(ret)
        head = f"<... {state.name} resumed>{state.a.exit_text(ret, mem)})"
        return self._finish(head, self._ret_text(state, ret, mem), col)

    def no_return(self, state: _State, col: int = 0, resumed: bool = False) -> str:
        """'exit_group(0) = ?' (or '<... exit_group resumed>) = ?' with resumed=True)."""
        if resumed:
            head = f"<... {state.name} resumed>)"
        else:
            head = f"{state.name}({state.a.entry}{state.a.exit_text(0, _NoMem())})"
        return self._finish(head, "?", col)

    def format(self, sc, args, ret, mem_entry, mem_exit=None, **kw) -> str:
        """enter() + exit() in one go (for tests and single-threaded tracing)."""
        st = self.enter(sc, args, mem_entry, **kw)
        return self.exit(st, ret, mem_exit if mem_exit is not None else mem_entry)

    # ------------------------------------------------------------------ line assembly
    def _finish(self, head: str, ret_text: str, col: int) -> str:
        if self.align:
            width = col + len(head) + 1
            pad = " " * max(1, self.align - width + 1) if width < self.align else " "
            return f"{head}{pad}= {ret_text}"
        return f"{head} = {ret_text}"

    def _ret_text(self, st: _State, ret: int, mem) -> str:
        if st.ret_kind == "void":
            return "?"
        never_fails = bool(st.saved.get("never_fails"))
        if _is_error(ret) and not never_fails:
            return format_return(ret, "int")
        text = format_return(ret, st.ret_kind, self, never_fails)
        if st.aux is not None:
            aux = st.aux(ret, mem)
            if aux:
                text += f" ({aux})"
        return text

    # ------------------------------------------------------------------ primitives
    def fd(self, v: int) -> str:
        fd = _s32(v)
        if self.fd_paths and self.fd_path is not None and fd >= 0:
            path = self.fd_path(fd)
            if path:
                return f"{fd}<{quote_string(path.encode() if isinstance(path, str) else path, quotes=False, extra_escape='<>')}>"
        return str(fd)

    def dirfd(self, v: int) -> str:
        fd = _s32(v)
        if fd == -100:
            if self.fd_paths and self.fd_path is not None:
                path = self.fd_path(-100)
                if path:
                    return f"AT_FDCWD<{quote_string(path.encode() if isinstance(path, str) else path, quotes=False, extra_escape='<>')}>"
            return "AT_FDCWD"
        return self.fd(fd)

    def buf(self, mem, addr: int, length: int, force_hex: bool = False) -> str:
        """printstrn: length bytes at addr, cut at the string limit with '...' after the quote."""
        if addr == 0:
            return "NULL"
        length = max(0, length)
        n = min(length, self.string_limit)
        data = _read(mem, addr, n) if n else b""
        if data is None:
            return _hex(addr)
        text = quote_string(data, force_hex=force_hex)
        return text + "..." if length > n else text

    def cstr(self, mem, addr: int, limit: Optional[int] = None) -> str:
        """printstr: a NUL-terminated string, cut at the string limit with '...'."""
        if addr == 0:
            return "NULL"
        limit = self.string_limit if limit is None else limit
        got = _cstring(mem, addr, limit + 1)
        if got is None:
            return _hex(addr)
        data, found = got
        if len(data) > limit:
            return quote_string(data[:limit]) + "..."
        return quote_string(data) + ("" if found else "...")

    def path(self, mem, addr: int) -> str:
        return self.cstr(mem, addr, PATH_MAX)

    def array(self, items, total: int) -> str:
        """[a, b, ...] with at most string_limit elements, as strace limits arrays."""
        return "[" + ", ".join(items) + (", ..." if total > len(items) and items else
                                         ("..." if total > len(items) else "")) + "]"

    # ------------------------------------------------------------------ generic decoding
    def _generic(self, st: _State, mem, kinds: Sequence[str]):
        plan = _PLANS.get(kinds)
        if plan is None:
            plan = _PLANS[kinds] = _plan_of(kinds)
        args = st.args
        a = st.a
        for how, decode, param, i, base in plan:
            v = args[i]
            n = args[param] if param.__class__ is int else None
            if how == _ENTRY:
                a.now(decode(self, st, mem, v, param, n))
            elif how == _EXIT:
                a.later(lambda ret, m, decode=decode, v=v, param=param, n=n, base=base:
                        _ptr(v) if _is_error(ret) else decode(self, m, v, param, n, base, ret))
            else:
                decode(self, st, mem, v, param, i, base)

    # ------------------------------------------------------------------ value decoders
    def _path_out(self, mem, addr, ret):
        if _is_error(ret) or ret <= 0:
            return _ptr(addr)
        n = min(ret - 1, PATH_MAX)
        data = _read(mem, addr, n)
        return _ptr(addr) if data is None else quote_string(data)

    def sigset(self, mem, addr: int, size: int) -> str:
        if addr == 0:
            return "NULL"
        if size != 8:
            return _hex(addr)
        data = _read(mem, addr, 8)
        if data is None:
            return _hex(addr)
        return _x.format_sigset(int.from_bytes(data, "little"), 8)

    def scalar_ptr(self, mem, addr: int, kind: str) -> str:
        if addr == 0:
            return "NULL"
        if kind in ("int_out", "uint_out", "uid_out"):
            data = _read(mem, addr, 4)
            if data is None:
                return _hex(addr)
            v = int.from_bytes(data, "little")
            return f"[{_s32(v) if kind == 'int_out' else v}]"
        data = _read(mem, addr, 8)
        if data is None:
            return _hex(addr)
        v = int.from_bytes(data, "little")
        if kind == "ptr_out":
            return f"[{_ptr(v)}]"
        return f"[{_s64(v) if kind == 'long_out' else v}]"

    def _fdpair(self, mem, addr):
        data = _read(mem, addr, 8)
        if data is None:
            return _hex(addr)
        a, b = struct.unpack("<ii", data)
        return f"[{self.fd(a)}, {self.fd(b)}]"

    def _socklen(self, mem, addr, inlen, ret):
        if addr == 0:
            return "NULL"
        if inlen is None:
            return _hex(addr)
        if _is_error(ret):
            return f"[{inlen}]"
        out = _u32(mem, addr)
        if out is None or out == inlen:
            return f"[{inlen}]"
        return f"[{inlen} => {out}]"

    def _addr_out(self, mem, addr, lenptr, ret):
        if addr == 0:
            return "NULL"
        if _is_error(ret) or lenptr == 0:
            return _hex(addr)
        n = _u32(mem, lenptr)
        if n is None:
            return _hex(addr)
        return self.sockaddr(mem, addr, n)

    def _wstatus(self, mem, addr, ret):
        if addr == 0:
            return "NULL"
        if _is_error(ret) or ret == 0:
            return _hex(addr)
        v = _u32(mem, addr)
        if v is None:
            return _hex(addr)
        return f"[{format_wait_status(v)}]"

    def fdset(self, mem, addr: int, nfds: int) -> str:
        if addr == 0:
            return "NULL"
        if nfds <= 0:
            return _hex(addr)
        nfds = min(nfds, 1024 * 8)
        nbytes = ((nfds + 63) // 64) * 8
        data = _read(mem, addr, nbytes)
        if data is None:
            return _hex(addr)
        bits = int.from_bytes(data, "little")
        fds = [str(i) for i in range(nfds) if bits >> i & 1]
        return "[" + " ".join(fds) + "]"

    def iovec(self, mem, addr: int, count: int, data_size: int, contents: bool = True) -> str:
        """[{iov_base="...", iov_len=N}, ...]; data_size: bytes really transferred (-1: all);
        contents=False prints the bases as addresses (another process's iovec)."""
        if addr == 0:
            return "NULL"
        count &= _MASK64
        if count > 1 << 20:
            return _hex(addr)
        shown = min(count, self.string_limit)
        raw = _read(mem, addr, 16 * shown) if shown else b""
        if raw is None:
            return _hex(addr)
        items = []
        for k in range(shown):
            base, ln = struct.unpack_from("<QQ", raw, 16 * k)
            if data_size < 0:
                n = ln
            else:
                n = min(ln, data_size)
                data_size -= n
            text = self.buf(mem, base, n) if contents else _ptr(base)
            items.append(f"{{iov_base={text}, iov_len={ln}}}")
        return self.array(items, count)

    def argv(self, mem, addr: int) -> str:
        if addr == 0:
            return "NULL"
        items = []
        k = 0
        while True:
            p = _u64(mem, addr + 8 * k)
            if p is None:
                if k == 0:
                    return _hex(addr)
                items.append(_hex(addr + 8 * k))
                break
            if p == 0:
                break
            if k >= self.string_limit:
                return "[" + ", ".join(items) + ", ...]"
            items.append(self.cstr(mem, p))
            k += 1
        return "[" + ", ".join(items) + "]"

    def envp(self, mem, addr: int) -> str:
        if addr == 0:
            return "NULL"
        n = 0
        while True:
            p = _u64(mem, addr + 8 * n)
            if p is None:
                if n == 0:
                    return _hex(addr)
                break
            if p == 0:
                break
            n += 1
            if n > 1 << 16:
                break
        return f"{_hex(addr)} /* {n} var{'s' if n != 1 else ''} */"

    def dirents(self, mem, addr: int, size: int, kind: str) -> str:
        n = 0
        off = 0
        data = _read(mem, addr, size) if size > 0 else b""
        if data is None:
            return _hex(addr)
        while off + 18 <= len(data):
            reclen = struct.unpack_from("<H", data, off + 16)[0]
            if reclen == 0:
                break
            n += 1
            off += reclen
        return f"{_hex(addr)} /* {n} entries */"

    def gids(self, mem, addr: int, n: int) -> str:
        if addr == 0:
            return "NULL"
        if n <= 0:
            return "[]" if n == 0 else _hex(addr)
        shown = min(n, self.string_limit)
        data = _read(mem, addr, 4 * shown)
        if data is None:
            return _hex(addr)
        items = [str(g) for g in struct.unpack("<%dI" % shown, data)]
        return self.array(items, n)

    def cpuset(self, mem, addr: int, size: int) -> str:
        if addr == 0:
            return "NULL"
        size = min(size & 0xffffffff, 4096)
        data = _read(mem, addr, size)
        if data is None:
            return _hex(addr)
        bits = int.from_bytes(data, "little")
        cpus = [str(i) for i in range(size * 8) if bits >> i & 1]
        return "[" + " ".join(cpus) + "]"

    def epoll_events(self, mem, addr: int, n: int) -> str:
        if n <= 0:
            return "[]"
        shown = min(n, self.string_limit)
        data = _read(mem, addr, 12 * shown)
        if data is None:
            return _hex(addr)
        items = [_epoll_event(data[12 * k:12 * k + 12]) for k in range(shown)]
        return self.array(items, n)

    def sembuf(self, mem, addr: int, n: int) -> str:
        if addr == 0:
            return "NULL"
        shown = min(n, self.string_limit)
        data = _read(mem, addr, 6 * shown)
        if data is None:
            return _hex(addr)
        items = []
        for k in range(shown):
            num, op, flg = struct.unpack_from("<Hhh", data, 6 * k)
            items.append(f"{{sem_num={num}, sem_op={op}, sem_flg={_x.format_flags('semop_flags', flg & 0xffff)}}}")
        return self.array(items, n)

    def msgbuf(self, mem, addr: int, n: int) -> str:
        if addr == 0:
            return "NULL"
        mtype = _u64(mem, addr)
        if mtype is None:
            return _hex(addr)
        return f"{{mtype={_s64(mtype)}, mtext={self.buf(mem, addr + 8, n)}}}"

    def sockaddr(self, mem, addr: int, addrlen: int) -> str:
        if addr == 0:
            return "NULL"
        if addrlen < 2:
            return _hex(addr)
        n = min(addrlen, 128)
        data = _read(mem, addr, n)
        if data is None:
            return _hex(addr)
        return format_sockaddr(data, self)

    # ------------------------------------------------------------------ poll / select
    def _poll_arg(self, st: _State, mem, addr: int, nfds: int):
        st.a.now(self.pollfds(mem, addr, nfds, entry=True))
        timeout_ptr = st.args[2] if st.name == "ppoll" else None

        def aux(ret, m):
            if ret == 0:
                return "Timeout"
            text = self.pollfds(m, addr, nfds, entry=False)
            if timeout_ptr:
                text += ", left " + self.struct("timespec", m, timeout_ptr)
            return text
        st.aux = aux

    def pollfds(self, mem, addr: int, nfds: int, entry: bool) -> str:
        if addr == 0:
            return "NULL"
        nfds &= 0xffffffff
        shown = min(nfds, self.string_limit) if entry else min(nfds, 1 << 16)
        data = _read(mem, addr, 8 * shown) if shown else b""
        if data is None:
            return _hex(addr)
        items = []
        for k in range(shown):
            fd, events, revents = struct.unpack_from("<ihh", data, 8 * k)
            if entry:
                if fd < 0:
                    items.append(f"{{fd={fd}}}")
                else:
                    items.append(f"{{fd={self.fd(fd)}, events={_x.format_flags('pollflags', events & 0xffff)}}}")
            elif revents:
                rev = _x.SETS["pollflags"]._plain_flags(revents & 0xffff, None)
                items.append(f"{{fd={self.fd(fd)}, revents={rev}}}")
                if len(items) >= self.string_limit:
                    break
        if entry:
            return self.array(items, nfds)
        return "[" + ", ".join(items) + "]"

    # ------------------------------------------------------------------ structs
    def struct(self, name: str, mem, addr: int, **kw) -> str:
        """A struct decoded by name ('stat', 'timespec', ...); NULL for 0; the address in hex when
        unreadable or when no decoder exists."""
        if addr == 0:
            return "NULL"
        dec = _STRUCTS.get(name)
        if dec is None:
            return _hex(addr)
        size = _STRUCT_SIZES[name]
        data = _read(mem, addr, size)
        if data is None:
            return _hex(addr)
        return dec(self, data, mem, **kw)


# ---------------------------------------------------------------------------------------------
# memory access helpers

class _NoMem:
    """A GuestReader with nothing readable."""

    def read(self, addr, size):
        return None

    def cstring(self, addr, limit):
        return None


def _read(mem, addr: int, size: int) -> Optional[bytes]:
    if addr == 0 and size:
        return None
    if size == 0:
        return b""
    try:
        data = mem.read(addr & _MASK64, size)
    except Exception:
        return None
    if data is None or len(data) < size:
        return None
    return bytes(data[:size])


def _cstring(mem, addr: int, limit: int):
    try:
        got = mem.cstring(addr & _MASK64, limit)
    except Exception:
        return None
    if got is None:
        return None
    data, found = got
    return bytes(data), bool(found)


def _u32(mem, addr: int) -> Optional[int]:
    d = _read(mem, addr, 4)
    return None if d is None else int.from_bytes(d, "little")


def _u64(mem, addr: int) -> Optional[int]:
    d = _read(mem, addr, 8)
    return None if d is None else int.from_bytes(d, "little")


# ---------------------------------------------------------------------------------------------
# value formatting shared by decoders

# sets whose argument strace prints as a 64-bit value (kernel_ulong_t arguments)
_WIDE_SETS = frozenset({"clone_flags", "fan_event_flags", "statx_attrs", "xfeature_masks",
                        "mmap_prot", "mremap_flags", "get_mempolicy_flags", "mount_flags",
                        "kexec_load_flags", "unshare_flags", "perf_event_open_flags",
                        "kexec_file_load_flags", "pkey_access", "clone3_flags"})


def _fmt_flags(set_name: str, v: int) -> str:
    if set_name == "ipc_resource_flags":
        return _fmt_ipc_resource(v)
    if set_name not in _WIDE_SETS:
        v &= 0xffffffff
    return _x.format_flags(set_name, v)


def _fmt_enum(set_name: str, v: int) -> str:
    if set_name in ("shmctl_cmd", "semctl_cmd", "msgctl_cmd"):
        return _x.format_ipc_cmd(set_name, v)
    if set_name == "clocks":
        return _x.format_clockid(v)
    x = _x.SETS[set_name]
    v &= 0xffffffff
    if v not in x and _s32(v) in x:
        return x.format_enum(_s32(v))
    return x.format(v)


def _fmt_personality(v: int) -> str:
    v &= 0xffffffff
    if v == 0xffffffff:
        return "0xffffffff"
    return _x.format_flags("personality", v)


def _fmt_qcmd(v: int) -> str:
    v &= 0xffffffff
    cmd = v >> 8
    typ = v & 0xff
    return f"QCMD({_x.format_enum('quotactl_cmds', cmd)}, {_x.format_enum('quota_types', typ)})"


def _fmt_keyserial(v: int) -> str:
    name = _x.lookup("key_spec", _s32(v))
    return name if name else str(_s32(v))


def _fmt_mpol(v: int, wide: bool) -> str:
    if not wide:
        v &= 0xffffffff
    flags = v & 0xe000
    mode = v & ~0xe000
    parts = []
    if flags:
        parts.append(_x.format_flags("mpol_mode_flags", flags))
    name = _x.lookup("mpol_modes", mode)
    if name or not flags:
        parts.append(name or f"{_hex(mode)} /* MPOL_??? */")
    elif mode:
        parts.append(_hex(mode))
    return "|".join(parts)


def _fmt_ipc_resource(v: int) -> str:
    """semget/msgget flags: strace glues unknown bits to the mode when no name was printed."""
    v &= 0xffffffff
    high = v & ~0o777
    perm = _x.octal(v & 0o777)
    if not high:
        return perm
    x = _x.SETS["ipc_resource_flags"]
    text = x._plain_flags(high, None)
    named = any(n and (high & n) == n for n, _ in x.pairs)
    return f"{text}|{perm}" if named else text + perm


def _fmt_ioprio(v: int) -> str:
    v &= 0xffffffff
    return (f"IOPRIO_PRIO_VALUE({_x.format_enum('ioprio_class', v >> 13)}, {v & 0x1fff})")


_PLAIN_RETURNS = frozenset(("int", "long", "ssize", "size", "ulong", "uint"))   # printed as a number


def format_return(ret: int, kind: str = "int", fmt: Optional[SyscallFormatter] = None,
                  never_fails: bool = False) -> str:
    """The text after '= ': '3', '0x7f...', '-1 ENOENT (No such file or directory)',
    '? ERESTARTSYS (To be restarted if SA_RESTART is set)', '10 (SIGUSR1)'. never_fails: the
    value is never an error (getpid, umask: strace's NF flag)."""
    ret = _s64(ret)
    if ret >= 0 and kind in _PLAIN_RETURNS:
        return str(ret)
    if _is_error(ret) and not never_fails:
        err = -ret
        if err in _ERESTART:
            name, msg = _ERESTART[err]
            return f"? {name} ({msg})"
        name = _errno.NAME.get(err)
        if name is None:
            if err in _EXTRA_ERRNO:
                return "-1 %s (%s)" % _EXTRA_ERRNO[err]
            return f"-1 (errno {err})"
        return f"-1 {name} ({_errno.MESSAGE[err]})"
    if kind in ("hex", "ptr"):
        return _hex(ret)
    if _is_error(ret):
        return str(ret)
    if kind == "fd":
        return fmt.fd(ret) if fmt is not None and ret >= 0 else str(ret)
    if kind == "octal":
        return _x.octal(ret)
    if kind == "signo":
        return f"{ret} ({_x.signal_name(ret)})" if 0 < ret <= 64 else str(ret)
    if kind == "personality":
        return f"{_hex(ret)} ({_fmt_personality(ret)})"
    if kind.startswith("enum:"):
        name = _x.lookup(kind[5:], ret)
        return f"{ret} ({name})" if name else str(ret)
    return str(ret)


def format_wait_status(s: int) -> str:
    """{WIFEXITED(s) && WEXITSTATUS(s) == 0}, as strace prints a wait status."""
    s &= 0xffffffff
    low = s & 0x7f
    if (s & 0xff) == 0x7f:                                   # stopped
        text = f"{{WIFSTOPPED(s) && WSTOPSIG(s) == {_x.signal_name((s >> 8) & 0xff)}}}"
        event = s >> 16
        if event:
            text += "|" + _x.format_enum("ptrace_events", event) + "<<16"
        return text
    if s == 0xffff:
        return "{WIFCONTINUED(s)}"
    if low == 0:                                             # exited
        text = f"{{WIFEXITED(s) && WEXITSTATUS(s) == {(s >> 8) & 0xff}}}"
        rest = s & ~0xffff
    else:                                                    # killed
        text = f"{{WIFSIGNALED(s) && WTERMSIG(s) == {_x.signal_name(low)}"
        text += " && WCOREDUMP(s)}" if s & 0x80 else "}"
        rest = s & ~0xffff
    if rest:
        text += f" | {_hex(rest)}"
    return text


def _timespec(sec: int, nsec: int) -> str:
    return f"{{tv_sec={_s64(sec)}, tv_nsec={nsec & _MASK64}}}"


def _timeval(sec: int, usec: int) -> str:
    return f"{{tv_sec={_s64(sec)}, tv_usec={usec & _MASK64}}}"


def _epoll_event(b: bytes) -> str:
    events, data = struct.unpack("<IQ", b)
    return (f"{{events={_x.format_flags('epollevents', events)}, "
            f"data={{u32={data & 0xffffffff}, u64={data}}}}}")


# ---------------------------------------------------------------------------------------------
# sockaddr

def format_sockaddr(data: bytes, fmt: Optional[SyscallFormatter] = None) -> str:
    """{sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("127.0.0.1")} etc."""
    n = len(data)
    family = struct.unpack_from("<H", data)[0]
    fam = _x.format_enum("address_families", family)
    head = f"sa_family={fam}"
    if family == 2 and n >= 16:
        port = struct.unpack_from(">H", data, 2)[0]
        ip = ".".join(str(x) for x in data[4:8])
        return f'{{{head}, sin_port=htons({port}), sin_addr=inet_addr("{ip}")}}'
    if family == 10 and n >= 24:
        port = struct.unpack_from(">H", data, 2)[0]
        flow = struct.unpack_from(">I", data, 4)[0]
        ip = _inet_ntop6(data[8:24])
        text = (f'{{{head}, sin6_port=htons({port}), sin6_flowinfo=htonl({flow}), '
                f'inet_pton(AF_INET6, "{ip}", &sin6_addr)')
        if n >= 28:
            text += f", sin6_scope_id={struct.unpack_from('<I', data, 24)[0]}"
        return text + "}"
    if family == 1:
        if n <= 2:
            return f"{{{head}}}"
        path = data[2:]
        if path[:1] == b"\0":
            return f"{{{head}, sun_path=@{quote_string(path[1:])}}}"
        nul = path.find(b"\0")
        if nul >= 0:
            path = path[:nul]
        return f"{{{head}, sun_path={quote_string(path)}}}"
    if family == 16 and n >= 12:
        pid, groups = struct.unpack_from("<II", data, 4)
        return f"{{{head}, nl_pid={pid}, nl_groups={groups:#08x}}}"
    return f"{{{head}, sa_data={quote_string(data[2:])}}}"


# ---------------------------------------------------------------------------------------------
# struct decoders: fn(fmt, data, mem) -> text

def _d_stat(f, b, mem):
    s = STAT.unpack(b)
    mode = s["st_mode"]
    text = f"{{st_mode={_x.format_mode(mode)}, "
    if mode & 0o170000 in (0o020000, 0o060000):
        text += f"st_rdev={_x.format_stat_dev(s['st_rdev'])}, "
    else:
        text += f"st_size={s['st_size']}, "
    return text + "...}"


def _d_statx(f, b, mem):
    s = STATX.unpack(b)
    mask = s["stx_mask"]
    parts = [f"stx_mask={_x.format_flags('statx_mask', mask)}",
             f"stx_attributes={_x.format_flags('statx_attrs', s['stx_attributes'])}"]
    if mask & 3:
        parts.append(f"stx_mode={_x.format_mode(s['stx_mode'])}")
    if mask & 0x200:
        parts.append(f"stx_size={s['stx_size']}")
    return "{" + ", ".join(parts) + ", ...}"


def _d_statfs(f, b, mem):
    (ftype, bsize, blocks, bfree, bavail, files, ffree, fsid0, fsid1, namelen, frsize,
     flags) = struct.unpack_from("<qqQQQQQiiqqq", b)
    name = _x.lookup("fs_magic", ftype & 0xffffffff)
    return (f"{{f_type={name or _hex(ftype)}, f_bsize={bsize}, f_blocks={blocks}, f_bfree={bfree}, "
            f"f_bavail={bavail}, f_files={files}, f_ffree={ffree}, "
            f"f_fsid={{val=[{_hex(fsid0 & 0xffffffff)}, {_hex(fsid1 & 0xffffffff)}]}}, "
            f"f_namelen={namelen}, f_frsize={frsize}, f_flags={_x.format_flags('statfs_flags', flags)}}}")


def _d_timespec(f, b, mem):
    return _timespec(*struct.unpack("<qq", b))


def _d_timeval(f, b, mem):
    return _timeval(*struct.unpack("<qq", b))


def _d_timezone(f, b, mem):
    w, d = struct.unpack("<ii", b)
    return f"{{tz_minuteswest={w}, tz_dsttime={d}}}"


def _d_itimerval(f, b, mem):
    a, b2, c, d = struct.unpack("<qqqq", b)
    return f"{{it_interval={_timeval(a, b2)}, it_value={_timeval(c, d)}}}"


def _d_itimerspec(f, b, mem):
    a, b2, c, d = struct.unpack("<qqqq", b)
    return f"{{it_interval={_timespec(a, b2)}, it_value={_timespec(c, d)}}}"


def _cfield(raw: bytes) -> str:
    nul = raw.find(b"\0")
    return quote_string(raw if nul < 0 else raw[:nul])


def _d_utsname(f, b, mem):
    return f"{{sysname={_cfield(b[0:65])}, nodename={_cfield(b[65:130])}, ...}}"


def _d_rlimit(f, b, mem):
    cur, mx = struct.unpack("<QQ", b)
    return f"{{rlim_cur={_rlim(cur)}, rlim_max={_rlim(mx)}}}"


def _d_sysinfo(f, b, mem):
    (uptime, l1, l2, l3, tr, fr, sr, br, ts, fs, procs) = struct.unpack_from("<q3Q6QH", b)
    th, fh, unit = struct.unpack_from("<QQI", b, 88)
    return (f"{{uptime={uptime}, loads=[{l1}, {l2}, {l3}], totalram={tr}, freeram={fr}, "
            f"sharedram={sr}, bufferram={br}, totalswap={ts}, freeswap={fs}, procs={procs}, "
            f"totalhigh={th}, freehigh={fh}, mem_unit={unit}}}")


def _sa_handler(h: int) -> str:
    name = _x.lookup("sa_handler", h)
    return name if name else _hex(h)


def _d_sigaction(f, b, mem):
    handler, flags, restorer, mask = struct.unpack("<QQQQ", b)
    text = (f"{{sa_handler={_sa_handler(handler)}, sa_mask={_x.format_sigset(mask)}, "
            f"sa_flags={_x.format_flags('sa_flags', flags & 0xffffffff)}")
    if flags & 0x04000000:
        text += f", sa_restorer={_ptr(restorer)}"
    return text + "}"


def _d_stack_t(f, b, mem):
    sp, flags, size = struct.unpack("<Qi4xQ", b)
    return (f"{{ss_sp={_ptr(sp)}, ss_flags={_x.format_flags('sigaltstack_flags', flags & 0xffffffff)}, "
            f"ss_size={size}}}")


def _d_tms(f, b, mem):
    u, s, cu, cs = struct.unpack("<qqqq", b)
    return (f"{{tms_utime={_clock_t(u)}, tms_stime={_clock_t(s)}, tms_cutime={_clock_t(cu)}, "
            f"tms_cstime={_clock_t(cs)}}}")


def _d_rusage(f, b, mem):
    us, uu, ss, su = struct.unpack_from("<qqqq", b)
    return f"{{ru_utime={_timeval(us, uu)}, ru_stime={_timeval(ss, su)}, ...}}"


def _d_siginfo(f, b, mem):
    return format_siginfo(siginfo_from_bytes(b))


def _d_sched_param(f, b, mem):
    return f"[{struct.unpack('<i', b)[0]}]"


def _d_sched_attr(f, b, mem):
    size, policy, flags, nice, prio, runtime, deadline, period = struct.unpack_from("<IIQiIQQQ", b)
    return (f"{{size={size}, sched_policy={_x.format_enum('sched_policies', policy)}, "
            f"sched_flags={_x.format_flags('sched_flags', flags)}, sched_nice={nice}, "
            f"sched_priority={prio}, sched_runtime={runtime}, sched_deadline={deadline}, "
            f"sched_period={period}}}")


def _d_epoll_event(f, b, mem):
    return _epoll_event(b)


def _d_timeval_pair(f, b, mem):
    a, b1, c, d = struct.unpack("<qqqq", b)
    lt = f.localtime
    return (f"[{_timeval(a, b1)} /* {_fmt_time(a, (b1 % 1000000) * 1000, 6, lt)} */, "
            f"{_timeval(c, d)} /* {_fmt_time(c, (d % 1000000) * 1000, 6, lt)} */]")


def _utime_ts(sec, nsec, lt):
    if nsec == 0x3fffffff:
        return "UTIME_NOW"
    if nsec == 0x3ffffffe:
        return "UTIME_OMIT"
    return f"{_timespec(sec, nsec)} /* {_fmt_time(sec, nsec % 1000000000, local=lt)} */"


def _d_timespec_pair(f, b, mem):
    a, b1, c, d = struct.unpack("<qqqq", b)
    return f"[{_utime_ts(a, b1, f.localtime)}, {_utime_ts(c, d, f.localtime)}]"


def _d_utimbuf(f, b, mem):
    a, m = struct.unpack("<qq", b)
    lt = f.localtime
    return (f"{{actime={a} /* {_fmt_time(a, local=lt)} */, "
            f"modtime={m} /* {_fmt_time(m, local=lt)} */}}")


def _d_open_how(f, b, mem):
    flags, mode, resolve = struct.unpack("<QQQ", b)
    text = f"{{flags={_x.format_flags('open_flags', flags & 0xffffffff)}"
    if flags & (0x40 | 0x400000) or mode:
        text += f", mode={_x.octal(mode)}"
    if resolve:
        text += f", resolve={_x.format_flags('resolve_flags', resolve)}"
    return text + "}"


def _d_cap_header(f, b, mem):
    version, pid = struct.unpack("<Ii", b)
    return f"{{version={_x.format_enum('cap_version', version)}, pid={pid}}}"


def _caps(lo: int, hi: int) -> str:
    v = lo | (hi << 32)
    if v == 0:
        return "0"
    parts = []
    for bit in range(64):
        if v >> bit & 1:
            name = _x.lookup("capabilities", bit)
            parts.append(f"1<<{name}" if name else f"1<<{bit}")
    return "|".join(parts)


def _d_cap_data(f, b, mem):
    e0, p0, i0, e1, p1, i1 = struct.unpack("<6I", b)
    return f"{{effective={_caps(e0, e1)}, permitted={_caps(p0, p1)}, inheritable={_caps(i0, i1)}}}"


def _d_sigevent(f, b, mem):
    value, signo, notify, tid = struct.unpack_from("<Qiii", b)
    # as strace: the value only when not 0, the signal by name only when the event sends one
    text = f"{{sigev_value={{sival_int={_s32(value)}, sival_ptr={_ptr(value)}}}, " if value else "{"
    sig = _x.signal_name(signo) if notify in (0, 2, 4) else str(signo)       # SIGNAL, THREAD, THREAD_ID
    text += f"sigev_signo={sig}, sigev_notify={_x.format_enum('sigev_notify', notify)}"
    if notify == 4:
        text += f", sigev_notify_thread_id={tid}"
    if notify == 2:                                      # SIGEV_THREAD: the union's function and attributes
        fn, attrs = struct.unpack_from("<QQ", b, 16)
        text += f", sigev_notify_function={_ptr(fn)}, sigev_notify_attributes={_ptr(attrs)}"
    return text + "}"


def _d_mq_attr(f, b, mem):
    flags, maxmsg, msgsize, cur = struct.unpack_from("<qqqq", b)
    return (f"{{mq_flags={_x.format_flags('open_mode_flags', flags & 0x800) if flags else 0}, "
            f"mq_maxmsg={maxmsg}, mq_msgsize={msgsize}, mq_curmsgs={cur}}}")


def _d_pselect6_data(f, b, mem):
    ptr, size = struct.unpack("<QQ", b)
    return f"{{sigmask={f.sigset(mem, ptr, size)}, sigsetsize={size}}}"


def _d_msghdr(f, b, mem, data_size: int = -1):
    name, namelen, iov, iovlen, control, controllen, flags = struct.unpack_from("<QI4xQQQQi", b)
    parts = [f"msg_name={f.sockaddr(mem, name, namelen) if name else 'NULL'}",
             f"msg_namelen={namelen}",
             f"msg_iov={f.iovec(mem, iov, iovlen, data_size)}",
             f"msg_iovlen={iovlen}"]
    if controllen:
        parts.append(f"msg_control={_cmsgs(f, mem, control, controllen)}")
    parts.append(f"msg_controllen={controllen}")
    parts.append(f"msg_flags={_x.format_flags('msg_flags', flags & 0xffffffff)}")
    return "{" + ", ".join(parts) + "}"


def _cmsgs(f, mem, addr, length):
    data = _read(mem, addr, min(length, 4096))
    if data is None:
        return _hex(addr)
    items = []
    off = 0
    while off + 16 <= len(data):
        clen, level, ctype = struct.unpack_from("<QiI", data, off)
        lvl = _x.format_enum("sockopt_level", level & 0xffffffff)
        text = f"{{cmsg_len={clen}, cmsg_level={lvl}, "
        body = data[off + 16:off + max(16, min(clen, len(data) - off))]
        if level == 1:
            text += f"cmsg_type={_x.format_enum('scm_types', ctype)}, "
            if ctype == 1:
                fds = [f.fd(x) for x in struct.unpack("<%di" % (len(body) // 4), body[:len(body) // 4 * 4])]
                text += "cmsg_data=[" + ", ".join(fds) + "]}"
            elif ctype == 2 and len(body) >= 12:
                pid, uid, gid = struct.unpack_from("<iII", body)
                text += f"cmsg_data={{pid={pid}, uid={uid}, gid={gid}}}}}"
            else:
                text += f"cmsg_data={quote_string(body)}}}"
        else:
            text += f"cmsg_type={_hex(ctype)}, cmsg_data={quote_string(body)}}}"
        items.append(text)
        if clen < 16:
            break
        off += (clen + 7) & ~7
    return "[" + ", ".join(items) + "]"


def _d_mount_attr(f, b, mem):
    aset, aclr, prop, userns = struct.unpack("<QQQQ", b)
    return (f"{{attr_set={_x.format_flags('mount_attr_flags', aset)}, "
            f"attr_clr={_x.format_flags('mount_attr_flags', aclr)}, "
            f"propagation={_x.format_flags('mount_flags', prop)}, userns_fd={userns}}}")


def _d_timex(f, b, mem):
    modes, offset, freq, maxerr, esterr, status, const, prec, tol, tsec, tusec, tick, ppsfreq, \
        jitter, shift, stabil, jitcnt, calcnt, errcnt, stbcnt, tai = \
        struct.unpack_from("<I4xqqqqi4xqqqqqqqqi4xqqqqqi", b)
    return (f"{{modes={_x.format_flags('adjtimex_modes', modes)}, offset={offset}, freq={freq}, "
            f"maxerror={maxerr}, esterror={esterr}, "
            f"status={_x.format_flags('adjtimex_status', status & 0xffffffff)}, constant={const}, "
            f"precision={prec}, tolerance={tol}, time={_timeval(tsec, tusec)}, tick={tick}, "
            f"ppsfreq={ppsfreq}, jitter={jitter}, shift={shift}, stabil={stabil}, jitcnt={jitcnt}, "
            f"calcnt={calcnt}, errcnt={errcnt}, stbcnt={stbcnt}, tai={tai}}}")


def _d_ifconf(f, b, mem):
    ln, buf = struct.unpack("<i4xQ", b)
    return f"{{ifc_len={ln}, ifc_buf={_ptr(buf)}}}"


def _d_winsize(f, b, mem):
    r, c, x, y = struct.unpack("<HHHH", b)
    return f"{{ws_row={r}, ws_col={c}, ws_xpixel={x}, ws_ypixel={y}}}"


def _d_termios(f, b, mem):
    i, o, c, l = struct.unpack_from("<IIII", b)
    return (f"{{c_iflag={_term_flags('term_iflags', i)}, c_oflag={_term_oflag(o)}, "
            f"c_cflag={_term_cflag(c)}, c_lflag={_term_flags('term_lflags', l)}, ...}}")


def _term_flags(set_name: str, v: int) -> str:
    return _x.SETS[set_name]._plain_flags(v, None) if v else ""


def _term_oflag(o: int) -> str:
    tab = (o >> 11) & 3
    head = (f"NL{(o >> 8) & 1}|CR{(o >> 9) & 3}|{'XTABS' if tab == 3 else f'TAB{tab}'}|"
            f"BS{(o >> 13) & 1}|VT{(o >> 14) & 1}|FF{(o >> 15) & 1}|")
    return head + _term_flags("term_oflags", o & ~0xff00)


def _term_cflag(c: int) -> str:
    text = _x.format_enum("baud_options", c & 0x100f) + "|"
    ibaud = (c >> 16) & 0x100f
    if ibaud:
        text += _x.format_enum("baud_options", ibaud) + "<<IBSHIFT|"
    text += _x.format_enum("term_csize", c & 0x30) + "|"
    return text + _term_flags("term_cflags", c & ~(0x100f | (0x100f << 16) | 0x30))


def _d_flock(f, b, mem, with_pid: bool = False):
    ltype, whence, start, length, pid = struct.unpack_from("<hh4xqqi", b)
    text = (f"{{l_type={_x.format_enum('lockfcmds', ltype & 0xffff)}, "
            f"l_whence={_x.format_enum('whence', whence & 0xffff)}, l_start={start}, l_len={length}")
    if with_pid:
        text += f", l_pid={pid}"
    return text + "}"


def _d_f_owner_ex(f, b, mem):
    typ, pid = struct.unpack("<ii", b)
    return f"{{type={_x.format_enum('f_owner_types', typ & 0xffffffff)}, pid={pid}}}"


def _d_clone_args(f, b, mem):
    return _clone3_text(f, b, mem, len(b))


_STRUCTS: Dict[str, Callable] = {
    "stat": _d_stat, "statx": _d_statx, "statfs": _d_statfs, "timespec": _d_timespec,
    "timeval": _d_timeval, "timezone": _d_timezone, "itimerval": _d_itimerval,
    "itimerspec": _d_itimerspec, "utsname": _d_utsname, "rlimit": _d_rlimit, "sysinfo": _d_sysinfo,
    "sigaction": _d_sigaction, "stack_t": _d_stack_t, "tms": _d_tms, "rusage": _d_rusage,
    "siginfo": _d_siginfo, "sched_param": _d_sched_param, "sched_attr": _d_sched_attr,
    "epoll_event": _d_epoll_event, "timeval_pair": _d_timeval_pair,
    "timespec_pair": _d_timespec_pair, "utimbuf": _d_utimbuf, "open_how": _d_open_how,
    "cap_user_header": _d_cap_header, "cap_user_data": _d_cap_data, "sigevent": _d_sigevent,
    "mq_attr": _d_mq_attr, "pselect6_data": _d_pselect6_data, "msghdr": _d_msghdr,
    "mount_attr": _d_mount_attr, "winsize": _d_winsize, "termios": _d_termios, "flock": _d_flock,
    "f_owner_ex": _d_f_owner_ex, "clone_args": _d_clone_args, "timex": _d_timex,
    "ifconf": _d_ifconf,
}
_STRUCT_SIZES: Dict[str, int] = {
    "stat": 144, "statx": 256, "statfs": 120, "timespec": 16, "timeval": 16, "timezone": 8,
    "itimerval": 32, "itimerspec": 32, "utsname": 390, "rlimit": 16, "sysinfo": 112,
    "sigaction": 32, "stack_t": 24, "tms": 32, "rusage": 144, "siginfo": 128, "sched_param": 4,
    "sched_attr": 48, "epoll_event": 12, "timeval_pair": 32, "timespec_pair": 32, "utimbuf": 16,
    "open_how": 24, "cap_user_header": 8, "cap_user_data": 24, "sigevent": 64, "mq_attr": 64,
    "pselect6_data": 16, "msghdr": 56, "mount_attr": 32, "winsize": 8, "termios": 36,
    "flock": 32, "f_owner_ex": 8, "clone_args": 64, "timex": 208, "ifconf": 16,
}
STRUCT_DECODERS = frozenset(_STRUCTS)


# ---------------------------------------------------------------------------------------------
# siginfo

def siginfo_from_bytes(b: bytes) -> Dict[str, int]:
    """The fields of a 128-byte siginfo_t (union members overlap; see layouts.SIGINFO)."""
    d = SIGINFO.unpack(b)
    d["si_band"] = struct.unpack_from("<q", b, 16)[0]
    d["si_fd"] = struct.unpack_from("<i", b, 24)[0]
    d["si_syscall"] = struct.unpack_from("<i", b, 24)[0]
    d["si_arch"] = struct.unpack_from("<I", b, 28)[0]
    return d


_CODE_SETS = {11: "segv_codes", 7: "bus_codes", 4: "ill_codes", 8: "fpe_codes", 5: "trap_codes",
              17: "cld_codes", 29: "poll_codes", 31: "sys_codes"}
_FAULT_SIGNALS = frozenset({4, 5, 7, 8, 11})


def format_siginfo(si: Dict[str, int]) -> str:
    """{si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=NULL} from a dict with the keys of
    layouts.SIGINFO (si_band, si_fd, si_arch, si_syscall, si_int, si_ptr accepted too)."""
    signo = si.get("si_signo", 0)
    code = _s32(si.get("si_code", 0))
    err = si.get("si_errno", 0)
    parts = [f"si_signo={_x.signal_name(signo)}"]
    name = None
    if code <= 0 or code == 0x80:
        name = _x.lookup("siginfo_codes", code)
    elif signo in _CODE_SETS:
        name = _x.lookup(_CODE_SETS[signo], code)
    parts.append(f"si_code={name if name else _hex(code & 0xffffffff)}")
    if err:
        parts.append(f"si_errno={_errno.NAME.get(err, str(err))}")
    pid = si.get("si_pid", 0)
    uid = si.get("si_uid", 0) & 0xffffffff
    value = si.get("si_value", si.get("si_ptr", 0)) & _MASK64
    sival = f"si_int={si.get('si_int', _s32(value))}, si_ptr={_ptr(value)}"
    if code <= 0:
        if code == -2:            # SI_TIMER
            parts.append(f"si_timerid={_hex(si.get('si_timerid', 0) & 0xffffffff)}, "
                         f"si_overrun={si.get('si_overrun', 0)}, {sival}")
        elif code == -5:          # SI_SIGIO
            parts.append(f"si_band={si.get('si_band', _s64(si.get('si_addr', 0)))}, "
                         f"si_fd={si.get('si_fd', si.get('si_status', 0))}")
        elif code in (-1, -3, -4):  # SI_QUEUE, SI_MESGQ, SI_ASYNCIO
            parts.append(f"si_pid={pid}, si_uid={uid}, {sival}")
        else:
            parts.append(f"si_pid={pid}, si_uid={uid}")
    elif signo in _FAULT_SIGNALS:
        parts.append(f"si_addr={_ptr(si.get('si_addr', 0))}")
    elif code == 0x80:
        pass
    elif signo == 17:
        status = si.get("si_status", 0)
        st = str(status) if code == 1 else _x.signal_name(status)
        parts.append(f"si_pid={pid}, si_uid={uid}, si_status={st}, "
                     f"si_utime={_clock_t(si.get('si_utime', 0))}, si_stime={_clock_t(si.get('si_stime', 0))}")
    elif signo == 29:
        parts.append(f"si_band={si.get('si_band', _s64(si.get('si_addr', 0)))}, "
                     f"si_fd={si.get('si_fd', si.get('si_status', 0))}")
    elif signo == 31:
        nr = si.get("si_syscall", si.get("si_status", 0))
        row = _table.BY_NR.get(nr)
        call = f"__NR_{row.name}" if row else str(nr)
        parts.append(f"si_call_addr={_ptr(si.get('si_call_addr', si.get('si_addr', 0)))}, "
                     f"si_syscall={call}, si_arch={_x.format_enum('audit_arch', si.get('si_arch', 0xc000003e))}")
    else:
        parts.append(f"si_pid={pid}, si_uid={uid}")
    return "{" + ", ".join(parts) + "}"


def format_signal(siginfo) -> str:
    """'--- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=NULL} ---'. siginfo is a
    dict (layouts.SIGINFO keys) or the raw 128 bytes."""
    if isinstance(siginfo, (bytes, bytearray)):
        siginfo = siginfo_from_bytes(bytes(siginfo))
    return f"--- {_x.signal_name(siginfo.get('si_signo', 0))} {format_siginfo(siginfo)} ---"


def format_exited(status: int) -> str:
    return f"+++ exited with {status & 0xff} +++"


def format_killed(signo: int, core: bool = False) -> str:
    return f"+++ killed by {_x.signal_name(signo)}{' (core dumped)' if core else ''} +++"


# ---------------------------------------------------------------------------------------------
# strace -c

def format_summary(rows) -> str:
    """strace -c's table. rows: (name, calls, errors, seconds); sorted by time (ties by syscall
    number, as strace does), usecs/call truncated, errors blank when 0, then the total line."""
    rows = [(str(n), int(c), int(e), float(s)) for n, c, e, s in rows if int(c) or int(e)]

    def nr(name):
        row = _table.BY_NAME.get(name)
        return row.nr if row is not None else 1 << 20

    rows.sort(key=lambda r: (-round(r[3] * 1e6), nr(r[0]), r[0]))
    total_s = sum(r[3] for r in rows)
    total_c = sum(r[1] for r in rows)
    total_e = sum(r[2] for r in rows)
    usec = lambda s, c: int(round(s * 1e6)) // c if c else 0
    cols = [(r[0], "%.2f" % (100.0 * r[3] / total_s if total_s else 0.0), "%.6f" % r[3],
             str(usec(r[3], r[1])), str(r[1]), str(r[2]) if r[2] else "") for r in rows]
    total = ("total", "100.00", "%.6f" % total_s,
             str(usec(total_s, total_c)), str(total_c), str(total_e) if total_e else "")
    w = [6, 11, 11, 9, 9]
    for c in cols + [total]:
        for k in range(5):
            w[k] = max(w[k], len(c[k + 1]))
    namew = max([16] + [len(c[0]) for c in cols])
    heads = ["% time", "seconds", "usecs/call", "calls", "errors"]
    lines = [" ".join(h.rjust(w[k]) if k else h.ljust(w[k]) for k, h in enumerate(heads)) + " syscall"]
    dash = " ".join("-" * x for x in w) + " " + "-" * namew
    lines.append(dash)
    for c in cols:
        lines.append(" ".join(c[k + 1].rjust(w[k]) for k in range(5)) + " " + c[0])
    lines.append(dash)
    lines.append(" ".join(total[k + 1].rjust(w[k]) for k in range(5)) + " " + total[0])
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# syscalls with their own decoders: fn(fmt, state, mem)

def _c_rt_sigreturn(f, st, mem):
    sp = st.saved.get("sp")
    if sp:
        mask = _u64(mem, sp + 296)
        if mask is not None:
            st.a.now(f"{{mask={_x.format_sigset(mask)}}}")
            return
        st.a.now(_hex(sp))


def _c_restart_syscall(f, st, mem):
    prev = f._last_name.get(st.tid)
    st.a.now(f"<... resuming interrupted {prev or 'system call'} ...>")


def _c_ioctl(f, st, mem):
    fd, req, arg = st.args[0], st.args[1] & 0xffffffff, st.args[2]
    a = st.a
    a.now(f.fd(fd))
    a.now(_x.format_ioctl(req))
    dec = _IOCTL_DECODERS.get(req)
    if dec is not None:
        dec(f, st, mem, arg)
        return
    style = _x.ioctl_arg_style(req)
    if style == "none":
        return
    a.now(_ptr(arg) if style == "ptr" else _hex(arg))


def _io_int_in(f, st, mem, arg, kind="int_out"):
    st.a.now(f.scalar_ptr(mem, arg, kind))


def _io_int_out(f, st, mem, arg, kind="int_out"):
    st.a.later(lambda ret, m: _ptr(arg) if _is_error(ret) else f.scalar_ptr(m, arg, kind))


def _io_struct_in(name):
    return lambda f, st, mem, arg: st.a.now(f.struct(name, mem, arg))


def _io_struct_out(name):
    return lambda f, st, mem, arg: st.a.later(
        lambda ret, m: _ptr(arg) if _is_error(ret) else f.struct(name, m, arg))


def _io_modem(out):
    def dec(f, st, mem, arg):
        def text(m):
            v = _u32(m, arg) if arg else None
            if v is None:
                return _ptr(arg)
            return f"[{_x.format_flags('modem_flags', v)}]"
        if out:
            st.a.later(lambda ret, m: _ptr(arg) if _is_error(ret) else text(m))
        else:
            st.a.now(text(mem))
    return dec


def _io_enum(set_name):
    return lambda f, st, mem, arg: st.a.now(_x.format_enum(set_name, arg & 0xffffffff))


_IOCTL_DECODERS = {
    0x5401: _io_struct_out("termios"), 0x5402: _io_struct_in("termios"),
    0x5403: _io_struct_in("termios"), 0x5404: _io_struct_in("termios"),
    0x5456: _io_struct_out("termios"), 0x5457: _io_struct_in("termios"),
    0x802c542a: _io_struct_out("termios"), 0x402c542b: _io_struct_in("termios"),
    0x402c542c: _io_struct_in("termios"), 0x402c542d: _io_struct_in("termios"),
    0x5413: _io_struct_out("winsize"), 0x5414: _io_struct_in("winsize"),
    0x540f: _io_int_out, 0x5410: _io_int_in, 0x5429: _io_int_out, 0x541b: _io_int_out,
    0x5411: _io_int_out, 0x5421: _io_int_in, 0x5452: _io_int_in, 0x40045431: _io_int_in,
    0x80045430: _io_int_out, 0x80045439: _io_int_out, 0x5424: _io_int_out, 0x5423: _io_int_in,
    0x5415: _io_modem(True), 0x5416: _io_modem(False), 0x5417: _io_modem(False),
    0x5418: _io_modem(False),
    0x540b: _io_enum("tcflsh_options"), 0x540a: _io_enum("tcxonc_options"),
    0x5409: lambda f, st, mem, arg: st.a.now(str(_s32(arg))),
    0x5425: lambda f, st, mem, arg: st.a.now(str(_s32(arg))),
    0x540e: lambda f, st, mem, arg: st.a.now(str(_s32(arg))),
    0x5412: lambda f, st, mem, arg: st.a.now(f.buf(mem, arg, 1)),
    0x40049409: lambda f, st, mem, arg: st.a.now(f.fd(arg)),
    0x80081272: lambda f, st, mem, arg: _io_int_out(f, st, mem, arg, "ulong_out"),
    0x80081270: lambda f, st, mem, arg: _io_int_out(f, st, mem, arg, "ulong_out"),
    0x1260: lambda f, st, mem, arg: _io_int_out(f, st, mem, arg, "ulong_out"),
    0x1268: _io_int_out, 0x127b: _io_int_out, 0x1267: _io_int_out, 0x125e: _io_int_out,
    0x125d: _io_int_in,
    0x80086601: lambda f, st, mem, arg: _io_flags(f, st, mem, arg, "fs_flags", True),
    0x40086602: lambda f, st, mem, arg: _io_flags(f, st, mem, arg, "fs_flags", False),
    0x80046601: lambda f, st, mem, arg: _io_flags(f, st, mem, arg, "fs_flags", True),
    0x40046602: lambda f, st, mem, arg: _io_flags(f, st, mem, arg, "fs_flags", False),
    0x8912: _io_struct_in("ifconf"),
}


def _io_flags(f, st, mem, arg, set_name, out):
    def text(m):
        v = _u32(m, arg) if arg else None
        return _ptr(arg) if v is None else f"[{_x.format_flags(set_name, v)}]"
    if out:
        st.a.later(lambda ret, m: _ptr(arg) if _is_error(ret) else text(m))
    else:
        st.a.now(text(mem))


def _fcntl_ret(label, set_name, always=False):
    def aux(ret, m):
        if ret == 0 and not always:
            return None
        return f"{label} {_x.format_flags(set_name, ret & 0xffffffff)}"
    return aux


def _c_fcntl(f, st, mem):
    fd, cmd, arg = st.args[0], st.args[1] & 0xffffffff, st.args[2]
    a = st.a
    a.now(f.fd(fd))
    a.now(_x.format_enum("fcntl_cmds", cmd))
    if cmd in (0, 1030):                          # F_DUPFD, F_DUPFD_CLOEXEC
        a.now(str(_s32(arg)))
        st.ret_kind = "fd"
    elif cmd == 1:                                # F_GETFD
        st.ret_kind = "hex"
        st.aux = _fcntl_ret("flags", "fdflags")
    elif cmd == 2:
        a.now(_x.format_flags("fdflags", arg & 0xffffffff))
    elif cmd == 3:                                # F_GETFL
        st.ret_kind = "hex"
        st.aux = _fcntl_ret("flags", "open_flags", always=True)
    elif cmd == 4:
        a.now(_x.format_flags("open_flags", arg & 0xffffffff))
    elif cmd in (5, 12, 36):                      # F_GETLK, F_GETLK64, F_OFD_GETLK
        a.later(lambda ret, m: _ptr(arg) if _is_error(ret) else
                (f.struct("flock", m, arg, with_pid=True)))
    elif cmd in (6, 7, 13, 14, 37, 38):
        a.now(f.struct("flock", mem, arg))
    elif cmd == 8:                                # F_SETOWN
        a.now(str(_s32(arg)))
    elif cmd == 10:                               # F_SETSIG
        a.now(_x.signal_name(_s32(arg)))
    elif cmd == 15:                               # F_SETOWN_EX
        a.now(f.struct("f_owner_ex", mem, arg))
    elif cmd == 16:                               # F_GETOWN_EX
        a.later(lambda ret, m: _ptr(arg) if _is_error(ret) else f.struct("f_owner_ex", m, arg))
    elif cmd == 1024:                             # F_SETLEASE
        a.now(_x.format_enum("lockfcmds", arg & 0xffffffff))
    elif cmd == 1025:                             # F_GETLEASE
        st.ret_kind = "hex"
        st.aux = lambda ret, m: _x.format_enum("lockfcmds", ret & 0xffffffff)
    elif cmd == 1026:                             # F_NOTIFY
        a.now(_x.format_flags("notifyflags", arg & 0xffffffff))
    elif cmd == 1031:                             # F_SETPIPE_SZ
        a.now(str(_s32(arg)))
    elif cmd == 1033:                             # F_ADD_SEALS
        a.now(_x.format_flags("f_seals", arg & 0xffffffff))
    elif cmd == 1034:                             # F_GET_SEALS
        st.ret_kind = "hex"
        st.aux = _fcntl_ret("seals", "f_seals")
    elif cmd == 9:                                # F_GETOWN: a negative value is a group
        st.saved["never_fails"] = True
    elif cmd == 11:                               # F_GETSIG
        st.aux = lambda ret, m: _x.signal_name(ret) if 0 < ret <= 64 else None
    elif cmd in (1032, 17):                       # no argument
        pass
    else:
        a.now(_hex(arg))


def _c_futex(f, st, mem):
    uaddr, op, val, utime, uaddr2, val3 = st.args
    a = st.a
    a.now(_ptr(uaddr))
    a.now(_x.format_futex_op(op))
    cmd = op & 0x7f                                    # strace picks the arguments by op & 0x7f
    u32 = lambda x: str(x & 0xffffffff)
    if _x.lookup("futex_ops", cmd) is None:
        a.now(u32(val)); a.now(_hex(utime)); a.now(_hex(uaddr2)); a.now(_hex(val3 & 0xffffffff))
        return
    bitset = lambda x: "FUTEX_BITSET_MATCH_ANY" if x & 0xffffffff == 0xffffffff else _hex(x & 0xffffffff)
    if cmd == 0:                                       # WAIT
        a.now(u32(val)); a.now(f.struct("timespec", mem, utime))
    elif cmd in (1, 2):                                # WAKE, FD
        a.now(u32(val))
    elif cmd == 3:                                     # REQUEUE
        a.now(u32(val)); a.now(u32(utime)); a.now(_ptr(uaddr2))
    elif cmd in (4, 12):                               # CMP_REQUEUE(_PI)
        a.now(u32(val)); a.now(u32(utime)); a.now(_ptr(uaddr2)); a.now(u32(val3))
    elif cmd == 5:                                     # WAKE_OP
        a.now(u32(val)); a.now(u32(utime)); a.now(_ptr(uaddr2))
        a.now(_x.format_futex_wake_op(val3))
    elif cmd in (6, 13):                               # LOCK_PI(2)
        a.now(f.struct("timespec", mem, utime))
    elif cmd in (7, 8):                                # UNLOCK_PI, TRYLOCK_PI
        pass
    elif cmd == 9:                                     # WAIT_BITSET
        a.now(u32(val)); a.now(f.struct("timespec", mem, utime)); a.now(bitset(val3))
    elif cmd == 10:                                    # WAKE_BITSET
        a.now(u32(val)); a.now(bitset(val3))
    elif cmd == 11:                                    # WAIT_REQUEUE_PI
        a.now(u32(val)); a.now(f.struct("timespec", mem, utime)); a.now(_ptr(uaddr2))


def _clone_flags_text(flags: int) -> str:
    sig = flags & 0xff
    rest = flags & ~0xff
    parts = []
    if rest:
        parts.append(_x.format_flags("clone_flags", rest))
    if sig:
        name = _x.signal_name(sig)
        parts.append(name)
    return "|".join(parts) if parts else "0"


def _c_clone(f, st, mem):
    flags, stack, ptid, ctid, tls = st.args[:5]
    a = st.a
    a.now(f"child_stack={_ptr(stack)}")
    a.now(f"flags={_clone_flags_text(flags)}")

    def rest(ret, m):
        out = ""
        if flags & (0x100000 | 0x1000):          # CLONE_PARENT_SETTID | CLONE_PIDFD
            v = None if _is_error(ret) else _u32(m, ptid)
            out += f", parent_tid={_ptr(ptid) if v is None else f'[{_s32(v)}]'}"
        if flags & 0x80000:                       # CLONE_SETTLS
            out += f", tls={_ptr(tls)}"
        if flags & (0x1000000 | 0x200000):       # CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID
            out += f", child_tidptr={_ptr(ctid)}"
        return out
    a.tail(rest)


def _clone3_text(f, b, mem, size):
    (flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls) = \
        struct.unpack_from("<8Q", b)
    parts = [f"flags={_x.format_flags('clone3_flags', flags)}"]
    if flags & 0x1000:
        parts.append(f"pidfd={_ptr(pidfd)}")
    if flags & (0x1000000 | 0x200000):
        parts.append(f"child_tid={_ptr(child_tid)}")
    if flags & 0x100000:
        parts.append(f"parent_tid={_ptr(parent_tid)}")
    parts.append(f"exit_signal={_x.signal_name(exit_signal) if exit_signal else '0'}")
    parts.append(f"stack={_ptr(stack)}")
    parts.append(f"stack_size={_hex(stack_size)}")
    if flags & 0x80000:
        parts.append(f"tls={_ptr(tls)}")
    if size >= 80 and len(b) >= 80:
        set_tid, set_tid_size = struct.unpack_from("<QQ", b, 64)
        if set_tid or set_tid_size:
            n = min(set_tid_size, 32)
            data = _read(mem, set_tid, 4 * n) if set_tid and n else None
            if data is not None:
                tids = "[" + ", ".join(str(x) for x in struct.unpack("<%di" % n, data)) + "]"
            else:
                tids = _ptr(set_tid)
            parts.append(f"set_tid={tids}")
            parts.append(f"set_tid_size={set_tid_size}")
    if size >= 88 and len(b) >= 88:
        cgroup = struct.unpack_from("<Q", b, 80)[0]
        if cgroup or flags & 0x200000000:
            parts.append(f"cgroup={cgroup}")
    return "{" + ", ".join(parts) + "}"


def _c_clone3(f, st, mem):
    addr, size = st.args[0], st.args[1]
    a = st.a
    if addr == 0 or size < 64:
        a.now(_ptr(addr))
        a.now(str(size))
        return
    n = min(size, 88)
    b = _read(mem, addr, n)
    if b is None:
        a.now(_hex(addr))
        a.now(str(size))
        return
    flags = struct.unpack_from("<Q", b)[0]
    a.now(_clone3_text(f, b, mem, size))
    pidfd, _child_tid, parent_tid = struct.unpack_from("<QQQ", b, 8)

    def rest(ret, m):
        out = ""
        if not _is_error(ret) and flags & (0x1000 | 0x100000):
            parts = []
            if flags & 0x1000:
                v = _u32(m, pidfd) if pidfd else None
                parts.append(f"pidfd={_ptr(pidfd) if v is None else f'[{_s32(v)}]'}")
            if flags & 0x100000:
                v = _u32(m, parent_tid) if parent_tid else None
                parts.append(f"parent_tid={_ptr(parent_tid) if v is None else f'[{_s32(v)}]'}")
            out = " => {" + ", ".join(parts) + "}"
        return out + f", {size}"
    a.tail(rest)


def _c_mremap(f, st, mem):
    old, oldsz, newsz, flags, new = st.args[:5]
    a = st.a
    a.now(_ptr(old)); a.now(str(oldsz)); a.now(str(newsz))
    a.now(_fmt_flags("mremap_flags", flags))
    if flags & 6:                                 # MREMAP_FIXED | MREMAP_DONTUNMAP
        a.now(_ptr(new))


def _c_arch_prctl(f, st, mem):
    code, addr = st.args[0] & 0xffffffff, st.args[1]
    a = st.a
    a.now(_x.format_enum("arch_prctl_code", code))
    if code in (0x1003, 0x1004):                  # ARCH_GET_FS / ARCH_GET_GS
        a.later(lambda ret, m: _hex(addr) if _is_error(ret) else f.scalar_ptr(m, addr, "ptr_out"))
    elif code == 0x1022 or code == 0x1021 or code == 0x1024:     # ARCH_GET_XCOMP_*
        def xcomp(ret, m):
            v = None if _is_error(ret) else _u64(m, addr)
            if v is None:
                return _hex(addr)
            return f"[{_hex(v)} /* {_x.format_flags('xfeature_masks', v)} */]"
        a.later(xcomp)
    elif code in (0x1023, 0x1025):                # ARCH_REQ_XCOMP_*
        a.now(f"{_hex(addr)} /* {_x.format_enum('xfeatures', addr & 0xffffffff)} */")
    elif code == 0x1011:                          # ARCH_GET_CPUID
        pass
    else:
        a.now(_hex(addr))


def _c_prctl(f, st, mem):
    opt, a2, a3, a4, a5 = st.args[:5]
    opt &= 0xffffffff
    a = st.a
    a.now(_x.format_enum("prctl_options", opt))
    name = _x.lookup("prctl_options", opt)
    u = lambda v: str(v & 0xffffffffffffffff)
    if name is None:
        for v in (a2, a3, a4, a5):
            a.now(_hex(v))
        return
    if name in ("PR_GET_DUMPABLE",):
        st.aux = lambda ret, m: _x.lookup("pr_dumpable", ret)
    elif name == "PR_GET_SECUREBITS":
        st.ret_kind = "hex"
        st.aux = lambda ret, m: _x.format_flags("secbits", ret & 0xffffffff) if ret else None
    elif name in ("PR_SET_PDEATHSIG",):
        a.now(_x.signal_name(_s32(a2)))
    elif name == "PR_GET_PDEATHSIG":
        def sig(ret, m):
            v = None if _is_error(ret) else _u32(m, a2)
            return _ptr(a2) if v is None else f"[{_x.signal_name(_s32(v))}]"
        a.later(sig)
    elif name == "PR_SET_NAME":
        a.now(f.cstr(mem, a2, 15))
    elif name == "PR_GET_NAME":
        def nm(ret, m):
            if _is_error(ret):
                return _ptr(a2)
            return f.cstr(m, a2, 15)
        a.later(nm)
    elif name == "PR_SET_DUMPABLE":
        a.now(_x.format_enum("pr_dumpable", a2 & 0xffffffff))
    elif name in ("PR_CAPBSET_READ", "PR_CAPBSET_DROP"):
        a.now(_x.format_enum("capabilities", a2 & 0xffffffff))
    elif name == "PR_SET_SECCOMP":
        mode = a2 & 0xffffffff
        a.now(_x.format_enum("seccomp_mode", mode))
        if mode == 2:
            a.now(_hex(a3))
    elif name == "PR_SET_SECUREBITS":
        a.now(_x.format_flags("secbits", a2 & 0xffffffff))
    elif name == "PR_SET_UNALIGN":
        a.now(_x.format_flags("pr_unalign_flags", a2 & 0xffffffff))
    elif name == "PR_SET_MM":
        a.now(_x.format_enum("pr_set_mm", a2 & 0xffffffff)); a.now(_hex(a3)); a.now(_hex(a4)); a.now(_hex(a5))
    elif name == "PR_SET_PTRACER":
        a.now("PR_SET_PTRACER_ANY" if a2 == _MASK64 else str(_s32(a2)))
    elif name == "PR_CAP_AMBIENT":
        a.now(_x.format_enum("pr_cap_ambient", a2 & 0xffffffff))
        a.now(_x.format_enum("capabilities", a3 & 0xffffffff) if a2 in (1, 2, 3) else u(a3))
        a.now(u(a4)); a.now(u(a5))
    elif name == "PR_GET_TID_ADDRESS":
        a.later(lambda ret, m: _ptr(a2) if _is_error(ret) else f.scalar_ptr(m, a2, "ptr_out"))
    elif name == "PR_SET_VMA":
        a.now(_x.format_enum("pr_set_vma", a2 & 0xffffffff)); a.now(_hex(a3)); a.now(u(a4))
        a.now(f.cstr(mem, a5, 80))
    elif name in ("PR_SET_CHILD_SUBREAPER", "PR_SET_KEEPCAPS", "PR_SET_TIMERSLACK",
                  "PR_SET_FPEMU", "PR_SET_FPEXC", "PR_SET_TIMING", "PR_SET_ENDIAN", "PR_SET_TSC",
                  "PR_SET_IO_FLUSHER", "PR_SET_FP_MODE"):
        a.now(u(a2))
    elif name in ("PR_GET_KEEPCAPS", "PR_GET_SECCOMP", "PR_GET_TIMERSLACK", "PR_GET_NO_NEW_PRIVS",
                  "PR_GET_THP_DISABLE", "PR_GET_TIMING", "PR_GET_IO_FLUSHER", "PR_GET_FP_MODE",
                  "PR_TASK_PERF_EVENTS_DISABLE", "PR_TASK_PERF_EVENTS_ENABLE", "PR_MCE_KILL_GET"):
        pass
    elif name in ("PR_GET_CHILD_SUBREAPER", "PR_GET_FPEMU", "PR_GET_FPEXC", "PR_GET_ENDIAN",
                  "PR_GET_TSC", "PR_GET_UNALIGN"):
        a.later(lambda ret, m: _ptr(a2) if _is_error(ret) else f.scalar_ptr(m, a2, "int_out"))
    else:
        for v in (a2, a3, a4, a5):
            a.now(u(v))


def _c_socket(f, st, mem):
    family, typ, proto = st.args[:3]
    a = st.a
    family &= 0xffffffff
    a.now(_x.format_enum("address_families", family))
    a.now(_x.format_flags("socket_type", typ & 0xffffffff))
    if st.name == "socketpair" or family not in (2, 10, 16, 17):
        a.now(str(proto))
    elif family in (2, 10):
        a.now(_x.format_enum("ipprotos", proto & 0xffffffff))
    elif family == 16:
        a.now(_x.format_enum("netlink_protocols", proto & 0xffffffff))
    elif family == 17:
        proto &= 0xffffffff
        p = ((proto & 0xff) << 8) | ((proto >> 8) & 0xff)
        a.now(f"htons({_x.format_enum('ethernet_protocols', p)})")
    if st.name == "socketpair":
        sv = st.args[3]
        a.later(lambda ret, m: _ptr(sv) if _is_error(ret) else f._fdpair(m, sv))


_SOCKOPT_SETS = {0: "sockopt_ip", 1: "sockopt_socket", 6: "sockopt_tcp", 41: "sockopt_ipv6"}


def _sockopt_value(f, mem, level, name, addr, length) -> str:
    if addr == 0:
        return "NULL"
    if length < 0:
        return _hex(addr)
    if level == 1 and name == 13 and length >= 8:             # SO_LINGER
        d = _read(mem, addr, 8)
        if d is not None:
            on, lin = struct.unpack("<ii", d)
            return f"{{l_onoff={on}, l_linger={lin}}}"
    if level == 1 and name == 17 and length >= 12:            # SO_PEERCRED
        d = _read(mem, addr, 12)
        if d is not None:
            pid, uid, gid = struct.unpack("<iII", d)
            return f"{{pid={pid}, uid={uid}, gid={gid}}}"
    if length == 4:
        v = _u32(mem, addr)
        if v is not None:
            return f"[{_s32(v)}]"
    return f.buf(mem, addr, length)


def _c_sockopt(f, st, mem):
    fd, level, name, val, ln = st.args[:5]
    level &= 0xffffffff
    name &= 0xffffffff
    a = st.a
    a.now(f.fd(fd))
    a.now(_x.format_enum("sockopt_level", level))
    sname = _SOCKOPT_SETS.get(level)
    a.now(_x.format_enum(sname, name) if sname else str(name))
    if st.name == "setsockopt":
        a.now(_sockopt_value(f, mem, level, name, val, _s32(ln)))
        a.now(str(_s32(ln)))
        return
    inlen = _u32(mem, ln) if ln else None

    def value(ret, m):
        if _is_error(ret) or ln == 0:
            return _ptr(val)
        n = _u32(m, ln)
        if n is None:
            return _ptr(val)
        return _sockopt_value(f, m, level, name, val, n)
    a.later(value)
    a.later(lambda ret, m: f._socklen(m, ln, inlen, ret))


def _c_msg(f, st, mem):
    fd, msg, flags = st.args[:3]
    a = st.a
    a.now(f.fd(fd))
    if st.name == "sendmsg":
        a.now(f.struct("msghdr", mem, msg))
    else:
        def out(ret, m):
            if msg == 0:
                return "NULL"
            if _is_error(ret):
                nl = _u32(m, msg + 8)
                return f"{{msg_namelen={nl}}}" if nl is not None else _hex(msg)
            return f.struct("msghdr", m, msg, data_size=ret)
        a.later(out)
    a.now(_x.format_flags("msg_flags", flags & 0xffffffff))


def _c_sendfile(f, st, mem):
    out_fd, in_fd, off, count = st.args[:4]
    a = st.a
    a.now(f.fd(out_fd))
    a.now(f.fd(in_fd))
    if off == 0:
        a.now("NULL")
    else:
        a.split(f.scalar_ptr(mem, off, "long_out"),
                lambda ret, m: "" if _is_error(ret) else " => " + f.scalar_ptr(m, off, "long_out"))
    a.now(str(count))


def _c_sleep(f, st, mem):
    """nanosleep / clock_nanosleep: the remaining time only when interrupted (ERESTART*)."""
    a = st.a
    if st.name == "clock_nanosleep":
        a.now(_x.format_clockid(st.args[0]))
        a.now(_x.format_flags("timer_flags", st.args[1] & 0xffffffff))
        req, rem = st.args[2], st.args[3]
    else:
        req, rem = st.args[0], st.args[1]
    a.now(f.struct("timespec", mem, req))

    def remaining(ret, m):
        if rem and -ret in (512, 513, 514, 516):
            return f.struct("timespec", m, rem)
        return _ptr(rem)
    a.later(remaining)


def _c_select(f, st, mem):
    a = st.a
    nfds = _s32(st.args[0])
    a.now(str(nfds))
    sets = st.args[1:4]
    for s in sets:
        a.now(f.fdset(mem, s, nfds))
    tmo = st.args[4]
    is_p = st.name == "pselect6"
    a.now(f.struct("timespec" if is_p else "timeval", mem, tmo))
    if is_p:
        a.now(f.struct("pselect6_data", mem, st.args[5]))

    def aux(ret, m):
        if ret == 0:
            return "Timeout"
        parts = []
        left = ret
        for label, s in zip(("in", "out", "except"), sets):
            if not s or left <= 0:
                continue
            text = f.fdset(m, s, nfds)
            if not text.startswith("["):
                continue
            fds = text[1:-1].split()
            if not fds:
                continue
            fds = fds[:left]
            left -= len(fds)
            parts.append(f"{label} [{' '.join(fds)}]")
        if tmo:
            parts.append("left " + f.struct("timespec" if is_p else "timeval", m, tmo))
        return ", ".join(parts)
    st.aux = aux


def _c_time(f, st, mem):
    t = st.args[0]

    def arg(ret, m):
        if t == 0 or _is_error(ret):
            return _ptr(t)
        v = _u64(m, t)
        if v is None:
            return _hex(t)
        return f"[{_s64(v)} /* {_fmt_time(_s64(v), local=f.localtime)} */]"
    st.a.later(arg)
    st.aux = lambda ret, m: _fmt_time(ret, local=f.localtime)


def _c_mknod(f, st, mem):
    a = st.a
    off = 0
    if st.name == "mknodat":
        a.now(f.dirfd(st.args[0]))
        off = 1
    a.now(f.path(mem, st.args[off]))
    mode = st.args[off + 1]
    a.now(_x.format_mode(mode))
    if mode & 0o170000 in (0o020000, 0o060000):
        a.now(_x.format_dev(st.args[off + 2]))


def _c_semctl(f, st, mem):
    a = st.a
    a.now(str(_s32(st.args[0])))
    a.now(str(_s32(st.args[1])))
    a.now(_x.format_ipc_cmd("semctl_cmd", st.args[2]))
    _ipc_ds(a, mem, st.args[2], st.args[3], "sem")


def _c_ipcctl(f, st, mem):
    """shmctl/msgctl: the id, the command, and the shmid_ds/msqid_ds of IPC_STAT and IPC_SET."""
    kind = st.name[:3]
    a = st.a
    a.now(str(_s32(st.args[0])))
    a.now(_x.format_ipc_cmd(f"{kind}ctl_cmd", st.args[1]))
    _ipc_ds(a, mem, st.args[1], st.args[2], kind)


# IPC_STAT and SHM_STAT/SEM_STAT/MSG_STAT (and _ANY) fill the struct; IPC_SET reads it
_IPC_STAT_CMDS = {"shm": (2, 13, 15), "sem": (2, 18, 20), "msg": (2, 11, 13)}
_IPC_DS_FIELDS = {        # after the ipc64_perm (48 bytes): what strace prints, (name, offset, format)
    "shm": [("shm_segsz", 48, "<Q"), ("shm_cpid", 80, "<i"), ("shm_lpid", 84, "<i"),
            ("shm_nattch", 88, "<Q"), ("shm_atime", 56, "<q"), ("shm_dtime", 64, "<q"),
            ("shm_ctime", 72, "<q")],
    "sem": [("sem_otime", 48, "<q"), ("sem_ctime", 64, "<q"), ("sem_nsems", 80, "<Q")],
    "msg": [("msg_stime", 48, "<q"), ("msg_rtime", 56, "<q"), ("msg_ctime", 64, "<q"),
            ("msg_qnum", 80, "<Q"), ("msg_qbytes", 88, "<Q"), ("msg_lspid", 96, "<i"),
            ("msg_lrpid", 100, "<i")],
}
_IPC_DS_SIZE = {"shm": 112, "sem": 104, "msg": 120}


def _ipc_perm(b: bytes, full: bool) -> str:
    key, uid, gid, cuid, cgid, mode = struct.unpack_from("<iIIIIH", b)
    text = f"uid={uid}, gid={gid}, mode={'0%o' % mode if mode else '0'}"
    if full:
        text += f", key={key & 0xffffffff}, cuid={cuid}, cgid={cgid}"
    return "{" + text + "}"


def _ipc_ds_text(kind: str, b: bytes, cmd: int) -> str:
    if cmd == 1:                                   # IPC_SET: only what it sets
        text = f"{{{kind}_perm={_ipc_perm(b, False)}"
        if kind == "msg":
            text += f", msg_qbytes={struct.unpack_from('<Q', b, 88)[0]}"
        return text + "}"
    parts = [f"{kind}_perm={_ipc_perm(b, True)}"]
    parts += [f"{name}={struct.unpack_from(fmt, b, off)[0]}" for name, off, fmt in _IPC_DS_FIELDS[kind]]
    return "{" + ", ".join(parts) + "}"


# IPC_INFO and SHM_INFO/SEM_INFO/MSG_INFO fill struct shminfo64 / shm_info / seminfo / msginfo:
# command -> (size, struct layout, field names), as strace prints them
_IPC_INFO = {
    "shm": {3: (40, "<5Q", ("shmmax", "shmmin", "shmmni", "shmseg", "shmall")),
            14: (56, "<i4x5Q", ("used_ids", "shm_tot", "shm_rss", "shm_swp", "swap_attempts",
                                "swap_successes"))},
    "sem": dict.fromkeys((3, 19), (40, "<10i", ("semmap", "semmni", "semmns", "semmnu", "semmsl",
                                                "semopm", "semume", "semusz", "semvmx", "semaem"))),
    "msg": dict.fromkeys((3, 12), (30, "<7iH", ("msgpool", "msgmap", "msgmax", "msgmnb", "msgmni",
                                                "msgssz", "msgtql", "msgseg"))),
}


def _ipc_info_text(kind: str, cmd: int, b: bytes) -> str:
    _, layout, names = _IPC_INFO[kind][cmd]
    values = struct.unpack_from(layout, b)
    return "{" + ", ".join(f"{n}={v}" for n, v in zip(names, values)) + "}"


def _ipc_ds(a, mem, cmd: int, addr: int, kind: str) -> None:
    cmd &= 0xff
    size = _IPC_DS_SIZE[kind]
    if cmd in _IPC_INFO[kind]:
        def info(ret, m):
            b = None if _is_error(ret) else _read(m, addr, _IPC_INFO[kind][cmd][0])
            return _ipc_info_text(kind, cmd, b) if b is not None else _ptr(addr)
        a.later(info)
    elif cmd == 1:
        b = _read(mem, addr, size)
        a.now(_ipc_ds_text(kind, b, cmd) if b is not None else _ptr(addr))
    elif cmd in _IPC_STAT_CMDS[kind]:
        def out(ret, m):
            b = None if _is_error(ret) else _read(m, addr, size)
            return _ipc_ds_text(kind, b, cmd) if b is not None else _ptr(addr)
        a.later(out)
    else:
        a.now(_ptr(addr))                          # strace prints the argument as an address


def _c_ptrace(f, st, mem):
    req = st.args[0]
    a = st.a
    a.now(_x.format_enum("ptrace_cmds", req))
    if req == 0:                                   # PTRACE_TRACEME
        return
    a.now(str(_s32(st.args[1])))
    if req in (16, 8):                              # PTRACE_ATTACH, PTRACE_KILL
        return
    addr, data = st.args[2], st.args[3]
    if req in (1, 2, 3):                           # PEEK*: the word is stored at data
        a.now(_ptr(addr))
        a.later(lambda ret, m: _ptr(data) if _is_error(ret) else f.scalar_ptr(m, data, "ptr_out"))
    elif req in (7, 9, 17, 24, 31, 32, 33):        # CONT, SINGLESTEP, DETACH, SYSCALL...: signal
        a.now(_ptr(addr))
        a.now(_x.signal_name(_s32(data)))
    elif req in (0x4207, 0x4208):                  # INTERRUPT, LISTEN
        a.now(_ptr(addr)); a.now(_ptr(data))
    else:
        a.now(_ptr(addr)); a.now(_hex(data))


def _c_syslog(f, st, mem):
    typ = _s32(st.args[0])
    a = st.a
    name = _x.lookup("syslog_action", typ & 0xffffffff) if typ >= 0 else None
    a.now(f"{typ} /* {name or 'SYSLOG_ACTION_???'} */")
    buf, ln = st.args[1], st.args[2]
    if typ in (0, 1, 5, 6, 7, 9, 10):               # no buffer
        return
    if typ in (2, 3, 4):                           # READ, READ_ALL, READ_CLEAR
        a.later(lambda ret, m: _ptr(buf) if _is_error(ret) else f.buf(m, buf, ret))
        a.later(lambda ret, m: str(_s32(ln)))
    elif typ == 8:                                 # CONSOLE_LEVEL
        a.now(_ptr(buf))
        lvl = _x.lookup("loglevels", ln & 0xffffffff)
        a.now(f"{_s32(ln)} /* {lvl} */" if lvl else str(_s32(ln)))
    else:
        a.now(_hex(buf))
        a.now(str(_s32(ln)))


def _c_reboot(f, st, mem):
    a = st.a
    a.now(_x.format_enum("reboot_magic", st.args[0] & 0xffffffff))
    a.now(_x.format_enum("reboot_magic", st.args[1] & 0xffffffff))
    cmd = st.args[2] & 0xffffffff
    a.now(_x.format_enum("reboot_cmd", cmd))
    if cmd == 0xa1b2c3d4:
        a.now(f.cstr(mem, st.args[3]))


def _c_keyctl(f, st, mem):
    a = st.a
    cmd = st.args[0] & 0xffffffff
    a2, a3, a4, a5 = st.args[1:5]
    a.now(_x.format_enum("keyctl_commands", cmd))
    key = _fmt_keyserial
    if cmd == 0:                                   # GET_KEYRING_ID
        a.now(key(a2)); a.now(str(_s32(a3)))
    elif cmd == 1:                                 # JOIN_SESSION_KEYRING
        a.now(f.cstr(mem, a2))
    elif cmd == 2:                                 # UPDATE
        a.now(key(a2)); a.now(f.buf(mem, a3, a4)); a.now(str(a4))
    elif cmd in (3, 7, 16, 21):                    # REVOKE, CLEAR, ASSUME_AUTHORITY, INVALIDATE
        a.now(key(a2))
    elif cmd == 4:                                 # CHOWN
        a.now(key(a2))
        a.now("-1" if a3 & 0xffffffff == 0xffffffff else str(a3 & 0xffffffff))
        a.now("-1" if a4 & 0xffffffff == 0xffffffff else str(a4 & 0xffffffff))
    elif cmd in (8, 9):                            # LINK, UNLINK
        a.now(key(a2)); a.now(key(a3))
    elif cmd in (6, 11, 17):                       # DESCRIBE, READ, GET_SECURITY
        a.now(key(a2))
        a.later(lambda ret, m: _ptr(a3) if _is_error(ret) else f.buf(m, a3, min(ret, a4)))
        a.later(lambda ret, m: str(a4))
    elif cmd == 10:                                # SEARCH
        a.now(key(a2)); a.now(f.cstr(mem, a3)); a.now(f.cstr(mem, a4)); a.now(key(a5))
    elif cmd == 15:                                # SET_TIMEOUT
        a.now(key(a2)); a.now(str(a3 & 0xffffffff))
    elif cmd == 18:                                # SESSION_TO_PARENT
        pass
    elif cmd == 22:                                # GET_PERSISTENT
        a.now("-1" if a2 & 0xffffffff == 0xffffffff else str(a2 & 0xffffffff)); a.now(key(a3))
    else:
        for v in (a2, a3, a4, a5):
            a.now(_hex(v))


def _c_mq_open(f, st, mem):
    name, flags, mode, attr = st.args[:4]
    a = st.a
    a.now(f.cstr(mem, name))
    a.now(_x.format_flags("open_flags", flags & 0xffffffff))
    if flags & 0x40:                               # O_CREAT
        a.now(_x.octal(mode & 0xffff))
        a.now(f.struct("mq_attr", mem, attr))


def _c_kcmp(f, st, mem):
    a = st.a
    a.now(str(_s32(st.args[0]))); a.now(str(_s32(st.args[1])))
    typ = st.args[2] & 0xffffffff
    a.now(_x.format_enum("kcmp_types", typ))
    if typ == 0:                                   # KCMP_FILE
        a.now(f.fd(st.args[3])); a.now(f.fd(st.args[4]))
    elif typ == 7:                                 # KCMP_EPOLL_TFD
        a.now(f.fd(st.args[3])); a.now(_hex(st.args[4]))
    elif _x.lookup("kcmp_types", typ) is None:
        a.now(_hex(st.args[3])); a.now(_hex(st.args[4]))


def _c_membarrier(f, st, mem):
    a = st.a
    a.now(_x.format_enum("membarrier_cmds", st.args[0] & 0xffffffff))
    flags = st.args[1] & 0xffffffff
    a.now(_x.format_flags("membarrier_flags", flags))
    if flags & 1:
        a.now(str(_s32(st.args[2])))


def _c_seccomp(f, st, mem):
    a = st.a
    op = st.args[0] & 0xffffffff
    a.now(_x.format_enum("seccomp_ops", op))
    flags = st.args[1] & 0xffffffff
    a.now(_x.format_flags("seccomp_filter_flags", flags) if op == 1 else _hex(flags))
    a.now(_ptr(st.args[2]) if op in (0, 1) else _hex(st.args[2]))


def _c_getrandom(f, st, mem):
    buf, n, flags = st.args[:3]
    st.a.later(lambda ret, m: _ptr(buf) if _is_error(ret) else f.buf(m, buf, ret, force_hex=True))
    st.a.later(lambda ret, m: str(n))
    st.a.later(lambda ret, m: _x.format_flags("getrandom_flags", flags & 0xffffffff))


def _c_mincore(f, st, mem):
    addr, length, vec = st.args[:3]
    st.a.now(_ptr(addr))
    st.a.now(str(length))

    def out(ret, m):
        if vec == 0 or _is_error(ret):
            return _ptr(vec)
        n = (length + 4095) // 4096
        shown = min(n, f.string_limit)
        data = _read(m, vec, shown)
        if data is None:
            return _hex(vec)
        return f.array([str(x & 1) for x in data], n)
    st.a.later(out)


_CUSTOM: Dict[str, Callable] = {
    "rt_sigreturn": _c_rt_sigreturn, "restart_syscall": _c_restart_syscall, "ioctl": _c_ioctl,
    "fcntl": _c_fcntl, "futex": _c_futex, "clone": _c_clone, "clone3": _c_clone3,
    "mremap": _c_mremap, "arch_prctl": _c_arch_prctl, "prctl": _c_prctl, "socket": _c_socket,
    "socketpair": _c_socket, "setsockopt": _c_sockopt, "getsockopt": _c_sockopt,
    "sendmsg": _c_msg, "recvmsg": _c_msg, "sendfile": _c_sendfile, "nanosleep": _c_sleep,
    "clock_nanosleep": _c_sleep, "select": _c_select, "pselect6": _c_select, "time": _c_time,
    "mknod": _c_mknod, "mknodat": _c_mknod, "semctl": _c_semctl, "shmctl": _c_ipcctl, "msgctl": _c_ipcctl, "ptrace": _c_ptrace,
    "syslog": _c_syslog, "reboot": _c_reboot, "keyctl": _c_keyctl, "getrandom": _c_getrandom,
    "mincore": _c_mincore, "mq_open": _c_mq_open, "kcmp": _c_kcmp, "membarrier": _c_membarrier,
    "seccomp": _c_seccomp,
}
CUSTOM_DECODERS = frozenset(_CUSTOM)


# -- argument kinds ---------------------------------------------------------------------------
# One decoder per kind of syscalls/table.py, by base name. Each gets (formatter, state, memory,
# the argument's value, the kind's parameter, the argument's index, the base name) and adds the
# argument's text to st.a: now, or as a function that renders it at the exit.

# How each argument kind is decoded (the row kinds of table.py). Most kinds are one expression,
# in one of two tables; the few with their own protocol are functions (_BY_HAND).
# Every renderer receives n, the value of the argument named by an index parameter
# (buf_in:2 -> args[2]), read at entry, or None.

# Rendered when the call is entered: (formatter, state, memory, value, param, n) -> text.
_AT_ENTRY = {
    "int": lambda f, st, mem, v, param, n: str(_s32(v)),
    "uint": lambda f, st, mem, v, param, n: str(v & 0xffffffff),
    "long": lambda f, st, mem, v, param, n: str(_s64(v)),
    "ulong": lambda f, st, mem, v, param, n: str(v),
    "hex": lambda f, st, mem, v, param, n: _hex(v),
    "dep": lambda f, st, mem, v, param, n: _hex(v),
    "hex32": lambda f, st, mem, v, param, n: _hex(v & 0xffffffff),
    "ptr": lambda f, st, mem, v, param, n: _ptr(v),
    "fd": lambda f, st, mem, v, param, n: f.fd(v),
    "dirfd": lambda f, st, mem, v, param, n: f.dirfd(v),
    "uid": lambda f, st, mem, v, param, n: "-1" if v & 0xffffffff == 0xffffffff else str(v & 0xffffffff),
    "gid": lambda f, st, mem, v, param, n: "-1" if v & 0xffffffff == 0xffffffff else str(v & 0xffffffff),
    "path": lambda f, st, mem, v, param, n: f.path(mem, v),
    "str": lambda f, st, mem, v, param, n: f.cstr(mem, v),
    "buf_in": lambda f, st, mem, v, param, n: f.buf(mem, v, n),
    "flags": lambda f, st, mem, v, param, n: _fmt_flags(param, v),
    "enum": lambda f, st, mem, v, param, n: _fmt_enum(param, v),
    "mode": lambda f, st, mem, v, param, n: _x.octal(v & 0xffff),
    "fmode": lambda f, st, mem, v, param, n: _x.format_mode(v),
    "octal": lambda f, st, mem, v, param, n: _x.octal(v & 0xffffffff),
    "dev": lambda f, st, mem, v, param, n: _x.format_dev(v),
    "struct_in": lambda f, st, mem, v, param, n: f.struct(param, mem, v),
    "signo": lambda f, st, mem, v, param, n: _x.signal_name(_s32(v)),
    "sigset_in": lambda f, st, mem, v, param, n: f.sigset(mem, v, n if param is not None else 8),
    "ipc_key": lambda f, st, mem, v, param, n: _x.format_ipc_key(v),
    "fdset": lambda f, st, mem, v, param, n: f.fdset(mem, v, _s32(n)),
    "iovec_in": lambda f, st, mem, v, param, n: f.iovec(mem, v, n, -1),
    "iovec_remote": lambda f, st, mem, v, param, n: f.iovec(mem, v, n, -1, contents=False),
    "argv": lambda f, st, mem, v, param, n: f.argv(mem, v),
    "envp": lambda f, st, mem, v, param, n: f.envp(mem, v),
    "off_in": lambda f, st, mem, v, param, n: f.scalar_ptr(mem, v, "long_out"),
    "addr_in": lambda f, st, mem, v, param, n: f.sockaddr(mem, v, _s32(n)),
    "sembuf": lambda f, st, mem, v, param, n: f.sembuf(mem, v, n),
    "msgbuf_in": lambda f, st, mem, v, param, n: f.msgbuf(mem, v, n),
    "gids_in": lambda f, st, mem, v, param, n: f.gids(mem, v, _s32(n)),
    "cpuset_in": lambda f, st, mem, v, param, n: f.cpuset(mem, v, n),
    "ioctl_req": lambda f, st, mem, v, param, n: _x.format_ioctl(v),
    "futex_op": lambda f, st, mem, v, param, n: _x.format_futex_op(v),
    "personality": lambda f, st, mem, v, param, n: _fmt_personality(v),
    "quotactl_cmd": lambda f, st, mem, v, param, n: _fmt_qcmd(v),
    "ioprio": lambda f, st, mem, v, param, n: _fmt_ioprio(v),
    "keyserial": lambda f, st, mem, v, param, n: _fmt_keyserial(v),
    "mpol_mode": lambda f, st, mem, v, param, n: _fmt_mpol(v, st.name == "mbind"),
    "fan_dirfd": lambda f, st, mem, v, param, n: "FAN_NOFD" if _s32(v) == -1 else f.dirfd(v),
}
_DEFAULT = _AT_ENTRY["long"]

# Output arguments, rendered when the call returns from the memory it wrote; a failed call shows
# the pointer instead: (formatter, memory, value, param, n, base kind, result) -> text.
_AT_EXIT = {
    # (recv* with MSG_TRUNC returns a datagram's whole length: only the buffer's size was written)
    "buf_out": lambda f, m, v, param, n, base, ret: f.buf(m, v, ret if n is None else min(ret, n)),
    "struct_out": lambda f, m, v, param, n, base, ret: f.struct(param, m, v),
    "sigset_out": lambda f, m, v, param, n, base, ret: f.sigset(m, v, n if param is not None else 8),
    "iovec_out": lambda f, m, v, param, n, base, ret: f.iovec(m, v, n, ret),
    "dirents": lambda f, m, v, param, n, base, ret: f.dirents(m, v, ret, base),
    "dirents64": lambda f, m, v, param, n, base, ret: f.dirents(m, v, ret, base),
    "fdpair_out": lambda f, m, v, param, n, base, ret: f._fdpair(m, v),
    "msgbuf_out": lambda f, m, v, param, n, base, ret: f.msgbuf(m, v, n),
    "gids_out": lambda f, m, v, param, n, base, ret: f.gids(m, v, min(_s32(n), ret) if _s32(n) else 0),
    "cpuset_out": lambda f, m, v, param, n, base, ret: f.cpuset(m, v, ret),
    "epoll_events": lambda f, m, v, param, n, base, ret: f.epoll_events(m, v, ret),
}
for _k in ("int_out", "uint_out", "uid_out", "long_out", "ulong_out", "ptr_out"):
    _AT_EXIT[_k] = lambda f, m, v, param, n, base, ret: f.scalar_ptr(m, v, base)


# Kinds with their own protocol: (formatter, state, memory, value, param, index, base kind).
def _k_path_out(f, st, mem, v, param, i, base):
    st.a.later(lambda ret, m, v=v: f._path_out(m, v, ret))


def _k_open_mode(f, st, mem, v, param, i, base):
    if st.args[i - 1] & (0x40 | 0x400000):          # O_CREAT | O_TMPFILE: only then is there a mode
        st.a.now(_x.octal(v & 0xffff))


def _k_pollfd(f, st, mem, v, param, i, base):
    f._poll_arg(st, mem, v, st.args[param])


def _k_off_io(f, st, mem, v, param, i, base):
    st.a.split(f.scalar_ptr(mem, v, "long_out"),
               lambda ret, m, v=v: "" if v == 0 or _is_error(ret) else " => " + f.scalar_ptr(m, v, "long_out"))


def _k_socklen_io(f, st, mem, v, param, i, base):
    inlen = _u32(mem, v) if v else None
    st.a.later(lambda ret, m, v=v, inlen=inlen: f._socklen(m, v, inlen, ret))


def _k_addr_out(f, st, mem, v, param, i, base):
    st.a.later(lambda ret, m, v=v, lp=st.args[param]: f._addr_out(m, v, lp, ret))


def _k_wstatus(f, st, mem, v, param, i, base):
    st.a.later(lambda ret, m, v=v: f._wstatus(m, v, ret))


_BY_HAND = {
    "path_out": _k_path_out,
    "open_mode": _k_open_mode,
    "pollfd": _k_pollfd,
    "off_io": _k_off_io,
    "socklen_io": _k_socklen_io,
    "addr_out": _k_addr_out,
    "wstatus": _k_wstatus,
}
_ENTRY, _EXIT, _HAND = 0, 1, 2          # how a plan step is run (SyscallFormatter._generic)
