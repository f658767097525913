"""Memory mappings (strace's mem.c, numa.c): mremap, mincore, memory policies."""
from __future__ import annotations

from emutrace.kernel import errno as _errno
from emutrace.machine.words import s32
from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import array_of, hexval, is_error, pointer, read_bytes


def _mpol_mode(v: int, wide: bool) -> str:
    if not wide:
        v &= 0xffffffff
    flags = v & 0xe000
    mode = v & ~0xe000
    parts = []
    if flags:
        parts.append(_x.format_flags("mpol_mode_flags", flags))
    name = _x.lookup("mpol_modes", mode)
    if name or not flags:
        parts.append(name or f"{hexval(mode)} /* MPOL_??? */")
    elif mode:
        parts.append(hexval(mode))
    return "|".join(parts)


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


CALLS = {"mremap": _c_mremap, "mincore": _c_mincore, "move_pages": _c_move_pages}
AT_ENTRY = {"mpol_mode": lambda f, st, mem, v, param, n: _mpol_mode(v, st.name == "mbind")}
