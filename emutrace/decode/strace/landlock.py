"""Landlock (strace's landlock.c): the ruleset's attributes as far as the size given reaches,
and the rule of each type."""
from __future__ import annotations

import struct

from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import pointer, read_bytes

# struct landlock_ruleset_attr: six u64 fields, (name, flag set) in order
_RULESET_FIELDS = (("handled_access_fs", "landlock_ruleset_access_fs"),
                   ("handled_access_net", "landlock_ruleset_access_net"),
                   ("scoped", "landlock_scope_flags"),
                   ("quiet_access_fs", "landlock_ruleset_access_fs"),
                   ("quiet_access_net", "landlock_ruleset_access_net"),
                   ("quiet_scoped", "landlock_scope_flags"))
_RULESET_MAX = 8 * len(_RULESET_FIELDS)
RULE_PATH_BENEATH, RULE_NET_PORT = 1, 2


def ruleset_attr(mem, addr: int, size: int) -> str:
    """Each field that begins before `size`; ', ...' for a bigger struct than strace knows."""
    if size < 8:
        return pointer(addr)
    data = read_bytes(mem, addr, min(size, _RULESET_MAX))
    if data is None:
        return pointer(addr)
    data = data.ljust(_RULESET_MAX, b"\0")
    parts = [f"{name}={_x.format_flags(xset, struct.unpack_from('<Q', data, 8 * k)[0])}"
             for k, (name, xset) in enumerate(_RULESET_FIELDS) if k == 0 or size > 8 * k]
    if size > _RULESET_MAX:
        parts.append("...")
    return "{" + ", ".join(parts) + "}"


def _c_landlock_create_ruleset(f, st, mem):
    attr, size, fl = st.args[:3]
    a = st.a
    a.now(ruleset_attr(mem, attr, size))
    a.now(str(size))
    a.now(_x.format_flags("landlock_create_ruleset_flags", fl & 0xffffffff))
    if fl & 0xffffffff & 3:                 # VERSION, ERRATA: the result is a number, not a descriptor
        st.ret_kind = "int"


def _rule_attr(f, mem, rule_type: int, addr: int) -> str:
    if rule_type == RULE_PATH_BENEATH:
        data = read_bytes(mem, addr, 12)    # (packed: u64 allowed_access, s32 parent_fd)
        if data is None:
            return pointer(addr)
        access, parent = struct.unpack("<Qi", data)
        return (f"{{allowed_access={_x.format_flags('landlock_ruleset_access_fs', access)}, "
                f"parent_fd={f.fd(parent)}}}")
    if rule_type == RULE_NET_PORT:
        data = read_bytes(mem, addr, 16)
        if data is None:
            return pointer(addr)
        access, port = struct.unpack("<QQ", data)
        return f"{{allowed_access={_x.format_flags('landlock_ruleset_access_net', access)}, port={port}}}"
    return pointer(addr)


def _c_landlock_add_rule(f, st, mem):
    fd, rule_type, attr, fl = st.args[:4]
    rule_type &= 0xffffffff
    a = st.a
    a.now(f.fd(fd))
    a.now(_x.format_enum("landlock_rule_types", rule_type))
    a.now(_rule_attr(f, mem, rule_type, attr))
    a.now(_x.format_flags("landlock_add_rule_flags", fl & 0xffffffff))


CALLS = {"landlock_create_ruleset": _c_landlock_create_ruleset, "landlock_add_rule": _c_landlock_add_rule}
