"""Extended attributes."""
from __future__ import annotations

from emutrace.kernel import errno as E
from emutrace.kernel.dispatch import s32


# xattrs: the sandbox's files carry none (ENODATA), and setting them is not supported
def sys_getxattr(proc, *_):
    return -E.ENODATA


def sys_listxattr(proc, *_):
    return 0


def sys_setxattr(proc, *_):
    return -E.ENOTSUP


# the f- calls look their descriptor up first (fdget: EBADF), as Linux does
def sys_fgetxattr(proc, fd, *args):
    proc.fds.get(s32(fd))
    return sys_getxattr(proc, fd, *args)


def sys_flistxattr(proc, fd, *args):
    proc.fds.get(s32(fd))
    return sys_listxattr(proc, fd, *args)


def sys_fsetxattr(proc, fd, *args):
    proc.fds.get(s32(fd))
    return sys_setxattr(proc, fd, *args)


def sys_fremovexattr(proc, fd, *args):
    proc.fds.get(s32(fd))
    return sys_setxattr(proc, fd, *args)
