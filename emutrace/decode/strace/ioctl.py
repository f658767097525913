"""ioctl (strace's ioctl.c, term.c): the request's name and, for the requests strace decodes,
its argument (terminal attributes and sizes, modem lines, block and file flags)."""
from __future__ import annotations

import functools

from emutrace.machine.words import s32
from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import hexval, is_error, pointer, read_u32
from emutrace.decode.strace.fields import StructText, decoders


def _c_ioctl(f, st, mem):
    fd, req, arg = st.args[0], st.args[1] & 0xffffffff, st.args[2]
    a = st.a
    a.now(f.fd(fd))
    a.now(_x.format_ioctl(req))
    dec = _IOCTL_DECODERS.get(req)
    if dec is not None:
        dec(f, st, mem, arg)
        return
    style = _x.ioctl_arg_style(req)
    if style == "none":
        return
    a.now(pointer(arg) if style == "ptr" else hexval(arg))


def _io_int_in(f, st, mem, arg, kind="int_out"):
    st.a.now(f.scalar_ptr(mem, arg, kind))


def _io_int_out(f, st, mem, arg, kind="int_out"):
    st.a.later(lambda ret, m: pointer(arg) if is_error(ret) else f.scalar_ptr(m, arg, kind))


def _io_struct_in(name):
    return lambda f, st, mem, arg: st.a.now(f.struct(name, mem, arg))


def _io_struct_out(name):
    return lambda f, st, mem, arg: st.a.later(
        lambda ret, m: pointer(arg) if is_error(ret) else f.struct(name, m, arg))


def _io_modem(out):
    def dec(f, st, mem, arg):
        def text(m):
            v = read_u32(m, arg) if arg else None
            if v is None:
                return pointer(arg)
            return f"[{_x.format_flags('modem_flags', v)}]"
        if out:
            st.a.later(lambda ret, m: pointer(arg) if is_error(ret) else text(m))
        else:
            st.a.now(text(mem))
    return dec


def _io_enum(set_name):
    return lambda f, st, mem, arg: st.a.now(_x.format_enum(set_name, arg & 0xffffffff))


_IOCTL_DECODERS = {
    0x5401: _io_struct_out("termios"), 0x5402: _io_struct_in("termios"),
    0x5403: _io_struct_in("termios"), 0x5404: _io_struct_in("termios"),
    0x5456: _io_struct_out("termios"), 0x5457: _io_struct_in("termios"),
    0x802c542a: _io_struct_out("termios"), 0x402c542b: _io_struct_in("termios"),
    0x402c542c: _io_struct_in("termios"), 0x402c542d: _io_struct_in("termios"),
    0x5413: _io_struct_out("winsize"), 0x5414: _io_struct_in("winsize"),
    0x540f: _io_int_out, 0x5410: _io_int_in, 0x5429: _io_int_out, 0x541b: _io_int_out,
    0x5411: _io_int_out, 0x5421: _io_int_in, 0x5452: _io_int_in, 0x40045431: _io_int_in,
    0x80045430: _io_int_out, 0x80045439: _io_int_out, 0x5424: _io_int_out, 0x5423: _io_int_in,
    0x5415: _io_modem(True), 0x5416: _io_modem(False), 0x5417: _io_modem(False),
    0x5418: _io_modem(False),
    0x540b: _io_enum("tcflsh_options"), 0x540a: _io_enum("tcxonc_options"),
    0x5409: lambda f, st, mem, arg: st.a.now(str(s32(arg))),
    0x5425: lambda f, st, mem, arg: st.a.now(str(s32(arg))),
    0x540e: lambda f, st, mem, arg: st.a.now(str(s32(arg))),
    0x5412: lambda f, st, mem, arg: st.a.now(f.buf(mem, arg, 1)),
    0x40049409: lambda f, st, mem, arg: st.a.now(f.fd(arg)),
    0x80081272: lambda f, st, mem, arg: _io_int_out(f, st, mem, arg, "ulong_out"),
    0x80081270: lambda f, st, mem, arg: _io_int_out(f, st, mem, arg, "ulong_out"),
    0x1260: lambda f, st, mem, arg: _io_int_out(f, st, mem, arg, "ulong_out"),
    0x1268: _io_int_out, 0x127b: _io_int_out, 0x1267: _io_int_out, 0x125e: _io_int_out,
    0x125d: _io_int_in,
    0x80086601: lambda f, st, mem, arg: _io_flags(f, st, mem, arg, "fs_flags", True),
    0x40086602: lambda f, st, mem, arg: _io_flags(f, st, mem, arg, "fs_flags", False),
    0x80046601: lambda f, st, mem, arg: _io_flags(f, st, mem, arg, "fs_flags", True),
    0x40046602: lambda f, st, mem, arg: _io_flags(f, st, mem, arg, "fs_flags", False),
    0x8912: _io_struct_in("ifconf"),
}


def _io_flags(f, st, mem, arg, set_name, out):
    def text(m):
        v = read_u32(m, arg) if arg else None
        return pointer(arg) if v is None else f"[{_x.format_flags(set_name, v)}]"
    if out:
        st.a.later(lambda ret, m: pointer(arg) if is_error(ret) else text(m))
    else:
        st.a.now(text(mem))


def _term_flags(set_name: str, v: int) -> str:
    return _x.SETS[set_name]._plain_flags(v, None) if v else ""


def _term_oflag(o: int) -> str:
    tab = (o >> 11) & 3
    head = (f"NL{(o >> 8) & 1}|CR{(o >> 9) & 3}|{'XTABS' if tab == 3 else f'TAB{tab}'}|"
            f"BS{(o >> 13) & 1}|VT{(o >> 14) & 1}|FF{(o >> 15) & 1}|")
    return head + _term_flags("term_oflags", o & ~0xff00)


def _term_cflag(c: int) -> str:
    text = _x.format_enum("baud_options", c & 0x100f) + "|"
    ibaud = (c >> 16) & 0x100f
    if ibaud:
        text += _x.format_enum("baud_options", ibaud) + "<<IBSHIFT|"
    text += _x.format_enum("term_csize", c & 0x30) + "|"
    return text + _term_flags("term_cflags", c & ~(0x100f | (0x100f << 16) | 0x30))


TERMIOS = StructText("termios", 36, [
    ("c_iflag", 0, "I", functools.partial(_term_flags, "term_iflags")), ("c_oflag", 4, "I", _term_oflag),
    ("c_cflag", 8, "I", _term_cflag), ("c_lflag", 12, "I", functools.partial(_term_flags, "term_lflags"))],
    more=True)
WINSIZE = StructText("winsize", 8, [("ws_row", 0, "H"), ("ws_col", 2, "H"), ("ws_xpixel", 4, "H"),
                                    ("ws_ypixel", 6, "H")])
IFCONF = StructText("ifconf", 16, [("ifc_len", 0, "i"), ("ifc_buf", 8, "Q", pointer)])


CALLS = {"ioctl": _c_ioctl}
STRUCTS = decoders(TERMIOS, WINSIZE, IFCONF)
AT_ENTRY = {"ioctl_req": lambda f, st, mem, v, param, n: _x.format_ioctl(v)}
