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
    return f"[{struct.unpack('<i', b)[0]}]"


SCHED_ATTR = StructText("sched_attr", 48, [
    ("size", 0, "I"), ("sched_policy", 4, "I", enum("sched_policies")),
    ("sched_flags", 8, "Q", flags("sched_flags")), ("sched_nice", 16, "i"),
    ("sched_priority", 20, "I"), ("sched_runtime", 24, "Q"), ("sched_deadline", 32, "Q"),
    ("sched_period", 40, "Q")])

STRUCTS = {"sched_param": (4, _d_sched_param), **decoders(SCHED_ATTR)}
AT_ENTRY = {
    "cpuset_in": lambda f, st, mem, v, param, n: cpuset(f, mem, v, n),
    "ioprio": lambda f, st, mem, v, param, n: _ioprio(v),
}
AT_EXIT = {"cpuset_out": lambda f, m, v, param, n, base, ret: cpuset(f, m, v, ret)}
