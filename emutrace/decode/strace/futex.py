"""Futexes (strace's futex.c): the arguments each operation uses."""
from __future__ import annotations

from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import hexval, pointer


def _c_futex(f, st, mem):
    uaddr, op, val, utime, uaddr2, val3 = st.args
    a = st.a
    a.now(pointer(uaddr))
    a.now(_x.format_futex_op(op))
    cmd = op & 0x7f                                    # strace picks the arguments by op & 0x7f
    u32 = lambda x: str(x & 0xffffffff)
    if _x.lookup("futex_ops", cmd) is None:
        a.now(u32(val)); a.now(hexval(utime)); a.now(hexval(uaddr2)); a.now(hexval(val3 & 0xffffffff))
        return
    bitset = lambda x: "FUTEX_BITSET_MATCH_ANY" if x & 0xffffffff == 0xffffffff else hexval(x & 0xffffffff)
    if cmd == 0:                                       # WAIT
        a.now(u32(val)); a.now(f.struct("timespec", mem, utime))
    elif cmd in (1, 2):                                # WAKE, FD
        a.now(u32(val))
    elif cmd == 3:                                     # REQUEUE
        a.now(u32(val)); a.now(u32(utime)); a.now(pointer(uaddr2))
    elif cmd in (4, 12):                               # CMP_REQUEUE(_PI)
        a.now(u32(val)); a.now(u32(utime)); a.now(pointer(uaddr2)); a.now(u32(val3))
    elif cmd == 5:                                     # WAKE_OP
        a.now(u32(val)); a.now(u32(utime)); a.now(pointer(uaddr2))
        a.now(_x.format_futex_wake_op(val3))
    elif cmd in (6, 13):                               # LOCK_PI(2)
        a.now(f.struct("timespec", mem, utime))
    elif cmd in (7, 8):                                # UNLOCK_PI, TRYLOCK_PI
        pass
    elif cmd == 9:                                     # WAIT_BITSET
        a.now(u32(val)); a.now(f.struct("timespec", mem, utime)); a.now(bitset(val3))
    elif cmd == 10:                                    # WAKE_BITSET
        a.now(u32(val)); a.now(bitset(val3))
    elif cmd == 11:                                    # WAIT_REQUEUE_PI
        a.now(u32(val)); a.now(f.struct("timespec", mem, utime)); a.now(pointer(uaddr2))


CALLS = {"futex": _c_futex}
AT_ENTRY = {"futex_op": lambda f, st, mem, v, param, n: _x.format_futex_op(v)}
