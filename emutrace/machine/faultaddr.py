"""The exact address of a memory fault, for si_addr.

Unicorn's TLB fill hook (emutrace/machine/tlb.py) learns only the page an access was refused on, while
Linux reports the faulting byte: `*(int *)0x10` gives si_addr 0x10, a stack overflow the
address below the guard page's top that `push` wrote. So the faulting instruction is decoded and
its memory operands evaluated from the registers; the one that lies on the refused page is the
address. An access that starts on the page before and runs into the refused one faults at the
refused page's first byte (what the CPU puts in CR2), and so does anything not decoded here.
"""
from __future__ import annotations

from unicorn import unicorn_const as UCC

from emutrace.machine.cpu import REG

PAGE_MASK = ~0xFFF
_FETCH = (UCC.UC_ERR_FETCH_UNMAPPED, UCC.UC_ERR_FETCH_PROT)
# instructions whose stack access capstone does not list as an operand: where they access,
# from rsp ("rsp", offset) or from rbp ("rbp", 0: leave's pop)
_IMPLICIT_STACK = {"push": ("rsp", -8), "call": ("rsp", -8), "pushfq": ("rsp", -8),
                   "pop": ("rsp", 0), "ret": ("rsp", 0), "popfq": ("rsp", 0), "leave": ("rbp", 0)}
# capstone's names of 32-bit registers -> the 64-bit register they are the low half of
_LOW32 = {**{"e" + r[1:]: r for r in ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp")},
          **{f"r{i}d": f"r{i}" for i in range(8, 16)}}

_md = None


def _disassembler():
    global _md
    if _md is None:
        import capstone     # deferred: capstone costs ~10 ms; only a fault's si_addr needs it
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
    from capstone import x86 as CX     # deferred: capstone costs ~10 ms; only a fault's si_addr needs it
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
    implicit = _IMPLICIT_STACK.get(insn.mnemonic)
    if implicit is not None:
        reg, offset = implicit
        yield (m.reg(reg) + offset) & 0xFFFFFFFFFFFFFFFF


def _reg(m, name: str) -> int:
    """A register's value by capstone's name (a 32-bit name: the low half of its register)."""
    if name in REG:
        return m.reg(name)
    if name in _LOW32:
        return m.reg(_LOW32[name]) & 0xFFFFFFFF
    return 0
