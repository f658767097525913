"""The one exception the emulated kernel raises for a failed operation: a Linux errno.

Its own module so that everything below the VFS (the kernel's limits, the overlay's quota) can
raise it; emutrace.kernel.vfs re-exports it, where most handlers import it from."""
from __future__ import annotations

from emutrace.kernel import errno as E


class VfsError(Exception):
    def __init__(self, errno: int, msg: str = ""):
        super().__init__(msg or E.NAME.get(errno, str(errno)))
        self.errno = errno
