"""Network system calls. The sandbox has no network: without --net every socket call fails
with EACCES, as a seccomp or firewall denial would, and no host socket is ever opened."""
from __future__ import annotations

from . import errno as E
from .dispatch import syscall


@syscall("socket", "socketpair", "connect", "bind", "listen", "accept", "accept4", "sendto", "recvfrom",
         "sendmsg", "recvmsg", "sendmmsg", "recvmmsg", "shutdown", "getsockname", "getpeername",
         "setsockopt", "getsockopt")
def sys_socket(proc, *_):
    # no fd can be a socket here, so calls on an existing fd would be ENOTSOCK; creating one is denied
    return -E.EACCES
