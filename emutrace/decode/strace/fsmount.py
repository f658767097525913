"""The new mount API (strace's fsconfig.c): what fsconfig's key, value and aux are depends on
its command."""
from __future__ import annotations

from emutrace.machine.words import s32
from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import cstr_n, pointer

# FSCONFIG_* (linux/mount.h)
SET_FLAG, SET_STRING, SET_BINARY, SET_PATH, SET_PATH_EMPTY, SET_FD = range(6)
_KEYED = frozenset((SET_FLAG, SET_STRING, SET_BINARY, SET_PATH, SET_PATH_EMPTY, SET_FD))
_BINARY_MAX = 1024 * 1024                 # strace prints a binary value up to this aux


def _c_fsconfig(f, st, mem):
    fd, cmd, key, value, aux = st.args[:5]
    cmd &= 0xffffffff
    aux = s32(aux)
    a = st.a
    a.now(f.fd(fd))
    a.now(_x.format_enum("fsconfig_cmds", cmd))
    a.now(cstr_n(f, mem, key, 256) if cmd in _KEYED else pointer(key))
    if cmd == SET_STRING:
        a.now(cstr_n(f, mem, value, 256))
    elif cmd in (SET_PATH, SET_PATH_EMPTY):
        a.now(f.path(mem, value))
    elif cmd == SET_BINARY and 0 <= aux <= _BINARY_MAX:
        a.now(f.buf(mem, value, aux, force_hex=True))
    else:
        a.now(pointer(value))
    if cmd in (SET_PATH, SET_PATH_EMPTY):
        a.now(f.dirfd(aux))
    elif cmd == SET_FD:
        a.now(f.fd(aux))
    else:
        a.now(str(aux))


CALLS = {"fsconfig": _c_fsconfig}
