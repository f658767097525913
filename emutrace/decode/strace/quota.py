"""Disk quotas (strace's quota.c): quotactl and quotactl_fd, whose last two arguments mean what
the command says (a format, a uid, a path, a struct in or out, or nothing at all)."""
from __future__ import annotations

from emutrace.decode import xlat as _x
from emutrace.decode.xlatcore import STYLE
from emutrace.decode.strace.common import hexval, is_error, pointer, read_bytes
from emutrace.decode.strace.fields import StructText, flags

# The command's number within QCMD (cmd << 8 | type): Linux's include/uapi/linux/quota.h and
# dqblk_xfs.h (XQM_CMD(x) = 'X' << 8 | x).
_Q = {name: _x.SETS["quotactl_cmds"].names()[name] for name in (
    "Q_SYNC", "Q_QUOTAON", "Q_QUOTAOFF", "Q_GETFMT", "Q_GETINFO", "Q_SETINFO", "Q_GETQUOTA",
    "Q_SETQUOTA", "Q_GETNEXTQUOTA", "Q_XQUOTAON", "Q_XQUOTAOFF", "Q_XGETQUOTA", "Q_XSETQLIM",
    "Q_XGETQSTAT", "Q_XQUOTARM", "Q_XQUOTASYNC", "Q_XGETQSTATV", "Q_XGETNEXTQUOTA")}


def _uid(v: int) -> str:
    return "-1" if v == 0xffffffff else str(v)


def _abbrev_names(fn):
    """Names printed as -X abbrev whatever the style (strace's printxvals_ex(..., XLAT_STYLE_ABBREV))."""
    style = STYLE.xlat
    STYLE.xlat = "abbrev"
    try:
        return fn()
    finally:
        STYLE.xlat = style


def qcmd_text(qcmd: int) -> str:
    """QCMD(Q_SYNC, USRQUOTA); -X raw: the number in decimal; -X verbose: both."""
    qcmd &= 0xffffffff
    style = STYLE.xlat
    if style == "raw":
        return str(qcmd)
    names = _abbrev_names(lambda: f"QCMD({_x.format_enum('quotactl_cmds', qcmd >> 8)}, "
                                  f"{_x.format_enum('quota_types', qcmd & 0xff)})")
    return f"{qcmd} /* {names} */" if style == "verbose" else names


def _pair(name: str, size: int, head: list, tail: list, after: list = ()):
    """The struct as strace prints it without -v (head and after, then '...') and with -v (all)."""
    return (StructText(name, size, head + list(after), more=True),
            StructText(name, size, head + tail + list(after)))


_DQBLK_HEAD = [("dqb_bhardlimit", 0, "Q"), ("dqb_bsoftlimit", 8, "Q"), ("dqb_curspace", 16, "Q"),
               ("dqb_ihardlimit", 24, "Q"), ("dqb_isoftlimit", 32, "Q"), ("dqb_curinodes", 40, "Q")]
_DQBLK_TAIL = [("dqb_btime", 48, "Q"), ("dqb_itime", 56, "Q"), ("dqb_valid", 64, "I", flags("if_dqblk_valid"))]
IF_DQBLK = _pair("if_dqblk", 68, _DQBLK_HEAD, _DQBLK_TAIL)
IF_NEXTDQBLK = _pair("if_nextdqblk", 72, _DQBLK_HEAD, _DQBLK_TAIL, [("dqb_id", 68, "I")])
IF_DQINFO = StructText("if_dqinfo", 24, [
    ("dqi_bgrace", 0, "Q"), ("dqi_igrace", 8, "Q"), ("dqi_flags", 16, "I", flags("if_dqinfo_flags")),
    ("dqi_valid", 20, "I", flags("if_dqinfo_valid"))])
FS_DISK_QUOTA = _pair("fs_disk_quota", 112, [
    ("d_version", 0, "b"), ("d_flags", 1, "B", flags("xfs_dqblk_flags")),
    ("d_fieldmask", 2, "H", hexval), ("d_id", 4, "I"), ("d_blk_hardlimit", 8, "Q"),
    ("d_blk_softlimit", 16, "Q"), ("d_ino_hardlimit", 24, "Q"), ("d_ino_softlimit", 32, "Q"),
    ("d_bcount", 40, "Q"), ("d_icount", 48, "Q")], [
    ("d_itimer", 56, "i"), ("d_btimer", 60, "i"), ("d_iwarns", 64, "H"), ("d_bwarns", 66, "H"),
    ("d_rtb_hardlimit", 72, "Q"), ("d_rtb_softlimit", 80, "Q"), ("d_rtbcount", 88, "Q"),
    ("d_rtbtimer", 96, "i"), ("d_rtbwarns", 100, "H")])
_FILESTAT = StructText("fs_qfilestat", 20, [("qfs_ino", 0, "Q"), ("qfs_nblks", 8, "Q"),
                                            ("qfs_nextents", 16, "I")])
FS_QUOTA_STAT = _pair("fs_quota_stat", 80, [("qs_version", 0, "b")], [
    ("qs_flags", 2, "H", flags("xfs_quota_flags")), ("qs_uquota", 8, _FILESTAT),
    ("qs_gquota", 32, _FILESTAT), ("qs_incoredqs", 56, "I"), ("qs_btimelimit", 60, "i"),
    ("qs_itimelimit", 64, "i"), ("qs_rtbtimelimit", 68, "i"), ("qs_bwarnlimit", 72, "H"),
    ("qs_iwarnlimit", 74, "H")])
FS_QUOTA_STATV = _pair("fs_quota_statv", 160, [("qs_version", 0, "b")], [
    ("qs_flags", 2, "H", flags("xfs_quota_flags")), ("qs_incoredqs", 4, "I"),
    ("qs_uquota", 8, _FILESTAT), ("qs_gquota", 32, _FILESTAT), ("qs_pquota", 56, _FILESTAT),
    ("qs_btimelimit", 80, "i"), ("qs_itimelimit", 84, "i"), ("qs_rtbtimelimit", 88, "i"),
    ("qs_bwarnlimit", 92, "H"), ("qs_iwarnlimit", 94, "H")])


def _struct(f, mem, addr: int, pair, ret=None) -> str:
    """umove_or_printaddr: NULL, the address (unreadable, or the call failed at exit), or the
    struct, abbreviated without -v."""
    if addr == 0:
        return "NULL"
    if ret is not None and is_error(ret):
        return hexval(addr)
    layout = pair[1] if f.verbose else pair[0]
    data = read_bytes(mem, addr, layout.size)
    return hexval(addr) if data is None else layout.text(data)


def _u32_in(f, mem, addr: int, set_name: str, ret=None) -> str:
    if addr == 0:
        return "NULL"
    if ret is not None and is_error(ret):
        return hexval(addr)
    data = read_bytes(mem, addr, 4)
    if data is None:
        return hexval(addr)
    v = int.from_bytes(data, "little")
    return "[" + (_x.format_flags(set_name, v) if _x.SETS[set_name].flags else
                  _x.format_enum(set_name, v)) + "]"


def _cmd_data(f, st, mem, cmd: int, ident: int, data: int):
    """strace's decode_cmd_data: what follows the command, by the command."""
    a, q = st.a, _Q
    ident &= 0xffffffff
    if cmd in (q["Q_QUOTAOFF"], q["Q_SYNC"], q["Q_XQUOTASYNC"]):
        return
    if cmd == q["Q_QUOTAON"]:
        a.now(_x.format_enum("quota_formats", ident))
        a.now(f.path(mem, data))
    elif cmd == q["Q_SETQUOTA"]:
        a.now(_uid(ident))
        a.now(_struct(f, mem, data, IF_DQBLK))
    elif cmd == q["Q_XSETQLIM"]:
        a.now(_uid(ident))
        a.now(_struct(f, mem, data, FS_DISK_QUOTA))
    elif cmd in (q["Q_GETQUOTA"], q["Q_XGETQUOTA"], q["Q_XGETNEXTQUOTA"]):
        layout = IF_DQBLK if cmd == q["Q_GETQUOTA"] else FS_DISK_QUOTA
        a.now(_uid(ident))
        a.later(lambda ret, m: _struct(f, m, data, layout, ret=ret))
    elif cmd == q["Q_GETNEXTQUOTA"]:
        a.now(_uid(ident))
        a.later(lambda ret, m: _struct(f, m, data, IF_NEXTDQBLK, ret=ret))
    elif cmd == q["Q_GETFMT"]:
        a.later(lambda ret, m: _u32_in(f, m, data, "quota_formats", ret))
    elif cmd == q["Q_GETINFO"]:
        a.later(lambda ret, m: _dqinfo(f, m, data, ret))
    elif cmd == q["Q_SETINFO"]:
        a.now(_dqinfo(f, mem, data))
    elif cmd in (q["Q_XGETQSTAT"], q["Q_XGETQSTATV"]):
        layout = FS_QUOTA_STAT if cmd == q["Q_XGETQSTAT"] else FS_QUOTA_STATV
        a.later(lambda ret, m: _struct(f, m, data, layout, ret=ret))
    elif cmd in (q["Q_XQUOTAON"], q["Q_XQUOTAOFF"]):
        a.now(_u32_in(f, mem, data, "xfs_quota_flags"))
    elif cmd == q["Q_XQUOTARM"]:
        a.now(_u32_in(f, mem, data, "xfs_dqblk_flags"))
    else:
        a.now(_uid(ident))
        a.now(pointer(data))


def _dqinfo(f, mem, addr: int, ret=None) -> str:
    if addr == 0:
        return "NULL"
    if ret is not None and is_error(ret):
        return hexval(addr)
    data = read_bytes(mem, addr, IF_DQINFO.size)
    return hexval(addr) if data is None else IF_DQINFO.text(data)


def _c_quotactl(f, st, mem):
    qcmd = st.args[0] & 0xffffffff
    st.a.now(qcmd_text(qcmd))
    st.a.now(f.path(mem, st.args[1]))
    _cmd_data(f, st, mem, qcmd >> 8, st.args[2], st.args[3])


def _c_quotactl_fd(f, st, mem):
    qcmd = st.args[1] & 0xffffffff
    st.a.now(f.fd(st.args[0]))
    st.a.now(qcmd_text(qcmd))
    _cmd_data(f, st, mem, qcmd >> 8, st.args[2], st.args[3])


CALLS = {"quotactl": _c_quotactl, "quotactl_fd": _c_quotactl_fd}
