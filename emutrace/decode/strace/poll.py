"""Waiting on descriptors (strace's poll.c, desc.c's select, epoll.c): pollfd arrays, fd
sets, epoll events, and the ' (...)' that says which descriptors were ready."""
from __future__ import annotations

import struct

from emutrace.linux.poll import EPOLL_CTL_DEL
from emutrace.machine.words import s32
from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import hexval, pointer, read_bytes
from emutrace.decode.strace.fields import StructText, decoders, flags


def fdset(f, mem, addr: int, nfds: int) -> str:
    if addr == 0:
        return "NULL"
    if nfds <= 0:
        return hexval(addr)
    nfds = min(nfds, 1 << 20)           # (strace's cap; it reads the whole set or prints the address)
    nbytes = ((nfds + 63) // 64) * 8
    data = read_bytes(mem, addr, nbytes)
    if data is None:
        return hexval(addr)
    bits = int.from_bytes(data, "little") & ((1 << nfds) - 1)
    return "[" + " ".join(str(fd) for fd in set_bits(bits)) + "]"


def set_bits(bits: int):
    """The numbers of the bits set in bits, lowest first (without a shift per bit: a set may be
    2**20 bits long)."""
    while bits:
        low = bits & -bits
        yield low.bit_length() - 1
        bits ^= low


def pollfds(f, mem, addr: int, nfds: int, entry: bool) -> str:
    if addr == 0:
        return "NULL"
    nfds &= 0xffffffff
    limit = (1 << 16) if f.verbose else f.string_limit     # (strace cuts the array only when abbreviating)
    shown = min(nfds, limit) if entry else min(nfds, 1 << 16)
    data = read_bytes(mem, addr, 8 * shown) if shown else b""
    if data is None:
        return hexval(addr)
    items = []
    for k in range(shown):
        fd, events, revents = struct.unpack_from("<ihh", data, 8 * k)
        if entry:
            if fd < 0:
                items.append(f"{{fd={fd}}}")
            else:
                items.append(f"{{fd={f.fd(fd)}, events={_x.format_flags('pollflags', events & 0xffff)}}}")
        elif revents:
            rev = _x.SETS["pollflags"]._plain_flags(revents & 0xffff, None)
            items.append(f"{{fd={f.fd(fd)}, revents={rev}}}")
            if len(items) >= limit:
                break
    if entry:
        return f.array(items, nfds)
    return "[" + ", ".join(items) + "]"


def epoll_events(f, mem, addr: int, n: int) -> str:
    if n <= 0:
        return "[]"
    return f.struct_array(mem, addr, n, EPOLL_EVENT)


EPOLL_EVENT = StructText("epoll_event", 12, [
    ("events", 0, "I", flags("epollevents")),
    ("data", 4, "Q", hexval)])       # (strace 7's PRINT_FIELD_X; 6.1 printed the union both ways)


def _d_pselect6_data(f, b, mem):
    ptr, size = struct.unpack("<QQ", b)
    return f"{{sigmask={f.sigset(mem, ptr, size)}, sigsetsize={size}}}"


def _c_select(f, st, mem):
    a = st.a
    nfds = s32(st.args[0])
    a.now(str(nfds))
    sets = st.args[1:4]
    for s in sets:
        a.now(fdset(f, mem, s, nfds))
    tmo = st.args[4]
    is_p = st.name == "pselect6"
    a.now(f.struct("timespec" if is_p else "timeval", mem, tmo))
    if is_p:
        a.now(f.struct("pselect6_data", mem, st.args[5]))

    def aux(ret, m):
        if ret == 0:
            return "Timeout"
        parts = []
        left = ret
        for label, s in zip(("in", "out", "except"), sets):
            if not s or left <= 0:
                continue
            text = fdset(f, m, s, nfds)
            if not text.startswith("["):
                continue
            fds = text[1:-1].split()
            if not fds:
                continue
            fds = fds[:left]
            left -= len(fds)
            parts.append(f"{label} [{' '.join(fds)}]")
        if tmo:
            parts.append("left " + f.struct("timespec" if is_p else "timeval", m, tmo))
        return ", ".join(parts)
    st.aux = aux
    st.aux_empty = True         # (strace prints " ()" when the sets it read back are empty)


def _k_pollfd(f, st, mem, addr, param, i, base):
    """poll/ppoll's array: the events asked at entry, then ' (...)' with those that came."""
    nfds = st.args[param]
    st.a.now(pollfds(f, mem, addr, nfds, entry=True))
    timeout_ptr = st.args[2] if st.name == "ppoll" else None

    def aux(ret, m):
        if ret == 0:
            return "Timeout"
        text = pollfds(f, m, addr, nfds, entry=False)
        if timeout_ptr:
            text += ", left " + f.struct("timespec", m, timeout_ptr)
        return text
    st.aux = aux


def _c_epoll_ctl(f, st, mem):
    """epoll_ctl(epfd, op, fd, event): EPOLL_CTL_DEL ignores the event, so strace shows only
    its address."""
    epfd, op, fd, event = st.args[:4]
    a = st.a
    a.now(f.fd(epfd))
    a.now(_x.format_enum("epoll_ctl_ops", op & 0xffffffff))
    a.now(f.fd(fd))
    a.now(pointer(event) if op & 0xffffffff == EPOLL_CTL_DEL else f.struct("epoll_event", mem, event))


CALLS = {"select": _c_select, "pselect6": _c_select, "epoll_ctl": _c_epoll_ctl}
STRUCTS = {"pselect6_data": (16, _d_pselect6_data), **decoders(EPOLL_EVENT)}
AT_ENTRY = {"fdset": lambda f, st, mem, v, param, n: fdset(f, mem, v, s32(n))}
AT_EXIT = {"epoll_events": lambda f, m, v, param, n, base, ret: epoll_events(f, m, v, ret)}
BY_HAND = {"pollfd": _k_pollfd}
