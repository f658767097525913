"""Scheduling policies: sched_getscheduler/sched_setscheduler/sched_getparam/sched_setparam.

Every guest thread starts SCHED_OTHER with priority 0. An unprivileged process (the guest is one:
no CAP_SYS_NICE, RLIMIT_RTPRIO 0) may move a thread among the normal policies (SCHED_OTHER,
SCHED_BATCH, SCHED_IDLE, with or without SCHED_RESET_ON_FORK) but not to a real-time or
deadline one (EPERM). The checks come in Linux's order (kernel/sched/syscalls.c): EINVAL for a
NULL param or a negative pid, EFAULT, ESRCH, then the policy and its priority (EINVAL), then the
permission. The policy is kept per thread (Thread.sched_policy) and read back by
sched_getscheduler; the deterministic scheduler runs every policy alike.
"""
from __future__ import annotations

import struct

from emutrace.kernel import errno as E
from emutrace.kernel.dispatch import s32
from emutrace.linux.sched import (SCHED_BATCH, SCHED_DEADLINE, SCHED_FIFO, SCHED_IDLE, SCHED_OTHER,
                                  SCHED_RESET_ON_FORK, SCHED_RR)

_NORMAL = frozenset({SCHED_OTHER, SCHED_BATCH, SCHED_IDLE})
_REALTIME = frozenset({SCHED_FIFO, SCHED_RR})
_MAX_RT_PRIO = 100
_KEEP = -1                      # sched_setparam: the thread's own policy


def _thread(proc, pid: int):
    """The thread pid names (0: the caller), or an errno."""
    if pid < 0:
        return -E.EINVAL
    t = proc.kernel.sched.current if pid == 0 else proc.kernel.sched.find_thread(pid)
    return t if t is not None else -E.ESRCH


def sys_sched_getscheduler(proc, pid, *_):
    t = _thread(proc, s32(pid))
    return t if isinstance(t, int) else t.sched_policy


def sys_sched_getparam(proc, pid, param, *_):
    pid = s32(pid)
    if param == 0 or pid < 0:
        return -E.EINVAL
    t = _thread(proc, pid)
    if isinstance(t, int):
        return t
    proc.aspace.write(param, struct.pack("<i", 0))     # a normal policy's priority is 0
    return 0


def _set(proc, pid, policy, param):
    pid = s32(pid)
    if param == 0 or pid < 0:
        return -E.EINVAL
    prio = struct.unpack("<i", proc.aspace.read(param, 4))[0]
    t = _thread(proc, pid)
    if isinstance(t, int):
        return t
    if policy == _KEEP:
        policy = t.sched_policy
    reset = policy & SCHED_RESET_ON_FORK
    policy &= ~SCHED_RESET_ON_FORK
    if policy not in _NORMAL | _REALTIME | {SCHED_DEADLINE}:
        return -E.EINVAL
    if prio < 0 or prio > _MAX_RT_PRIO - 1 or (policy in _REALTIME) != (prio != 0):
        return -E.EINVAL
    if policy not in _NORMAL:
        return -E.EPERM          # real-time and deadline need CAP_SYS_NICE (RLIMIT_RTPRIO is 0)
    t.sched_policy = policy | reset
    return 0


def sys_sched_setscheduler(proc, pid, policy, param, *_):
    policy = s32(policy)
    if policy < 0:
        return -E.EINVAL
    return _set(proc, pid, policy, param)


def sys_sched_setparam(proc, pid, param, *_):
    return _set(proc, pid, _KEEP, param)
