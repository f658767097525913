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
def _fd(proc, fd) -> int:
    proc.fds.get(s32(fd))
    return 0


def sys_fgetxattr(proc, fd, *_):
    return _fd(proc, fd) or sys_getxattr(proc)


def sys_flistxattr(proc, fd, *_):
    return _fd(proc, fd) or sys_listxattr(proc)


def sys_fsetxattr(proc, fd, *_):        # (fremovexattr too)
    return _fd(proc, fd) or sys_setxattr(proc)
