"""Memory mappings (strace's mem.c, numa.c): mremap, mincore, memory policies."""
from __future__ import annotations

from emutrace.kernel import errno as _errno
from emutrace.machine.words import s32
from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import MASK64, array_of, element_array, hexval, is_error, pointer, read_bytes


def _mpol_mode(v: int, wide: bool) -> str:
    """strace's print_mode: the mode, then its flags (MPOL_BIND|MPOL_F_NUMA_BALANCING); with an
    unknown mode the whole word as flags; -X as strace prints a constant."""
    if not wide:
        v &= 0xffffffff
    flags = v & 0xe000
    mode = v & ~0xe000
    if not flags:
        return _x.format_enum("mpol_modes", mode)
    name = _x.lookup("mpol_modes", mode)
    if name is None:
        return _x.format_flags("mpol_mode_flags", v)
    style = _x.STYLE.xlat
    if style == "raw":
        return hexval(v)
    _x.STYLE.xlat = "abbrev"
    try:
        text = f"{name}|{_x.format_flags('mpol_mode_flags', flags)}"
    finally:
        _x.STYLE.xlat = style
    return f"{hexval(v)} /* {text} */" if style == "verbose" else text


def nodemask(f, mem, addr: int, maxnodes: int) -> str:
    """strace's print_nodemask: (maxnodes - 1) bits in longs, each as %#018lx (0 without 0x),
    element by element (an unreadable one ends the array with its address, the first: the
    address alone), cut at -s; the address when the count overflows."""
    maxnodes &= MASK64
    nmemb = ((maxnodes + 62) & MASK64) // 64
    if nmemb < maxnodes // 64 or (maxnodes and not nmemb):
        return pointer(addr)
    if addr == 0:
        return "NULL"
    if nmemb == 0:
        return "[]"
    if addr + 8 * nmemb > MASK64:
        return hexval(addr)
    return element_array(f, mem, addr, nmemb, 8, _node_long)


def _node_long(data: bytes) -> str:
    v = int.from_bytes(data, "little")
    return "%#016x" % v if v else "0" * 16       # (C's %#0*lx, width 16: no 0x for 0)


def _c_set_mempolicy(f, st, mem):
    st.a.now(_mpol_mode(st.args[0], False))
    st.a.now(nodemask(f, mem, st.args[1], st.args[2]))
    st.a.now(str(st.args[2]))


def _c_mremap(f, st, mem):
    old, oldsz, newsz, flags, new = st.args[:5]
    a = st.a
    a.now(pointer(old)); a.now(str(oldsz)); a.now(str(newsz))
    a.now(_x.format_flags("mremap_flags", flags))
    if flags & 6:                                 # MREMAP_FIXED | MREMAP_DONTUNMAP
        a.now(pointer(new))


def _c_mincore(f, st, mem):
    addr, length, vec = st.args[:3]
    st.a.now(pointer(addr))
    st.a.now(str(length))

    def out(ret, m):
        if vec == 0 or is_error(ret):
            return pointer(vec)
        n = (length + 4095) // 4096
        shown = min(n, f.string_limit)
        data = read_bytes(m, vec, shown)
        if data is None:
            return hexval(vec)
        return f.array([str(x & 1) for x in data], n)
    st.a.later(out)


def _page_status(v: int) -> str:
    """strace's print_err(status, negated): a negative errno by name, -EFAULT."""
    v = s32(v)
    name = _errno.NAME.get(-v) if v < 0 else None
    style = _x.STYLE.xlat
    if name is None or style == "raw":
        return str(v)
    return f"-{name}" if style == "abbrev" else f"{v} /* -{name} */"


def _c_move_pages(f, st, mem):
    """move_pages(pid, count, pages, nodes, status, flags): status is written by the call."""
    pid, n, pages, nodes, status, fl = st.args[:6]
    a = st.a
    a.now(str(s32(pid)))
    a.now(str(n))
    a.now(array_of(f, mem, pages, n, 8, pointer))
    a.now(array_of(f, mem, nodes, n, 4, lambda v: str(s32(v))))
    a.later(lambda ret, m: (hexval(status) if is_error(ret) and n and status else
                            array_of(f, m, status, n, 4, _page_status)))
    a.now(_x.format_flags("move_pages_flags", fl & 0xffffffff))


CALLS = {"mremap": _c_mremap, "mincore": _c_mincore, "set_mempolicy": _c_set_mempolicy,
         "move_pages": _c_move_pages}
AT_ENTRY = {"mpol_mode": lambda f, st, mem, v, param, n: _mpol_mode(v, st.name == "mbind")}
