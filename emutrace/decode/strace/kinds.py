"""The argument kinds every subject uses (syscalls/table.py's row kinds: int, fd, path, flags:SET,
buf_out:2...), and how each is rendered. A subject module adds its own kinds to these tables
(AT_ENTRY, AT_EXIT, BY_HAND); the formatter merges them."""
from __future__ import annotations

import functools

from emutrace.machine.words import s32, s64
from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import hexval, id_text, is_error, pointer


# sets whose argument strace prints as a 64-bit value (kernel_ulong_t arguments)
_WIDE_SETS = frozenset({"clone_flags", "fan_event_flags", "statx_attrs", "xfeature_masks",
                        "mmap_prot", "mremap_flags", "get_mempolicy_flags", "mount_flags",
                        "kexec_load_flags", "unshare_flags", "perf_event_open_flags",
                        "kexec_file_load_flags", "pkey_access", "clone3_flags", "futex_bitset"})


def _ipc_resource_flags(v: int) -> str:
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


# flag sets and enums strace does not print as plain names
_OWN_FLAGS = {"ipc_resource_flags": _ipc_resource_flags}
_OWN_ENUMS = {"shmctl_cmd": functools.partial(_x.format_ipc_cmd, "shmctl_cmd"),
              "semctl_cmd": functools.partial(_x.format_ipc_cmd, "semctl_cmd"),
              "msgctl_cmd": functools.partial(_x.format_ipc_cmd, "msgctl_cmd"),
              "clocks": _x.format_clockid}


def _flags(set_name: str, v: int) -> str:
    own = _OWN_FLAGS.get(set_name)
    if own is not None:
        return own(v)
    if set_name not in _WIDE_SETS:
        v &= 0xffffffff
    return _x.format_flags(set_name, v)


def _signo(n: int) -> str:
    """strace's printsignal: the name (-X raw: the number, -X verbose: both); an unknown one in
    decimal."""
    name = _x.signal_name(n)
    style = _x.STYLE.xlat
    if style == "abbrev" or name == str(n):
        return name
    return str(n) if style == "raw" else f"{n} /* {name} */"


def _enum(set_name: str, v: int) -> str:
    own = _OWN_ENUMS.get(set_name)
    if own is not None:
        return own(v)
    x = _x.SETS[set_name]
    v &= 0xffffffff
    if v not in x and s32(v) in x:           # (a set that names negative values: the argument is an int)
        return x.format_enum(s32(v))
    return x.format(v)


# Every renderer receives n, the value of the argument named by an index parameter
# (buf_in:2 -> args[2]), read at entry, or None.

# Rendered when the call is entered: (formatter, state, memory, value, param, n) -> text.
AT_ENTRY = {
    "int": lambda f, st, mem, v, param, n: str(s32(v)),
    "uint": lambda f, st, mem, v, param, n: str(v & 0xffffffff),
    "long": lambda f, st, mem, v, param, n: str(s64(v)),
    "ulong": lambda f, st, mem, v, param, n: str(v),
    "hex": lambda f, st, mem, v, param, n: hexval(v),
    "dep": lambda f, st, mem, v, param, n: hexval(v),
    "hex32": lambda f, st, mem, v, param, n: hexval(v & 0xffffffff),
    "ptr": lambda f, st, mem, v, param, n: pointer(v),
    "fd": lambda f, st, mem, v, param, n: f.fd(v),
    "dirfd": lambda f, st, mem, v, param, n: f.dirfd(v),
    "uid": lambda f, st, mem, v, param, n: id_text(v),
    "gid": lambda f, st, mem, v, param, n: id_text(v),
    "path": lambda f, st, mem, v, param, n: f.path(mem, v),
    "str": lambda f, st, mem, v, param, n: f.cstr(mem, v),
    "buf_in": lambda f, st, mem, v, param, n: f.buf(mem, v, n),
    "flags": lambda f, st, mem, v, param, n: _flags(param, v),
    "enum": lambda f, st, mem, v, param, n: _enum(param, v),
    "mode": lambda f, st, mem, v, param, n: _x.octal(v & 0xffff),
    "fmode": lambda f, st, mem, v, param, n: _x.format_mode(v),
    "octal": lambda f, st, mem, v, param, n: _x.octal(v & 0xffffffff),
    "dev": lambda f, st, mem, v, param, n: _x.format_dev(v),
    "struct_in": lambda f, st, mem, v, param, n: f.struct(param, mem, v),
    "signo": lambda f, st, mem, v, param, n: _signo(s32(v)),
    "sigset_in": lambda f, st, mem, v, param, n: f.sigset(mem, v, n if param is not None else 8),
    "iovec_in": lambda f, st, mem, v, param, n: f.iovec(mem, v, n, -1),
    "iovec_remote": lambda f, st, mem, v, param, n: f.iovec(mem, v, n, -1, contents=False),
    "off_in": lambda f, st, mem, v, param, n: f.scalar_ptr(mem, v, "long_out"),
}
DEFAULT = AT_ENTRY["long"]           # (a kind no table names)


# Output arguments, rendered when the call returns from the memory it wrote; a failed call shows
# the pointer instead: (formatter, memory, value, param, n, base kind, result) -> text.
AT_EXIT = {
    # (recv* with MSG_TRUNC returns a datagram's whole length: only the buffer's size was written)
    "buf_out": lambda f, m, v, param, n, base, ret: f.buf(m, v, ret if n is None else min(ret, n)),
    "struct_out": lambda f, m, v, param, n, base, ret: f.struct(param, m, v),
    "sigset_out": lambda f, m, v, param, n, base, ret: f.sigset(m, v, n if param is not None else 8),
    "iovec_out": lambda f, m, v, param, n, base, ret: f.iovec(m, v, n, ret),
    "fdpair_out": lambda f, m, v, param, n, base, ret: f.fdpair(m, v),
    **dict.fromkeys(("int_out", "uint_out", "uid_out", "long_out", "ulong_out", "ptr_out"),
                    lambda f, m, v, param, n, base, ret: f.scalar_ptr(m, v, base)),
}


# Kinds with their own protocol: (formatter, state, memory, value, param, index, base kind).
def _k_off_io(f, st, mem, v, param, i, base):
    st.a.split(f.scalar_ptr(mem, v, "long_out"),
               lambda ret, m, v=v: "" if v == 0 or is_error(ret) else " => " + f.scalar_ptr(m, v, "long_out"))


BY_HAND = {"off_io": _k_off_io}
