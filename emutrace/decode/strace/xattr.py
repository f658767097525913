"""Extended attributes (strace's xattr.c): a value is a counted string shown without its
trailing NUL, or its address past XATTR_SIZE_MAX."""
from __future__ import annotations

import struct

from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import hexval, is_error, nonzero_tail, pointer, quote_string, read_bytes

_XATTR_SIZE_MAX = 65536


def value(f, mem, addr: int, size: int) -> str:
    """print_xattr_val: printstr_ex(addr, size, QUOTE_OMIT_TRAILING_0)."""
    if size > _XATTR_SIZE_MAX or addr == 0:
        return pointer(addr)
    data = read_bytes(mem, addr, min(size, f.string_limit + 1))
    if data is None:
        return hexval(addr)
    data = data[:f.string_limit]
    if data.endswith(b"\0"):
        data = data[:-1]
    return quote_string(data) + ("..." if size > f.string_limit else "")


def _c_setxattr(f, st, mem):
    a, args = st.a, st.args
    a.now(f.fd(args[0]) if st.name == "fsetxattr" else f.path(mem, args[0]))
    a.now(f.cstr(mem, args[1]))
    a.now(value(f, mem, args[2], args[3]))
    a.now(str(args[3]))
    a.now(_x.format_flags("xattr_flags", args[4] & 0xffffffff))


def _c_getxattr(f, st, mem):
    a, args = st.a, st.args
    a.now(f.fd(args[0]) if st.name == "fgetxattr" else f.path(mem, args[0]))
    a.now(f.cstr(mem, args[1]))
    if args[3] == 0:
        a.now(pointer(args[2]))
    else:
        a.later(lambda ret, m: pointer(args[2]) if is_error(ret) else value(f, m, args[2], ret))
    a.now(str(args[3])) if args[3] == 0 else a.later(lambda ret, m: str(args[3]))


def _c_listxattr(f, st, mem):
    a, args = st.a, st.args
    a.now(f.fd(args[0]) if st.name == "flistxattr" else f.path(mem, args[0]))
    a.later(lambda ret, m: pointer(args[1]) if is_error(ret) or not args[2] else f.buf(m, args[1], ret))
    a.later(lambda ret, m: str(args[2]))


_XATTR_ARGS_SIZE_VER0 = 16         # struct xattr_args {__u64 value; __u32 size; __u32 flags;}


def _c_setxattrat(f, st, mem):
    """dirfd, path, flags, name, then struct xattr_args with its value as setxattr's, and the
    nonzero bytes of a bigger struct (strace's print_xattr_args)."""
    a, args = st.a, st.args
    a.now(f.dirfd(args[0]))
    a.now(f.path(mem, args[1]))
    a.now(_x.format_flags("at_nofollow_empty_flags", args[2] & 0xffffffff))
    a.now(f.cstr(mem, args[3]))
    addr, size = args[4], args[5]
    data = read_bytes(mem, addr, min(size, _XATTR_ARGS_SIZE_VER0)) if size >= _XATTR_ARGS_SIZE_VER0 else None
    if data is None:
        a.now(pointer(addr))
    else:
        vaddr, vsize, vflags = struct.unpack("<QII", data)
        text = (f"{{value={value(f, mem, vaddr, vsize)}, "
                f"size={vsize}, flags={_x.format_flags('xattr_flags', vflags)}")
        tail = nonzero_tail(f, mem, addr, _XATTR_ARGS_SIZE_VER0, size) if size > _XATTR_ARGS_SIZE_VER0 else ""
        a.now(text + (", " + tail if tail else "") + "}")
    a.now(str(size))


CALLS = {"setxattrat": _c_setxattrat,
**dict.fromkeys(("listxattr", "llistxattr", "flistxattr"), _c_listxattr),
**dict.fromkeys(("setxattr", "lsetxattr", "fsetxattr"), _c_setxattr),
         **dict.fromkeys(("getxattr", "lgetxattr", "fgetxattr"), _c_getxattr)}
