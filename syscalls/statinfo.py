"""What stat and getdents report, as Linux defines it: st_mode's file-type bits, d_type, and
StatInfo, a Linux stat independent of the host's struct. Every tree (the VFS, the tar root)
builds on these.
"""
from __future__ import annotations

from typing import Optional, Tuple

from emutrace.machine.record import record

S_IFMT, S_IFSOCK, S_IFLNK, S_IFREG, S_IFBLK = 0o170000, 0o140000, 0o120000, 0o100000, 0o060000
S_IFDIR, S_IFCHR, S_IFIFO = 0o040000, 0o020000, 0o010000
DT_UNKNOWN, DT_FIFO, DT_CHR, DT_DIR, DT_BLK, DT_REG, DT_LNK, DT_SOCK = 0, 1, 2, 4, 6, 8, 10, 12
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
