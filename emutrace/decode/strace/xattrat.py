"""Extended attributes by descriptor and path (strace's xattr.c, Linux 6.13's *xattrat calls):
struct xattr_args {value, size, flags}, its value decoded as the call's result says."""
from __future__ import annotations

import struct

from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import is_error, nonzero_tail, pointer, quote_string, read_bytes

XATTR_ARGS_SIZE_VER0 = 16             # struct xattr_args as Linux 6.13 defined it
XATTR_SIZE_MAX = 65536                # a longer value is shown as its address


def xattr_value(f, mem, addr: int, size: int) -> str:
    """strace's print_xattr_val: printstr_ex(value, size, QUOTE_OMIT_TRAILING_0)."""
    if size > XATTR_SIZE_MAX or addr == 0:
        return pointer(addr)
    limit = f.string_limit
    data = read_bytes(mem, addr, min(limit + 1, size))
    if data is None:
        return pointer(addr)
    shown = data[:min(size, limit)]
    if shown.endswith(b"\0"):
        shown = shown[:-1]
    return quote_string(shown) + ("..." if size > limit else "")


def xattr_args(f, mem, addr: int, size: int, fields, value_size=None) -> str:
    """{value=..., size=N, flags=XATTR_...} and the bytes of a bigger struct; value_size None
    shows the value as an address (the call has not written it yet)."""
    value, vsize, flags = fields
    text = pointer(value) if value_size is None else xattr_value(f, mem, value, value_size)
    parts = [f"value={text}", f"size={vsize}", f"flags={_x.format_flags('xattr_flags', flags)}"]
    if size > XATTR_ARGS_SIZE_VER0:
        tail = nonzero_tail(f, mem, addr, XATTR_ARGS_SIZE_VER0, size)
        if tail:
            parts.append(tail)
    return "{" + ", ".join(parts) + "}"


def read_xattr_args(mem, addr: int, size: int):
    """The struct's three fields, or None when strace prints only the address."""
    if size < XATTR_ARGS_SIZE_VER0:
        return None
    data = read_bytes(mem, addr, XATTR_ARGS_SIZE_VER0)
    return None if data is None else struct.unpack("<QII", data)


def _dirfd_path_flags_name(f, st, mem):
    a = st.a
    a.now(f.dirfd(st.args[0]))
    a.now(f.path(mem, st.args[1]))
    a.now(_x.format_flags("at_nofollow_empty_flags", st.args[2] & 0xffffffff))
    a.now(f.cstr(mem, st.args[3]))


def _c_getxattrat(f, st, mem):
    """getxattrat(dirfd, path, flags, name, args, size): a value the call writes is shown at
    exit, as many bytes as it returned."""
    addr, size = st.args[4], st.args[5]
    a = st.a
    _dirfd_path_flags_name(f, st, mem)
    fields = read_xattr_args(mem, addr, size)
    if fields is None:
        a.now(pointer(addr))
    elif fields[1]:
        a.later(lambda ret, m: xattr_args(f, m, addr, size, fields,
                                          XATTR_SIZE_MAX + 1 if is_error(ret) else ret))
    else:
        a.now(xattr_args(f, mem, addr, size, fields))
    a.now(str(size))


CALLS = {"getxattrat": _c_getxattrat}
