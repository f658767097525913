"""Pulling readable facts out of raw bytes: DNS questions from resolver packets, printable strings
from memory (as `strings -n 6`), byte previews, decoded socket addresses, file digests."""
from __future__ import annotations

import hashlib
import ipaddress
import math
import re
import struct
from collections import Counter
from typing import Dict, List, Optional

from emutrace.report.rules import FAMILY
from emutrace.linux.net import AF_INET, AF_INET6, AF_UNIX

MIN_STRING = 6
PRINTABLE = re.compile(rb"[\x20-\x7e\t]{%d,}" % MIN_STRING)
QTYPE = {1: "A", 2: "NS", 5: "CNAME", 6: "SOA", 12: "PTR", 15: "MX", 16: "TXT", 28: "AAAA", 33: "SRV",
         255: "ANY"}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def preview(data: bytes, limit: int = 64) -> str:
    """The first `limit` bytes, printable ASCII as is and the rest as \\xNN (strace's style)."""
    out = []
    for b in data[:limit]:
        if 0x20 <= b < 0x7f and b != 0x5c:
            out.append(chr(b))
        else:
            out.append({0x0a: "\\n", 0x0d: "\\r", 0x09: "\\t", 0x5c: "\\\\", 0: "\\0"}.get(b, f"\\x{b:02x}"))
    return "".join(out) + ("..." if len(data) > limit else "")


def text(raw: bytes, limit: int = 256) -> str:
    """Guest bytes as report text: UTF-8 where valid, the rest escaped, at most `limit` bytes."""
    return raw[:limit].decode("utf-8", "backslashreplace")


def sockaddr(raw: bytes) -> Dict[str, object]:
    """A Linux sockaddr decoded: family name and address, port or path."""
    if len(raw) < 2:
        return {"family": "?"}
    family = struct.unpack_from("<H", raw)[0]
    out: Dict[str, object] = {"family": FAMILY.get(family, str(family))}
    if family == AF_INET and len(raw) >= 8:
        out["address"] = str(ipaddress.IPv4Address(raw[4:8]))
        out["port"] = struct.unpack_from(">H", raw, 2)[0]
    elif family == AF_INET6 and len(raw) >= 24:
        out["address"] = str(ipaddress.IPv6Address(raw[8:24]))
        out["port"] = struct.unpack_from(">H", raw, 2)[0]
    elif family == AF_UNIX:
        path = raw[2:]
        if path[:1] == b"\0":
            out["path"] = "@" + text(path[1:].rstrip(b"\0"))
        else:
            out["path"] = text(path.split(b"\0", 1)[0])
    return out


def dns_questions(packet: bytes) -> List[Dict[str, str]]:
    """The questions of a DNS query (RFC 1035 §4.1): [{'name': 'c2.example.net', 'type': 'A'}].
    Anything that is not a well-formed query gives []."""
    if len(packet) < 12:
        return []
    flags, qdcount = struct.unpack_from(">HH", packet, 2)
    if flags & 0x8000 or not 0 < qdcount <= 16:      # a response, or no question
        return []
    out, pos = [], 12
    for _ in range(qdcount):
        labels = []
        while True:
            if pos >= len(packet):
                return []
            n = packet[pos]
            pos += 1
            if n == 0:
                break
            if n & 0xC0 or pos + n > len(packet):      # compression has no place in a question
                return []
            labels.append(packet[pos:pos + n].decode("ascii", "backslashreplace"))
            pos += n
        if pos + 4 > len(packet):
            return []
        qtype = struct.unpack_from(">H", packet, pos)[0]
        pos += 4
        out.append({"name": ".".join(labels), "type": QTYPE.get(qtype, str(qtype))})
    return out


def entropy(data: bytes) -> float:
    """Shannon entropy in bits per byte (0: one value repeated; 8: uniformly random bytes)."""
    if not data:
        return 0.0
    n = len(data)
    return -sum(c / n * math.log2(c / n) for c in Counter(data).values())


def _entropy_str(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in (s.count(ch) for ch in set(s)))


MIN_STRING_ENTROPY = 2.0        # bits per character: "-bUUUU" (a pointer's bytes) has 1.25
MAX_SHARE = 0.5                 # no one character makes up more than half of a string


def worth_keeping(s: str) -> bool:
    """A printable run that reads as text, as `strings`-style tools filter: at least two
    letters, no character more than half of it, and enough entropy per character. Drops the
    bytes of pointers (`-bUUUU`, from 0x5555...), padding and fill runs (`@@@@@@`)."""
    if len(s) < MIN_STRING or sum(ch.isalpha() for ch in s) < 2:
        return False
    if max(s.count(ch) for ch in set(s)) > MAX_SHARE * len(s):
        return False
    return _entropy_str(s) >= MIN_STRING_ENTROPY


def strings_of(data: bytes, cap: int = 20, max_len: int = 200) -> List[str]:
    """The first `cap` distinct printable strings of data worth keeping."""
    out: List[str] = []
    printable_strings(data, set(), out, cap, max_len)
    return out


def printable_strings(data: bytes, seen: set, out: List[str], cap: int, max_len: int = 200) -> None:
    """Append the printable runs of `data` worth keeping and not seen yet to `out`, until it
    holds `cap`."""
    for m in PRINTABLE.finditer(data):
        if len(out) >= cap:
            return
        s = m.group().decode("ascii")[:max_len]
        if s not in seen and worth_keeping(s):
            seen.add(s)
            out.append(s)


def guest_string(aspace, addr: int, limit: int = 256) -> Optional[bytes]:
    from emutrace.machine.guestaccess import GuestFault     # deferred: reading reports needs no emulator
    if not addr:
        return None
    try:
        return aspace.read_cstr(addr, limit)
    except GuestFault:          # a bad pointer: the guest's own bug, not the report's
        return None


def guest_bytes(aspace, addr: int, size: int) -> Optional[bytes]:
    from emutrace.machine.guestaccess import GuestFault     # deferred (see guest_string)
    if not addr or size <= 0:
        return b"" if size == 0 else None
    try:
        return bytes(aspace.read(addr, size))
    except GuestFault:
        return None
