"""What a run changed on the host through --rw grants, kept by the VFS that makes the changes.

Before the first change to a guest path inside a grant (opened for writing, created, truncated,
removed, renamed from or onto, linked onto, chmod'ed), the journal notes what the host had
there: nothing, or a file with its mode, size and sha256. A file the run itself wrote and then
removed keeps its last content. The behaviour report compares that with the host at the end, so
real host writes are listed beside the overlay's dropped files (emutrace/report/document.py).
"""
from __future__ import annotations

import os
import stat
from typing import Dict, Optional

from emutrace.machine.digest import sha256
from emutrace.record import record

MAX_KEPT = 64 << 20        # bytes of a removed file's content kept for the report (and hashed)


@record(frozen=True)
class HostState:
    """A regular file as the host had it: mode, size, sha256 (None past MAX_KEPT), content
    (kept only for a file the run removed after writing it)."""
    mode: int
    size: int
    sha256: Optional[str]
    data: Optional[bytes] = None


def read_state(host: str, keep: bool = False) -> Optional[HostState]:
    """The regular file at host, or None (nothing there, or not a regular file)."""
    try:
        st = os.lstat(host)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    if st.st_size > MAX_KEPT:
        return HostState(st.st_mode & 0o7777, st.st_size, None)
    try:
        with open(host, "rb") as f:
            data = f.read(MAX_KEPT + 1)
    except OSError:
        return HostState(st.st_mode & 0o7777, st.st_size, None)
    return HostState(st.st_mode & 0o7777, len(data), sha256(data).hexdigest(), data if keep else None)


class HostJournal:
    def __init__(self):
        self.before: Dict[str, Optional[HostState]] = {}    # guest path → the host's file before, or None
        self.hosts: Dict[str, str] = {}                     # guest path → its host path
        self.removed: Dict[str, HostState] = {}             # written by the run, then removed

    def changing(self, guest: str, host: str) -> None:
        """guest (at host) is about to change: note what was there first."""
        if guest not in self.before:
            self.before[guest] = read_state(host)
            self.hosts[guest] = host

    def removing(self, guest: str, host: str) -> None:
        """guest is about to go (unlink, or a rename away or over it): a file the run wrote keeps
        its last content."""
        self.changing(guest, host)
        now = read_state(host, keep=True)
        before = self.before[guest]
        if now is not None and (before is None or (now.sha256, now.mode) != (before.sha256, before.mode)):
            self.removed[guest] = now
