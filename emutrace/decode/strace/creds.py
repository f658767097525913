"""Credentials (strace's uid.c, capability.c): group lists and capability sets."""
from __future__ import annotations

import struct

from emutrace.machine.words import s32
from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import element_array, hexval
from emutrace.decode.strace.fields import StructText, decoders, enum


_NGROUPS_MAX = 65536


def gids(f, mem, addr: int, n: int) -> str:
    """strace's print_groups: the address for more than NGROUPS_MAX, else the array element by
    element: an unreadable element ends it with '... /* its address */' (the first: the address
    alone), and only then does the -s limit cut it with '...'."""
    if addr == 0:
        return "NULL"
    if n < 0 or n > _NGROUPS_MAX:
        return hexval(addr)
    return element_array(f, mem, addr, n, 4, _gid)


def _gid(data: bytes) -> str:
    g = int.from_bytes(data, "little")
    return "-1" if g == 0xffffffff else str(g)          # (print_gid)


CAP_USER_HEADER = StructText("cap_user_header", 8, [("version", 0, "I", enum("cap_version")),
                                                    ("pid", 4, "i")])


def _caps(lo: int, hi: int) -> str:
    v = lo | (hi << 32)
    if v == 0:
        return "0"
    parts = []
    for bit in range(64):
        if v >> bit & 1:
            name = _x.lookup("capabilities", bit)
            parts.append(f"1<<{name}" if name else f"1<<{bit}")
    return "|".join(parts)


def _d_cap_data(f, b, mem):
    # two cap_user_data structs (the low and the high 32 capabilities), printed as one set each
    e0, p0, i0, e1, p1, i1 = struct.unpack("<6I", b)
    return f"{{effective={_caps(e0, e1)}, permitted={_caps(p0, p1)}, inheritable={_caps(i0, i1)}}}"


STRUCTS = {**decoders(CAP_USER_HEADER), "cap_user_data": (24, _d_cap_data)}
AT_ENTRY = {"gids_in": lambda f, st, mem, v, param, n: gids(f, mem, v, s32(n))}
AT_EXIT = {"gids_out": lambda f, m, v, param, n, base, ret: gids(f, m, v, min(s32(n), ret) if s32(n) else 0)}
