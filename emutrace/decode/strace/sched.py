"""Scheduling (strace's sched.c, affinity.c, ioprio.c): policies and their attributes, CPU
sets, I/O priorities."""
from __future__ import annotations

import struct

from emutrace.machine.words import s32
from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import hexval, read_bytes
from emutrace.decode.strace.fields import StructText, decoders, enum, flags


def cpuset(f, mem, addr: int, size: int) -> str:
    if addr == 0:
        return "NULL"
    size = min(size & 0xffffffff, 4096)
    data = read_bytes(mem, addr, size)
    if data is None:
        return hexval(addr)
    bits = int.from_bytes(data, "little")
    cpus = [str(i) for i in range(size * 8) if bits >> i & 1]
    return "[" + " ".join(cpus) + "]"


def _ioprio(v: int) -> str:
    """strace's print_ioprio: the int itself under -Xraw, the macro after it under -Xverbose."""
    v &= 0xffffffff
    style = _x.STYLE.xlat
    if style == "raw":
        return str(s32(v))
    text = f"IOPRIO_PRIO_VALUE({_x.format_enum('ioprio_class', v >> 13)}, {v & 0x1fff})"
    return f"{s32(v)} /* {text} */" if style == "verbose" else text


def _d_sched_param(f, b, mem):
    return f"{{sched_priority={struct.unpack('<i', b)[0]}}}"


_RESET_ON_FORK = 0x40000000


def policy_name(policy: int):
    """strace's sprint_policy: SCHED_FIFO, SCHED_RESET_ON_FORK|SCHED_EXT,
    SCHED_RESET_ON_FORK|0x3218765, or None (a negative or unknown policy)."""
    if policy < 0:
        return None
    name = _x.lookup("sched_policies", policy & ~_RESET_ON_FORK)
    if policy & _RESET_ON_FORK:
        return f"SCHED_RESET_ON_FORK|{name or hexval(policy & ~_RESET_ON_FORK)}"
    return name


def _policy_text(policy: int) -> str:
    """print_xlat_ex of the policy: a known one as -X says, an unknown one with SCHED_???."""
    name = policy_name(s32(policy))
    style = _x.STYLE.xlat
    num = hexval(policy & 0xffffffff)
    if style == "raw":
        return num
    if name is None:
        return f"{num} /* SCHED_??? */"
    return f"{num} /* {name} */" if style == "verbose" else name


def _c_sched_setscheduler(f, st, mem):
    st.a.now(str(s32(st.args[0])))
    st.a.now(_policy_text(st.args[1]))
    st.a.now(f.struct("sched_param", mem, st.args[2]))


def _c_sched_getscheduler(f, st, mem):
    st.a.now(str(s32(st.args[0])))
    st.ret_kind = "hex"                      # RVAL_HEX | RVAL_STR: 0x40000000 (SCHED_RESET_ON_FORK|SCHED_OTHER)
    st.aux = lambda ret, m: policy_name(ret) if 0 <= ret < 1 << 31 else None


SCHED_ATTR = StructText("sched_attr", 48, [
    ("size", 0, "I"), ("sched_policy", 4, "I", enum("sched_policies")),
    ("sched_flags", 8, "Q", flags("sched_flags")), ("sched_nice", 16, "i"),
    ("sched_priority", 20, "I"), ("sched_runtime", 24, "Q"), ("sched_deadline", 32, "Q"),
    ("sched_period", 40, "Q")])

STRUCTS = {"sched_param": (4, _d_sched_param), **decoders(SCHED_ATTR)}
CALLS = {"sched_setscheduler": _c_sched_setscheduler, "sched_getscheduler": _c_sched_getscheduler}
AT_ENTRY = {
    "cpuset_in": lambda f, st, mem, v, param, n: cpuset(f, mem, v, n),
    "ioprio": lambda f, st, mem, v, param, n: _ioprio(v),
}
AT_EXIT = {"cpuset_out": lambda f, m, v, param, n, base, ret: cpuset(f, m, v, ret)}
