"""The system as a whole (strace's uname.c, sysinfo.c, syslog.c, reboot.c, and the odd calls
that fit no other subject: membarrier, seccomp, getrandom, quotactl's command)."""
from __future__ import annotations

from emutrace.machine.words import s32
from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import hexval, is_error, pointer, quote_string, read_bytes, read_cstring
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
        a.now(f"{s32(ln)} /* {lvl or 'LOGLEVEL_???'} */")         # (always verbose, as strace prints it)
    else:
        a.now(pointer(buf))
        a.now(str(s32(ln)))


def _zstr(f, mem, addr: int, size: int) -> str:
    """strace's printstr_ex(addr, size, QUOTE_0_TERMINATED): at most min(size, -s + 1) bytes up to
    a NUL, which must be readable; '...' when no NUL is among the bytes shown."""
    if addr == 0:
        return "NULL"
    want = min(size, f.string_limit + 1)
    data = read_bytes(mem, addr, want)
    if data is None:                    # (readable up to a NUL before the fault is enough)
        got = read_cstring(mem, addr, want)
        if got is None or not got[1]:
            return hexval(addr)
        data = got[0] + b"\0"
    n = min(size, f.string_limit)
    nul = data.find(b"\0")
    if 0 <= nul < n:
        return quote_string(data[:nul])
    return quote_string(data[:n]) + "..."


def _c_sethostname(f, st, mem):
    n = st.args[1] & 0xffffffff
    st.a.now(hexval(st.args[0]) if n > 64 and st.args[0] else f.buf(mem, st.args[0], n))   # (__NEW_UTS_LEN)
    st.a.now(str(n))


def _c_reboot(f, st, mem):
    a = st.a
    a.now(_x.format_enum("reboot_magic", st.args[0] & 0xffffffff))
    a.now(_x.format_enum("reboot_magic2", st.args[1] & 0xffffffff))
    cmd = st.args[2] & 0xffffffff
    a.now(_x.format_enum("reboot_cmd", cmd))
    if cmd == 0xa1b2c3d4:                # RESTART2's command line: at most 255 bytes (the kernel's
        a.now(_zstr(f, mem, st.args[3], 255))    # buffer keeps a last NUL), read as one block


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


SOCK_FPROG = StructText("sock_fprog", 16, [("len", 0, "H"), ("filter", 8, "Q", pointer)])
NOTIF_SIZES = StructText("seccomp_notif_sizes", 6, [("seccomp_notif", 0, "H"), ("seccomp_notif_resp", 2, "H"),
                                                     ("seccomp_data", 4, "H")])


def _u32_action(mem, addr: int) -> str:
    data = read_bytes(mem, addr, 4) if addr else None
    if data is None:
        return pointer(addr)
    return f"[{_x.format_enum('seccomp_ret_action', int.from_bytes(data, 'little'))}]"


def _c_seccomp(f, st, mem):
    """strace's seccomp.c: the flags and the argument by operation (the filter program itself
    only under -v, which emutrace does not disassemble: its address)."""
    a = st.a
    op = st.args[0] & 0xffffffff
    a.now(_x.format_enum("seccomp_ops", op))
    flags, arg = st.args[1] & 0xffffffff, st.args[2]
    if op == 1:                                         # SET_MODE_FILTER: struct sock_fprog
        a.now(_x.format_flags("seccomp_filter_flags", flags))
        data = read_bytes(mem, arg, 16) if arg else None
        a.now(SOCK_FPROG.text(data) if data is not None else pointer(arg))
    elif op == 2:                                       # GET_ACTION_AVAIL: the action asked about
        a.now(hexval(flags))
        a.now(_u32_action(mem, arg))
    elif op == 3:                                       # GET_NOTIF_SIZES: the sizes written
        a.now(hexval(flags))
        a.later(lambda ret, m: pointer(arg) if is_error(ret) or not arg
                else f.struct("seccomp_notif_sizes", m, arg))
    else:
        a.now(hexval(flags))
        a.now(pointer(arg))


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


CALLS = {"syslog": _c_syslog, "reboot": _c_reboot, "sethostname": _c_sethostname, "membarrier": _c_membarrier, "seccomp": _c_seccomp,
         "getrandom": _c_getrandom}
STRUCTS = decoders(UTSNAME, SYSINFO, NOTIF_SIZES)
AT_ENTRY = {"quotactl_cmd": lambda f, st, mem, v, param, n: _quotactl_cmd(v)}
