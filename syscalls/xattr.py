"""Extended attributes."""
from __future__ import annotations

from emutrace.kernel import errno as E


# xattrs: the sandbox's files carry none (ENODATA), and setting them is not supported
def sys_getxattr(proc, *_):
    return -E.ENODATA


def sys_listxattr(proc, *_):
    return 0


def sys_setxattr(proc, *_):
    return -E.ENOTSUP
