"""Files and directories (strace's open.c, dirent.c, utimes.c, mknod.c, mount.c, sendfile.c):
paths written back, directory entries, file times, open_how, mount attributes."""
from __future__ import annotations

import struct

from emutrace.machine.words import s32
from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import (PATH_MAX, cstr_n, date_text, hexval, is_error, pointer, quote_string, read_bytes,
                                           nonzero_tail, time_comment)
from emutrace.decode.strace.fields import TIMESPEC, TIMEVAL, StructText, decoders, flags


def path_out(f, mem, addr, ret):
    if is_error(ret) or ret <= 0:
        return pointer(addr)
    n = min(ret - 1, PATH_MAX)
    data = read_bytes(mem, addr, n)
    return pointer(addr) if data is None else quote_string(data)


D_NAME_LEN_MAX = 256              # strace prints at most this much of a name


def _dirent_name(data: bytes) -> str:
    """printpathn(name, n): up to its NUL; '...' when n bytes hold none."""
    end = data.find(b"\0")
    return quote_string(data[:end]) if end >= 0 else quote_string(data[:-1]) + "..."


def _dirents_full(f, data: bytes, kind: str) -> str:
    """strace -v: every entry. linux_dirent's type is the last byte of its record, after the
    name; linux_dirent64 has it before the name (and strace prints it there)."""
    head = 19 if kind == "dirents64" else 18
    items, off = [], 0
    while len(data) - off >= head:
        ino, d_off, reclen = struct.unpack_from("<QqH", data, off)
        reclen = max(min(reclen, len(data) - off), head)
        text = f"{{d_ino={ino}, d_off={d_off}, d_reclen={reclen}"
        tail = data[off + head:off + reclen]
        if kind == "dirents64":
            text += f", d_type={_x.format_enum('dirent_types', data[off + 18])}"
            if tail:
                text += f", d_name={_dirent_name(tail[:D_NAME_LEN_MAX])}"
        elif tail:
            if len(tail) > 1:
                text += f", d_name={_dirent_name(tail[:-1][:D_NAME_LEN_MAX])}"
            text += f", d_type={_x.format_enum('dirent_types', tail[-1])}"
        items.append(text + "}")
        off += reclen
    rest = len(data) - off
    if rest:
        items.append(quote_string(data[off:off + min(rest, f.string_limit)], force_hex=True)
                     + ("..." if rest > f.string_limit else ""))
    return "[" + ", ".join(items) + "]"


def dirents(f, mem, addr: int, size: int, kind: str) -> str:
    n = 0
    off = 0
    data = read_bytes(mem, addr, size) if size > 0 else b""
    if data is None:
        return hexval(addr)
    if f.verbose:
        return _dirents_full(f, data, kind)
    while off + 18 <= len(data):
        reclen = struct.unpack_from("<H", data, off + 16)[0]
        if reclen == 0:
            break
        n += 1
        off += reclen
    return f"{hexval(addr)} /* {n} entries */"


def _utimes_tv(b: bytes, lt: bool) -> str:
    """One timeval of utimes/futimesat, with its date."""
    sec, usec = struct.unpack("<qq", b)
    return TIMEVAL.text(b) + time_comment(sec, usec, 999999, 6, lt)


def _d_timeval_pair(f, b, mem):
    return f"[{_utimes_tv(b[:16], f.localtime)}, {_utimes_tv(b[16:], f.localtime)}]"


def _utimens_ts(b: bytes, lt: bool) -> str:
    """One timespec of utimensat: UTIME_NOW, UTIME_OMIT or a time with its date."""
    sec, nsec = struct.unpack("<qq", b)
    if nsec in (0x3fffffff, 0x3ffffffe):       # (constants of their set under -X)
        name = "UTIME_NOW" if nsec == 0x3fffffff else "UTIME_OMIT"
        style = _x.STYLE.xlat
        return name if style == "abbrev" else TIMESPEC.text(b) + ("" if style == "raw" else f" /* {name} */")
    return TIMESPEC.text(b) + time_comment(sec, nsec, local=lt)


def _d_timespec_pair(f, b, mem):
    return f"[{_utimens_ts(b[:16], f.localtime)}, {_utimens_ts(b[16:], f.localtime)}]"


def _d_utimbuf(f, b, mem):
    a, m = struct.unpack("<qq", b)
    lt = f.localtime
    return (f"{{actime={a} /* {date_text(a, local=lt)} */, "
            f"modtime={m} /* {date_text(m, local=lt)} */}}")


OPEN_HOW = StructText("open_how", 24, [
    ("flags", 0, "Q", flags("open_how_flags")),
    # the mode with O_CREAT or O_TMPFILE (or when set anyway); the resolve flags always
    ("mode", 8, "Q", _x.octal, lambda values: values["flags"] & (0x40 | 0x400000) or values["mode"]),
    ("resolve", 16, "Q", flags("resolve_flags"))])


FILE_ATTR_SIZE_VER0 = 24        # struct file_attr as strace knows it
_FILE_ATTR_SET = StructText("file_attr", 24, [
    ("fa_xflags", 0, "Q", flags("fs_xflags")), ("fa_extsize", 8, "I"), ("fa_projid", 16, "I", hexval),
    ("fa_cowextsize", 20, "I")])
_FILE_ATTR_GET = StructText("file_attr", 24, [
    ("fa_xflags", 0, "Q", flags("fs_xflags")), ("fa_extsize", 8, "I"), ("fa_nextents", 12, "I"),
    ("fa_projid", 16, "I", hexval), ("fa_cowextsize", 20, "I")])


def _file_attr(f, mem, addr: int, size: int, shape) -> str:
    """strace's decode_file_attr: the address when size is below the first version or above a
    page, else the fields and the nonzero bytes of a bigger struct ('???' when unreadable)."""
    if size < FILE_ATTR_SIZE_VER0 or size > 4096:
        return pointer(addr)
    data = read_bytes(mem, addr, FILE_ATTR_SIZE_VER0)
    if data is None:
        return pointer(addr)
    tail = nonzero_tail(f, mem, addr, FILE_ATTR_SIZE_VER0, size)
    return shape.text(data)[:-1] + (", " + tail if tail else "") + "}"


def _c_file_attr(f, st, mem):
    """file_getattr/file_setattr(dirfd, path, attr, size, flags): getattr's attr at exit."""
    dirfd, path, attr, size, fl = st.args[:5]
    a = st.a
    a.now(f.dirfd(dirfd))
    a.now(f.path(mem, path))
    if st.name == "file_setattr":
        a.now(_file_attr(f, mem, attr, size, _FILE_ATTR_SET))
        a.now(str(size))
        a.now(_x.format_flags("at_nofollow_empty_flags", fl & 0xffffffff))
    else:
        # (a failed call wrote nothing: strace's umoven_or_printaddr prints the address)
        a.later(lambda ret, m: pointer(attr) if is_error(ret) else _file_attr(f, m, attr, size, _FILE_ATTR_GET))
        a.later(lambda ret, m: str(size))
        a.later(lambda ret, m: _x.format_flags("at_nofollow_empty_flags", fl & 0xffffffff))


def _c_openat2(f, st, mem):
    """openat2(dirfd, path, how, size): how as strace's print_open_how (the address when size is
    below the first open_how's 24 bytes; the nonzero bytes of a bigger one after the fields)."""
    dirfd, path, how, size = st.args[:4]
    a = st.a
    a.now(f.dirfd(dirfd))
    a.now(f.path(mem, path))
    data = read_bytes(mem, how, 24) if size >= 24 and how else None
    if data is None:
        a.now(hexval(how) if how else "NULL")
    else:
        text = OPEN_HOW.text(data)
        tail = nonzero_tail(f, mem, how, 24, size)
        a.now(text[:-1] + (", " + tail if tail else "") + "}")
    a.now(str(size))


def _c_sendfile(f, st, mem):
    out_fd, in_fd, off, count = st.args[:4]
    a = st.a
    a.now(f.fd(out_fd))
    a.now(f.fd(in_fd))
    if off == 0:
        a.now("NULL")
    else:
        a.split(f.scalar_ptr(mem, off, "long_out"),
                lambda ret, m: "" if is_error(ret) else " => " + f.scalar_ptr(m, off, "long_out"))
    a.now(str(count))


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


def _k_path_out(f, st, mem, v, param, i, base):
    st.a.later(lambda ret, m, v=v: path_out(f, m, v, ret))


def _k_open_mode(f, st, mem, v, param, i, base):
    if st.args[i - 1] & (0x40 | 0x400000):          # O_CREAT | O_TMPFILE: only then is there a mode
        st.a.now(_x.octal(v & 0xffff))


CACHESTAT_RANGE = StructText("cachestat_range", 16, [("off", 0, "Q", hexval), ("len", 8, "Q")])
CACHESTAT = StructText("cachestat", 40, [("nr_cache", 0, "Q"), ("nr_dirty", 8, "Q"), ("nr_writeback", 16, "Q"),
                                         ("nr_evicted", 24, "Q"), ("nr_recently_evicted", 32, "Q")])


def _fan_dirfd(f, st, mem, v, param, n) -> str:
    """fanotify_mark's dirfd: FAN_NOFD (-1) is a constant of its set, -X prints it as one."""
    if s32(v) != -1:
        return f.dirfd(v)
    style = _x.STYLE.xlat
    return "FAN_NOFD" if style == "abbrev" else "-1" if style == "raw" else "-1 /* FAN_NOFD */"


_MS_MGC_VAL, _MS_MGC_MSK = 0xc0ed0000, 0xffff0000
_MS_REMOUNT, _MS_NO_TYPE_OR_DATA = 0x20, 0x1000 | 0x2000 | 0x100000 | 0x40000 | 0x80000 | 0x20000


def _c_mount(f, st, mem):
    """strace's mount.c: the old magic MS_MGC_VAL apart from the flags; the type is an address
    for a remount, type and data are addresses for bind, move and propagation changes."""
    a = st.a
    src, target, fstype, flags, data = st.args[:5]
    magic = flags & _MS_MGC_MSK == _MS_MGC_VAL
    if magic:
        flags &= ~_MS_MGC_MSK
    no_type = bool(flags & (_MS_REMOUNT | _MS_NO_TYPE_OR_DATA))
    no_data = not flags & _MS_REMOUNT and bool(flags & _MS_NO_TYPE_OR_DATA)
    a.now(f.path(mem, src))
    a.now(f.path(mem, target))
    a.now(pointer(fstype) if no_type else f.cstr(mem, fstype))
    parts = []
    if magic:
        style = _x.STYLE.xlat
        parts.append("MS_MGC_VAL" if style == "abbrev" else hexval(_MS_MGC_VAL) if style == "raw"
                     else f"{hexval(_MS_MGC_VAL)} /* MS_MGC_VAL */")
    if flags or not magic:
        parts.append(_x.format_flags("mount_flags", flags))
    a.now("|".join(parts))
    a.now(pointer(data) if no_data else f.cstr(mem, data))


MFD_NAME_MAX = 255 - len("memfd:")          # (the kernel's limit on memfd_create's name)


def _c_memfd_create(f, st, mem):
    """memfd_create(name, flags): strace reads the name up to the kernel's limit and a byte."""
    a = st.a
    a.now(cstr_n(f, mem, st.args[0], MFD_NAME_MAX + 1))
    a.now(_x.format_flags("memfd_create_flags", st.args[1] & 0xffffffff))


CALLS = {"memfd_create": _c_memfd_create, "openat2": _c_openat2, "file_getattr": _c_file_attr, "file_setattr": _c_file_attr, "sendfile": _c_sendfile, "mknod": _c_mknod, "mknodat": _c_mknod, "mount": _c_mount}
STRUCTS = {"timeval_pair": (32, _d_timeval_pair), "timespec_pair": (32, _d_timespec_pair),
           "utimbuf": (16, _d_utimbuf), **decoders(OPEN_HOW, CACHESTAT_RANGE, CACHESTAT)}
AT_ENTRY = {"fan_dirfd": _fan_dirfd}
AT_EXIT = {
    "dirents": lambda f, m, v, param, n, base, ret: dirents(f, m, v, ret, base),
    "dirents64": lambda f, m, v, param, n, base, ret: dirents(f, m, v, ret, base),
}
BY_HAND = {"path_out": _k_path_out, "open_mode": _k_open_mode}
