"""Extended attributes."""
from __future__ import annotations

from . import errno as E
from .dispatch import syscall


# xattrs: the sandbox's files carry none (ENODATA), and setting them is not supported
@syscall("getxattr", "lgetxattr", "fgetxattr")
def sys_getxattr(proc, *_):
    return -E.ENODATA


@syscall("listxattr", "llistxattr", "flistxattr")
def sys_listxattr(proc, *_):
    return 0


@syscall("setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr")
def sys_setxattr(proc, *_):
    return -E.ENOTSUP
