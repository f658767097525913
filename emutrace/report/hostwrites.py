"""The report's dropped files that are real host files: what the run created, changed or removed
through --rw grants, from the VFS's journal (emutrace.kernel.hostjournal) and the host's files
at the end. Each entry is a `dropped` entry with `where: "host"` and the host path."""
from __future__ import annotations

from typing import List

from emutrace.kernel.hostjournal import read_state


def host_dropped(vfs) -> List[dict]:
    journal = vfs.host_journal
    out = []
    for path in sorted(journal.before):
        before, host = journal.before[path], journal.hosts[path]
        now = read_state(host, keep=True)
        if now is not None:
            if before is not None and (now.sha256, now.mode, now.size) == (before.sha256, before.mode, before.size) \
                    and now.sha256 is not None:
                continue                           # opened for writing, left as it was
            status, state, deleted = ("modified" if before is not None else "created"), now, False
        elif path in journal.removed:
            status, state, deleted = "deleted", journal.removed[path], True    # written, then removed
        elif before is not None:
            status, state, deleted = "deleted", before, True                   # a host file removed
        else:
            continue                               # (a name that never held a regular file)
        out.append({"path": path, "size": state.size, "sha256": state.sha256, "mode": state.mode,
                    "status": status, "deleted": deleted, "where": "host", "host_path": host,
                    "_data": state.data})
    return out
