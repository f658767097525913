"""The record side's assembler: each logged site's trampoline, the return trampoline, the return
stubs of returns-twice calls, and the copies of string arguments into a record."""
from __future__ import annotations

import struct
from typing import Dict, List, Optional, Tuple


from emutrace.machine.budget import OutOfMemory
from emutrace.machine.pages import page_up
from emutrace.machine.x86enc import (ARG_REGS, Asm, JA, JAE, JB, JBE, JE, JNE, R10, R11, RAX, RBX, RCX, RDI, RDX, RSI,
                                     RSP, in_rel32, rel32)
from emutrace.guestlog.format import (RPTR, REND, SHTOP, S_RAX, S_R10, S_RBX, S_RCX, S_RSI, S_RDI, S_JMP, S_RDX, S2_RCX,
                                      S2_RDX, S_OUTP, S_OUTN, S_INP, S_KIND, S_STUB, HEAD, RET_SIZE, SHADOW_ENTRY,
                                      OUT_MAX, RET_WSTR, RET_OUTLEN, OUTLEN_WIDE, OUTLEN_32, RET_PAIR, IN_CSTR, IN_WSTR,
                                      _KIND_MASK, LOG_TOP, TRAMPOLINE_GAP, STUB_SIZE, STUBS_MAX, FIXED, area_size)
from emutrace.guestlog.sites import RETURNS_TWICE, Shape, shape_of, FastSite


def free_near(aspace, size: int, near: int, targets) -> Optional[int]:
    """A free range of `size` bytes TRAMPOLINE_GAP below `near` (a module) from which every
    address in `targets` (and `near`) is one rel32 jump away; None when there is none."""
    try:
        base = aspace.find_free(size, top=max(near - TRAMPOLINE_GAP, 1 << 20))
    except OutOfMemory:
        return None
    if all(in_rel32(base, t) for t in (near, *targets)):
        return base
    return None


PATCH_SPAN_MAX = 64                # bytes between two patched entries rewritten with them


def patch_jmps(m, patches) -> None:
    """Overwrite the instruction at each (at, target)'s `at` (a PLT entry) with `jmp target` and
    drop its translation: one write and one cache removal per run of nearby entries (a PLT's
    are 16 bytes apart), not per entry (~27,000 instructions each); the bytes between them are
    written back as they were."""
    patches = sorted(patches)
    i = 0
    while i < len(patches):
        j = i + 1
        while j < len(patches) and patches[j][0] - patches[j - 1][0] <= PATCH_SPAN_MAX:
            j += 1
        lo, hi = patches[i][0], patches[j - 1][0] + 5
        span = bytearray(m.read(lo, hi - lo))
        for at, target in patches[i:j]:
            span[at - lo:at - lo + 5] = b"\xe9" + struct.pack("<i", target - (at + 5))
        m.write(lo, bytes(span))
        m.uc.ctl_remove_cache(lo, hi)
        i = j


class _Template:
    """A shape's trampoline, assembled once: its code at address 0 for tag 0, where each site's
    own numbers go, its copies' loads (offset → (resume offset, area)) and its stores that may
    fault in a guard page (offset → (what is full, restart offset, borrowed registers, bytes
    to take back))."""
    __slots__ = ("code", "fields", "loads", "restarts")

    def __init__(self, code: bytes, fields: Dict[str, int], loads: Dict[int, Tuple[int, int]], restarts: dict):
        self.code, self.fields, self.loads, self.restarts = code, fields, loads, restarts

class Assembler:
    """GuestLog's code generation (a part of GuestLog: see log.py)."""

    def _return_code(self, a: Asm) -> None:
        # Reached by `ret` from a logged call: rsp = slot + 8. The registers it uses are kept in
        # the control page and restored, and the real return address is put back in the slot
        # (the final jump goes through it), so the caller finds registers and stack as a native
        # return leaves them.
        # printf-family sites return to the instruction before it, which alone carries the
        # printf hooks' C return hook (emutrace.printflog): the other returns skip Unicorn's
        # dispatch of a hook that would find nothing to do. It falls through.
        # No store checks for room: the ring and the shadow stack end in guard pages, and a store
        # that faults there restarts the trampoline at `ret` once Python has made room
        # (fault_fixup). So nothing is published (RPTR, SHTOP, the slot) before the last store
        # that can fault.
        a.label("ret_printf")
        a.raw(b"\x90")
        a.label("ret")
        a.movabs(R11, self.ctrl)
        a.store(R11, S_RSI, RSI)
        a.store(R11, S_R10, R10)
        a.load(R10, R11, SHTOP)
        # The common return first, in as few translated blocks as it can (each conditional
        # branch ends one) and memory operations (each costs a helper call): the top entry is
        # this frame's ((slot ^ rsp - 8) == 0) and its call copies nothing at the return (the
        # entry's kind-and-size word is 0), in one test. The record is the one the general path
        # below writes for such an entry.
        a.lea(R11, RSP, -8)                 # the slot the return address was in
        a.raw(b"\x4d\x33\x5a" + bytes([(-SHADOW_ENTRY) & 0xFF]))         # xor r11, [r10-64] (slot)
        a.raw(b"\x4d\x0b\x5a" + bytes([(16 - SHADOW_ENTRY) & 0xFF]))     # or r11, [r10-48] (kind, size)
        a.jcc(JNE, "slow")
        a.movabs(RSI, self.ctrl)
        a.load(RSI, RSI, RPTR)
        restore = (("rsi", S_RSI), ("r10", S_R10))
        start = a.addr("ret")
        self._ring_store(a, self.restarts, "ring", start, restore)
        a.store_imm(RSI, 40, 0)             # (the record's last word first: only it can fault)
        a.store_imm(RSI, 32, 0)
        a.store_imm(RSI, 0, -1)             # RET_TAG
        a.lea(R11, RSP, -8)
        a.store(RSI, 8, R11)
        a.load(R11, R10, 8 - SHADOW_ENTRY)
        a.store(RSI, 16, R11)
        a.store(RSI, 24, RAX)
        a.store(RSP, -8, R11)               # the slot holds the real return address again
        a.add_imm(RSI, RET_SIZE)
        a.sub_imm(R10, SHADOW_ENTRY)
        a.movabs(R11, self.ctrl)
        a.store(R11, RPTR, RSI)
        a.store(R11, SHTOP, R10)
        a.load(RSI, R11, S_RSI)
        a.load(R10, R11, S_R10)
        a.jmp_mem(RSP, -8)
        a.label("slow")
        a.movabs(R11, self.ctrl)
        a.load(RSI, R11, RPTR)
        # room for the largest return record, or the ring is full (the guard faults): the
        # stores after this one stay in the ring
        self._ring_store(a, self.restarts, "ring", start, restore)
        a.store_imm(RSI, self.maxrec - 8, 0)
        for r, save in ((RCX, S_RCX), (RDI, S_RDI)):
            a.store(R11, save, r)
        a.lea(RCX, RSP, -8)
        # the top entry is this frame's (a call that copies at the return: one branch)...
        a.sub_imm(R10, SHADOW_ENTRY)
        a.cmp_mem_reg(R10, 0, RCX)
        a.jcc(JE, "matched")
        # ... or pop entries of deeper frames (below the slot: left by longjmp) up to this
        # frame's; an entry above it (an outer frame's, or the sentinel at the base: the stack
        # is empty) means the return address was lost
        a.jcc(JA, "lost")
        a.label("pop")
        a.sub_imm(R10, SHADOW_ENTRY)
        a.cmp_mem_reg(R10, 0, RCX)
        a.jcc(JB, "pop")
        a.jcc(JNE, "lost")
        a.label("matched")
        self._return_record_head(a)
        a.load(RCX, R10, 24)
        a.store(R11, S_OUTP, RCX)
        a.load(RCX, R10, 40)
        a.store(R11, S_INP, RCX)
        a.load(RDI, R10, 16)                # the return kind (with its flags) | output size << 8
        a.mov(RCX, RDI)
        a.raw(b"\x48\xc1\xe9\x08")          # shr rcx, 8: the output size
        a.raw(b"\x81\xe7\xff\x00\x00\x00")  # and edi, 0xff: the return kind
        a.store(RSI, 32, RDI)               # (with its flags)
        a.store(R11, S_KIND, RDI)
        a.raw(b"\x83\xe7" + bytes([_KIND_MASK]))      # and edi, _KIND_MASK
        self._output_length(a)
        a.store(R11, S_OUTN, RCX)
        a.store(RSI, 40, RCX)
        a.mov(RCX, RDI)
        a.raw(b"\x48\x85\xc9")             # test rcx, rcx
        a.jcc(JE, "nocap")
        a.raw(b"\x48\x83\xf9" + bytes([RET_OUTLEN]))   # cmp rcx, RET_OUTLEN
        a.jcc(JAE, "nocap")                 # (an output string's length, not a returned string)
        # the function returns a C string: copy it, as the entry copies string arguments; or a
        # wide string: a fixed number of bytes, as the entry copies wide string arguments
        a.store(R11, S_RAX, RAX)
        a.store(R11, S_RBX, RBX)
        a.mov(RDI, RAX)
        a.mov(RAX, RSI)
        a.raw(b"\x48\x83\xf9" + bytes([RET_WSTR]))     # cmp rcx, RET_WSTR
        a.jcc(JE, "rwide")
        self._copy(a, RDI, None, RET_SIZE, self.ret_cap, "rs", S2_RCX, S2_RDX)
        a.mov(RSI, RAX)
        a.add_imm(RSI, area_size(self.ret_cap))
        a.jmp("rcopied")
        a.label("rwide")
        self._copy(a, RDI, FIXED, RET_SIZE, self.wret_cap, "rw", S2_RCX, S2_RDX)
        a.mov(RSI, RAX)
        a.add_imm(RSI, area_size(self.wret_cap))
        a.label("rcopied")
        a.load(RAX, R11, S_RAX)
        a.load(RBX, R11, S_RBX)
        a.label("nocap")
        a.add_imm(RSI, RET_SIZE)
        a.load(RCX, R11, S_OUTN)
        a.raw(b"\x48\x85\xc9")             # test rcx, rcx
        a.jcc(JE, "noout")
        # rdx, for a structure returned in rax and rdx
        a.raw(b"\x48\x83\x7e\xf0" + bytes([RET_PAIR]))   # cmp qword [rsi-16] (captured), RET_PAIR
        a.jcc(JNE, "outcopy")
        a.store(RSI, 0, RDX)
        a.add_imm(RSI, 8)
        a.jmp("noout")
        a.label("outcopy")
        # an output argument: its bytes as the function left them
        a.store(R11, S_RAX, RAX)
        a.store(R11, S_RBX, RBX)
        a.load(RDI, R11, S_OUTP)
        a.mov(RAX, RSI)
        self._copy(a, RDI, RCX, 0, OUT_MAX, "ro", S2_RCX, S2_RDX)
        a.mov(RSI, RAX)
        a.load(RCX, R11, S_OUTN)
        a.add_imm(RCX, 7)
        a.raw(b"\x48\x83\xe1\xf8")         # and rcx, -8
        a.raw(b"\x48\x01\xce")             # add rsi, rcx
        a.load(RAX, R11, S_RAX)
        a.load(RBX, R11, S_RBX)
        a.label("noout")
        # the string shown at the return besides the output argument (mbstowcs's source)
        for flag, length, cap, tag in ((IN_CSTR, None, self.ret_cap, "ric"), (IN_WSTR, FIXED, self.wret_cap, "riw")):
            a.raw(b"\x41\xf6\x83" + struct.pack("<i", S_KIND) + bytes([flag]))   # test byte [r11+S_KIND], flag
            a.jcc(JE, f"{tag}no")
            a.store(R11, S_RAX, RAX)
            a.store(R11, S_RBX, RBX)
            a.load(RDI, R11, S_INP)
            a.mov(RAX, RSI)
            self._copy(a, RDI, length, 0, cap, tag, S2_RCX, S2_RDX)
            a.mov(RSI, RAX)
            a.add_imm(RSI, area_size(cap))
            a.load(RAX, R11, S_RAX)
            a.load(RBX, R11, S_RBX)
            a.label(f"{tag}no")
        a.label("published")
        a.store(R11, RPTR, RSI)
        for r, save in ((RCX, S_RCX), (RSI, S_RSI), (RDI, S_RDI), (R10, S_R10)):
            a.load(r, R11, save)
        a.jmp_mem(RSP, -8)                  # (the slot: the real return address)
        a.label("lost")                     # hooked: the return address cannot be found
        a.jmp("ret")
        # hooked: a returns-twice call's return address has no stub yet (Python makes one), a
        # return stub found the ring full (Python empties it); both go back where S_JMP says
        for name in ("twice_miss", "twice_full"):
            a.label(name)
            a.movabs(R11, self.ctrl)
            a.jmp_mem(R11, S_JMP)

    @staticmethod
    def _return_record_head(a: Asm) -> None:
        # The matched shadow entry (r10) popped; the return record's tag, slot (rcx), return
        # address and rax at rsi; the real return address back in the slot (rdi keeps it). (No
        # store after the probe of the slow path can fault: publishing here is safe.)
        a.store(R11, SHTOP, R10)
        a.store_imm(RSI, 0, -1)             # RET_TAG
        a.store(RSI, 8, RCX)
        a.load(RDI, R10, 8)
        a.store(RSI, 16, RDI)
        a.store(RSI, 24, RAX)
        a.store(RSP, -8, RDI)               # the slot holds the real return address again

    @staticmethod
    def _output_length(a: Asm) -> None:
        # rcx: the shadow entry's size word, rdi: its return kind. For an output string as long
        # as the returned value (RET_OUTLEN), rcx becomes the bytes to copy: min(rax, rcx)
        # characters, times 4 for wide ones; for a C string one byte more, which MemView.cstring
        # reads too (unreadable there, the string shows as its pointer). rax is unsigned, as the
        # generic interpreter reads a length from it; a 4-byte return value is its low half.
        # Uses r10 (the shadow entry is not read after this).
        a.raw(b"\x48\x83\xff" + bytes([RET_OUTLEN]))   # cmp rdi, RET_OUTLEN
        a.jcc(JB, "olsized")
        a.raw(b"\x48\x83\xff" + bytes([RET_PAIR]))     # cmp rdi, RET_PAIR (rcx: 8, rdx's bytes)
        a.jcc(JAE, "olsized")
        a.mov(R10, RAX)
        a.raw(b"\x40\xf6\xc7" + bytes([OUTLEN_32]))    # test dil, OUTLEN_32
        a.jcc(JE, "ol64")
        a.raw(b"\x41\x89\xc2")                         # mov r10d, eax
        a.label("ol64")
        a.raw(b"\x49\x39\xca")                         # cmp r10, rcx
        a.jcc(JAE, "olcapped")
        a.mov(RCX, R10)
        a.label("olcapped")
        a.raw(b"\x40\xf6\xc7" + bytes([OUTLEN_WIDE]))  # test dil, OUTLEN_WIDE
        a.jcc(JE, "olnarrow")
        a.raw(b"\x48\xc1\xe1\x02")                     # shl rcx, 2
        a.jmp("olsized")
        a.label("olnarrow")
        a.raw(b"\x48\xff\xc1")                         # inc rcx
        a.label("olsized")

    # -- trampolines ------------------------------------------------------------------
    def build(self, proc, near: int, entries: List[Tuple[FastSite, int, Optional[int]]]) -> bool:
        """Trampolines for (site, GOT slot, PLT entry or None), placed within a rel32 jump of
        `near` (the module) and of every entry and slot.

        A PLT entry is patched with a jmp to its trampoline, which goes on through the entry's
        GOT slot, so lazy binding keeps working. Without an entry (-fno-plt), the slot's
        function address moves into the trampoline region and the slot is pointed at the
        trampoline. False when no free range is near enough."""
        m = proc.machine
        n = len(entries)
        if self.stub_table is None and any(fs.site.name in RETURNS_TWICE for fs, _, _ in entries):
            self._map_stubs(proc)
        got_sites = [k for k, (_, _, e) in enumerate(entries) if e is None]
        est = sum(400 + 220 * len(fs.strings) for fs, _, _ in entries)     # generous; checked after assembly
        size = page_up(8 * len(got_sites) + est)
        base = free_near(proc.aspace, size, near,
                         [slot for _, slot, _ in entries] + [e for _, _, e in entries if e is not None])
        if base is None:
            return False
        data = base             # the function addresses of -fno-plt slots
        through = {}
        for j, k in enumerate(got_sites):
            through[k] = data + 8 * j
        code = bytearray(b"\xcc" * (8 * len(got_sites)))
        tramps, points, loads, restarts = [], [], {}, {}
        for k, (fs, slot, entry) in enumerate(entries):
            at = base + len(code)
            tramps.append(at)
            tc, point = self._placed(fs, at, through.get(k, slot), loads, restarts)
            code += tc
            points.append(point)
        if len(code) > size:
            return False
        self.loads.update(loads)
        self.restarts.update(restarts)
        for k, addr in through.items():
            struct.pack_into("<Q", code, addr - base, m.read_u64(entries[k][1]))
        proc.aspace.map(base, size, 5, "[emutrace]")
        m.write(base, bytes(code))
        self._ours(m, base, base + len(code))
        for k, (fs, slot, entry) in enumerate(entries):
            if fs.native_point:
                self.native_points.append((fs, points[k]))
                fs.placed(self, proc, points[k])
        patch_jmps(m, [(entry, tramps[k]) for k, (fs, slot, entry) in enumerate(entries) if entry is not None])
        for k, (fs, slot, entry) in enumerate(entries):
            if entry is not None:
                self.patched.add(entry)
            else:
                m.write(slot, struct.pack("<Q", tramps[k]))     # the slot the caller reads
                fs.entry = tramps[k]
        return True

    def _placed(self, fs: FastSite, at: int, through: int, loads: Dict[int, Tuple[int, int]],
                restarts: dict) -> Tuple[bytes, Optional[int]]:
        """The code of fs's trampoline at `at` (and the address of its C hook instruction, or
        None): its shape's code (assembled once per shape: most of a program's sites share a
        few shapes, and assembling one in Python costs ~0.4 ms) with the site's own numbers
        written in. Its string copies' loads go in `loads`, its stores that may fault in a guard
        page in `restarts`."""
        shape = shape_of(fs)
        t = self.templates.get(shape)
        if t is None:
            t = self.templates[shape] = self._template(shape)
        code = bytearray(t.code)
        struct.pack_into("<i", code, t.fields["tag"], fs.tag)
        off = t.fields["through"]
        struct.pack_into("<i", code, off, rel32(at + off + 4, through))
        if "start" in t.fields:
            struct.pack_into("<Q", code, t.fields["start"], at)
        for off, (resume, area) in t.loads.items():
            loads[at + off] = (at + resume, area)
        for off, (full, start, restore, unpublish) in t.restarts.items():
            restarts[at + off] = (full, at + start, restore, unpublish)
        point = t.fields.get("np")
        return bytes(code), (None if point is None else at + point)

    def _template(self, shape: "Shape") -> "_Template":
        """A shape's trampoline assembled at address 0 for tag 0, with where the site's own
        numbers go (`fields`: offsets of the tag's imm32, the rel32 to the GOT slot, the imm64
        of the trampoline's own address, the C hook's instruction)."""
        fields: Dict[str, int] = {}
        loads: Dict[int, Tuple[int, int]] = {}
        restarts: dict = {}
        code = self._trampoline(shape, 0, 0, 0, loads, restarts, fields)
        return _Template(code, fields, loads, restarts)

    def _trampoline(self, shape: "Shape", at: int, tag: int, through: int, loads: Dict[int, Tuple[int, int]],
                    restarts: dict, fields: Optional[Dict[str, int]] = None) -> bytes:
        """The trampoline of a site of `shape` assembled at `at`: it logs the call with `tag` and
        goes on through the qword at `through` (the GOT slot). Where those numbers went is put
        in `fields` (offsets from `at`); its string copies' loads in `loads`, its stores that may
        fault in a guard page in `restarts`."""
        # At a function's entry: [rsp] is the return address; r11 is free (the psABI lets PLT
        # code clobber it); every other register is preserved. No check for room: a store in
        # the ring's or the shadow stack's guard page faults, and the trampoline starts over
        # from its start once Python has made room (fault_fixup), so RPTR, SHTOP and the return
        # slot are written only after the last store that can fault. The record's highest word
        # is stored first: when it is in the ring, so is every later store (the string copies
        # included).
        fields = {} if fields is None else fields
        a = Asm(at)
        start = at
        if not (shape.twice or shape.strings or shape.native_point):
            self._plain_trampoline(a, shape, tag, through, start, restarts, fields)
            return a.link()
        a.movabs(R11, self.ctrl)
        a.store(R11, S_RAX, RAX)
        if shape.twice:
            self._find_stub(a, fields)     # (it keeps r10 in S_R10)
        else:
            a.store(R11, S_R10, R10)
        if shape.strings:
            a.store(R11, S_RBX, RBX)
        restore = (("rax", S_RAX), ("r10", S_R10)) + ((("rbx", S_RBX),) if shape.strings else ())
        a.load(RAX, R11, RPTR)
        a.load(R10, RSP, 0)                           # the return address
        self._ring_store(a, restarts, "ring", start, restore)
        if shape.size > HEAD:
            a.store_imm(RAX, shape.size - 8, 0)       # (overwritten by a copy or the C hook)
        else:
            a.store(RAX, 64, R10)
        a.store_imm(RAX, 0, tag)
        fields["tag"] = len(a.code) - 4
        for i, r in enumerate(ARG_REGS):
            a.store(RAX, 8 + 8 * i, r)
        a.store(RAX, 56, RSP)                         # the return slot
        if shape.size > HEAD:
            a.store(RAX, 64, R10)
        if not shape.twice:
            # the shadow entry: slot, return address, return kind | output size << 8, output
            # argument, string shown at the return (before the C hook, which reads SHTOP as
            # this call's entry and must run once: nothing after it faults)
            a.load(R11, R11, SHTOP)
            size = 8 if shape.ret_kind == RET_PAIR else shape.out[1] if shape.out is not None else 0
            # (no entry straddles a page's end: only the first store can fault)
            self._ring_store(a, restarts, "shadow", start, restore)
            a.store(R11, 0, RSP)
            a.store(R11, 8, R10)
            a.store_imm(R11, 16, shape.ret_kind | size << 8)
            if shape.out is not None:
                a.store(R11, 24, ARG_REGS[shape.out[0]])
            if shape.in_string is not None:
                a.store(R11, 40, ARG_REGS[shape.in_string])
            a.movabs(R11, self.ctrl)
        if shape.native_point:
            # a C hook runs here (rax and the control page's RPTR: the record, whose head is
            # written; SHTOP: this call's shadow entry; every argument register as at the call)
            # and writes what follows the head (emutrace.printflog)
            fields["np"] = len(a.code)
            a.raw(b"\x90")
        for k2, (i, off, cap, j) in enumerate(shape.strings):
            length = None if j is None else FIXED if j == FIXED else ARG_REGS[j]
            self._copy(a, ARG_REGS[i], length, off, cap, f"c{k2}", loads=loads)
        if shape.strings:
            a.load(RBX, R11, S_RBX)
        a.add_imm(RAX, shape.size)
        a.store(R11, RPTR, RAX)                       # the record is complete: publish it
        if shape.twice:
            a.load(R10, R11, S_STUB)
            a.store(RSP, 0, R10)                      # the return comes to the stub
        else:
            a.load(RAX, R11, SHTOP)
            a.add_imm(RAX, SHADOW_ENTRY)
            a.store(R11, SHTOP, RAX)
            a.movabs(R10, self.ret_printf if shape.native_point else self.ret_tramp)
            a.store(RSP, 0, R10)                      # the return comes to the return trampoline
        a.load(R10, R11, S_R10)
        a.load(RAX, R11, S_RAX)
        a.jmp_rip_mem(through)
        fields["through"] = len(a.code) - 4
        return a.link()

    def _plain_trampoline(self, a: Asm, shape: "Shape", tag: int, through: int, start: int, restarts: dict,
                          fields: Dict[str, int]) -> None:
        # The common site (no string argument, no C hook, not setjmp's): rax alone is borrowed,
        # the control page addressed with movabs (no base register), r11 holds the return
        # address. The record is published before the shadow entry is written (a fault there
        # takes it back: fault_fixup's `unpublish`), which spares a second borrowed register.
        ctrl = self.ctrl
        a.store_rax_abs(ctrl + S_RAX)
        a.load_rax_abs(ctrl + RPTR)
        a.load(R11, RSP, 0)                           # the return address
        self._ring_store(a, restarts, "ring", start, (("rax", S_RAX),))
        a.store(RAX, 64, R11)                         # (the record's last word first)
        a.store_imm(RAX, 0, tag)
        fields["tag"] = len(a.code) - 4
        for i, r in enumerate(ARG_REGS):
            a.store(RAX, 8 + 8 * i, r)
        a.store(RAX, 56, RSP)                         # the return slot
        a.add_imm(RAX, shape.size)
        a.store_rax_abs(ctrl + RPTR)                  # the record is complete: publish it
        a.load_rax_abs(ctrl + SHTOP)
        self._ring_store(a, restarts, "shadow", start, (("rax", S_RAX),), shape.size)
        a.store(RAX, 0, RSP)
        a.store(RAX, 8, R11)
        size = 8 if shape.ret_kind == RET_PAIR else shape.out[1] if shape.out is not None else 0
        a.store_imm(RAX, 16, shape.ret_kind | size << 8)
        if shape.out is not None:
            a.store(RAX, 24, ARG_REGS[shape.out[0]])
        if shape.in_string is not None:
            a.store(RAX, 40, ARG_REGS[shape.in_string])
        a.add_imm(RAX, SHADOW_ENTRY)
        a.store_rax_abs(ctrl + SHTOP)
        a.movabs(R11, self.ret_tramp)
        a.store(RSP, 0, R11)                          # the return comes to the return trampoline
        a.load_rax_abs(ctrl + S_RAX)
        a.jmp_rip_mem(through)
        fields["through"] = len(a.code) - 4

    @staticmethod
    def _ring_store(a: Asm, into: dict, full: str, start: int, restore, unpublish: int = 0) -> None:
        """The next instruction is a store that faults when the ring (full "ring") or the shadow
        stack ("shadow") has no room: fault_fixup restores `restore` ((register, where it is
        kept), ...), takes back a record of `unpublish` bytes already published, makes room and
        starts the trampoline over at `start`."""
        into[a.here] = (full, start, restore, unpublish)

    def _map_stubs(self, proc) -> None:
        """The table of return stubs (read by the trampolines; zeros: empty) and their code."""
        table = page_up(16 * (STUBS_MAX + 1))
        code = page_up(STUB_SIZE * STUBS_MAX)
        base = proc.aspace.find_free(table + code, top=LOG_TOP)
        proc.aspace.map(base, table, 1, "[emutrace]")
        proc.aspace.map(base + table, code, 5, "[emutrace]")
        self.stub_table, self.stub_code = base, base + table
        self._ours(proc.machine, base + table, base + table + code)

    def _find_stub(self, a: Asm, fields: Dict[str, int]) -> None:
        """The stub of the return address [rsp] into [r11+S_STUB], from the table of stubs (r11:
        the control page; rax saved). None yet: the trampoline's start (a.base: where its imm64
        is goes in `fields`) goes in S_JMP and the `twice_miss` hook makes one (Python), after
        which the trampoline starts over."""
        a.store(R11, S_R10, R10)
        a.load(R10, RSP, 0)
        a.movabs(RAX, self.stub_table)
        a.label("scan")
        a.cmp_mem_reg(RAX, 0, R10)
        a.jcc(JE, "found")
        a.raw(b"\x48\x83\x38\x00")                     # cmp qword [rax], 0
        a.jcc(JE, "miss")
        a.add_imm(RAX, 16)
        a.jmp("scan")
        a.label("miss")
        a.movabs(R10, a.base)
        fields["start"] = len(a.code) - 8
        a.store(R11, S_JMP, R10)
        a.load(R10, R11, S_R10)
        a.load(RAX, R11, S_RAX)
        a.movabs(R11, self.twice_miss)      # (far from the trampolines: an absolute jump)
        a.jmp_reg(R11)
        a.label("found")
        a.load(R10, RAX, 8)
        a.store(R11, S_STUB, R10)
        a.load(R10, R11, S_R10)

    def _stub_code(self, ret: int, at: int) -> bytes:
        """The return stub of return address `ret`, at `at`: reached by the return (rsp = the slot
        + 8) or by longjmp to a buffer the call filled; it appends a return record, as the return
        trampoline does for a call that copies nothing at its return, and jumps to `ret`. Full
        ring: the `twice_full` hook flushes it and the stub starts over (S_JMP). Every register
        but r11 is as the function or longjmp left it."""
        a = Asm(at)
        a.movabs(R11, self.ctrl)
        a.store(R11, S_RSI, RSI)
        a.load(RSI, R11, RPTR)
        a.cmp_reg_mem(RSI, R11, REND)
        a.jcc(JAE, "full")
        a.store(R11, S_RCX, RCX)
        a.store_imm(RSI, 0, -1)             # RET_TAG
        a.lea(RCX, RSP, -8)
        a.store(RSI, 8, RCX)                # the slot
        a.movabs(RCX, ret)
        a.store(RSI, 16, RCX)
        a.store(RSI, 24, RAX)
        a.store_imm(RSI, 32, 0)
        a.store_imm(RSI, 40, 0)
        a.add_imm(RSI, RET_SIZE)
        a.store(R11, RPTR, RSI)
        a.load(RCX, R11, S_RCX)
        a.load(RSI, R11, S_RSI)
        a.movabs(R11, ret)
        a.jmp_reg(R11)
        a.label("full")
        a.movabs(RSI, at)
        a.store(R11, S_JMP, RSI)
        a.load(RSI, R11, S_RSI)
        a.movabs(R11, self.twice_full)
        a.jmp_reg(R11)
        code = a.link()
        assert len(code) <= STUB_SIZE
        return code

    def _copy(self, a: Asm, src: int, length: Optional[int], off: int, cap: int, tag: str,
              save_rcx: int = S_RCX, save_rdx: int = S_RDX, loads: Optional[Dict[int, Tuple[int, int]]] = None) -> None:
        """Copy a C string (length None: up to its NUL), a buffer (min(length register, cap)
        bytes) or `cap` bytes (length FIXED: a wide string, ended by Python) into [rax+off...];
        nothing for NULL. A qword at a time, each load aligned: an aligned qword never reaches
        into another page, so the copy faults only where a byte-wise copy would. The bytes before
        the first 8-aligned address come from the aligned qword that holds the first byte, shifted
        down. Every conditional branch ends Unicorn's translated block, and each block costs a
        helper call or two, so the loop makes one branch per qword: the NUL test and the length
        test are merged into one. rcx, rdx, rbx, r10 and r11 are used (rcx and rdx restored, rbx
        by the caller); r11 is the control page on entry and on exit. Its loads go in `loads`
        (self.loads unless given): load address → (where a fault in it resumes, `off`)."""
        done, body, loop = f"{tag}done", f"{tag}body", f"{tag}q"
        at_loads = []                   # (the addresses of its two loads)
        a.store(R11, save_rcx, RCX)
        a.store(R11, save_rdx, RDX)
        a.mov(R11, src)
        a.raw(b"\x45\x31\xd2")                         # xor r10d, r10d
        a.raw(b"\x4d\x85\xdb")                         # test r11, r11
        a.jcc(JE, done)
        if length == FIXED:
            a.raw(b"\xb9" + struct.pack("<I", cap))            # mov ecx, cap
        elif length is not None:
            a.mov(RCX, length)
            a.raw(b"\x48\x81\xf9" + struct.pack("<i", cap))   # cmp rcx, cap
            a.jcc(JBE, f"{tag}short")
            a.raw(b"\xb9" + struct.pack("<I", cap))            # mov ecx, cap
            a.label(f"{tag}short")
            a.raw(b"\x48\x85\xc9")                     # test rcx, rcx (nothing read for none)
            a.jcc(JE, done)
        # the head: src's first 8 - (src & 7) bytes, from the aligned qword holding them
        a.mov(RBX, R11)
        a.raw(b"\x83\xe3\x07")                         # and ebx, 7
        a.jcc(JE, body)
        if length is not None:
            a.mov(RDX, RCX)                             # (the length, while cl is the shift)
        a.raw(b"\x8d\x0c\xdd\x00\x00\x00\x00")             # lea ecx, [rbx*8]
        a.raw(b"\x48\xf7\xdb")                         # neg rbx
        at_loads.append(a.here)
        a.raw(b"\x49\x8b\x1c\x1b")                     # mov rbx, [r11+rbx] (aligned)
        a.raw(b"\x48\xd3\xeb")                         # shr rbx, cl
        a.raw(b"\x48\x89\x98" + struct.pack("<i", off))    # mov [rax+off], rbx
        if length is None:
            # the bytes past the head are not the string's: set to 0xff for the NUL test
            a.raw(b"\xf7\xd9")                         # neg ecx
            a.raw(b"\x83\xc1\x40")                     # add ecx, 64
            a.raw(b"\x49\xc7\xc2\xff\xff\xff\xff")         # mov r10, -1
            a.raw(b"\x49\xd3\xe2")                     # shl r10, cl
            a.raw(b"\x4c\x09\xd3")                     # or rbx, r10
            a.movabs(RDX, 0x0101010101010101)
            self._zero_byte_mask(a)
            a.jcc(JNE, done)
        a.mov(R10, R11)
        a.raw(b"\x41\x83\xe2\x07")                     # and r10d, 7
        a.raw(b"\x49\xf7\xda")                         # neg r10
        a.raw(b"\x49\x83\xc2\x08")                     # add r10, 8: the bytes copied
        if length is not None:
            a.mov(RCX, RDX)
        a.label(body)
        if length is None:
            a.movabs(RDX, 0x0101010101010101)
            a.raw(b"\x49\x81\xfa" + struct.pack("<i", cap))   # cmp r10, cap
        else:
            a.raw(b"\x49\x39\xca")                     # cmp r10, rcx
        a.jcc(JAE, done)
        a.label(loop)
        at_loads.append(a.here)
        a.raw(b"\x4b\x8b\x1c\x13")                     # mov rbx, [r11+r10] (aligned)
        a.raw(b"\x4a\x89\x9c\x10" + struct.pack("<i", off))    # mov [rax+r10+off], rbx
        a.add_imm(R10, 8)
        if length is None:
            # on while no byte of rbx is zero and r10 < cap: rcx = the zero-byte mask | (r10 >=
            # cap ? -1 : 0), as ~(r10 - cap) >> 63 (arithmetic) is
            self._zero_byte_mask(a)
            a.mov(RBX, R10)
            a.raw(b"\x48\x81\xeb" + struct.pack("<i", cap))   # sub rbx, cap
            a.raw(b"\x48\xf7\xd3")                     # not rbx
            a.raw(b"\x48\xc1\xfb\x3f")                 # sar rbx, 63
            a.raw(b"\x48\x09\xd9")                     # or rcx, rbx
            a.jcc(JE, loop)
        else:
            a.raw(b"\x49\x39\xca")                     # cmp r10, rcx
            a.jcc(JB, loop)
        a.label(done)
        if loads is None:
            loads = self.loads
        for at in at_loads:
            loads[at] = (a.addr(done), off)             # a fault in the copy resumes here
        a.movabs(R11, self.ctrl)
        a.load(RCX, R11, save_rcx)
        a.load(RDX, R11, save_rdx)

    @staticmethod
    def _zero_byte_mask(a: Asm) -> None:
        """rcx = (rbx - rdx) & ~rbx & (rdx << 7), rdx being 0x0101..01: non-zero when a byte of
        rbx is zero (the flags say so); rbx is clobbered."""
        a.mov(RCX, RBX)
        a.raw(b"\x48\x29\xd1")                         # sub rcx, rdx
        a.raw(b"\x48\xf7\xd3")                         # not rbx
        a.raw(b"\x48\x21\xd9")                         # and rcx, rbx
        a.mov(RBX, RDX)
        a.raw(b"\x48\xc1\xe3\x07")                     # shl rbx, 7
        a.raw(b"\x48\x21\xd9")                         # and rcx, rbx

