"""Futexes (strace's futex.c): the arguments each operation uses."""
from __future__ import annotations

from emutrace.machine.words import s32
from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import hexval, pointer
from emutrace.decode.strace.fields import StructText, flags


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


# struct futex_waitv (futex_requeue's two, futex_waitv's array): __reserved only when set
FUTEX_WAITV = StructText("futex_waitv", 24, [
    ("val", 0, "Q", hexval), ("uaddr", 8, "Q", pointer), ("flags", 16, "I", flags("futex2_flags")),
    ("__reserved", 20, "I", hexval, lambda v: v["__reserved"])])


WAITV_MAX = 128        # FUTEX_WAITV_MAX: the most futex_waitv takes, and strace prints


def _c_futex_waitv(f, st, mem):
    """futex_waitv(waiters, nr_futexes, flags, timeout, clockid): an empty array is [] even at
    an address that cannot be read."""
    waiters, nr, fl, timeout, clk = st.args[:5]
    a = st.a
    nr &= 0xffffffff
    if not waiters:
        a.now("NULL")
    else:
        text = f.struct_array(mem, waiters, min(nr, WAITV_MAX), FUTEX_WAITV) if nr else "[]"
        if nr > WAITV_MAX and text.endswith("}]"):
            text = text[:-1] + ", ...]"             # (strace stops at the kernel's limit)
        a.now(text)
    a.now(str(nr))
    a.now(hexval(fl & 0xffffffff))
    a.now(f.struct("timespec", mem, timeout))
    a.now(_x.format_enum("clocks", clk & 0xffffffff))


def _c_futex_requeue(f, st, mem):
    """futex_requeue(waiters[2], flags, nr_wake, nr_requeue): the two futex_waitv first."""
    waiters, fl, nr_wake, nr_requeue = st.args[:4]
    a = st.a
    a.now(f.struct_array(mem, waiters, 2, FUTEX_WAITV) if waiters else "NULL")
    a.now(hexval(fl & 0xffffffff))
    a.now(str(s32(nr_wake)))
    a.now(str(s32(nr_requeue)))


CALLS = {"futex": _c_futex, "futex_requeue": _c_futex_requeue, "futex_waitv": _c_futex_waitv}
AT_ENTRY = {"futex_op": lambda f, st, mem, v, param, n: _x.format_futex_op(v)}
