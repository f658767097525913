"""Library calls the report reads: string compares (where configuration keys and C2 addresses
show up) and host-name lookups. A library-call intercept (the session hooks' chained role call_intercept):
it reads the arguments at entry and never changes the call."""
from __future__ import annotations

import re

from emutrace.report import extract, rules

MAX_STRING = 256
MAX_COMPARES = 2000              # different compares kept
NOT_TEXT = re.compile(rb"[^\x20-\x7e\t\n\r]")


class CallWatch:
    def __init__(self, collector):
        self.c = collector

    def wants(self, proc, site) -> bool:
        return site.name in rules.COMPARE_CALLS or site.name in rules.RESOLVE_CALLS

    def enter(self, proc, frame, regs) -> bool:
        name = frame.site.name
        try:
            if name in rules.COMPARE_CALLS:
                self._compare(proc, name, regs)
            elif rules.RESOLVE_CALLS.get(name) is not None:
                self._resolve(proc, name, regs)
        except Exception as e:              # noqa: BLE001 (the call runs on; the report says what it missed)
            self.c._observer_failed(name, e)
        return False

    def leave(self, proc, frame, regs) -> None:
        pass                                # (it reads the arguments at the call only)

    def _compare(self, proc, name: str, regs) -> None:
        string_args, len_i = rules.COMPARE_CALLS[name]
        limit = regs.int_arg(len_i) if len_i is not None else MAX_STRING
        values = []
        for i in string_args:
            addr = regs.int_arg(i)
            if len_i is not None and name in ("memcmp", "bcmp"):
                raw = extract.guest_bytes(proc.aspace, addr, min(limit, MAX_STRING))
                if not raw:
                    return
                raw = raw.rstrip(b"\0")
                if not raw or NOT_TEXT.search(raw):
                    return                 # binary compares (hashes, structs) are not strings
            else:
                raw = extract.guest_string(proc.aspace, addr, min(limit, MAX_STRING))
            if raw is None:
                return
            values.append(extract.text(raw, MAX_STRING))
        c = self.c
        key = (name, *values)
        entry = c.compares.get(key)
        if entry is not None:
            entry["count"] += 1
            return
        if len(c.compares) >= MAX_COMPARES:
            return
        eid = c.event(proc, "call", name, args=values)
        c.compares[key] = {"function": name, "args": values, "pid": proc.pid, "count": 1, "event": eid}

    def _resolve(self, proc, name: str, regs) -> None:
        raw = extract.guest_string(proc.aspace, regs.int_arg(rules.RESOLVE_CALLS[name]), MAX_STRING)
        if not raw:
            return
        host = extract.text(raw)
        eid = self.c.event(proc, "call", name, args=[host])
        self.c.dns.append({"name": host, "type": "A" if name.startswith("gethostbyname") else "ANY",
                           "source": name, "pid": proc.pid, "server": None, "event": eid})


class _Unformatted:
    """The call state of a call nobody prints."""
    __slots__ = ("display_name",)
    text = right = ret = ""
    left_args: list = []
    args: list = []

    def __init__(self, name: str):
        self.display_name = name


class NoFormatter:
    """The formatter of the report's own library-call tracer: its events go nowhere, so their
    arguments are never decoded (CallWatch reads the few it needs itself)."""
    compiled = False            # no compiled prototypes, so nothing is logged in guest code
    string_limit = 32

    def display_name(self, name: str) -> str:
        return name

    def enter(self, name, proto, regs, mem):
        return _Unformatted(name)

    def exit(self, state, regs, mem) -> None:
        return None
