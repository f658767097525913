"""The system as a whole (strace's uname.c, sysinfo.c, syslog.c, reboot.c, and the odd calls
that fit no other subject: membarrier, seccomp, getrandom, quotactl's command)."""
from __future__ import annotations

from emutrace.machine.words import s32
from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import hexval, is_error, pointer, quote_string
from emutrace.decode.strace.fields import StructText, decoders


def _cfield(raw: bytes) -> str:
    """A NUL-padded char array."""
    nul = raw.find(b"\0")
    return quote_string(raw if nul < 0 else raw[:nul])


UTSNAME = StructText("utsname", 390, [("sysname", 0, "65s", _cfield), ("nodename", 65, "65s", _cfield)],
                     more=True)
SYSINFO = StructText("sysinfo", 112, [
    ("uptime", 0, "q"), ("loads", 8, "3Q", lambda loads: "[" + ", ".join(map(str, loads)) + "]"),
    ("totalram", 32, "Q"), ("freeram", 40, "Q"), ("sharedram", 48, "Q"), ("bufferram", 56, "Q"),
    ("totalswap", 64, "Q"), ("freeswap", 72, "Q"), ("procs", 80, "H"), ("totalhigh", 88, "Q"),
    ("freehigh", 96, "Q"), ("mem_unit", 104, "I")])


def _c_syslog(f, st, mem):
    typ = s32(st.args[0])
    a = st.a
    name = _x.lookup("syslog_action", typ & 0xffffffff) if typ >= 0 else None
    a.now(f"{typ} /* {name or 'SYSLOG_ACTION_???'} */")
    buf, ln = st.args[1], st.args[2]
    if typ in (0, 1, 5, 6, 7, 9, 10):               # no buffer
        return
    if typ in (2, 3, 4):                           # READ, READ_ALL, READ_CLEAR
        a.later(lambda ret, m: pointer(buf) if is_error(ret) else f.buf(m, buf, ret))
        a.later(lambda ret, m: str(s32(ln)))
    elif typ == 8:                                 # CONSOLE_LEVEL
        a.now(pointer(buf))
        lvl = _x.lookup("loglevels", ln & 0xffffffff)
        a.now(f"{s32(ln)} /* {lvl} */" if lvl else str(s32(ln)))
    else:
        a.now(hexval(buf))
        a.now(str(s32(ln)))


def _c_reboot(f, st, mem):
    a = st.a
    a.now(_x.format_enum("reboot_magic", st.args[0] & 0xffffffff))
    a.now(_x.format_enum("reboot_magic", st.args[1] & 0xffffffff))
    cmd = st.args[2] & 0xffffffff
    a.now(_x.format_enum("reboot_cmd", cmd))
    if cmd == 0xa1b2c3d4:
        a.now(f.cstr(mem, st.args[3]))


def _c_membarrier(f, st, mem):
    a = st.a
    a.now(_x.format_enum("membarrier_cmds", st.args[0] & 0xffffffff))
    flags = st.args[1] & 0xffffffff
    a.now(_x.format_flags("membarrier_flags", flags))
    if flags & 1:
        a.now(str(s32(st.args[2])))
    if st.args[0] & 0xffffffff == 0:         # QUERY: the commands the kernel has, after the mask
        st.ret_kind = "hex"
        st.aux = lambda ret, m: _cmd_mask(ret) if ret > 0 else None


def _cmd_mask(v: int) -> str:
    """strace's sprintflags("", membarrier_cmds, v): each command's bit by name."""
    names = []
    for bit, name in _x.SETS["membarrier_cmds"].pairs:
        if bit and v & bit == bit:
            names.append(name)
            v &= ~bit
    return "|".join(names + ([hexval(v)] if v else []))


def _c_seccomp(f, st, mem):
    a = st.a
    op = st.args[0] & 0xffffffff
    a.now(_x.format_enum("seccomp_ops", op))
    flags = st.args[1] & 0xffffffff
    a.now(_x.format_flags("seccomp_filter_flags", flags) if op == 1 else hexval(flags))
    a.now(pointer(st.args[2]) if op in (0, 1) else hexval(st.args[2]))


def _c_getrandom(f, st, mem):
    buf, n, flags = st.args[:3]
    st.a.later(lambda ret, m: pointer(buf) if is_error(ret) else f.buf(m, buf, ret, force_hex=True))
    st.a.later(lambda ret, m: str(n))
    st.a.later(lambda ret, m: _x.format_flags("getrandom_flags", flags & 0xffffffff))


def _quotactl_cmd(v: int) -> str:
    v &= 0xffffffff
    cmd = v >> 8
    typ = v & 0xff
    return f"QCMD({_x.format_enum('quotactl_cmds', cmd)}, {_x.format_enum('quota_types', typ)})"


CALLS = {"syslog": _c_syslog, "reboot": _c_reboot, "membarrier": _c_membarrier, "seccomp": _c_seccomp,
         "getrandom": _c_getrandom}
STRUCTS = decoders(UTSNAME, SYSINFO)
AT_ENTRY = {"quotactl_cmd": lambda f, st, mem, v, param, n: _quotactl_cmd(v)}
