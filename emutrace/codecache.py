"""Compiled code of generated source, kept across runs: a record's __init__ (emutrace.record)
takes ~0.1 ms to compile, and a run compiles one for each record class it makes instances of (a
dozen or more: ~1.5 ms of every start-up).

One file in the metadata cache's directory (cache_dir, beside it) per bytecode format
holds {source: marshalled code}, read once, at the first compile; a code object is unmarshalled
when its source is asked for (~20 us; all of them, every record's, would cost more than the few a
run compiles). The source is the key, so a changed record compiles afresh and nothing stale is
ever used; a new source is added and the file rewritten (atomically: os.replace). An unreadable, corrupt or unwritable file, or no cache directory
(EMUTRACE_CACHE=""), only means compiling as before.
"""
from __future__ import annotations

import marshal
import os
import sys
from types import CodeType
from typing import Dict, Optional

MAX_ENTRIES = 512               # (sources of records edited away pile up: beyond this, start over)
_FILE = f"code-{sys.implementation.cache_tag}-{sys.hexversion:x}.marshal"
_compile = compile              # (a test counts the compiles through this name)

_codes: Optional[Dict[str, bytes]] = None        # source -> marshalled code, loaded at the first compile


def cache_dir() -> Optional[str]:
    """The metadata cache's directory ($EMUTRACE_CACHE, else the XDG cache's emutrace/), or None
    when $EMUTRACE_CACHE is empty (no cache)."""
    d = os.environ.get("EMUTRACE_CACHE")
    if d is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        d = os.path.join(base, "emutrace")
    return d or None


def compiled(src: str) -> CodeType:
    """The code of `src` (a module's worth of source, for exec), compiled once across runs."""
    global _codes
    if _codes is None:
        _codes = _load()
    blob = _codes.get(src)
    if blob is not None:
        try:
            code = marshal.loads(blob)
            if isinstance(code, CodeType):
                return code
        except (EOFError, ValueError, TypeError):
            pass
    code = _compile(src, "<string>", "exec")
    _codes[src] = marshal.dumps(code)
    _save(_codes)
    return code


def _path() -> Optional[str]:
    d = cache_dir()
    return os.path.join(d, _FILE) if d else None


def _load() -> Dict[str, bytes]:
    path = _path()
    if path is None:
        return {}
    try:
        with open(path, "rb") as f:
            codes = marshal.load(f)
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(codes, dict) or len(codes) > MAX_ENTRIES:
        return {}
    return {k: v for k, v in codes.items() if isinstance(k, str) and isinstance(v, bytes)}


def _save(codes: Dict[str, bytes]) -> None:
    path = _path()
    if path is None:
        return
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as f:
            marshal.dump(codes, f)           # (private, as the cache's pickles: code runs from it)
        os.replace(tmp, path)
    except (OSError, ValueError):
        try:
            os.unlink(tmp)
        except OSError:
            pass
