"""seccomp(2) as an unprivileged process on Linux sees it, less the filters themselves.

The two queries answer as Linux does: SECCOMP_GET_ACTION_AVAIL says which filter actions the
kernel knows (0, or EOPNOTSUPP), SECCOMP_GET_NOTIF_SIZES writes the sizes of the user
notification structs. emutrace does not run BPF filters: installing one (strict mode or a
filter) fails with EINVAL, as a kernel built without CONFIG_SECCOMP_FILTER answers, rather than
succeeding and not enforcing it.
"""
from __future__ import annotations

import struct

from emutrace.kernel import errno as E
from emutrace.linux.prctl import (SECCOMP_GET_ACTION_AVAIL, SECCOMP_GET_NOTIF_SIZES, SECCOMP_RET_ALLOW,
                                  SECCOMP_RET_ERRNO, SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_KILL_THREAD,
                                  SECCOMP_RET_LOG, SECCOMP_RET_TRACE, SECCOMP_RET_TRAP, SECCOMP_RET_USER_NOTIF)

_ACTIONS = frozenset({SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_KILL_THREAD, SECCOMP_RET_TRAP, SECCOMP_RET_ERRNO,
                      SECCOMP_RET_USER_NOTIF, SECCOMP_RET_TRACE, SECCOMP_RET_LOG, SECCOMP_RET_ALLOW})
# sizeof(struct seccomp_notif), sizeof(struct seccomp_notif_resp), sizeof(struct seccomp_data)
_NOTIF_SIZES = struct.pack("<HHH", 80, 24, 64)


def sys_seccomp(proc, op, flags, args, *_):
    op &= 0xFFFFFFFF
    flags &= 0xFFFFFFFF
    if op == SECCOMP_GET_ACTION_AVAIL:
        if flags:
            return -E.EINVAL
        action = struct.unpack("<I", proc.aspace.read(args, 4))[0]
        return 0 if action in _ACTIONS else -E.EOPNOTSUPP
    if op == SECCOMP_GET_NOTIF_SIZES:
        if flags:
            return -E.EINVAL
        proc.aspace.write(args, _NOTIF_SIZES)
        return 0
    return -E.EINVAL
