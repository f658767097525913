"""What the source-rewriting tools share (tools/respell_imports.py, tools/syscall_rows.py): apply
a rewrite to files, or with --check only say which files it would change."""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable


def apply(paths: Iterable[Path], rewrite: Callable[[Path, str], str], check: bool, root: Path) -> int:
    """Rewrite each file (rewrite(path, text) -> new text); print each changed one. Returns the
    exit status: 1 when checking and something would change, else 0."""
    changed = []
    for path in paths:
        text = path.read_text()
        new = rewrite(path, text)
        if new != text:
            changed.append(path)
            if not check:
                path.write_text(new)
    for path in changed:
        print(("would change " if check else "rewrote ") + str(path.relative_to(root)))
    return 1 if check and changed else 0
