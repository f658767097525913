"""Report values as a person reads them, shared by the text view (render.py) and the page
(htmlpage.py): a socket address as address:port, lists comma-separated, addresses in hex, never a
Python repr; which `files` entries are streams rather than files; the order of severities."""
from __future__ import annotations

import json

SEVERITY_ORDER = {"high": 0, "medium": 1, "low": 2}


def value_text(key: str, v) -> str:
    """One detail's value as a person reads it: a socket address as address:port (or its path),
    a list comma-separated, an address in hex; never a Python repr."""
    if isinstance(v, dict):
        if "path" in v:
            return str(v["path"])
        if "address" in v:
            host = f"[{v['address']}]" if ":" in str(v["address"]) else str(v["address"])
            return f"{host}:{v['port']}" if "port" in v else host
        return " ".join(f"{k}={value_text(k, x)}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return ",".join(value_text(key, x) for x in v)
    if isinstance(v, bool) or v is None:
        return json.dumps(v)
    if isinstance(v, int) and key in HEX_KEYS:
        return hex(v)
    return str(v)


HEX_KEYS = {"address", "writer", "entry"}
# pseudo-paths of pipes, sockets and anonymous inodes (fd links): streams, not files
STREAM_PREFIXES = ("pipe:[", "socket:[", "anon_inode:")


def is_stream(path: str) -> bool:
    return path.startswith(STREAM_PREFIXES)
