"""Kernel keys (strace's keyctl.c)."""
from __future__ import annotations

from emutrace.machine.words import s32
from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import hexval, id_text, is_error, pointer


def _keyserial(v: int) -> str:
    name = _x.lookup("key_spec", s32(v))
    return name if name else str(s32(v))


def _c_keyctl(f, st, mem):
    a = st.a
    cmd = st.args[0] & 0xffffffff
    a2, a3, a4, a5 = st.args[1:5]
    a.now(_x.format_enum("keyctl_commands", cmd))
    key = _keyserial
    if cmd == 0:                                   # GET_KEYRING_ID
        a.now(key(a2)); a.now(str(s32(a3)))
    elif cmd == 1:                                 # JOIN_SESSION_KEYRING
        a.now(f.cstr(mem, a2))
    elif cmd == 2:                                 # UPDATE
        a.now(key(a2)); a.now(f.buf(mem, a3, a4)); a.now(str(a4))
    elif cmd in (3, 7, 16, 21):                    # REVOKE, CLEAR, ASSUME_AUTHORITY, INVALIDATE
        a.now(key(a2))
    elif cmd == 4:                                 # CHOWN
        a.now(key(a2))
        a.now(id_text(a3))
        a.now(id_text(a4))
    elif cmd in (8, 9):                            # LINK, UNLINK
        a.now(key(a2)); a.now(key(a3))
    elif cmd in (6, 11, 17):                       # DESCRIBE, READ, GET_SECURITY
        a.now(key(a2))
        a.later(lambda ret, m: pointer(a3) if is_error(ret) else f.buf(m, a3, min(ret, a4)))
        a.later(lambda ret, m: str(a4))
    elif cmd == 10:                                # SEARCH
        a.now(key(a2)); a.now(f.cstr(mem, a3)); a.now(f.cstr(mem, a4)); a.now(key(a5))
    elif cmd == 15:                                # SET_TIMEOUT
        a.now(key(a2)); a.now(str(a3 & 0xffffffff))
    elif cmd == 18:                                # SESSION_TO_PARENT
        pass
    elif cmd == 22:                                # GET_PERSISTENT
        a.now(id_text(a2)); a.now(key(a3))
    else:
        for v in (a2, a3, a4, a5):
            a.now(hexval(v))


CALLS = {"keyctl": _c_keyctl}
AT_ENTRY = {"keyserial": lambda f, st, mem, v, param, n: _keyserial(v)}
