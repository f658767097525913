"""Listing mounts and namespaces (strace's listmount.c, listns.c): struct mnt_id_req and
ns_id_req by the size they state, the ids the call wrote."""
from __future__ import annotations

import struct

from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import array_of, hexval, is_error, nonzero_tail, pointer, read_bytes, read_u32

MNT_ID_REQ_SIZE_VER0, MNT_ID_REQ_SIZE_VER1 = 24, 32
NS_ID_REQ_SIZE_VER0 = 32


def _sized_req(f, mem, addr: int, ver0: int, fields) -> str:
    """{size=N, ...}: the rest only when N reaches the first version, '???' when unreadable."""
    size = read_u32(mem, addr) if addr else None
    if size is None:
        return pointer(addr)
    if size < ver0:
        return f"{{size={size}}}"
    data = read_bytes(mem, addr, min(32, size))
    if data is None:
        return f"{{size={size}, ???}}"
    parts = [f"size={size}"] + fields(data.ljust(32, b"\0"), size)
    if size > 32:
        tail = nonzero_tail(f, mem, addr, 32, size)
        if tail:
            parts.append(tail)
    return "{" + ", ".join(parts) + "}"


def _mnt_id_req(f, mem, addr: int) -> str:
    def fields(d, size):
        fd, mnt_id, param, ns_id = struct.unpack_from("<IQQQ", d, 4)
        out = [f"mnt_ns_fd={f.fd(fd)}", f"mnt_id={_x.lookup('listmount_mnt_id', mnt_id) or hexval(mnt_id)}",
               f"param={hexval(param)}"]
        if size >= MNT_ID_REQ_SIZE_VER1:
            out.append(f"mnt_ns_id={hexval(ns_id)}")
        return out
    return _sized_req(f, mem, addr, MNT_ID_REQ_SIZE_VER0, fields)


def _ns_id_req(f, mem, addr: int) -> str:
    def fields(d, size):
        spare, ns_id, ns_type, spare2, user = struct.unpack_from("<IQIIQ", d, 4)
        out = [f"spare={hexval(spare)}"] if spare else []
        out += [f"ns_id={hexval(ns_id)}", f"ns_type={_x.format_flags('ns_type', ns_type)}"]
        if spare2:
            out.append(f"spare2={hexval(spare2)}")
        out.append(f"user_ns_id={_x.lookup('listns_user_ns_id', user) or hexval(user)}")
        return out
    return _sized_req(f, mem, addr, NS_ID_REQ_SIZE_VER0, fields)


def _list_call(req_text, flags_text):
    def decode(f, st, mem):
        req, ids, nr, fl = st.args[:4]
        a = st.a
        a.now(req_text(f, mem, req))
        # as many ids as the call wrote: a failed call's array is empty when nr is 0, else its address
        def written(ret, m):
            if is_error(ret):
                return "[]" if ids and nr == 0 else pointer(ids)
            return array_of(f, m, ids, min(nr, ret), 8, hexval)
        a.later(written)
        a.now(str(nr))
        a.now(flags_text(fl & 0xffffffff))
    return decode


CALLS = {"listmount": _list_call(_mnt_id_req, lambda v: _x.format_flags("listmount_flags", v)),
         "listns": _list_call(_ns_id_req, hexval)}
