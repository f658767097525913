"""A small on-disk cache for parsed metadata, so a warm run parses nothing it parsed before.

Entries are keyed by a hash of everything they were made from (file contents or identity,
emutrace's version) and written atomically; an unwritable cache directory just means no cache.
The directory is $EMUTRACE_CACHE, else $XDG_CACHE_HOME/emutrace, else ~/.cache/emutrace; an
empty $EMUTRACE_CACHE turns the cache off. It is kept under MAX_BYTES: a write that finds more
removes the entries used longest ago (a hit marks its entry used).
"""
from __future__ import annotations

import os
import pickle
import tempfile
from typing import Any, Callable, Iterable, Optional

from emutrace.codecache import cache_dir  # noqa: F401  (the cache's directory; users take it from here too)
from emutrace.version import __version__
from emutrace.machine.digest import sha256


def key_of(parts: Iterable[bytes]) -> str:
    h = sha256(__version__.encode())
    for p in parts:
        h.update(len(p).to_bytes(8, "little"))
        h.update(p)
    return h.hexdigest()[:32]


MAX_BYTES = 256 << 20            # every library of a large system, parsed, takes less


def cached(kind: str, key: str, make: Callable[[], Any]) -> Any:
    """make() once per key; later calls load the pickle."""
    d = cache_dir()
    path = os.path.join(d, f"{kind}-{key}.pickle") if d else None
    if path:
        try:
            with open(path, "rb") as f:
                value = pickle.load(f)
            try:
                os.utime(path)              # used now: pruned last
            except OSError:
                pass
            return value
        except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError,
                KeyError, ValueError, IndexError):
            pass
    value = make()
    if path:
        try:
            os.makedirs(d, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=d, prefix=f".{kind}-")
            with os.fdopen(fd, "wb") as f:
                pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
            prune(d)
        except (OSError, pickle.PicklingError, TypeError, AttributeError):
            try:
                os.unlink(tmp)
            except (OSError, UnboundLocalError):
                pass
    return value


def prune(d: str, limit: Optional[int] = None) -> None:
    """Remove the entries of directory d used longest ago until they take under 3/4 of the
    limit (MAX_BYTES), when they take more."""
    limit = MAX_BYTES if limit is None else limit
    entries = []
    total = 0
    try:
        with os.scandir(d) as it:
            for e in it:
                if e.name.endswith(".pickle") and e.is_file(follow_symlinks=False):
                    st = e.stat(follow_symlinks=False)
                    entries.append((st.st_mtime_ns, st.st_size, e.path))
                    total += st.st_size
    except OSError:
        return
    if total <= limit:
        return
    entries.sort()
    for _, size, path in entries:
        if total <= limit * 3 // 4:
            break
        try:
            os.unlink(path)
            total -= size
        except OSError:
            pass
