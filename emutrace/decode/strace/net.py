"""Sockets (strace's net.c, sockaddr.c, msghdr.c): socket addresses, socket options, messages
and their control data."""
from __future__ import annotations

import struct

from emutrace.kernel import errno as _errno
from emutrace.machine.words import s32
from emutrace.decode import xlat as _x
from emutrace.decode.strace import sockpacket
from emutrace.decode.strace.common import (hexval, is_error, pointer, quote_string, read_bytes, read_u32,
                                           written_u32)
from emutrace.decode.strace.fields import StructText, enum, flags


def _inet_ntop6(b: bytes) -> str:
    """glibc's inet_ntop(AF_INET6): longest zero run as ::, dotted quad for v4-mapped/compat."""
    words = struct.unpack(">8H", b)
    best_base, best_len, cur_base, cur_len = -1, 0, -1, 0
    for i, w in enumerate(words):
        if w == 0:
            if cur_base < 0:
                cur_base, cur_len = i, 1
            else:
                cur_len += 1
        else:
            if cur_base >= 0 and (best_base < 0 or cur_len > best_len):
                best_base, best_len = cur_base, cur_len
            cur_base = -1
    if cur_base >= 0 and (best_base < 0 or cur_len > best_len):
        best_base, best_len = cur_base, cur_len
    if best_base >= 0 and best_len < 2:
        best_base = -1
    out = ""
    i = 0
    while i < 8:
        if best_base >= 0 and best_base <= i < best_base + best_len:
            if i == best_base:
                out += ":"
            i += 1
            continue
        if i:
            out += ":"
        if i == 6 and best_base == 0 and (best_len == 6 or (best_len == 5 and words[5] == 0xffff)):
            out += ".".join(str(x) for x in b[12:16])
            break
        out += "%x" % words[i]
        i += 1
    if best_base >= 0 and best_base + best_len == 8:
        out += ":"
    return out


def format_sockaddr(data: bytes) -> str:
    """{sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("127.0.0.1")} etc."""
    n = len(data)
    family = struct.unpack_from("<H", data)[0]
    fam = _x.format_enum("address_families", family)
    head = f"sa_family={fam}"
    if family == 2 and n >= 16:
        port = struct.unpack_from(">H", data, 2)[0]
        ip = ".".join(str(x) for x in data[4:8])
        return f'{{{head}, sin_port=htons({port}), sin_addr=inet_addr("{ip}")}}'
    if family == 10 and n >= 24:
        port = struct.unpack_from(">H", data, 2)[0]
        flow = struct.unpack_from(">I", data, 4)[0]
        ip = _inet_ntop6(data[8:24])
        text = (f'{{{head}, sin6_port=htons({port}), sin6_flowinfo=htonl({flow}), '
                f'inet_pton(AF_INET6, "{ip}", &sin6_addr)')
        if n >= 28:
            text += f", sin6_scope_id={struct.unpack_from('<I', data, 24)[0]}"
        return text + "}"
    if family == 1:
        if n <= 2:
            return f"{{{head}}}"
        path = data[2:]
        if path[:1] == b"\0":
            return f"{{{head}, sun_path=@{quote_string(path[1:])}}}"
        nul = path.find(b"\0")
        if nul >= 0:
            path = path[:nul]
        return f"{{{head}, sun_path={quote_string(path)}}}"
    if family == 16 and n >= 12:
        pid, groups = struct.unpack_from("<II", data, 4)
        return f"{{{head}, nl_pid={pid}, nl_groups={groups:#08x}}}"
    return f"{{{head}, sa_data={quote_string(data[2:])}}}"


def sockaddr(f, mem, addr: int, addrlen: int) -> str:
    if addr == 0:
        return "NULL"
    if addrlen < 2:
        return hexval(addr)
    n = min(addrlen, 128)
    data = read_bytes(mem, addr, n)
    if data is None:
        return hexval(addr)
    return format_sockaddr(data)


def socklen(f, mem, addr, inlen, ret):
    if addr == 0:
        return "NULL"
    if inlen is None:
        return hexval(addr)
    inlen = s32(inlen)                          # (an int to strace: [-1], not [4294967295])
    if is_error(ret):
        return f"[{inlen}]"
    out = read_u32(mem, addr)
    if out is None or s32(out) == inlen:
        return f"[{inlen}]"
    return f"[{inlen} => {s32(out)}]"


def addr_out(f, mem, addr, lenptr, ret, inlen=None):
    """The address a call wrote: as strace, only the bytes that fit the buffer (the smaller of the
    length given and the length returned) are decoded."""
    text, n = written_u32(mem, addr, lenptr, is_error(ret))
    if text is not None:
        return text
    if inlen is not None:
        n = min(s32(n), s32(inlen))
    return sockaddr(f, mem, addr, n)


def _c_socket(f, st, mem):
    family, typ, proto = st.args[:3]
    a = st.a
    family &= 0xffffffff
    a.now(_x.format_enum("address_families", family))
    a.now(_x.format_flags("socket_type", typ & 0xffffffff))
    if st.name == "socketpair" or family not in (2, 10, 16, 17):
        a.now(str(proto))
    elif family in (2, 10):
        a.now(_x.format_enum("ipprotos", proto & 0xffffffff))
    elif family == 16:
        a.now(_x.format_enum("netlink_protocols", proto & 0xffffffff))
    elif family == 17:
        proto &= 0xffffffff
        p = ((proto & 0xff) << 8) | ((proto >> 8) & 0xff)
        a.now(f"htons({_x.format_enum('ethernet_protocols', p)})")
    if st.name == "socketpair":
        sv = st.args[3]
        a.later(lambda ret, m: pointer(sv) if is_error(ret) else f.fdpair(m, sv))


_SOCKOPT_SETS = {0: "sockopt_ip", 1: "sockopt_socket", 6: "sockopt_tcp", 41: "sockopt_ipv6", 271: "sockopt_tipc",
                 sockpacket.SOL_PACKET: "sockopt_packet", sockpacket.SOL_RAW: "sockopt_raw"}

UCRED = StructText("ucred", 12, [("pid", 0, "i"), ("uid", 4, "I"), ("gid", 8, "I")])
LINGER = StructText("linger", 8, [("l_onoff", 0, "i"), ("l_linger", 4, "i")])
TIPC_GROUP_REQ = StructText("tipc_group_req", 16, [
    ("type", 0, "I"), ("instance", 4, "I"), ("scope", 8, "I", enum("tipc_scopes")),
    ("flags", 12, "I", flags("tipc_group_flags"))])
# the options whose value is a struct: (level, name) -> its layout
_SOCKOPT_STRUCTS = {(1, 13): LINGER, (1, 17): UCRED}          # SO_LINGER, SO_PEERCRED
# options strace reads as their own type whatever the length, and shows by address when it is
# shorter (sol_tipc's): (level, name) -> an int's renderer or the struct
_SOCKOPT_SIZED = {(271, 127): lambda v: _x.format_enum("tipc_importance", v & 0xffffffff),   # TIPC_IMPORTANCE
                  (271, 135): TIPC_GROUP_REQ}                                               # TIPC_GROUP_JOIN


def _errno_name(v: int) -> str:
    return _errno.NAME.get(v) or str(v)


def _port_range(v: int) -> str:
    """IP_LOCAL_PORT_RANGE: 0x... /* LO..HI */ (a bound of 0 is left out; no comment for -X raw)."""
    v &= 0xffffffff
    lo, hi = v & 0xffff, v >> 16
    text = hexval(v)
    if _x.STYLE.xlat != "raw" and v and (not lo or not hi or lo <= hi):
        text += f" /* {lo or ''}..{hi or ''} */"
    return text


# the int options strace prints by name: (level, name) -> the value's text
_SOCKOPT_INTS = {(1, 4): _errno_name,                                   # SO_ERROR: ECONNREFUSED
                 (0, 52): lambda v: _x.format_enum("ipprotos", v & 0xffffffff),     # IP_PROTOCOL
                 (0, 51): _port_range}                                  # IP_LOCAL_PORT_RANGE


# SOL_SOCKET's int-like options (strace's "All known int-like options"): an int however long the
# buffer is said to be; setsockopt shows a shorter one by address, getsockopt's bytes in hex
_SO_INT_LIKE = frozenset(_x.SETS["sockopt_socket"].names()[n] for n in """
    SO_DEBUG SO_REUSEADDR SO_DONTROUTE SO_BROADCAST SO_SNDBUF SO_RCVBUF SO_KEEPALIVE SO_OOBINLINE
    SO_NO_CHECK SO_PRIORITY SO_BSDCOMPAT SO_REUSEPORT SO_PASSCRED SO_RCVLOWAT SO_SNDLOWAT
    SO_DETACH_FILTER SO_TIMESTAMP_OLD SO_ACCEPTCONN SO_SNDBUFFORCE SO_RCVBUFFORCE SO_PASSSEC
    SO_TIMESTAMPNS_OLD SO_MARK SO_TIMESTAMPING_OLD SO_RXQ_OVFL SO_WIFI_STATUS SO_PEEK_OFF SO_NOFCS
    SO_LOCK_FILTER SO_SELECT_ERR_QUEUE SO_BUSY_POLL SO_INCOMING_CPU SO_CNX_ADVICE
    SO_INCOMING_NAPI_ID SO_ZEROCOPY SO_TIMESTAMP_NEW SO_TIMESTAMPNS_NEW SO_TIMESTAMPING_NEW
    SO_DETACH_REUSEPORT_BPF SO_PREFER_BUSY_POLL SO_BUSY_POLL_BUDGET SO_RESERVE_MEM SO_RCVMARK
    SO_PASSPIDFD SO_RCVPRIORITY SO_PASSRIGHTS SO_INQ""".split())


def _int_at(mem, addr: int) -> str:
    """printnum_int: [N], or the address when it cannot be read."""
    v = read_u32(mem, addr)
    return hexval(addr) if v is None else f"[{s32(v)}]"


def _sockopt_value(f, mem, level, name, addr, length, got: bool = False) -> str:
    """The option's value of `length` bytes (got: what getsockopt wrote, where 0 bytes is
    nothing to show: the address)."""
    if addr == 0:
        return "NULL"
    own = (sockpacket.GOT_VALUES if got else sockpacket.SET_VALUES).get((level, name))
    if own is not None:
        return own(f, mem, addr, length)
    if length < 0 or length == 0 and got:
        return hexval(addr)
    if level == 1 and name in _SO_INT_LIKE:
        if length >= 4:
            return _int_at(mem, addr)
        return f.buf(mem, addr, length, force_hex=True) if got else hexval(addr)
    sized = _SOCKOPT_SIZED.get((level, name))
    if sized is not None:
        size = sized.size if isinstance(sized, StructText) else 4
        d = read_bytes(mem, addr, size) if length >= size else None
        if d is None:
            return hexval(addr)
        return sized.text(d) if isinstance(sized, StructText) else f"[{sized(int.from_bytes(d, 'little'))}]"
    shape = _SOCKOPT_STRUCTS.get((level, name))
    if shape is not None and length >= shape.size:
        d = read_bytes(mem, addr, shape.size)
        if d is not None:
            return shape.text(d)
    if length == 4:
        v = read_u32(mem, addr)
        if v is not None:
            render = _SOCKOPT_INTS.get((level, name))
            return f"[{render(s32(v)) if render else s32(v)}]"
    if level in _SOCKOPT_SETS and level != 1 or (level, name) in _SOCKOPT_INTS:
        # any other length: the bytes, in hex (strace's print_quoted_string with QUOTE_FORCE_HEX)
        return f.buf(mem, addr, length, force_hex=True)
    return f.buf(mem, addr, length)     # an option strace does not know: printstrn


def _c_sockopt(f, st, mem):
    fd, level, name, val, ln = st.args[:5]
    level &= 0xffffffff
    name &= 0xffffffff
    a = st.a
    a.now(f.fd(fd))
    a.now(_x.format_enum("sockopt_level", level))
    sname = _SOCKOPT_SETS.get(level)
    a.now(_x.format_enum(sname, name) if sname else str(name))
    if st.name == "setsockopt":
        a.now(_sockopt_value(f, mem, level, name, val, s32(ln)))
        a.now(str(s32(ln)))
        return
    inlen = read_u32(mem, ln) if ln else None

    def value(ret, m):
        if is_error(ret) or ln == 0:
            return pointer(val)
        n = read_u32(m, ln)
        if n is None:
            return pointer(val)
        return _sockopt_value(f, m, level, name, val, s32(n), got=True)
    a.later(value)
    a.later(lambda ret, m: socklen(f, m, ln, inlen, ret))


def _c_msg(f, st, mem):
    fd, msg, flags = st.args[:3]
    a = st.a
    a.now(f.fd(fd))
    if st.name == "sendmsg":
        a.now(f.struct("msghdr", mem, msg))
    else:
        nl_in = read_u32(mem, msg + 8) if msg else None     # msg_namelen as given (strace: "110 => 36")

        def out(ret, m):
            if msg == 0:
                return "NULL"
            if is_error(ret):
                nl = read_u32(m, msg + 8)
                return f"{{msg_namelen={nl}}}" if nl is not None else hexval(msg)
            return f.struct("msghdr", m, msg, data_size=ret, namelen_in=nl_in)
        a.later(out)
    a.now(_x.format_flags("msg_flags", flags & 0xffffffff))


def _d_msghdr(f, b, mem, data_size: int = -1, namelen_in=None):
    """A msghdr; after recvmsg, namelen_in is msg_namelen as given: a changed length prints as
    `110 => 36`, and only the bytes that fit the name's buffer are decoded."""
    name, namelen, iov, iovlen, control, controllen, flags = struct.unpack_from("<QI4xQQQQi", b)
    shown = namelen if namelen_in is None else min(s32(namelen), s32(namelen_in))
    length = str(namelen) if namelen_in in (None, namelen) else f"{s32(namelen_in)} => {s32(namelen)}"
    parts = [f"msg_name={sockaddr(f, mem, name, shown) if name else 'NULL'}",
             f"msg_namelen={length}",
             f"msg_iov={f.iovec(mem, iov, iovlen, data_size)}",
             f"msg_iovlen={iovlen}"]
    if controllen:
        parts.append(f"msg_control={_cmsgs(f, mem, control, controllen)}")
    parts.append(f"msg_controllen={controllen}")
    parts.append(f"msg_flags={_x.format_flags('msg_flags', flags & 0xffffffff)}")
    return "{" + ", ".join(parts) + "}"


def _cmsgs(f, mem, addr, length):
    data = read_bytes(mem, addr, min(length, 4096))
    if data is None:
        return hexval(addr)
    items = []
    off = 0
    while off + 16 <= len(data):
        clen, level, ctype = struct.unpack_from("<QiI", data, off)
        lvl = _x.format_enum("sockopt_level", level & 0xffffffff)
        text = f"{{cmsg_len={clen}, cmsg_level={lvl}, "
        body = data[off + 16:off + max(16, min(clen, len(data) - off))]
        if level == 1:
            text += f"cmsg_type={_x.format_enum('scm_types', ctype)}, "
            if ctype == 1:
                fds = [f.fd(x) for x in struct.unpack("<%di" % (len(body) // 4), body[:len(body) // 4 * 4])]
                text += "cmsg_data=[" + ", ".join(fds) + "]}"
            elif ctype == 2 and len(body) >= UCRED.size:        # SCM_CREDENTIALS
                text += f"cmsg_data={UCRED.text(body)}}}"
            else:
                text += f"cmsg_data={quote_string(body)}}}"
        else:
            text += f"cmsg_type={hexval(ctype)}, cmsg_data={quote_string(body)}}}"
        items.append(text)
        if clen < 16:
            break
        off += (clen + 7) & ~7
    return "[" + ", ".join(items) + "]"


def _k_socklen_io(f, st, mem, v, param, i, base):
    inlen = read_u32(mem, v) if v else None
    st.a.later(lambda ret, m, v=v, inlen=inlen: socklen(f, m, v, inlen, ret))


def _k_addr_out(f, st, mem, v, param, i, base):
    lp = st.args[param]
    inlen = read_u32(mem, lp) if lp else None
    st.a.later(lambda ret, m, v=v, lp=lp, inlen=inlen: addr_out(f, m, v, lp, ret, inlen))


CALLS = {"socket": _c_socket, "socketpair": _c_socket, "setsockopt": _c_sockopt,
         "getsockopt": _c_sockopt, "sendmsg": _c_msg, "recvmsg": _c_msg}
STRUCTS = {"msghdr": (56, _d_msghdr)}
AT_ENTRY = {"addr_in": lambda f, st, mem, v, param, n: sockaddr(f, mem, v, s32(n))}
BY_HAND = {"socklen_io": _k_socklen_io, "addr_out": _k_addr_out}
