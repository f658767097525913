"""The LSM attribute calls (strace's lsm.c): struct lsm_ctx and sequences of them, the size
read at entry and written back, the module ids."""
from __future__ import annotations

import struct

from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import array_of, hexval, is_error, pointer, read_bytes, read_u32

LSM_CTX_HEADER = 32                   # struct lsm_ctx {u64 id, flags, len, ctx_len; u8 ctx[]}
LSM_FLAG_SINGLE = 1
_VERBOSE_MOST = 1 << 16


def _lsm_id(v: int, dflt: bool = False) -> str:
    name = _x.lookup("lsm_ids", v)
    if _x.STYLE.xlat == "raw" or name is None:
        return hexval(v) + (" /* LSM_ID_??? */" if dflt and name is None and _x.STYLE.xlat != "raw" else "")
    return name if _x.STYLE.xlat == "abbrev" else f"{hexval(v)} /* {name} */"


def _size_ptr(mem, addr: int) -> str:
    v = read_u32(mem, addr) if addr else None
    return f"[{v}]" if v is not None else pointer(addr)


def _header(mem, addr: int, length: int):
    data = read_bytes(mem, addr, LSM_CTX_HEADER) if length >= LSM_CTX_HEADER and addr else None
    return None if data is None else struct.unpack("<QQQQ", data)


def lsm_ctx(f, mem, addr: int, length: int, head) -> str:
    ident, flags, ln, ctx_len = head
    text = f"{{id={_lsm_id(ident)}, flags={hexval(flags)}, len={ln}, ctx_len={ctx_len}"
    msg_len = min(ln, length)
    shown = min(ctx_len, msg_len - LSM_CTX_HEADER if msg_len > LSM_CTX_HEADER else 0)
    if shown > 0:
        text += f", ctx={f.buf(mem, addr + LSM_CTX_HEADER, shown, force_hex=True)}"
    return text + "}"


def lsm_ctx_sequence(f, mem, addr: int, length: int) -> str:
    items = []
    most = _VERBOSE_MOST if f.verbose else f.string_limit
    while True:
        head = _header(mem, addr, length)
        if head is None:
            if not items:
                return pointer(addr)
            items.append(f"... /* {hexval(addr)} */")
            break
        if len(items) >= most:
            items.append("...")
            break
        ln = head[2]
        nxt_len = length - ln if ln >= LSM_CTX_HEADER and length >= ln else 0
        items.append(lsm_ctx(f, mem, addr, length, head))
        if not nxt_len:
            break
        addr, length = addr + ln, nxt_len
    return "[" + ", ".join(items) + "]"


def _size_changed(saved, now) -> str:
    return f"[{saved}]" if saved == now else f"[{saved} => {now}]"


def _c_lsm_get_self_attr(f, st, mem):
    attr, p_ctx, p_size, fl = st.args[:4]
    fl &= 0xffffffff
    a = st.a
    a.now(_x.format_enum("lsm_attrs", attr & 0xffffffff))
    single = fl & LSM_FLAG_SINGLE
    size = read_u32(mem, p_size) if p_size else None
    head = _header(mem, p_ctx, LSM_CTX_HEADER) if single else ()
    if size is None or head is None:
        a.now(pointer(p_ctx)); a.now(_size_ptr(mem, p_size)); a.now(_x.format_flags("lsm_flags", fl))
        return
    entry = f"{{id={_lsm_id(head[0])}}}" if single else ""

    def ctx(ret, m):
        now = read_u32(m, p_size)
        if now is None:
            return entry if single else pointer(p_ctx)
        seq = pointer(p_ctx) if is_error(ret) else lsm_ctx_sequence(f, m, p_ctx, now)
        return (entry + " => " if single else "") + seq

    def size_text(ret, m):
        now = read_u32(m, p_size)
        return _size_ptr(m, p_size) if now is None else _size_changed(size, now)
    a.later(ctx)
    a.later(size_text)
    a.now(_x.format_flags("lsm_flags", fl))


def _c_lsm_set_self_attr(f, st, mem):
    attr, p_ctx, size, fl = st.args[:4]
    size &= 0xffffffff
    a = st.a
    a.now(_x.format_enum("lsm_attrs", attr & 0xffffffff))
    head = _header(mem, p_ctx, size)
    a.now(pointer(p_ctx) if head is None else lsm_ctx(f, mem, p_ctx, size, head))
    a.now(str(size))
    a.now(hexval(fl & 0xffffffff))


def _c_lsm_list_modules(f, st, mem):
    p_ids, p_size, fl = st.args[:3]
    a = st.a
    size = read_u32(mem, p_size) if p_size else None
    if size is None:
        a.now(pointer(p_ids)); a.now(_size_ptr(mem, p_size)); a.now(hexval(fl & 0xffffffff))
        return

    def ids(ret, m):
        if read_u32(m, p_size) is None or is_error(ret):
            return pointer(p_ids)
        return array_of(f, m, p_ids, ret, 8, lambda v: _lsm_id(v, dflt=True))

    def size_text(ret, m):
        now = read_u32(m, p_size)
        return _size_ptr(m, p_size) if now is None else _size_changed(size, now)
    a.later(ids)
    a.later(size_text)
    a.now(hexval(fl & 0xffffffff))


CALLS = {"lsm_get_self_attr": _c_lsm_get_self_attr, "lsm_set_self_attr": _c_lsm_set_self_attr,
         "lsm_list_modules": _c_lsm_list_modules}
