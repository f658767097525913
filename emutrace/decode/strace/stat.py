"""File status (strace's stat.c, statx.c, statfs.c): stat, statx, statfs."""
from __future__ import annotations

from ...kernel.layouts import STAT, STATX
from .. import xlat as _x
from .common import hexval
from .fields import StructText, decoders, flags


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


def _fs_magic(v: int) -> str:
    return _x.lookup("fs_magic", v & 0xffffffff) or hexval(v)


STATFS = StructText("statfs", 120, [
    ("f_type", 0, "q", _fs_magic), ("f_bsize", 8, "q"), ("f_blocks", 16, "Q"), ("f_bfree", 24, "Q"),
    ("f_bavail", 32, "Q"), ("f_files", 40, "Q"), ("f_ffree", 48, "Q"),
    ("f_fsid", 56, "2I", lambda val: f"{{val=[{hexval(val[0])}, {hexval(val[1])}]}}"),
    ("f_namelen", 64, "q"), ("f_frsize", 72, "q"), ("f_flags", 80, "q", flags("statfs_flags"))])


STRUCTS = {"stat": (STAT.size, _d_stat), "statx": (STATX.size, _d_statx), **decoders(STATFS)}
