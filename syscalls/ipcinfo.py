"""The limits SysV IPC applies, and what IPC_INFO, SHM_INFO, SEM_INFO and MSG_INFO report.

Linux's defaults (ipc/util.h, include/uapi/linux/{shm,sem,msg}.h) are the starting point. The
ones a sysctl sets (kernel.shmmni, kernel.sem's SEMMNS and SEMMNI, kernel.msgmni, kernel.msgmnb)
are what the sandbox enforces: Linux's default or, when smaller, the kernel bound of limits.py
that stands behind it ("kobjects" for ids, "semaphores" for SEMMNS, "buffers" for the bytes a
queue holds), so a program that sizes itself from IPC_INFO gets what it reads. The compile-time
ones (SHMSEG, SEMMAP, SEMMNU, SEMUSZ, MSGPOOL, MSGMAP, MSGTQL...) are Linux's constants, which
Linux reports whatever the sysctls say.
"""
from __future__ import annotations

import struct

from emutrace.record import record
from emutrace.linux.ipc import IPC_INFO, MSG_INFO, SEM_INFO, SHM_INFO


SHMMIN, SHMMNI = 1, 4096
SHMMAX = (1 << 64) - 1 - (1 << 24)                # ULONG_MAX - (1 << 24)
SHMALL = (1 << 64) - 1 - (1 << 24)
SHMSEG = SHMMNI
SEMMSL, SEMMNS, SEMOPM, SEMMNI, SEMVMX, SEMAEM = 32000, 1024000000, 500, 32000, 32767, 32767
SEMMAP = SEMMNU = SEMMNS
SEMUME, SEMUSZ = SEMOPM, 20
MSGMAX, MSGMNB, MSGMNI = 8192, 16384, 32000
MSGPOOL, MSGMAP, MSGTQL, MSGSSZ, MSGSEG = MSGMNI * MSGMNB // 1024, MSGMNB, MSGMNB, 16, 0xFFFF

SHMINFO = struct.Struct("<5Q32x")                 # struct shminfo64 (its 4 unused longs zero)
SHM_INFO_STRUCT = struct.Struct("<i4x5Q")         # struct shm_info
SEMINFO = struct.Struct("<10i")                   # struct seminfo
MSGINFO = struct.Struct("<7iH2x")                 # struct msginfo


@record(frozen=True)
class IpcLimits:
    shmmni: int
    semmni: int
    semmns: int
    msgmni: int
    msgmnb: int


def limits_of(kernel) -> IpcLimits:
    """The sysctl-backed limits this run enforces."""
    bound = kernel.limits.max
    ids = bound["kobjects"]
    return IpcLimits(shmmni=min(SHMMNI, ids), semmni=min(SEMMNI, ids),
                     semmns=min(SEMMNS, bound["semaphores"]), msgmni=min(MSGMNI, ids),
                     msgmnb=min(MSGMNB, bound["buffers"]))


def shm_info(lim: IpcLimits, cmd: int, segments: int, pages: int, resident: int) -> bytes:
    if cmd == IPC_INFO:
        return SHMINFO.pack(SHMMAX, SHMMIN, lim.shmmni, SHMSEG, SHMALL)
    return SHM_INFO_STRUCT.pack(segments, pages, resident, 0, 0, 0)     # nothing is ever swapped


def sem_info(lim: IpcLimits, cmd: int, sets: int, semaphores: int) -> bytes:
    # SEM_INFO puts the sets in use in semusz and the semaphores in use in semaem
    return SEMINFO.pack(SEMMAP, lim.semmni, lim.semmns, SEMMNU, SEMMSL, SEMOPM, SEMUME,
                        sets if cmd == SEM_INFO else SEMUSZ, SEMVMX,
                        semaphores if cmd == SEM_INFO else SEMAEM)


def msg_info(lim: IpcLimits, cmd: int, queues: int, messages: int, nbytes: int) -> bytes:
    # MSG_INFO puts the queues, messages and bytes in use in msgpool, msgmap and msgtql
    if cmd == MSG_INFO:
        head, tql = (queues, messages), nbytes
    else:
        head, tql = (MSGPOOL, MSGMAP), MSGTQL
    return MSGINFO.pack(*head, MSGMAX, lim.msgmnb, lim.msgmni, MSGSSZ, tql, MSGSEG)
