"""A digest of the compiled event path's sources, stamped into the module when it is built.

An editable install (`pip install -e .`) builds emutrace/machine/_native*.so once; a `git pull`
that changes the C sources leaves that build behind. ABI_VERSION catches a change of the record
layout, but not a changed type or hook: an old module then loads, part of it goes unused, and a
run falls back to the slow pure-Python counter without a word (30x slower on xz). So setup.py
stamps this digest into the module (its SOURCE_DIGEST) and native.py compares it with the
sources beside the package, where they exist (a source checkout; an installed wheel has none).

Loaded by its path from setup.py (the package is not importable before the build), so it imports
only the standard library.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Optional

HERE = Path(__file__).resolve().parent
# the generators of headers written at build time: their Python is the source, not the header
GENERATORS = ("abi.py",)
GENERATED_MARK = b"Generated from"


def _sources(folder: Path) -> list:
    found = []
    for path in sorted(folder.glob("_*.[ch]")):
        head = path.read_bytes()[:200]
        if GENERATED_MARK not in head:     # (a generated header follows its generator, below)
            found.append(path)
    found += [folder / name for name in GENERATORS if (folder / name).exists()]
    return found


def digest(folder: Path = HERE) -> Optional[str]:
    """sha256 (16 hex digits) of the C sources and header generators in `folder`, by name and
    content; None when there are no C sources (an installed wheel)."""
    paths = _sources(folder)
    if not any(p.suffix == ".c" for p in paths):
        return None
    h = hashlib.sha256()
    for path in paths:
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


if __name__ == "__main__":
    print(digest())
