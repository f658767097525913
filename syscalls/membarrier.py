"""membarrier(2) as Linux answers it (kernel/sched/membarrier.c): QUERY lists the commands, the
private expedited commands need their registration first (EPERM before it), GET_REGISTRATIONS
gives those made. One guest CPU runs at a time, so every barrier is already complete when the
call returns; what is modelled is the interface. Registrations belong to the address space, as
Linux's mm->membarrier_state: threads share them, fork and exec start without."""
from __future__ import annotations

import weakref

from emutrace.kernel import errno as E

from emutrace.linux.membarrier import (
    MEMBARRIER_CMD_FLAG_CPU as FLAG_CPU, MEMBARRIER_CMD_GET_REGISTRATIONS as GET_REGISTRATIONS,
    MEMBARRIER_CMD_GLOBAL as GLOBAL, MEMBARRIER_CMD_GLOBAL_EXPEDITED as GLOBAL_EXPEDITED,
    MEMBARRIER_CMD_PRIVATE_EXPEDITED as PRIVATE_EXPEDITED,
    MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ as PRIVATE_EXPEDITED_RSEQ,
    MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE as PRIVATE_EXPEDITED_SYNC_CORE, MEMBARRIER_CMD_QUERY as QUERY,
    MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED as REGISTER_GLOBAL_EXPEDITED,
    MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED as REGISTER_PRIVATE_EXPEDITED,
    MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ as REGISTER_PRIVATE_EXPEDITED_RSEQ,
    MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE as REGISTER_PRIVATE_EXPEDITED_SYNC_CORE)

SUPPORTED = 0x3ff                 # every command above: x86-64 has SYNC_CORE, and rseq exists

# a private command -> the registration it needs
_NEEDS = {PRIVATE_EXPEDITED: REGISTER_PRIVATE_EXPEDITED,
          PRIVATE_EXPEDITED_SYNC_CORE: REGISTER_PRIVATE_EXPEDITED_SYNC_CORE,
          PRIVATE_EXPEDITED_RSEQ: REGISTER_PRIVATE_EXPEDITED_RSEQ}
_REGISTERS = frozenset((REGISTER_GLOBAL_EXPEDITED, REGISTER_PRIVATE_EXPEDITED,
                        REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, REGISTER_PRIVATE_EXPEDITED_RSEQ))

_REGISTERED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()   # address space -> mask


def sys_membarrier(proc, cmd, flags, cpu_id, *_):
    cmd &= 0xffffffff
    flags &= 0xffffffff
    if flags and not (cmd == PRIVATE_EXPEDITED_RSEQ and flags == FLAG_CPU):
        return -E.EINVAL
    done = _REGISTERED.get(proc.aspace, 0)
    if cmd == QUERY:
        return SUPPORTED
    if cmd in (GLOBAL, GLOBAL_EXPEDITED):
        return 0
    if cmd in _REGISTERS:
        _REGISTERED[proc.aspace] = done | cmd
        return 0
    if cmd in _NEEDS:
        return 0 if done & _NEEDS[cmd] else -E.EPERM
    if cmd == GET_REGISTRATIONS:
        return done
    return -E.EINVAL
