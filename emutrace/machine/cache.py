"""A small on-disk cache for parsed metadata, so a warm run parses nothing it parsed before.

Entries are keyed by a hash of everything they were made from (file contents or identity,
emutrace's version) and written atomically; an unwritable cache directory just means no cache.
The directory is $EMUTRACE_CACHE, else $XDG_CACHE_HOME/emutrace, else ~/.cache/emutrace; an
empty $EMUTRACE_CACHE turns the cache off. It is kept under MAX_BYTES: a write that finds more
removes the entries used longest ago (a hit marks its entry used). Checked entries (load_blob,
store_blob) hold bytes with a digest, for readers that must not trust the file.
"""
from __future__ import annotations

import os
import pickle
import tempfile
from typing import Any, Callable, Iterable, Optional

from emutrace.codecache import cache_dir  # noqa: F401  (the cache's directory; users take it from here too)
from emutrace.version import __version__
from emutrace.machine.digest import blake2b, sha256


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


BLOB = b"emutrace-blob-1\n"     # a checked entry's first bytes, then its digest (16 bytes)


def _blob_digest(kind: str, key: str, body: bytes) -> bytes:
    h = blake2b(body, digest_size=16, person=b"emutrace-blob")
    h.update(f"\0{kind}\0{key}".encode())          # (a file renamed to another entry fails too)
    return h.digest()


def load_blob(kind: str, key: str) -> Optional[bytes]:
    """The bytes stored under (kind, key) by store_blob, or None: no cache, no entry, or an entry
    whose digest does not match its contents (truncated, corrupt: it is removed, to be made
    again). Unlike `cached`, nothing of the file is executed or unpickled: a reader that parses
    the bytes it gets (validating them) cannot be made to run code by a planted file."""
    d = cache_dir()
    if not d:
        return None
    path = os.path.join(d, f"{kind}-{key}.blob")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    n = len(BLOB)
    body = data[n + 16:]
    if data[:n] != BLOB or data[n:n + 16] != _blob_digest(kind, key, body):
        drop_blob(kind, key)
        return None
    try:
        os.utime(path)                  # used now: pruned last
    except OSError:
        pass
    return body


def drop_blob(kind: str, key: str) -> None:
    """Remove an entry (one whose contents a reader refused)."""
    d = cache_dir()
    if d:
        try:
            os.unlink(os.path.join(d, f"{kind}-{key}.blob"))
        except OSError:
            pass


def store_blob(kind: str, key: str, body: bytes) -> None:
    """Keep body under (kind, key), with its digest, written atomically (no cache: nothing)."""
    d = cache_dir()
    if not d:
        return
    tmp = None
    try:
        os.makedirs(d, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=d, prefix=f".{kind}-")
        with os.fdopen(fd, "wb") as f:
            f.write(BLOB + _blob_digest(kind, key, body) + body)
        os.replace(tmp, os.path.join(d, f"{kind}-{key}.blob"))
        prune(d)
    except OSError:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def prune(d: str, limit: Optional[int] = None) -> None:
    """Remove the entries of directory d used longest ago until they take under 3/4 of the
    limit (MAX_BYTES), when they take more."""
    limit = MAX_BYTES if limit is None else limit
    entries = []
    total = 0
    try:
        with os.scandir(d) as it:
            for e in it:
                if e.name.endswith((".pickle", ".blob")) and e.is_file(follow_symlinks=False):
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
