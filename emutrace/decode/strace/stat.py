"""File status (strace's stat.c, statx.c, statfs.c): stat, statx, statfs."""
from __future__ import annotations

from emutrace.kernel.layouts import STAT, STATX
from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import hexval, time_comment
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


def styled(raw: str, abbrev: str) -> str:
    """A constant as -X prints it: its name (abbrev), its number (raw), or both (verbose)."""
    style = _x.STYLE.xlat
    return abbrev if style == "abbrev" else raw if style == "raw" else f"{raw} /* {abbrev} */"


def _time(name: str, sec: int, nsec: int, local: bool) -> str:
    """st_atime=SEC /* DATE */, st_atime_nsec=NSEC (strace -v)."""
    return f"{name}={sec}{time_comment(sec, nsec, local=local)}, {name}_nsec={nsec}"


def stat_verbose(v, local: bool = False) -> str:
    """strace -v's struct stat: every field (device files show st_rdev instead of st_size)."""
    mode = v["st_mode"]
    parts = [f"st_dev={styled(hexval(v['st_dev']), _x.format_stat_dev(v['st_dev']))}", f"st_ino={v['st_ino']}",
             f"st_mode={styled(_x.octal(mode & 0xffff) if mode & 0o170000 else _x.octal(mode), _x.format_mode(mode))}",
             f"st_nlink={v['st_nlink']}", f"st_uid={v['st_uid']}", f"st_gid={v['st_gid']}",
             f"st_blksize={v['st_blksize']}", f"st_blocks={v['st_blocks']}"]
    if _is_device(v):
        parts.append(f"st_rdev={styled(hexval(v['st_rdev']), _x.format_stat_dev(v['st_rdev']))}")
    else:
        parts.append(f"st_size={v['st_size']}")
    for t in ("st_atime", "st_mtime", "st_ctime"):
        parts.append(_time(t, v[t], v[t + "_nsec"], local))
    return "{" + ", ".join(parts) + "}"


def _d_stat(f, data: bytes, mem) -> str:
    if getattr(f, "verbose", False):
        return stat_verbose(STAT.unpack(data), f.localtime)
    return STAT_TEXT.text(data)


STRUCTS = {**decoders(STATX_TEXT, STATFS), "stat": (STAT.size, _d_stat)}
