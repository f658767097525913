"""A small on-disk cache for parsed metadata, so a warm run parses nothing it parsed before.

Entries are keyed by a hash of everything they were made from (file contents or identity,
emutrace's version) and written atomically; an unwritable cache directory just means no cache.
The directory is $EMUTRACE_CACHE, else $XDG_CACHE_HOME/emutrace, else ~/.cache/emutrace.
"""
from __future__ import annotations

import os
import pickle
import tempfile
from typing import Any, Callable, Iterable, Optional

from . import __version__
from .digest import sha256


def cache_dir() -> Optional[str]:
    d = os.environ.get("EMUTRACE_CACHE")
    if d is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        d = os.path.join(base, "emutrace")
    return d or None


def key_of(parts: Iterable[bytes]) -> str:
    h = sha256(__version__.encode())
    for p in parts:
        h.update(len(p).to_bytes(8, "little"))
        h.update(p)
    return h.hexdigest()[:32]


def cached(kind: str, key: str, make: Callable[[], Any]) -> Any:
    """make() once per key; later calls load the pickle."""
    d = cache_dir()
    path = os.path.join(d, f"{kind}-{key}.pickle") if d else None
    if path:
        try:
            with open(path, "rb") as f:
                return pickle.load(f)
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
        except (OSError, pickle.PicklingError, TypeError, AttributeError):
            try:
                os.unlink(tmp)
            except (OSError, UnboundLocalError):
                pass
    return value
