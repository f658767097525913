"""The registers gdb sees: the target description (qXfer:features:read) and their values.

The layout is gdbserver's for an amd64 Linux process (gdb's features/i386/64bit-*.xml): the
general registers, rip, eflags and the segment selectors, the x87 stack and its control
registers, the SSE registers and mxcsr, orig_rax (the system call a thread is in, -1 outside
one) and fs_base/gs_base. `g` sends them in this order; `p`/`P` use the numbers below.

Values come from the thread's engine when it is loaded there, else from the Unicorn context the
scheduler saved for it (syscalls/sched.py), so any thread can be read and written while stopped.
"""
from __future__ import annotations

from typing import Callable, Dict, List, NamedTuple, Optional

from unicorn import x86_const as X


class Reg(NamedTuple):
    name: str
    bits: int
    uc: Optional[int]           # Unicorn's register id (None: orig_rax, kept by the debugger)
    kind: str                   # int | fp80 | vec | xmm
    feature: str
    type: str


_CORE, _SSE, _LINUX, _SEG = "org.gnu.gdb.i386.core", "org.gnu.gdb.i386.sse", "org.gnu.gdb.i386.linux", \
    "org.gnu.gdb.i386.segments"

_GPRS = ["rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp"] + [f"r{i}" for i in range(8, 16)]
_PTR = {"rbp": "data_ptr", "rsp": "data_ptr"}

REGS: List[Reg] = (
    [Reg(n, 64, getattr(X, f"UC_X86_REG_{n.upper()}"), "int", _CORE, _PTR.get(n, "int64")) for n in _GPRS]
    + [Reg("rip", 64, X.UC_X86_REG_RIP, "int", _CORE, "code_ptr"),
       Reg("eflags", 32, X.UC_X86_REG_EFLAGS, "int", _CORE, "i386_eflags")]
    + [Reg(s, 32, getattr(X, f"UC_X86_REG_{s.upper()}"), "int", _CORE, "int32") for s in ("cs", "ss", "ds", "es", "fs", "gs")]
    + [Reg(f"st{i}", 80, X.UC_X86_REG_FP0 + i, "fp80", _CORE, "i387_ext") for i in range(8)]
    + [Reg(n, 32, u, "int", _CORE, "int") for n, u in (
        ("fctrl", X.UC_X86_REG_FPCW), ("fstat", X.UC_X86_REG_FPSW), ("ftag", X.UC_X86_REG_FPTAG),
        ("fiseg", X.UC_X86_REG_FCS), ("fioff", X.UC_X86_REG_FIP), ("foseg", X.UC_X86_REG_FDS),
        ("fooff", X.UC_X86_REG_FDP), ("fop", X.UC_X86_REG_FOP))]
    + [Reg(f"xmm{i}", 128, X.UC_X86_REG_XMM0 + i, "xmm", _SSE, "vec128") for i in range(16)]
    + [Reg("mxcsr", 32, X.UC_X86_REG_MXCSR, "int", _SSE, "i386_mxcsr"),
       Reg("orig_rax", 64, None, "int", _LINUX, "int"),
       Reg("fs_base", 64, X.UC_X86_REG_FS_BASE, "int", _SEG, "int"),
       Reg("gs_base", 64, X.UC_X86_REG_GS_BASE, "int", _SEG, "int")]
)
BY_NAME: Dict[str, int] = {r.name: i for i, r in enumerate(REGS)}
RIP, RSP, ORIG_RAX = BY_NAME["rip"], BY_NAME["rsp"], BY_NAME["orig_rax"]

_TYPES = {
    _CORE: """
  <flags id="i386_eflags" size="4">
    <field name="CF" start="0" end="0"/><field name="" start="1" end="1"/><field name="PF" start="2" end="2"/>
    <field name="AF" start="4" end="4"/><field name="ZF" start="6" end="6"/><field name="SF" start="7" end="7"/>
    <field name="TF" start="8" end="8"/><field name="IF" start="9" end="9"/><field name="DF" start="10" end="10"/>
    <field name="OF" start="11" end="11"/><field name="NT" start="14" end="14"/><field name="RF" start="16" end="16"/>
    <field name="VM" start="17" end="17"/><field name="AC" start="18" end="18"/><field name="VIF" start="19" end="19"/>
    <field name="VIP" start="20" end="20"/><field name="ID" start="21" end="21"/>
  </flags>""",
    _SSE: """
  <vector id="v8bf16" type="bfloat16" count="8"/>
  <vector id="v8h" type="ieee_half" count="8"/>
  <vector id="v4f" type="ieee_single" count="4"/>
  <vector id="v2d" type="ieee_double" count="2"/>
  <vector id="v16i8" type="int8" count="16"/>
  <vector id="v8i16" type="int16" count="8"/>
  <vector id="v4i32" type="int32" count="4"/>
  <vector id="v2i64" type="int64" count="2"/>
  <union id="vec128">
    <field name="v8_bfloat16" type="v8bf16"/><field name="v8_half" type="v8h"/>
    <field name="v4_float" type="v4f"/><field name="v2_double" type="v2d"/>
    <field name="v16_int8" type="v16i8"/><field name="v8_int16" type="v8i16"/>
    <field name="v4_int32" type="v4i32"/><field name="v2_int64" type="v2i64"/>
    <field name="uint128" type="uint128"/>
  </union>
  <flags id="i386_mxcsr" size="4">
    <field name="IE" start="0" end="0"/><field name="DE" start="1" end="1"/><field name="ZE" start="2" end="2"/>
    <field name="OE" start="3" end="3"/><field name="UE" start="4" end="4"/><field name="PE" start="5" end="5"/>
    <field name="DAZ" start="6" end="6"/><field name="IM" start="7" end="7"/><field name="DM" start="8" end="8"/>
    <field name="ZM" start="9" end="9"/><field name="OM" start="10" end="10"/><field name="UM" start="11" end="11"/>
    <field name="PM" start="12" end="12"/><field name="FZ" start="15" end="15"/>
  </flags>""",
}
_GROUPS = {"mxcsr": "vector", "fs_base": "system", "gs_base": "system"}


def target_xml() -> str:
    """The target description: one document, a feature per gdb feature name."""
    parts = ['<?xml version="1.0"?>\n<!DOCTYPE target SYSTEM "gdb-target.dtd">\n<target version="1.0">',
             "<architecture>i386:x86-64</architecture>", "<osabi>GNU/Linux</osabi>"]
    feature = None
    for i, r in enumerate(REGS):
        if r.feature != feature:
            if feature is not None:
                parts.append("</feature>")
            feature = r.feature
            parts.append(f'<feature name="{feature}">{_TYPES.get(feature, "")}')
        group = _GROUPS.get(r.name, "float" if r.feature == _CORE and r.type == "int" else "")
        extra = f' group="{group}"' if group else ""
        parts.append(f'<reg name="{r.name}" bitsize="{r.bits}" type="{r.type}" regnum="{i}"{extra}/>')
    parts.append("</feature></target>")
    return "\n".join(parts)


def _fp80(value) -> bytes:
    if isinstance(value, tuple):
        mant, exp = value
        return (mant & (1 << 64) - 1).to_bytes(8, "little") + (exp & 0xFFFF).to_bytes(2, "little")
    return int(value).to_bytes(10, "little", signed=False) if value >= 0 else bytes(10)


class RegisterFile:
    """Reads and writes one thread's registers (its engine or its saved context)."""

    def __init__(self, source, orig_rax: Callable[[], int]):
        self.src = source            # a Unicorn engine or UcContext: reg_read/reg_write
        self.orig_rax = orig_rax

    def read(self, i: int) -> bytes:
        r = REGS[i]
        size = r.bits // 8
        if r.uc is None:
            return (self.orig_rax() & (1 << 64) - 1).to_bytes(8, "little")
        v = self.src.reg_read(r.uc)
        if r.kind == "fp80":
            return _fp80(v)
        return (int(v) & (1 << r.bits) - 1).to_bytes(size, "little")

    def write(self, i: int, data: bytes) -> None:
        r = REGS[i]
        if r.uc is None or len(data) != r.bits // 8:
            return                   # orig_rax: the kernel's view, not written back
        if r.kind == "fp80":
            self.src.reg_write(r.uc, (int.from_bytes(data[:8], "little"), int.from_bytes(data[8:10], "little")))
            return
        self.src.reg_write(r.uc, int.from_bytes(data, "little"))

    def read_all(self) -> bytes:
        return b"".join(self.read(i) for i in range(len(REGS)))

    def write_all(self, data: bytes) -> None:
        off = 0
        for i, r in enumerate(REGS):
            n = r.bits // 8
            if off + n > len(data):
                break
            self.write(i, data[off:off + n])
            off += n
