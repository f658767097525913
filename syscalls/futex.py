"""futex: the one primitive every thread library blocks on.

The value checks and the word updates are here; waiting and waking are the scheduler's
(syscalls/sched.py, `kernel.sched.futex`): FIFO wait queues per (address space, address), bitsets,
timeouts on the virtual clock, PI hand-over. Without a scheduler a wait that matches would
sleep forever, unless it has a timeout (then the virtual clock jumps to it).
"""
from __future__ import annotations

import struct

from emutrace.kernel import errno as E
from emutrace.kernel.dispatch import s32
from emutrace.kernel.layouts import TIMESPEC
from emutrace.linux.futex import (FUTEX_CLOCK_REALTIME, FUTEX_CMP_REQUEUE, FUTEX_FD, FUTEX_OWNER_DIED, FUTEX_PRIVATE_FLAG, FUTEX_REQUEUE,
                                  FUTEX_TID_MASK, FUTEX_WAIT, FUTEX_WAITERS, FUTEX_WAKE, FUTEX_WAKE_OP)

FUTEX_LOCK_PI, FUTEX_UNLOCK_PI, FUTEX_TRYLOCK_PI, FUTEX_WAIT_BITSET, FUTEX_WAKE_BITSET = 6, 7, 8, 9, 10
FUTEX_WAIT_REQUEUE_PI, FUTEX_CMP_REQUEUE_PI, FUTEX_LOCK_PI2 = 11, 12, 13
FUTEX_CMD_MASK = ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME)


def _u32(proc, addr):
    return struct.unpack("<I", proc.aspace.read(addr, 4))[0]


def _timeout_ns(proc, op, cmd, addr):
    """Relative nanoseconds to wait, or -1 for forever."""
    if not addr:
        return -1
    ts = TIMESPEC.unpack(proc.aspace.read(addr, 16))
    if ts["tv_sec"] < 0 or not 0 <= ts["tv_nsec"] < 10**9:
        raise ValueError
    ns = ts["tv_sec"] * 10**9 + ts["tv_nsec"]
    if cmd in (FUTEX_WAIT_BITSET, FUTEX_LOCK_PI, FUTEX_LOCK_PI2):        # absolute deadlines
        clock = 0 if (op & FUTEX_CLOCK_REALTIME or cmd == FUTEX_LOCK_PI) else 1
        ns = max(0, ns - proc.kernel.world.clock_ns(clock))
    return ns


def _wake_op_cmp(oldval, cmparg, cmp):
    return [oldval == cmparg, oldval != cmparg, oldval < cmparg, oldval <= cmparg,
            oldval > cmparg, oldval >= cmparg][cmp] if cmp < 6 else False


def _sext12(v: int) -> int:
    return v - 0x1000 if v & 0x800 else v


def sys_futex(proc, uaddr, op, val, timeout, uaddr2, val3):
    cmd = op & FUTEX_CMD_MASK & 0x7F
    sched = proc.kernel.sched.futex
    val = val & 0xFFFFFFFF
    if uaddr & 3:
        return -E.EINVAL
    if cmd in (FUTEX_WAIT, FUTEX_WAIT_BITSET):
        if cmd == FUTEX_WAIT_BITSET and (val3 & 0xFFFFFFFF) == 0:
            return -E.EINVAL
        try:
            ns = _timeout_ns(proc, op, cmd, timeout)
        except ValueError:
            return -E.EINVAL
        if _u32(proc, uaddr) != val:
            return -E.EAGAIN
        return sched.wait(proc, uaddr, ns, val3 if cmd == FUTEX_WAIT_BITSET else 0xFFFFFFFF)
    if cmd in (FUTEX_WAKE, FUTEX_WAKE_BITSET):
        if cmd == FUTEX_WAKE_BITSET and (val3 & 0xFFFFFFFF) == 0:
            return -E.EINVAL
        return sched.wake(proc, uaddr, val, val3 if cmd == FUTEX_WAKE_BITSET else 0xFFFFFFFF)
    if cmd in (FUTEX_REQUEUE, FUTEX_CMP_REQUEUE):
        if cmd == FUTEX_CMP_REQUEUE and _u32(proc, uaddr) != (val3 & 0xFFFFFFFF):
            return -E.EAGAIN
        return sched.requeue(proc, uaddr, uaddr2, val, timeout & 0xFFFFFFFF)
    if cmd == FUTEX_WAKE_OP:
        encoded = val3 & 0xFFFFFFFF
        opk, cmp = (encoded >> 28) & 0xF, (encoded >> 24) & 0xF
        oparg, cmparg = _sext12((encoded >> 12) & 0xFFF), _sext12(encoded & 0xFFF)   # signed, as Linux
        if opk & 8:                                 # FUTEX_OP_OPARG_SHIFT
            oparg = 1 << (oparg & 31)
            opk &= 7
        old = s32(_u32(proc, uaddr2))
        new = [oparg, old + oparg, old | oparg, old & ~oparg, old ^ oparg][opk] if opk < 5 else None
        if new is None or cmp > 5:
            return -E.ENOSYS
        proc.aspace.write_u32(uaddr2, new)
        woken = sched.wake(proc, uaddr, val, 0xFFFFFFFF)
        if _wake_op_cmp(old, cmparg, cmp):
            woken += sched.wake(proc, uaddr2, timeout & 0xFFFFFFFF, 0xFFFFFFFF)
        return woken
    if cmd in (FUTEX_LOCK_PI, FUTEX_LOCK_PI2, FUTEX_TRYLOCK_PI):
        word = _u32(proc, uaddr)
        tid = proc.thread.tid
        if word & FUTEX_TID_MASK == 0:
            proc.aspace.write_u32(uaddr, tid | (word & FUTEX_OWNER_DIED))
            return 0
        if word & FUTEX_TID_MASK == tid:
            return -E.EDEADLK
        if cmd == FUTEX_TRYLOCK_PI:
            return -E.EAGAIN
        try:
            ns = _timeout_ns(proc, op, cmd, timeout)
        except ValueError:
            return -E.EINVAL
        return sched.lock_pi(proc, uaddr, ns)
    if cmd == FUTEX_UNLOCK_PI:
        word = _u32(proc, uaddr)
        if word & FUTEX_TID_MASK != proc.thread.tid:
            return -E.EPERM
        return sched.unlock_pi(proc, uaddr)
    return -E.ENOSYS
