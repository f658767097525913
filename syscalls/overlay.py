"""The overlay's inodes and names: files, directories and symlinks that exist only in memory, each
charged to the disk quota (--max-disk) while it exists, and the whiteouts of removed root names."""
from __future__ import annotations

from typing import Callable, Optional

from emutrace.record import field, record

from emutrace.kernel.filedata import PAGE, FileData
from emutrace.kernel.limits import DENTRY_COST, INODE_COST, Held, KernelLimits
from emutrace.kernel.statinfo import StatInfo


@record(eq=False)              # an inode is itself, however alike two are
class OvNode:
    """A file, directory or symlink that exists only in the overlay. `held` is what it holds of
    the disk quota (its pages and its metadata): given back when the inode is garbage, that is
    when its last name and its last open file are gone, as Linux frees an unlinked open file."""
    stat: StatInfo
    data: FileData = field(default_factory=FileData)      # file contents (sparse: filedata.py)
    target: str = ""                                       # symlink target
    held: Optional[Held] = None

    def resize(self, size: int) -> None:
        """Make the file `size` bytes long: past the old end is a hole that holds nothing (as
        in tmpfs); cut pages go back to the quota."""
        self.data.resize(size)
        self._settle(0)

    def write(self, off: int, data: bytes) -> None:
        """Store `data` at `off`, the file growing to hold it, or fail with ENOSPC before
        anything is written when its new pages do not fit the quota."""
        end = off + len(data)
        self._settle(self.data.new_pages(off, end) * PAGE)
        if end > len(self.data):
            self.data.resize(end)
        self.data[off:end] = data

    def store_back(self, off: int, data: bytes) -> None:
        """What a shared mapping wrote, back into the file when the last mapping goes: it
        cannot fail, so pages that are new count beyond the quota (as tmpfs pages a mapping
        dirtied do); pages of zeros over holes stay holes."""
        end = min(off + len(data), len(self.data))
        for lo in range(off, end, PAGE):
            chunk = data[lo - off:min(lo + PAGE, end) - off]
            if lo // PAGE in self.data.pages or chunk.count(0) != len(chunk):
                self.data[lo:lo + len(chunk)] = chunk
        if self.held is not None:
            self.held.resize(INODE_COST + len(self.target) + self.data.held(), force=True)

    def allocated(self) -> int:
        """st_blocks: 512-byte blocks of the pages that exist."""
        return self.data.held() // 512

    def _settle(self, more: int) -> None:
        if self.held is not None:
            self.held.resize(INODE_COST + len(self.target) + self.data.held() + more)


class OverlayNames(dict):
    """The overlay's path → OvNode table, each name charged to the disk quota while it exists.
    Insertions never fail (a rename must not stop halfway): what adds names checks room first
    (Vfs._need_name). Every name set or taken out is told to `changed` (Vfs.name_changed)."""

    def __init__(self, limits: KernelLimits, changed: Callable[[str], None]):
        super().__init__()
        self.limits = limits
        self.changed = changed

    def __setitem__(self, path, ov):
        if path not in self:
            self.limits.force("disk", DENTRY_COST + len(path))
        self.changed(path)
        super().__setitem__(path, ov)

    def pop(self, path, *default):
        if path in self:
            self.limits.give("disk", DENTRY_COST + len(path))
        self.changed(path)
        return super().pop(path, *default)

    def __delitem__(self, path):
        self.pop(path)


class Whiteouts(set):
    """The names of root files the guest removed (hidden from then on). Every name added or
    taken out is told to `changed` (Vfs.name_changed)."""

    def __init__(self, changed: Callable[[str], None]):
        super().__init__()
        self.changed = changed

    def add(self, path):
        self.changed(path)
        super().add(path)

    def discard(self, path):
        if path in self:
            self.changed(path)
            super().discard(path)
