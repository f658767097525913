"""The formatter: one call's line, from its arguments at entry to its result at exit.

Arguments are decoded by the syscall table's kinds (kinds.py and each subject's own), or by a
subject's decoder for the calls strace decodes by hand; structs by name from the subjects' STRUCTS."""
from __future__ import annotations

import functools
import re
import struct
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from emutrace.kernel import table as _table
from emutrace.machine.abi import STRACE_ERRNO_MAX, STRACE_PLAIN_MAX, STRACE_ROW_KIND, STRACE_TEXTS
from emutrace.machine.native import native as _native
from emutrace.machine.reader import GuestReader
from emutrace.machine.words import s32, s64
from emutrace.decode import xlat as _x
from emutrace.decode.strace import (clock, creds, fcntl, fs, futex, ioctl, ipc, keyctl, kinds, mm, net, poll, prctl,
                                    process, quota, resource, sched, signal, stat, system, xattr)
from emutrace.decode.strace.common import (ELLIPSIS, HEX, NON_ASCII_CHARS, NULL, PATH_MAX, MASK64, NoMem,
                                           UnlinkedPath, _SHORT_MAX, _SHORT_QUOTED, hexval, is_error, pointer,
                                           quote_string, read_bytes, read_cstring)
from emutrace.decode.strace import fsmount, landlock, listmount, lsm, xattrat
from emutrace.decode.strace.returns import format_return


# syscalls whose return value is never an error (strace's NF flag): getpid() = -5 is a value
NEVER_FAILS = frozenset({"getpid", "getppid", "getuid", "getgid", "geteuid", "getegid", "getpgrp",
                         "umask", "setfsuid", "setfsgid", "gettid"})


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


def _plan_of(arg_kinds) -> list:
    """(how, decoder, parameter, argument index, base kind) per decoded argument of a row's
    kinds, `how` saying which table the decoder is from: parsed once per distinct argument list,
    not at every call."""
    plan = []
    for i, kind in enumerate(arg_kinds):
        base, param = _parse_kind(kind)
        if base == "skip":
            continue
        if base in _BY_HAND:
            plan.append((_HAND, _BY_HAND[base], param, i, base))
        elif base in _AT_EXIT:
            plan.append((_EXIT, _AT_EXIT[base], param, i, base))
        else:
            plan.append((_ENTRY, _AT_ENTRY.get(base, kinds.DEFAULT), param, i, base))
    return plan


_PLANS: Dict[tuple, list] = {}


def _raw_hex(v: int) -> str:
    """strace's PRINT_VAL_X of a kernel word: '%#llx' of its unsigned value (0 is '0')."""
    v &= MASK64
    return hex(v) if v else "0"


class _State:
    """What enter() learned; pass it back to exit()/unfinished()/resumed()/no_return()."""

    __slots__ = ("sc", "name", "args", "a", "ret_kind", "aux", "aux_empty", "tid", "saved", "plain_ret")

    def __init__(self, sc, args, tid):
        self.sc = sc
        self.name = sc.name
        try:
            a, b, c, d, e, f = args             # (the syscall hook's six register words)
            self.args = (a & MASK64, b & MASK64, c & MASK64, d & MASK64, e & MASK64, f & MASK64)
        except (TypeError, ValueError):
            self.args = tuple([int(x) & MASK64 for x in args[:6]] + [0] * (6 - len(args[:6])))
        self.a = _Args()
        self.ret_kind = sc.ret
        self.aux: Optional[Callable] = None      # fn(ret, mem) -> str | None, printed ' (...)'
        self.aux_empty = False                   # print ' ()' for an empty aux too (select's sets)
        self.tid = tid
        self.saved: Dict[str, object] = {}
        self.plain_ret = False                   # a result in [0, 2**31) is printed as str(ret) (compiled rows)


def _path_bytes(path) -> bytes:
    """A VFS path as the guest's bytes: a str holds the bytes that are not UTF-8 as surrogates
    (os.fsdecode's surrogateescape), which a plain encode() refuses."""
    return path.encode("utf-8", "surrogateescape") if isinstance(path, str) else bytes(path)


class SyscallFormatter:
    # settings a compiled row depends on: setting one forgets the compiled rows
    _COMPILED_ON = frozenset({"string_limit", "fd_paths", "fd_path", "hex_strings", "xlat_style", "decode_fds",
                              "fd_dev", "fd_pidfd", "raw_calls", "verbose"})

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if name in self._COMPILED_ON:
            object.__setattr__(self, "compiled_rows", {})

    def __init__(self, string_limit: int = 32, fd_paths: bool = False,
                 fd_path: Optional[Callable[[int], Optional[str]]] = None, align: int = 0,
                 localtime: bool = False):
        self.string_limit = string_limit
        self.fd_paths = fd_paths
        self.fd_path = fd_path
        self.align = align
        self.localtime = localtime
        self.hex_strings = 0                     # strace -x 1, -xx 2 (common.HEX while decoding)
        self.decode_fds = frozenset({"path"})    # strace --decode-fds=: what -y shows (with fd_paths)
        self.fd_dev = None                       # fd -> ('char', major, minor) | None (decode-fds=dev)
        self.fd_pidfd = None                     # fd -> the pid a pidfd refers to | None (decode-fds=pidfd)
        self.pidfd_pid = None                    # the same, whatever -y asks (pidfd_getfd's target descriptor)
        self.fd_signalfd = None                  # fd -> a signalfd's mask | None (decode-fds=signalfd)
        self.fd_owner = None                     # a pid while another process's descriptor is printed
        self.xlat_style = "abbrev"               # strace -X (xlat.STYLE while decoding)
        self.raw_calls: Optional[frozenset] = None   # strace -e raw=: calls printed undecoded ("all": every one)
        self.verbose = False                     # strace -v: structures in full (the decoders that know how)
        self.last_name: Dict[object, str] = {}     # each thread's last call (restart_syscall names it)
        # id(row) -> (row, its CompiledRow or None: _compile_row); SyscallObserver runs a
        # compiled one itself
        self.compiled_rows: Dict[int, tuple] = {}

    # ------------------------------------------------------------------ public API
    def enter(self, sc, args: Sequence[int], mem: GuestReader, tid=None, sp: Optional[int] = None) -> _State:
        """Decode the arguments known at entry. tid keys restart_syscall's 'interrupted' name;
        sp (the stack pointer) lets rt_sigreturn print the mask of the signal frame."""
        if self.hex_strings or self.xlat_style != "abbrev" or self.verbose:
            return self._styled(self._enter, sc, args, mem, tid, sp)
        return self._enter(sc, args, mem, tid, sp)

    def _enter(self, sc, args, mem, tid, sp) -> _State:
        got = self.compiled_rows.get(id(sc))
        if got is None or got[0] is not sc:
            got = self.compiled_rows[id(sc)] = (sc, _compile_row(self, sc))
        if got[1] is not None:
            st = got[1].enter(sc, args, mem, tid)
            if sp is not None:
                st.saved["sp"] = sp
            self.last_name[tid] = sc.name
            return st
        st = _State(sc, args, tid)
        if sp is not None:
            st.saved["sp"] = sp
        if sc.name in NEVER_FAILS:
            st.saved["never_fails"] = True
        custom = _CUSTOM.get(sc.name)
        if self.is_raw(sc.name):
            # strace's printargs: every argument word of the row in hex, the result too (_ret_text)
            st.saved["raw"] = True
            for v in st.args[:len(sc.args)]:
                st.a.now(_raw_hex(v))
        elif custom is not None:
            custom(self, st, mem)
        else:
            self._generic(st, mem, sc.args)
        self.last_name[tid] = sc.name
        return st

    def exit(self, state: _State, ret: int, mem: GuestReader, col: int = 0) -> str:
        if self.hex_strings or self.xlat_style != "abbrev":
            return self._styled(self._exit, state, ret, mem, col)
        return self._exit(state, ret, mem, col)

    def _exit(self, state: _State, ret: int, mem: GuestReader, col: int = 0) -> str:
        ret = ((ret & MASK64) ^ _SIGN64) - _SIGN64           # (s64, without its frame)
        a = state.a
        items = a.items
        if not items:
            head = f"{state.name}({a.entry})"
        elif len(items) == 1 and items[0][1].__class__ is not str:
            sep, fn = items[0]
            head = f"{state.name}({a.entry}{sep}{fn(ret, mem)})"
        else:
            head = f"{state.name}({a.entry}{a.exit_text(ret, mem)})"
        if 0 <= ret < STRACE_PLAIN_MAX and state.plain_ret and state.aux is None:
            text = str(ret)
        else:
            text = self._ret_text(state, ret, mem)
        if not self.align:
            return f"{head} = {text}"
        return self._finish(head, text, col)

    def unfinished(self, state: _State) -> str:
        return f"{state.name}({state.a.entry} <unfinished ...>"

    def resumed(self, state: _State, ret: int, mem, col: int = 0) -> str:
        if self.hex_strings or self.xlat_style != "abbrev":
            return self._styled(self._resumed, state, ret, mem, col)
        return self._resumed(state, ret, mem, col)

    def _resumed(self, state: _State, ret: int, mem, col: int = 0) -> str:
        ret = s64(ret)
        head = f"<... {state.name} resumed>{state.a.exit_text(ret, mem)})"
        return self._finish(head, self._ret_text(state, ret, mem), col)

    def no_return(self, state: _State, col: int = 0, resumed: bool = False) -> str:
        """'exit_group(0) = ?' (or '<... exit_group resumed>) = ?' with resumed=True)."""
        if self.hex_strings or self.xlat_style != "abbrev":
            return self._styled(self._no_return, state, col, resumed)
        return self._no_return(state, col, resumed)

    def _no_return(self, state: _State, col: int = 0, resumed: bool = False) -> str:
        if resumed:
            head = f"<... {state.name} resumed>)"
        else:
            head = f"{state.name}({state.a.entry}{state.a.exit_text(0, NoMem())})"
        return self._finish(head, "?", col)

    def format(self, sc, args, ret, mem_entry, mem_exit=None, **kw) -> str:
        """enter() + exit() in one go (for tests and single-threaded tracing)."""
        st = self.enter(sc, args, mem_entry, **kw)
        return self.exit(st, ret, mem_exit if mem_exit is not None else mem_entry)

    # ------------------------------------------------------------------ strace's -x and -X
    def is_raw(self, name: str) -> bool:
        """Whether -e raw= asks for this call's arguments and result as plain hex words."""
        raw = self.raw_calls
        return raw is not None and (name in raw or "all" in raw)

    def styled(self) -> bool:
        """Whether this run prints strings or constants another way than by default (then no
        compiled row serves it: each call is decoded with the styles set, _styled)."""
        return bool(self.hex_strings) or self.xlat_style != "abbrev" or self.verbose

    def _styled(self, fn, *args, **kw):
        hex_before, xlat_before = HEX.level, _x.STYLE.xlat
        HEX.level, _x.STYLE.xlat = self.hex_strings, self.xlat_style
        try:
            return fn(*args, **kw)
        finally:
            HEX.level, _x.STYLE.xlat = hex_before, xlat_before

    # ------------------------------------------------------------------ line assembly
    def _finish(self, head: str, ret_text: str, col: int) -> str:
        if self.align:
            width = col + len(head) + 1
            pad = " " * max(1, self.align - width + 1) if width < self.align else " "
            return f"{head}{pad}= {ret_text}"
        return f"{head} = {ret_text}"

    def _ret_text(self, st: _State, ret: int, mem) -> str:
        if st.saved.get("raw"):
            return format_return(ret, "int") if is_error(ret) else _raw_hex(ret)
        if st.ret_kind == "void":
            return "?"
        never_fails = bool(st.saved.get("never_fails"))
        if is_error(ret) and not never_fails:
            return format_return(ret, "int")
        text = format_return(ret, st.ret_kind, self, never_fails)
        if st.aux is not None:
            aux = st.aux(ret, mem)
            if aux or (aux == "" and st.aux_empty):
                text += f" ({aux})"
        return text

    def _row_ret_text(self, kind: str, never_fails: bool, ret: int) -> str:
        """_ret_text of a compiled row's call (which has no aux), from the row's return kind."""
        if kind == "void":
            return "?"
        if is_error(ret) and not never_fails:
            return format_return(ret, "int")
        return format_return(ret, kind, self, never_fails)

    # ------------------------------------------------------------------ primitives
    def fd(self, v: int) -> str:
        fd = s32(v)
        if self.fd_paths and self.fd_path is not None and fd >= 0:
            if self.fd_pidfd is not None:
                pid = self.fd_pidfd(fd)
                if pid is not None:     # (strace: <pid:N> with decode-fds=pidfd; without path, nothing)
                    if "pidfd" in self.decode_fds:
                        return f"{fd}<pid:{pid}>"
                    if "path" not in self.decode_fds:
                        return str(fd)
            if self.fd_signalfd is not None and "signalfd" in self.decode_fds:
                mask = self.fd_signalfd(fd)
                if mask is not None:    # (strace: <signalfd:[USR2 CHLD]>, the mask fdinfo shows)
                    return f"{fd}<signalfd:{_x.format_sigset(mask)}>"
            path = self.fd_path(fd)
            if path:
                dev = deleted = ""
                if path.__class__ is UnlinkedPath:
                    deleted = "(deleted)"
                if self.fd_dev is not None and "dev" in self.decode_fds:
                    got = self.fd_dev(fd)
                    if got is not None:
                        dev = f"<{got[0]} {got[1]}:{got[2]}>"
                return f"{fd}<{quote_string(_path_bytes(path), quotes=False, extra_escape='<>')}{dev}>{deleted}"
        return str(fd)

    def dirfd(self, v: int) -> str:
        fd = s32(v)
        if fd == -100:
            style = _x.STYLE.xlat              # (-X: strace prints AT_FDCWD as a constant of its set)
            name = "AT_FDCWD" if style == "abbrev" else "-100" if style == "raw" else "-100 /* AT_FDCWD */"
            if self.fd_paths and self.fd_path is not None and "path" in self.decode_fds:
                path = self.fd_path(-100)
                if path:                        # (the directory follows the constant in any style)
                    return f"{name}<{quote_string(_path_bytes(path), quotes=False, extra_escape='<>')}>"
            return name
        return self.fd(fd)

    def buf(self, mem, addr: int, length: int, force_hex: bool = False) -> str:
        """printstrn: length bytes at addr, cut at the string limit with '...' after the quote."""
        if addr == 0:
            return NULL
        if length < 0:
            length = 0
        n = length if length < self.string_limit else self.string_limit
        if n:
            try:                                # (read_bytes, without its frame)
                data = mem.read(addr & MASK64, n)
            except Exception:
                data = None
            if data is None or len(data) < n:
                return hexval(addr)
            if len(data) != n or data.__class__ is not bytes:
                data = bytes(data[:n])
        else:
            data = b""
        text = (_SHORT_QUOTED.get(data) if n <= _SHORT_MAX and not force_hex and HEX.level != NON_ASCII_CHARS
                else None) or quote_string(data, force_hex=force_hex)
        return text + ELLIPSIS if length > n else text

    def cstr(self, mem, addr: int, limit: Optional[int] = None) -> str:
        """printstr: a NUL-terminated string, cut at the string limit with '...'."""
        if addr == 0:
            return NULL
        limit = self.string_limit if limit is None else limit
        got = read_cstring(mem, addr, limit + 1)
        if got is None:
            # strace reads limit + 1 bytes (a reader's cstring(limit) reads as many): a string
            # that ends where the memory does is still printed (a PATH_MAX path at a page's end)
            got = read_cstring(mem, addr, limit)
            if got is None or got[1]:
                return hexval(addr)
        data, found = got
        if len(data) > limit:
            return quote_string(data[:limit]) + ELLIPSIS
        return quote_string(data) + ("" if found else ELLIPSIS)

    def path(self, mem, addr: int) -> str:
        """strace's printpath: at most PATH_MAX - 1 bytes shown, PATH_MAX read (no further: a
        path ending where the memory does is still a path)."""
        return self.cstr(mem, addr, PATH_MAX - 1)

    def array(self, items, total: int) -> str:
        """[a, b, ...] with at most string_limit elements, as strace limits arrays."""
        return "[" + ", ".join(items) + (", ..." if total > len(items) and items else
                                         ("..." if total > len(items) else "")) + "]"

    # ------------------------------------------------------------------ generic decoding
    def _generic(self, st: _State, mem, arg_kinds: Sequence[str]):
        plan = _PLANS.get(arg_kinds)
        if plan is None:
            plan = _PLANS[arg_kinds] = _plan_of(arg_kinds)
        args = st.args
        a = st.a
        for how, decode, param, i, base in plan:
            v = args[i]
            n = args[param] if param.__class__ is int else None
            if how == _ENTRY:
                a.now(decode(self, st, mem, v, param, n))
            elif how == _EXIT:
                a.later(lambda ret, m, decode=decode, v=v, param=param, n=n, base=base:
                        pointer(v) if is_error(ret) else decode(self, m, v, param, n, base, ret))
            else:
                decode(self, st, mem, v, param, i, base)

    # ------------------------------------------------------------------ value decoders
    def sigset(self, mem, addr: int, size: int) -> str:
        if addr == 0:
            return "NULL"
        if size != 8:
            return hexval(addr)
        data = read_bytes(mem, addr, 8)
        if data is None:
            return hexval(addr)
        return _x.format_sigset(int.from_bytes(data, "little"), 8)

    def scalar_ptr(self, mem, addr: int, kind: str) -> str:
        if addr == 0:
            return "NULL"
        if kind in ("int_out", "uint_out", "uid_out"):
            data = read_bytes(mem, addr, 4)
            if data is None:
                return hexval(addr)
            v = int.from_bytes(data, "little")
            return f"[{s32(v) if kind == 'int_out' else v}]"
        data = read_bytes(mem, addr, 8)
        if data is None:
            return hexval(addr)
        v = int.from_bytes(data, "little")
        if kind == "ptr_out":
            return f"[{pointer(v)}]"
        return f"[{s64(v) if kind == 'long_out' else v}]"

    def fdpair(self, mem, addr):
        data = read_bytes(mem, addr, 8)
        if data is None:
            return hexval(addr)
        a, b = struct.unpack("<ii", data)
        return f"[{self.fd(a)}, {self.fd(b)}]"

    def iovec(self, mem, addr: int, count: int, data_size: int, contents: bool = True) -> str:
        """[{iov_base="...", iov_len=N}, ...]; data_size: bytes really transferred (-1: all);
        contents=False prints the bases as addresses (another process's iovec)."""
        if addr == 0:
            return "NULL"
        count &= MASK64
        if count > 1 << 20:
            return hexval(addr)
        shown = min(count, self.string_limit)
        items = []
        for k in range(shown):
            raw = read_bytes(mem, addr + 16 * k, 16)
            if raw is None:             # (strace's print_array: what was read, then where it stopped)
                if not k:
                    return hexval(addr)
                return "[" + ", ".join(items) + f", ... /* {hexval(addr + 16 * k)} */]"
            base, ln = struct.unpack_from("<QQ", raw, 0)
            if data_size < 0:
                n = ln
            else:
                n = min(ln, data_size)
                data_size -= n
            text = self.buf(mem, base, n) if contents else pointer(base)
            items.append(f"{{iov_base={text}, iov_len={ln}}}")
        if count > shown and read_bytes(mem, addr + 16 * shown, 16) is None:
            # (print_array fetches the next element before it stops at -s: an unreadable one
            # says where the array stopped)
            return "[" + ", ".join(items) + f", ... /* {hexval(addr + 16 * shown)} */]"
        return self.array(items, count)

    # ------------------------------------------------------------------ structs
    def struct_array(self, mem, addr: int, count: int, shape) -> str:
        """[{...}, ...]: count structs of a fields.StructText at addr (semop's sembufs, epoll's
        events), at most string_limit of them; the address when unreadable."""
        shown = min(count, self.string_limit)
        data = read_bytes(mem, addr, shape.size * shown)
        if data is None:
            items = []
            for k in range(shown):      # (partly readable: the elements read, then where it stopped)
                one = read_bytes(mem, addr + shape.size * k, shape.size)
                if one is None:
                    if not k:
                        return hexval(addr)
                    return "[" + ", ".join(items) + f", ... /* {hexval(addr + shape.size * k)} */]"
                items.append(shape.text(one))
            return hexval(addr)
        return self.array([shape.text(data[shape.size * k:shape.size * (k + 1)]) for k in range(shown)], count)

    def struct(self, name: str, mem, addr: int, **kw) -> str:
        """A struct decoded by name ('stat', 'timespec', ...); NULL for 0; the address in hex when
        unreadable or when no decoder exists."""
        if addr == 0:
            return "NULL"
        known = _STRUCTS.get(name)
        if known is None:
            return hexval(addr)
        size, dec = known
        data = read_bytes(mem, addr, size)
        if data is None:
            return hexval(addr)
        return dec(self, data, mem, **kw)


# Every subject's tables, merged: its syscalls decoded by hand, its structs, its argument kinds.
_SUBJECTS = (kinds, clock, creds, fcntl, fs, futex, ioctl, ipc, keyctl, mm, net, poll, prctl, process,
             resource, sched, signal, stat, system, quota, xattr)
_SUBJECTS += (fsmount, landlock, listmount, lsm, xattrat)


def _merged(table: str) -> dict:
    merged: dict = {}
    for subject in _SUBJECTS:
        own = getattr(subject, table, {})
        assert not own.keys() & merged.keys(), (subject.__name__, table, own.keys() & merged.keys())
        merged.update(own)
    return merged


_CUSTOM: Dict[str, Callable] = _merged("CALLS")                 # fn(formatter, state, memory)
_STRUCTS: Dict[str, Tuple[int, Callable]] = _merged("STRUCTS")  # (size, fn(formatter, bytes, memory))
_AT_ENTRY = _merged("AT_ENTRY")
_AT_EXIT = _merged("AT_EXIT")
_BY_HAND = _merged("BY_HAND")
_ENTRY, _EXIT, _HAND = 0, 1, 2          # how a plan step is run (SyscallFormatter._generic)
CUSTOM_DECODERS = frozenset(_CUSTOM)
_SIGN64 = 1 << 63


# ---------------------------------------------------------------------- compiled rows
# A row of the syscall table without a hand-written decoder is compiled, on its first call, into
# functions of its own (a CompiledRow): the entry text as one expression (the plain kinds written
# out, the others one call of their renderer each), and the text printed at exit with the result
# as one function of (ret, memory). Its text is _generic's, byte for byte.
#
# The tracer's hot path (SyscallObserver) runs a row in one frame at entry and one at exit:
# begin(args, mem) -> (entry text, the values the exit reads) and finish(entry text, values, ret,
# mem) -> (the line up to its ')', the result's text), with no _State, _Args or closure per call.
# enter() builds the _State of the public API (exit, unfinished, resumed, no_return) from begin.

_INLINE = {     # base kind -> expression of v (the masked argument) for kinds that only format a number
    "int": "str((({v} & 0xffffffff) ^ 0x80000000) - 0x80000000)",
    "uint": "str({v} & 0xffffffff)",
    "long": "str(({v} ^ 0x8000000000000000) - 0x8000000000000000)",
    "ulong": "str({v})",
    "hex": "('0' if {v} == 0 else '%#x' % {v})",
    "dep": "('0' if {v} == 0 else '%#x' % {v})",
    "hex32": "('0' if {v} & 0xffffffff == 0 else '%#x' % ({v} & 0xffffffff))",
    "ptr": f"({NULL!r} if {{v}} == 0 else '%#x' % {{v}})",
    "uid": f"({STRACE_TEXTS['ID_UNCHANGED']!r} if {{v}} & 0xffffffff == 0xffffffff else str({{v}} & 0xffffffff))",
}
_INLINE["gid"] = _INLINE["uid"]
_PLAIN_RET = frozenset(("int", "long", "ssize", "size", "ulong", "uint"))


class _RowName:
    """The `st` an entry renderer of a compiled row gets: the call's row and name, all that the
    renderers read of a _State (mbind's mpol_mode reads the name). Anything else is an
    AttributeError, which test_strace_compiled would show."""
    __slots__ = ("sc", "name")

    def __init__(self, sc):
        self.sc = sc
        self.name = sc.name


class CompiledRow:
    """One row's compiled functions (see above): begin, finish and the public API's enter.
    begin and finish are the compiled module's StraceRow's when it renders the row (its kinds
    all plain), else py_begin and py_finish, which are the reference either way."""
    __slots__ = ("sc", "begin", "finish", "line", "py_begin", "py_finish", "state", "enter")

    def __init__(self, sc, env: dict, native_row=None):
        self.sc = sc
        self.py_begin = env["begin"]     # (args, mem) -> (entry text, values for finish)
        self.py_finish = env["finish"]   # (entry text, values, ret, mem) -> (head, result text)
        self.begin = native_row.begin if native_row is not None else self.py_begin
        self.finish = native_row.finish if native_row is not None else self.py_finish
        # (entry text, values, ret, mem) -> the written line of a plain numeric result, or None:
        # the compiled row's only; it is StraceText's line of finish's head and text
        self.line = native_row.line if native_row is not None else None
        self.state = env["state"]        # (sc, args, entry text, values, tid) -> _State
        self.enter = env["enter"]        # (sc, args, mem, tid) -> _State: state(begin(...))


def _compile_row(fmt: "SyscallFormatter", sc) -> Optional[CompiledRow]:
    """The row's CompiledRow, or None for the rows _generic does not run (a hand-written decoder,
    a kind with its own protocol)."""
    if sc.name in _CUSTOM or fmt.styled() or fmt.is_raw(sc.name):
        return None
    never_fails = sc.name in NEVER_FAILS
    plain = not never_fails and (sc.ret in _PLAIN_RET or (sc.ret == "fd" and not fmt.fd_paths))
    env = {"_State": _State, "_octal": _x.octal, "_SQ": _SHORT_QUOTED, "_quote": quote_string, "_Args": _Args,
           "_new": object.__new__, "_mask": _masked_args, "f": fmt, "NAME": sc.name, "OPEN": sc.name + "(",
           "RET": sc.ret, "NF": never_fails, "st": _RowName(sc)}
    lines = []                 # statements of begin after the words are read (deferred entry texts)
    entry, late = [], []       # expressions printed at entry; (is_fn, expression) printed at exit
    deferring = False
    used = set()               # the argument words read
    body = []                  # statements of the exit before its text (a buf_out's)
    c_entry, c_late = [], []   # the row for the compiled module: (C kind, word, count word) ...
    c_ok = True                # ... while every kind is one it renders
    for i, kind in enumerate(sc.args):
        base, param = _parse_kind(kind)
        if base == "skip":
            continue
        c_kind = _C_KINDS.get(base) if base != "fd" or not fmt.fd_paths else None
        if c_kind is None or (param is not None and not (param.__class__ is int and 0 <= param < 6)) \
                or (base == "buf_in" and param is None):
            c_ok = False
        else:
            (c_late if deferring or base == "buf_out" else c_entry).append((c_kind, i, -1 if param is None else param))
        used.add(i)
        if param.__class__ is int and 0 <= param < 6:
            used.add(param)
        if base == "open_mode" and not deferring and entry:
            # (fs's open_mode: a mode only when the flags before it hold O_CREAT or O_TMPFILE)
            used.add(i - 1)
            entry[-1] = (f"{entry[-1]} + ((', ' + _octal(a{i} & 0xffff)) if a{i - 1} & 0x400040 else '')")
            continue
        if base in _BY_HAND:
            return None
        n = f"a{param}" if param.__class__ is int and 0 <= param < 6 else "None"
        if param.__class__ is int and not 0 <= param < 6:
            return None
        env[f"P{i}"] = param
        env[f"B{i}"] = base
        if base in _AT_EXIT:
            env[f"D{i}"] = _AT_EXIT[base]
            if base == "buf_out" and not body:
                # (buf, written out: the bytes the call wrote, at most the string limit of them)
                cut = "ret" if n == "None" else f"(ret if ret < {n} else {n})"
                body.extend([
                    f"    if -{STRACE_ERRNO_MAX} <= ret < 0 or a{i} == 0:",
                    f"        x{i} = {NULL!r} if a{i} == 0 else '%#x' % a{i}",
                    "    else:",
                    f"        k = {cut}",
                    "        if k < 0:",
                    "            k = 0",
                    f"        j = k if k < {fmt.string_limit} else {fmt.string_limit}",
                    "        if j:",
                    "            try:",
                    f"                d = m.read(a{i}, j)",
                    "            except Exception:",
                    "                d = None",
                    "            if d is not None and len(d) >= j:",
                    "                if len(d) != j or d.__class__ is not bytes:",
                    "                    d = bytes(d[:j])",
                    f"                x{i} = (_SQ.get(d) if j <= {_SHORT_MAX} else None) or _quote(d)",
                    "                if k > j:",
                    f"                    x{i} += {ELLIPSIS!r}",
                    "            else:",
                    f"                x{i} = '%#x' % a{i}",
                    "        else:",
                    f"            x{i} = _quote(b'') + ({ELLIPSIS!r} if k > 0 else '')"])
                late.append((True, f"x{i}"))
                deferring = True
                continue
            if base == "buf_out":
                cut = "ret" if n == "None" else f"(ret if ret < {n} else {n})"
                text = f"f.buf(m, a{i}, {cut})"
            else:
                text = f"D{i}(f, m, a{i}, P{i}, {n}, B{i}, ret)"
            late.append((True, f"(({NULL!r} if a{i} == 0 else '%#x' % a{i}) if -{STRACE_ERRNO_MAX} <= ret < 0 else {text})"))
            deferring = True
            continue
        if base in _INLINE:
            text = _INLINE[base].format(v=f"a{i}")
        elif base == "fd" and not fmt.fd_paths:
            text = f"str(((a{i} & 0xffffffff) ^ 0x80000000) - 0x80000000)"
        else:
            env[f"R{i}"] = _AT_ENTRY.get(base, kinds.DEFAULT)
            text = f"R{i}(f, st, mem, a{i}, P{i}, {n})"
        if deferring:                # rendered at entry, printed at exit
            lines.append(f"    t{i} = {text}")
            late.append((False, f"t{i}"))
        else:
            entry.append(text)
    # texts joined by one f-string (one new string, not one per '+'), each a local first
    entry_lines, entry_inner = _joined(entry, "v")
    entry_text = "f'" + entry_inner + (", " if entry and late else "") + "'"
    late_lines, parts = _joined([e for _, e in late], "y")
    # the values the exit reads: the words its texts name, and the texts rendered at entry but
    # printed at exit
    named = set(re.findall(r"\ba(\d)\b", "\n".join(late_lines + body)))
    kept = [f"a{k}" for k in sorted(used) if str(k) in named] + [e for is_fn, e in late if not is_fn]
    kept_tuple = "(" + "".join(f"{v}, " for v in kept) + ")"
    src = ["def begin(args, mem):",
           "    try:",
           "        a0, a1, a2, a3, a4, a5 = args",
           "    except (TypeError, ValueError):",
           "        a0, a1, a2, a3, a4, a5 = _mask(args)",
           ("    " + "; ".join(f"a{k} &= 0xffffffffffffffff" for k in sorted(used))) if used else "    pass"]
    src += entry_lines + lines          # (the entry's texts first: _generic's order)
    src.append(f"    return {entry_text}, {kept_tuple if late else 'None'}")
    unpack = [f"    {kept_tuple[1:-1]}= w"] if late and kept else []
    if late:
        src += ["def late(w, ret, m):"] + unpack + body + late_lines + [f"    return f'{parts}'"]
    src += ["def finish(e, w, ret, m):",
            "    ret = ((ret & 0xffffffffffffffff) ^ 0x8000000000000000) - 0x8000000000000000"]
    if late:
        src += unpack + body + late_lines + [f"    head = f'{{OPEN}}{{e}}{parts})'"]
    else:
        src += ["    head = f'{OPEN}{e})'"]
    if plain:
        src += [f"    if 0 <= ret < {STRACE_PLAIN_MAX:#x}:",
                "        return head, str(ret)"]
    src += ["    return head, f._row_ret_text(RET, NF, ret)"]
    src += ["def state(sc, args, e, w, tid):",
            "    st = _new(_State)",
            "    st.sc = sc",
            "    st.name = NAME",
            "    st.args = args",
            "    # (st.args: the words as given: only _generic and the hand-written decoders read it)",
            "    st.ret_kind = RET",
            "    st.aux = None",
            "    st.tid = tid",
            "    st.saved = {'never_fails': True}" if never_fails else "    st.saved = {}",
            f"    st.plain_ret = {plain}",
            "    a = st.a = _new(_Args)",
            "    a.entry = e",
            f"    a.n = {len(entry) + len(late)}"]
    if late:
        src += ["    a.items = [('', lambda ret, m: late(w, ret, m))]",
                "    a.deferring = True"]
    else:
        src += ["    a.items = []",
                "    a.deferring = False"]
    src += ["    return st",
            "def enter(sc, args, mem, tid):",
            "    e, w = begin(args, mem)",
            "    return state(sc, args, e, w, tid)"]
    exec(compile("\n".join(src) + "\n", f"<strace row {sc.name}>", "exec"), env)
    native_row = None
    if c_ok and _StraceRow is not None:
        native_row = _native_row(fmt, sc, env, c_entry, c_late, kept, plain, never_fails)
    return CompiledRow(sc, env, native_row)


# base kind -> its number in _strace.c (the kinds the compiled module renders: machine/abi.py's
# STRACE_ROW_KINDS, and the kinds printed as one of them)
_C_KINDS = dict(STRACE_ROW_KIND, dep=STRACE_ROW_KIND["hex"], gid=STRACE_ROW_KIND["uid"])
_C_BUF_OUT = _C_KINDS["buf_out"]
_StraceRow = getattr(_native, "StraceRow", None)     # None: pure Python, or a module built before it


def _native_row(fmt, sc, env, c_entry, c_late, kept, plain, never_fails):
    """The compiled module's StraceRow for a row of plain kinds, its kept values laid out as the
    Python row's (kept: their names there), its unusual input sent to the Python row."""
    words = [int(name[1:]) for name in kept if name[0] == "a"]
    late = []
    for c_kind, i, count in c_late:
        if c_kind == _C_BUF_OUT:
            if i not in words or (count >= 0 and count not in words):
                return None
            late.append((c_kind, i, count, words.index(i), words.index(count) if count >= 0 else -1))
        else:
            if f"t{i}" not in kept:
                return None
            late.append((c_kind, i, count, kept.index(f"t{i}"), -1))
    entry = [(c_kind, i, count, -1, -1) for c_kind, i, count in c_entry]
    ret_text = functools.partial(fmt._row_ret_text, sc.ret, never_fails)
    return _StraceRow(sc.name + "(", entry, late, words, fmt.string_limit, plain, ret_text,
                      env["begin"], env["finish"])


def _joined(exprs: List[str], prefix: str) -> Tuple[List[str], str]:
    """(statements, f-string body) joining the texts of exprs by ', ': each expression that is
    not a name is a local first (an f-string's expression may not hold its quote before 3.12)."""
    lines, names = [], []
    for k, e in enumerate(exprs):
        if not e.isidentifier():
            lines.append(f"    {prefix}{k} = {e}")
            e = f"{prefix}{k}"
        names.append("{" + e + "}")
    return lines, ", ".join(names)


def _masked_args(args):
    return tuple([int(x) & MASK64 for x in args[:6]] + [0] * (6 - len(args[:6])))
STRUCT_DECODERS = frozenset(_STRUCTS)
