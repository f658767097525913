"""Just enough of an x86-64 assembler for the guest code emutrace writes (emutrace.guestlog).

Each method appends one instruction; memory operands are always [base + disp32], so every form
has one encoding. Labels are resolved by `link`. Registers are numbered as the CPU numbers
them (rax=0 ... r15=15)."""
from __future__ import annotations

import struct
from typing import Dict, List, Tuple

RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI = range(8)
R8, R9, R10, R11 = 8, 9, 10, 11
ARG_REGS = (RDI, RSI, RDX, RCX, R8, R9)          # SysV integer argument registers, in order

JB, JAE, JE, JNE, JBE, JA = 0x82, 0x83, 0x84, 0x85, 0x86, 0x87    # second opcode byte of jcc rel32


def _rex(w: int, reg: int, base: int, index: int = 0) -> bytes:
    v = 0x40 | (w << 3) | ((reg >> 3) << 2) | ((index >> 3) << 1) | (base >> 3)
    return bytes([v]) if v != 0x40 else b""


def _mem(reg: int, base: int, disp: int) -> bytes:
    """ModRM (+SIB) + disp32 for [base + disp]."""
    out = bytes([0x80 | ((reg & 7) << 3) | (base & 7)])
    if base & 7 == RSP:                 # rsp and r12 need a SIB byte
        out += b"\x24"
    return out + struct.pack("<i", disp)


class Asm:
    def __init__(self, base: int):
        self.base = base                # guest address of the first byte
        self.code = bytearray()
        self.labels: Dict[str, int] = {}
        self.fixups: List[Tuple[int, str]] = []     # (offset of a rel32, label)

    @property
    def here(self) -> int:
        return self.base + len(self.code)

    def label(self, name: str) -> None:
        self.labels[name] = len(self.code)

    def addr(self, name: str) -> int:
        return self.base + self.labels[name]

    def raw(self, b: bytes) -> None:
        self.code += b

    # -- data moves -----------------------------------------------------------
    def push(self, r: int) -> None:
        self.code += (b"\x41" if r >= 8 else b"") + bytes([0x50 + (r & 7)])

    def pop(self, r: int) -> None:
        self.code += (b"\x41" if r >= 8 else b"") + bytes([0x58 + (r & 7)])

    def movabs(self, r: int, imm: int) -> None:
        self.code += _rex(1, 0, r) + bytes([0xB8 + (r & 7)]) + struct.pack("<Q", imm & (2**64 - 1))

    def store(self, base: int, disp: int, src: int) -> None:
        """mov [base+disp], src"""
        self.code += _rex(1, src, base) + b"\x89" + _mem(src, base, disp)

    def load(self, dst: int, base: int, disp: int) -> None:
        """mov dst, [base+disp]"""
        self.code += _rex(1, dst, base) + b"\x8b" + _mem(dst, base, disp)

    def store_rax_abs(self, addr: int) -> None:
        """mov [addr64], rax (movabs: no base register)"""
        self.code += b"\x48\xa3" + struct.pack("<Q", addr)

    def load_rax_abs(self, addr: int) -> None:
        """mov rax, [addr64] (movabs: no base register)"""
        self.code += b"\x48\xa1" + struct.pack("<Q", addr)

    def lea(self, dst: int, base: int, disp: int) -> None:
        self.code += _rex(1, dst, base) + b"\x8d" + _mem(dst, base, disp)

    def store_imm(self, base: int, disp: int, imm: int) -> None:
        """mov qword [base+disp], imm32 (sign-extended)"""
        self.code += _rex(1, 0, base) + b"\xc7" + _mem(0, base, disp) + struct.pack("<i", imm)

    def mov(self, dst: int, src: int) -> None:
        self.code += _rex(1, src, dst) + b"\x89" + bytes([0xC0 | ((src & 7) << 3) | (dst & 7)])

    # -- arithmetic -------------------------------------------------------------
    def add_imm(self, r: int, imm: int) -> None:
        self.code += _rex(1, 0, r) + b"\x81" + bytes([0xC0 | (r & 7)]) + struct.pack("<i", imm)

    def sub_imm(self, r: int, imm: int) -> None:
        self.code += _rex(1, 0, r) + b"\x81" + bytes([0xE8 | (r & 7)]) + struct.pack("<i", imm)

    def cmp_reg_mem(self, r: int, base: int, disp: int) -> None:
        """cmp r, [base+disp]"""
        self.code += _rex(1, r, base) + b"\x3b" + _mem(r, base, disp)

    def cmp_mem_reg(self, base: int, disp: int, r: int) -> None:
        """cmp [base+disp], r"""
        self.code += _rex(1, r, base) + b"\x39" + _mem(r, base, disp)

    # -- control flow -------------------------------------------------------------
    def jcc(self, cc: int, label: str) -> None:
        self.code += bytes([0x0F, cc]) + b"\0\0\0\0"
        self.fixups.append((len(self.code) - 4, label))

    def jmp(self, label: str) -> None:
        self.code += b"\xe9\0\0\0\0"
        self.fixups.append((len(self.code) - 4, label))

    def jmp_to(self, target: int) -> None:
        """jmp rel32 to an absolute address (within 2 GiB)."""
        self.code += b"\xe9" + struct.pack("<i", rel32(self.here + 5, target))

    def jmp_reg(self, r: int) -> None:
        self.code += (b"\x41" if r >= 8 else b"") + b"\xff" + bytes([0xE0 | (r & 7)])

    def jmp_mem(self, base: int, disp: int) -> None:
        """jmp qword [base+disp]"""
        self.code += _rex(0, 0, base) + b"\xff" + _mem(4, base, disp)

    def jmp_rip_mem(self, target_of_qword: int) -> None:
        """jmp qword [rip+disp32]: to the address stored at `target_of_qword` (within 2 GiB)."""
        self.code += b"\xff\x25" + struct.pack("<i", rel32(self.here + 6, target_of_qword))

    def link(self) -> bytes:
        for pos, name in self.fixups:
            target = self.labels[name]
            struct.pack_into("<i", self.code, pos, target - (pos + 4))
        self.fixups.clear()
        return bytes(self.code)


def rel32(after: int, target: int) -> int:
    d = target - after
    if not -2**31 <= d < 2**31:
        raise ValueError("target out of rel32 range")
    return d


def in_rel32(a: int, b: int) -> bool:
    return -2**31 + 4096 < b - a < 2**31 - 4096
