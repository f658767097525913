"""A call-frame unwinder for x86-64 guest stacks, from the modules' `.eh_frame` CFI.

It reads the guest's registers and memory directly (no ptrace, nothing stopped), so a
backtrace is exact at any instruction: frame pointers are not needed, stripped binaries keep
their `.eh_frame`, and a signal handler's frame unwinds through the restorer's CFI (glibc's
`__restore_rt`, an 'S' CIE whose rules read the saved context from the signal frame).

Format (DWARF 5 §6.4, the LSB's `.eh_frame` additions): CIEs and FDEs; an FDE is found with the
`.eh_frame_hdr` binary-search table when the module has one, else by a scan of every FDE.
CFA rules: register+offset or a DWARF expression; register rules: undefined, same value,
offset(N), val_offset(N), register(R), expression, val_expression.
"""
from __future__ import annotations

import bisect
import struct
from functools import partial
from typing import Callable, Dict, List, Optional, Tuple

from emutrace.dwarf.ehframe import PT_GNU_EH_FRAME, Cie, EhFrameError, entry_span, parse_cie, read_encoded
from emutrace.dwarf.errors import DwarfError
from emutrace.dwarf.leb import sleb, uleb
from emutrace.dwarf.loc import value as dwarf_value
from emutrace.machine.reader import GuestReader, read_u64 as reader_u64
from emutrace.record import record

# DWARF register numbers on x86-64 (System V psABI, figure 3.36); 16 is the return address
DWARF_REGS = ("rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
              "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15")
RA, SP, FP = 16, 7, 6
MAX_FRAMES = 256


class CfiError(EhFrameError):
    pass


# -- CIEs and FDEs -----------------------------------------------------------------------------

@record
class Fde:
    cie: Cie
    pc_begin: int             # unbiased
    pc_end: int
    instructions: bytes


class EhFrame:
    """One module's `.eh_frame`, found by section or by PT_GNU_EH_FRAME."""

    def __init__(self, elf):
        self.elf = elf
        self.data = elf.data
        self.cies: Dict[int, Cie] = {}
        self.fdes: Dict[int, Fde] = {}
        self.table: Optional[Tuple[List[int], List[int]]] = None      # hdr: pc → FDE offset
        self.frame_off = self.frame_addr = None
        self.frame_end = len(self.data)
        sec = elf.section(".eh_frame")
        if sec is not None and sec.size:
            self.frame_off, self.frame_addr, self.frame_end = sec.offset, sec.addr, sec.offset + sec.size
        self._read_hdr()
        self._scanned: Optional[Tuple[List[int], List[int]]] = None

    def _vaddr_of(self, pos: int) -> int:
        return self.frame_addr + (pos - self.frame_off)

    def _read_hdr(self) -> None:
        hdr = next((s for s in self.elf.segments if s.type == PT_GNU_EH_FRAME), None)
        if hdr is None:
            return
        data, base_off, base_addr = self.data, hdr.offset, hdr.vaddr
        vaddr_of = lambda pos: base_addr + (pos - base_off)
        try:
            version, ptr_enc, count_enc, table_enc = data[base_off:base_off + 4]
            if version != 1:
                return
            frame_ptr, pos = read_encoded(data, base_off + 4, ptr_enc, vaddr_of(base_off + 4), indirect=True)
            count, pos = read_encoded(data, pos, count_enc, vaddr_of(pos), indirect=True)
            if self.frame_off is None:
                off = self.elf.vaddr_to_offset(frame_ptr)
                if off is None:
                    return
                self.frame_off, self.frame_addr = off, frame_ptr
            if table_enc != 0x3B or not count:          # datarel|sdata4 is what linkers write
                return
            rows = struct.unpack_from(f"<{2 * count}i", data, pos)
            pcs = [base_addr + v for v in rows[0::2]]
            fdes = [self.frame_off + (base_addr + v - self.frame_addr) for v in rows[1::2]]
            self.table = (pcs, fdes)
        except (struct.error, IndexError, DwarfError):
            self.table = None

    def _cie(self, off: int) -> Cie:
        cie = self.cies.get(off)
        if cie is not None:
            return cie
        d = self.data
        pos, end = entry_span(d, off)
        cie = self.cies[off] = parse_cie(d, pos + 4, end, self._vaddr_of)     # (after the CIE id, 0)
        return cie

    def _fde(self, off: int) -> Optional[Fde]:
        fde = self.fdes.get(off)
        if fde is not None:
            return fde
        d = self.data
        pos, end = entry_span(d, off)
        cie_ptr = struct.unpack_from("<I", d, pos)[0]
        if cie_ptr == 0:
            return None                          # a CIE
        cie = self._cie(pos - cie_ptr)
        pos += 4
        begin, pos = read_encoded(d, pos, cie.fde_enc, self._vaddr_of(pos), indirect=True)
        size, pos = read_encoded(d, pos, cie.fde_enc & 0x0F, self._vaddr_of(pos), indirect=True)
        if cie.has_aug_data:
            alen, pos = uleb(d, pos)
            pos += alen
        fde = self.fdes[off] = Fde(cie, begin, begin + size, bytes(d[pos:end]))
        return fde

    def _scan(self) -> Tuple[List[int], List[int]]:
        """Every FDE, sorted by start (modules without .eh_frame_hdr)."""
        if self._scanned is None:
            rows = []
            d, off = self.data, self.frame_off
            while off is not None and off + 4 <= self.frame_end:
                length = struct.unpack_from("<I", d, off)[0]
                if length == 0:
                    break
                step = 4 + (8 + struct.unpack_from("<Q", d, off + 4)[0] if length == 0xFFFFFFFF else length)
                try:
                    fde = self._fde(off)
                except (struct.error, IndexError, ValueError, CfiError):
                    fde = None
                if fde is not None and fde.pc_end > fde.pc_begin:
                    rows.append((fde.pc_begin, off))
                off += step
            rows.sort()
            self._scanned = ([r[0] for r in rows], [r[1] for r in rows])
        return self._scanned

    def find(self, pc: int) -> Optional[Fde]:
        """The FDE covering an unbiased pc."""
        if self.frame_off is None:
            return None
        pcs, offs = self.table or self._scan()
        i = bisect.bisect_right(pcs, pc) - 1
        if i < 0:
            return None
        try:
            fde = self._fde(offs[i])
        except (struct.error, IndexError, ValueError, CfiError):
            return None
        return fde if fde is not None and fde.pc_begin <= pc < fde.pc_end else None


# -- the CFA program ---------------------------------------------------------------------------

# a rule: (kind, value) with kind one of these
UNDEF, SAME, OFFSET, VAL_OFFSET, REGISTER, EXPR, VAL_EXPR = range(7)


def run_cfa(fde: Fde, pc: int):
    """The row of the CFI table at unbiased pc: (cfa rule, {reg: rule}). A CFA rule is
    ("reg", reg, offset) or ("expr", bytes)."""
    cie = fde.cie
    state = {"cfa": ("reg", SP, 8), "regs": {}}
    _execute(cie.instructions, cie, state, fde.pc_begin, None, None)
    initial = dict(state["regs"])
    _execute(fde.instructions, cie, state, fde.pc_begin, pc, initial)
    return state["cfa"], state["regs"]


def _execute(ins: bytes, cie: Cie, state, loc: int, until: Optional[int], initial) -> None:
    pos, stack = 0, []
    ca, da = cie.code_align, cie.data_align
    regs = state["regs"]
    n = len(ins)
    while pos < n:
        op = ins[pos]
        pos += 1
        hi, low = op & 0xC0, op & 0x3F
        if hi == 0x40:                              # advance_loc
            loc += low * ca
            if until is not None and loc > until:
                return
            continue
        if hi == 0x80:                              # offset
            off, pos = uleb(ins, pos)
            regs[low] = (OFFSET, off * da)
            continue
        if hi == 0xC0:                              # restore
            _restore(regs, initial, low)
            continue
        if op in (0x02, 0x03, 0x04, 0x01):          # advance_loc1/2/4, set_loc
            if op == 0x01:
                loc, pos = struct.unpack_from("<Q", ins, pos)[0], pos + 8
            else:
                size = {0x02: 1, 0x03: 2, 0x04: 4}[op]
                delta = int.from_bytes(ins[pos:pos + size], "little")
                pos += size
                loc += delta * ca
            if until is not None and loc > until:
                return
        elif op == 0x00:
            pass
        elif op in (0x05, 0x11, 0x14, 0x15, 0x2F):  # offset_extended(_sf), val_offset(_sf), GNU neg
            reg, pos = uleb(ins, pos)
            if op in (0x11, 0x15):
                off, pos = sleb(ins, pos)
            else:
                off, pos = uleb(ins, pos)
            if op == 0x2F:
                off = -off
            regs[reg] = (VAL_OFFSET if op in (0x14, 0x15) else OFFSET, off * da)
        elif op == 0x06:
            reg, pos = uleb(ins, pos)
            _restore(regs, initial, reg)
        elif op == 0x07:
            reg, pos = uleb(ins, pos)
            regs[reg] = (UNDEF, 0)
        elif op == 0x08:
            reg, pos = uleb(ins, pos)
            regs[reg] = (SAME, 0)
        elif op == 0x09:
            reg, pos = uleb(ins, pos)
            reg2, pos = uleb(ins, pos)
            regs[reg] = (REGISTER, reg2)
        elif op == 0x0A:
            stack.append((state["cfa"], dict(regs)))
        elif op == 0x0B:
            if stack:
                cfa, saved = stack.pop()
                state["cfa"] = cfa
                regs.clear()
                regs.update(saved)
        elif op in (0x0C, 0x12):                    # def_cfa(_sf)
            reg, pos = uleb(ins, pos)
            if op == 0x12:
                off, pos = sleb(ins, pos)
                off *= da
            else:
                off, pos = uleb(ins, pos)
            state["cfa"] = ("reg", reg, off)
        elif op == 0x0D:
            reg, pos = uleb(ins, pos)
            cfa = state["cfa"]
            state["cfa"] = ("reg", reg, cfa[2] if cfa[0] == "reg" else 0)
        elif op in (0x0E, 0x13):
            if op == 0x13:
                off, pos = sleb(ins, pos)
                off *= da
            else:
                off, pos = uleb(ins, pos)
            cfa = state["cfa"]
            state["cfa"] = ("reg", cfa[1] if cfa[0] == "reg" else SP, off)
        elif op == 0x0F:
            size, pos = uleb(ins, pos)
            state["cfa"] = ("expr", ins[pos:pos + size])
            pos += size
        elif op in (0x10, 0x16):
            reg, pos = uleb(ins, pos)
            size, pos = uleb(ins, pos)
            regs[reg] = (EXPR if op == 0x10 else VAL_EXPR, ins[pos:pos + size])
            pos += size
        elif op == 0x2E:                            # GNU_args_size
            _, pos = uleb(ins, pos)
        else:
            raise CfiError(f"CFA opcode {op:#x}")


def _restore(regs, initial, reg) -> None:
    if initial is not None and reg in initial:
        regs[reg] = initial[reg]
    else:
        regs.pop(reg, None)


# -- DWARF expressions (emutrace.dwarf.loc evaluates them) --------------------------------------

MASK = (1 << 64) - 1


def eval_expr(expr: bytes, reg: Callable[[int], Optional[int]], read_u64: Callable[[int], Optional[int]],
              push: Optional[int] = None) -> Optional[int]:
    """A CFI expression's value: DWARF's one bounded evaluator (emutrace.dwarf.loc), so an
    expression that loops in a guest's .eh_frame ends instead of hanging the unwinder."""
    return dwarf_value(expr, reg, read_u64, push)


# -- unwinding ---------------------------------------------------------------------------------

@record
class RawFrame:
    pc: int
    sp: int
    signal: bool = False       # this frame was interrupted by a signal (its pc is exact)


class Unwinder:
    """Walks a guest stack: modules are found by address, each one's CFI read once."""

    def __init__(self):
        self._frames: Dict[int, EhFrame] = {}

    def eh_frame(self, module) -> EhFrame:
        ef = self._frames.get(id(module.elf))
        if ef is None:
            ef = self._frames[id(module.elf)] = EhFrame(module.elf)
        return ef

    def unwind(self, regs: Dict[int, int], module_at: Callable[[int], object], mem: GuestReader,
               limit: int = MAX_FRAMES, exact: bool = True) -> List[RawFrame]:
        """Frames from the innermost (regs' rip) outwards. regs: DWARF number → value, with RA
        holding rip. exact: the innermost pc is where execution is (not a return address). The
        walk ends where the stack cannot be read."""
        read_u64 = partial(reader_u64, mem)
        frames: List[RawFrame] = []
        regs = dict(regs)
        # the innermost pc, and one a signal interrupted, are exact; return addresses are not
        while len(frames) < limit:
            pc = regs.get(RA)
            if not pc:
                break
            frames.append(RawFrame(pc, regs.get(SP, 0), signal=exact and bool(frames)))
            m = module_at(pc if exact else pc - 1)
            fde = None
            if m is not None:
                try:
                    fde = self.eh_frame(m).find((pc if exact else pc - 1) - m.base)
                except (struct.error, IndexError, ValueError, CfiError):
                    fde = None
            if fde is None:
                nxt = self._frame_pointer_step(regs, read_u64) if not exact or len(frames) > 1 else \
                    self._leaf_step(regs, read_u64, m, module_at)
                if nxt is None:
                    break
                regs, exact = nxt, False
                continue
            try:
                cfa_rule, rules = run_cfa(fde, (pc if exact else pc - 1) - m.base)
            except (DwarfError, IndexError, struct.error):
                break
            try:
                nxt = _apply(cfa_rule, rules, regs, read_u64, fde.cie.ra_reg)
            except (IndexError, struct.error, ValueError):      # a malformed expression: stop here
                break
            if nxt is None:
                break
            if nxt.get(RA) is None or (nxt.get(SP) == regs.get(SP) and nxt.get(RA) == pc):
                break
            exact = fde.cie.signal      # the frame below a signal frame resumes at an exact pc
            regs = nxt
        return frames

    @staticmethod
    def _frame_pointer_step(regs, read_u64):
        fp = regs.get(FP)
        if not fp:
            return None
        ra, saved = read_u64(fp + 8), read_u64(fp)
        if ra is None or saved is None or saved <= fp:
            return None
        out = dict(regs)
        out.update({RA: ra, SP: fp + 16, FP: saved})
        return out

    @staticmethod
    def _leaf_step(regs, read_u64, module, module_at):
        """The innermost pc in code without CFI (hand-written syscall stubs): if it is in a
        module, the return address is assumed on top of the stack, as at a leaf function's
        first instruction; outside any module nothing is assumed."""
        if module is None:
            return None
        sp = regs.get(SP)
        ra = read_u64(sp) if sp else None
        if ra is None or module_at(ra) is None:      # (the stack's top holds argc at _start)
            return None
        out = dict(regs)
        out.update({RA: ra, SP: sp + 8})
        return out


def _apply(cfa_rule, rules, regs, read_u64, ra_reg) -> Optional[Dict[int, int]]:
    get = regs.get
    if cfa_rule[0] == "reg":
        base = get(cfa_rule[1])
        if base is None:
            return None
        cfa = (base + cfa_rule[2]) & MASK
    else:
        cfa = eval_expr(cfa_rule[1], get, read_u64)
        if cfa is None:
            return None
    out = {r: v for r, v in regs.items() if r != RA}
    out[SP] = cfa
    for r, (kind, val) in rules.items():
        if kind == UNDEF:
            out.pop(r, None)
        elif kind == SAME:
            if r in regs:
                out[r] = regs[r]
        elif kind == OFFSET:
            v = read_u64((cfa + val) & MASK)
            if v is None:
                return None
            out[r] = v
        elif kind == VAL_OFFSET:
            out[r] = (cfa + val) & MASK
        elif kind == REGISTER:
            if val in regs:
                out[r] = regs[val]
        elif kind == EXPR:
            addr = eval_expr(val, get, read_u64, push=cfa)
            v = read_u64(addr) if addr is not None else None
            if v is None:
                return None
            out[r] = v
        elif kind == VAL_EXPR:
            v = eval_expr(val, get, read_u64, push=cfa)
            if v is None:
                return None
            out[r] = v
    ra_rule = rules.get(ra_reg)
    if ra_reg != RA:
        if ra_reg in out:
            out[RA] = out[ra_reg]
    elif ra_rule is None or ra_rule[0] == UNDEF:
        out.pop(RA, None)
    return out
