"""The exact address of a memory fault, for si_addr.

Unicorn's TLB fill hook (emutrace/tlb.py) learns only the page an access was refused on, while
Linux reports the faulting byte: `*(int *)0x10` gives si_addr 0x10, a stack overflow the
address below the guard page's top that `push` wrote. So the faulting instruction is decoded and
its memory operands evaluated from the registers; the one that lies on the refused page is the
address. An access that starts on the page before and runs into the refused one faults at the
refused page's first byte (what the CPU puts in CR2), and so does anything not decoded here.
"""
from __future__ import annotations

from unicorn import unicorn_const as UCC

from .machine import REG

PAGE_MASK = ~0xFFF
_FETCH = (UCC.UC_ERR_FETCH_UNMAPPED, UCC.UC_ERR_FETCH_PROT)
# instructions whose stack access capstone does not list as an operand: (offset from rsp, size)
_IMPLICIT_STACK = {"push": -8, "call": -8, "pushfq": -8, "pop": 0, "ret": 0, "popfq": 0, "leave": None}

_md = None


def _disassembler():
    global _md
    if _md is None:
        import capstone
        _md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
        _md.detail = True
    return _md


def exact_address(m, err: int, page_addr: int) -> int:
    """The faulting byte's address for a refusal of `err` on the page holding page_addr."""
    page = page_addr & PAGE_MASK
    rip = m.reg("rip")
    if err in _FETCH:
        return rip if rip & PAGE_MASK == page else page
    try:
        code = m.read_fast(rip, 16)
    except Exception:
        return page
    try:
        insn = next(_disassembler().disasm(code, rip, 1), None)
    except Exception:
        insn = None
    if insn is None:
        return page
    for addr in _candidates(m, insn):
        if addr & PAGE_MASK == page:
            return addr
    return page


def _candidates(m, insn):
    from capstone import x86 as CX
    for op in insn.operands:
        if op.type != CX.X86_OP_MEM:
            continue
        mem = op.mem
        ea = mem.disp
        if mem.base == CX.X86_REG_RIP:
            ea += insn.address + insn.size
        elif mem.base:
            ea += _reg(m, insn.reg_name(mem.base))
        if mem.index:
            ea += _reg(m, insn.reg_name(mem.index)) * mem.scale
        if mem.segment == CX.X86_REG_FS:
            ea += m.reg("fs_base")
        elif mem.segment == CX.X86_REG_GS:
            ea += m.reg("gs_base")
        yield ea & 0xFFFFFFFFFFFFFFFF
    off = _IMPLICIT_STACK.get(insn.mnemonic, 0)
    if insn.mnemonic in _IMPLICIT_STACK:
        rsp = m.reg("rsp")
        yield (rsp + off if off is not None else m.reg("rbp")) & 0xFFFFFFFFFFFFFFFF


def _reg(m, name: str) -> int:
    """A 64-bit register's value by capstone's name (32-bit names: the low half)."""
    if name in REG:
        return m.reg(name)
    wide = {"e" + r[1:]: r for r in REG if r.startswith("r") and len(r) == 3 and not r[1].isdigit()}
    if name in wide:
        return m.reg(wide[name]) & 0xFFFFFFFF
    if name.endswith("d") and name[:-1] in REG:          # r8d..r15d
        return m.reg(name[:-1]) & 0xFFFFFFFF
    return 0
