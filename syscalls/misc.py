"""System calls that fit no other area: getrandom, eventfd, memfd, and the like."""
from __future__ import annotations

from emutrace.kernel import errno as E
from emutrace.kernel.files import MemFile
from emutrace.kernel.vfs import Node
from emutrace.linux.fcntl import MFD_CLOEXEC, S_IFREG
from emutrace.linux.poll import GRND_INSECURE, GRND_NONBLOCK, GRND_RANDOM



def sys_getrandom(proc, buf, count, flags, *_):
    if flags & ~7:
        return -E.EINVAL
    count = min(count, 1 << 25)
    proc.aspace.write(buf, proc.kernel.world.random_bytes(count))
    return count


def sys_memfd_create(proc, name, flags, *_):
    label = proc.aspace.read_cstr(name, 249).decode("utf-8", "replace")
    vfs = proc.kernel.vfs
    stat = vfs._new_stat(S_IFREG | 0o777)
    node = Node(f"/memfd:{label} (deleted)", stat, ov=vfs.new_ov(stat))    # counted as /dev/shm files are
    f = MemFile(node.path, 2, node, proc.kernel.world.realtime_ns)
    return proc.fds.install(f, cloexec=bool(flags & MFD_CLOEXEC))
