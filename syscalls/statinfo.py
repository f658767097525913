"""What stat and getdents report, as Linux defines it: st_mode's file-type bits, d_type, and
StatInfo, a Linux stat independent of the host's struct. Every tree (the VFS, the tar root)
builds on these.
"""
from __future__ import annotations

from typing import Optional, Tuple

from emutrace.record import record
from emutrace.linux.fcntl import (DT_BLK, DT_CHR, DT_DIR, DT_FIFO, DT_LNK, DT_REG, DT_SOCK, DT_UNKNOWN, S_IFBLK, S_IFCHR, S_IFDIR,
                                  S_IFIFO, S_IFLNK, S_IFMT, S_IFREG, S_IFSOCK)

DT_OF_MODE = {S_IFIFO: DT_FIFO, S_IFCHR: DT_CHR, S_IFDIR: DT_DIR, S_IFBLK: DT_BLK,
              S_IFREG: DT_REG, S_IFLNK: DT_LNK, S_IFSOCK: DT_SOCK}


@record
class StatInfo:
    """A Linux stat, independent of the host's struct."""
    mode: int
    size: int = 0
    ino: int = 0
    dev: int = 0
    nlink: int = 1
    uid: int = 0
    gid: int = 0
    rdev: int = 0
    blksize: int = 4096
    blocks: int = 0
    atime_ns: int = 0
    mtime_ns: int = 0
    ctime_ns: int = 0
    host_id: Optional[Tuple[int, int]] = None   # a host file's (dev, ino), not yet numbered (HostIds)

    @property
    def type(self) -> int:
        return self.mode & S_IFMT
