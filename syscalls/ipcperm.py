"""Who may use a SysV IPC object: Linux's ipcperms() and ipcctl_obtain_check() (ipc/util.c).

The caller's class is owner when its effective uid is the object's owner or creator, group when
its group (or a supplementary one) is the object's group or creator's group, else other; every
bit it asks for (read 4, write 2, execute 1, in any of the three positions) must be granted to
that class, or the call is EACCES. Changing or removing an object (IPC_SET, IPC_RMID, SHM_LOCK)
is for its owner or creator: EPERM otherwise. Root has the capabilities that pass these checks
(CAP_IPC_OWNER, CAP_SYS_ADMIN, CAP_IPC_LOCK, CAP_SYS_RESOURCE).

The caller's credentials are the run's (--uid, --gid, the group list getgroups shows): every
guest process runs as that one user.
"""
from __future__ import annotations

from emutrace.kernel import errno as E

S_IRUGO, S_IWUGO, S_IXUGO = 0o444, 0o222, 0o111


def credentials(proc):
    """(effective uid, the groups the caller is in)."""
    world = proc.kernel.world
    return world.uid, (world.gid,)


def privileged(proc) -> bool:
    return credentials(proc)[0] == 0


def denied(proc, obj, want: int) -> int:
    """EACCES when obj's mode does not grant the caller every bit of `want`, else 0."""
    uid, groups = credentials(proc)
    requested = (want >> 6 | want >> 3 | want) & 0o7
    granted = obj.mode
    if uid in (obj.cuid, obj.uid):
        granted >>= 6
    elif obj.cgid in groups or obj.gid in groups:
        granted >>= 3
    if requested & ~granted & 0o7 and not privileged(proc):
        return E.EACCES
    return 0


def not_owner(proc, obj) -> int:
    """EPERM unless the caller owns or created obj (or is privileged), else 0."""
    uid, _ = credentials(proc)
    if uid in (obj.cuid, obj.uid) or privileged(proc):
        return 0
    return E.EPERM
