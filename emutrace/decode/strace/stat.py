"""File status (strace's stat.c, statx.c, statfs.c): stat, statx, statfs."""
from __future__ import annotations

from emutrace.kernel.layouts import STAT, STATX
from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import hexval
from emutrace.decode.strace.fields import StructText, decoders, flags


def _is_device(values) -> bool:
    return values["st_mode"] & 0o170000 in (0o020000, 0o060000)         # S_ISCHR, S_ISBLK


# strace's abbreviated stat: the type and mode, then the device of a device file, else the size
STAT_TEXT = StructText("stat", STAT.size, [
    ("st_mode", STAT.offset("st_mode"), "I", _x.format_mode),
    ("st_rdev", STAT.offset("st_rdev"), "Q", _x.format_stat_dev, _is_device),
    ("st_size", STAT.offset("st_size"), "q", str, lambda values: not _is_device(values))], more=True)
# ... and statx: the fields its mask says were filled
STATX_TEXT = StructText("statx", STATX.size, [
    ("stx_mask", STATX.offset("stx_mask"), "I", flags("statx_mask")),
    ("stx_attributes", STATX.offset("stx_attributes"), "Q", flags("statx_attrs")),
    ("stx_mode", STATX.offset("stx_mode"), "H", _x.format_mode, lambda values: values["stx_mask"] & 3),
    ("stx_size", STATX.offset("stx_size"), "Q", str, lambda values: values["stx_mask"] & 0x200)],
    more=True)


def _fs_magic(v: int) -> str:
    return _x.lookup("fs_magic", v & 0xffffffff) or hexval(v)


STATFS = StructText("statfs", 120, [
    ("f_type", 0, "q", _fs_magic), ("f_bsize", 8, "q"), ("f_blocks", 16, "Q"), ("f_bfree", 24, "Q"),
    ("f_bavail", 32, "Q"), ("f_files", 40, "Q"), ("f_ffree", 48, "Q"),
    ("f_fsid", 56, "2I", lambda val: f"{{val=[{hexval(val[0])}, {hexval(val[1])}]}}"),
    ("f_namelen", 64, "q"), ("f_frsize", 72, "q"), ("f_flags", 80, "q", flags("statfs_flags"))])


STRUCTS = decoders(STAT_TEXT, STATX_TEXT, STATFS)
