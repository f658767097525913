"""File control (strace's fcntl.c): fcntl's commands and their locks and owners."""
from __future__ import annotations

from emutrace.machine.words import s32
from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import hexval, is_error, pointer
from emutrace.decode.strace.fields import StructText, decoders, enum


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
        a.now(str(s32(arg)))
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
        a.later(lambda ret, m: pointer(arg) if is_error(ret) else
                (f.struct("flock", m, arg, with_pid=True)))
    elif cmd in (6, 7, 13, 14, 37, 38):
        a.now(f.struct("flock", mem, arg))
    elif cmd == 8:                                # F_SETOWN
        a.now(str(s32(arg)))
    elif cmd == 10:                               # F_SETSIG
        a.now(_x.signal_name(s32(arg)))
    elif cmd == 15:                               # F_SETOWN_EX
        a.now(f.struct("f_owner_ex", mem, arg))
    elif cmd == 16:                               # F_GETOWN_EX
        a.later(lambda ret, m: pointer(arg) if is_error(ret) else f.struct("f_owner_ex", m, arg))
    elif cmd == 1024:                             # F_SETLEASE
        a.now(_x.format_enum("lockfcmds", arg & 0xffffffff))
    elif cmd == 1025:                             # F_GETLEASE
        st.ret_kind = "hex"
        st.aux = lambda ret, m: _x.format_enum("lockfcmds", ret & 0xffffffff)
    elif cmd == 1026:                             # F_NOTIFY
        a.now(_x.format_flags("notifyflags", arg & 0xffffffff))
    elif cmd == 1031:                             # F_SETPIPE_SZ
        a.now(str(s32(arg)))
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
        a.now(hexval(arg))


# F_GETLK's answer names the process holding the lock; the other commands' structs do not
_FLOCK_FIELDS = [("l_type", 0, "H", enum("lockfcmds")), ("l_whence", 2, "H", enum("whence")),
                 ("l_start", 8, "q"), ("l_len", 16, "q")]
FLOCK = StructText("flock", 32, _FLOCK_FIELDS)
FLOCK_WITH_PID = StructText("flock", 32, _FLOCK_FIELDS + [("l_pid", 24, "i")])
F_OWNER_EX = StructText("f_owner_ex", 8, [("type", 0, "I", enum("f_owner_types")), ("pid", 4, "i")])


def _d_flock(f, b, mem, with_pid: bool = False):
    return (FLOCK_WITH_PID if with_pid else FLOCK).text(b)


CALLS = {"fcntl": _c_fcntl}
STRUCTS = {"flock": (FLOCK.size, _d_flock), **decoders(F_OWNER_EX)}
