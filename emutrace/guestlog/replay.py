"""The replay side: decode a thread's ring into Call and Return events and finished leaf lines."""
from __future__ import annotations

import struct
from typing import List, Optional, Tuple

from emutrace.events import Call
from emutrace.frames import Frame
from emutrace.errors import EmutraceError
from emutrace.machine.native import native
from emutrace.machine.reader import GuestReader
from emutrace.renderops import CSTRN
from emutrace.machine.abi import TEXTS, result_at
from emutrace.values import LEAF_COLUMN, FastCallState
from emutrace.guestlog.format import (RET_SIZE, RET_TAG, RET_CSTR, RET_WSTR, RET_PAIR, IN_CSTR, IN_WSTR, _NO_FRAME,
                                      FIXED, _HEADW, _RETW, _Q, area_size)
from emutrace.guestlog.sites import FastSite


class _Captured:
    """What the renderers of a return read, a GuestReader: the bytes the return trampoline copied
    (a returned C string or wide string, an output argument), live memory for anything else."""
    __slots__ = ("items", "fallback", "block", "wide")

    def __init__(self):
        self.items: List[Tuple[int, bytes]] = []
        self.fallback: Optional[GuestReader] = None    # live memory
        self.block = None               # (address, size, bytes copied) of an output argument
        self.wide = None                # (address, bytes copied, bytes asked) of a returned wide string

    def read(self, addr: int, size: int):
        wd = self.wide
        if wd is not None and wd[0] <= addr < wd[0] + wd[2]:
            data, d = wd[1], addr - wd[0]
            # what was copied; past it, unreadable at the return (as an output argument)
            return data[d:d + size] if d + size <= len(data) else None
        b = self.block
        if b is not None and b[0] <= addr < b[0] + b[1]:
            data = b[2]
            if addr + size <= b[0] + len(data):
                return data[addr - b[0]:addr - b[0] + size]
            return None                 # past what was readable at the return
        return self.fallback.read(addr, size)

    def cstring(self, addr: int, limit: int):
        for a, area in self.items:
            if a == addr:
                if area is None:
                    return None
                nul = area.find(b"\0")
                if nul >= 0:
                    return area[:nul], True
                return area[:limit], False
        b = self.block
        if b is not None and b[0] == addr:
            # an output string (read's buffer): its first limit + 1 bytes were asked for, those
            # copied are the ones readable (as MemView.cstring reads them)
            data = b[2]
            nul = data.find(b"\0", 0, limit + 1)
            if nul >= 0:
                return data[:nul], True
            return (data[:limit], False) if len(data) > limit else None
        return self.fallback.cstring(addr, limit)


class Replay:
    """GuestLog's decode (a part of GuestLog: see log.py)."""

    def decode(self, proc, data: bytes, start: int) -> None:
        """Turn the records into Call and Return events, as the hooked path makes them. A call
        whose return record follows it directly (a leaf: the common case) becomes a finished
        line for the sink's `leaf_lines` when the output is plain ltrace text, with no events."""
        tracer = self.tracer
        sites = tracer.fast_sites
        calls = tracer.calls
        key = (proc.pid, proc.thread.tid)
        stack = calls.stacks.get(key)
        if stack is None:
            stack = calls.stacks[key] = []
        emit = tracer.emit
        sink = tracer.leaf_out
        suffix = sink.leaf_suffix if sink is not None else ""
        lines: List[str] = []
        append = lines.append
        now = tracer.world.elapsed_ns
        rt, rtp = self.ret_tramp, self.ret_printf      # (the return slot of a logged call)
        live = tracer.mem_view(proc)
        faulted = self.faulted
        unpack_head, unpack_ret, unpack_tag = _HEADW.unpack_from, _RETW.unpack_from, _Q.unpack_from
        if self.leaf_suffix is None:
            self.leaf_suffix = suffix
        # (a fault in a copy: the general path; so for another suffix, which quick's kept lines
        # do not end with: the sink's never changes, so this is only a safeguard)
        quick = sink is not None and not faulted and suffix is self.leaf_suffix
        progs = self.native_sites
        if len(progs) < len(sites) and native is not None:
            progs.extend(fs.native_leaf(self) for fs in sites[len(progs):])
        leaf_run = native.leaf_run if quick and native is not None else None
        ret_area = self.ret_area
        off, n = 0, len(data)
        try:
            while off < n:
                if data[off] == 0xFF and data[off + 7] == 0xFF:          # RET_TAG
                    slot, orig, rax, captured, outn = unpack_ret(data, off + 8)
                    ret_mem = None
                    rdx = unpack_tag(data, off + RET_SIZE)[0] if captured == RET_PAIR else None
                    if captured or outn:
                        ret_mem = self._ret_memory(data, off, start, rax, captured, outn, stack, slot, live)
                    off += RET_SIZE + ret_area(captured) + ((outn + 7) & ~7)
                    rsp = slot + 8
                    if lines:
                        sink.leaf_lines(lines)
                        lines.clear()
                    while stack and stack[-1].rsp < rsp:
                        frame = stack.pop()
                        if frame.rsp == slot and (frame.ret_addr == orig or frame.ret_addr == rt or frame.ret_addr == rtp):
                            calls.ret_frame, calls.ret_rax, calls.ret_mem = frame, rax, ret_mem
                            calls.ret_rdx = rdx
                            frame.owner.returned(proc, frame)
                            calls.ret_mem = calls.ret_rdx = None
                        else:
                            frame.owner.unwound(proc, frame)
                    continue
                tag = unpack_tag(data, off)[0]
                fs = sites[tag]
                if leaf_run is not None and progs[tag] is not None:
                    # the same runs of leaf calls, rendered by the compiled path; it stops at
                    # the first record it does not render, which the Python path then takes
                    off2, k = leaf_run(data, off, stack[-1].rsp if stack else None, progs, suffix, lines)
                    if k:
                        calls.next_id += k
                        off = off2
                        continue
                if quick:
                    # runs of leaf calls whose returns captured nothing, the common case, in a
                    # loop of their own (it is most of a traced call's cost: kept to the least
                    # work; FastSite.quick checks and renders a pair in one call)
                    top = stack[-1].rsp if stack else _NO_FRAME
                    before = len(lines)
                    while True:
                        end = off + fs.pair_end
                        if end + 8 > n:         # (quick reads the next record's tag too)
                            break
                        tag = fs.quick(data, off, top, suffix, append)
                        if tag is None:
                            break
                        off = end
                        if tag == RET_TAG:
                            break
                        fs = sites[tag]
                        if leaf_run is not None and progs[tag] is not None:
                            break           # (back to the compiled path)
                    if len(lines) > before:
                        calls.next_id += len(lines) - before
                        continue
                w = unpack_head(data, off)
                slot, ret = w[7], w[8]
                if stack:
                    top = stack[-1]
                    if top.rsp < slot or (top.rsp == slot and ret != rt and ret != rtp and top.ret_addr != ret):
                        if lines:
                            sink.leaf_lines(lines)
                            lines.clear()
                        calls.unwind_to(proc, stack, slot, ret)
                plan = fs.plan
                nxt = off + fs.size
                left = None
                if sink is not None and nxt < n and data[nxt] == 0xFF and data[nxt + 7] == 0xFF:
                    rslot, rorig, rax, captured, outn = unpack_ret(data, nxt + 8)
                    if rslot == slot and rorig == ret:
                        # a leaf call: nothing happened between its call and its return
                        calls.next_id += 1
                        if not (captured or outn or faulted) or fs.native_point:
                            lines.append(fs.leaf(w, data, off, rax, suffix))
                            off = nxt + RET_SIZE
                            continue
                        left = self._left(w, data, off, start, fs)
                        rop = plan.ret
                        text = fs.site.display + "(" + ", ".join(left)
                        if captured == RET_PAIR:
                            rax |= unpack_tag(data, nxt + RET_SIZE)[0] << 64      # (rdx)
                        if captured or outn:
                            mem = self._ret_memory(data, nxt, start, rax, captured, outn, None, w[1:7], live, fs)
                            r = rop.word(rax, mem) if rop is not None else None
                            if plan.right is not None:
                                right = plan.right(w[1:7], mem, rax)
                                if right:
                                    text += (", " if left else "") + ", ".join(right)
                            nxt += ret_area(captured) + ((outn + 7) & ~7)
                        else:
                            r = rop.word(rax, None) if rop is not None else None
                        lines.append(result_at(text + ")", TEXTS["VOID"] if r is None else r, LEAF_COLUMN) + suffix)
                        off = nxt + RET_SIZE
                        continue
                if left is None:
                    left = self._left(w, data, off, start, fs)
                if lines:
                    sink.leaf_lines(lines)
                    lines.clear()
                site = fs.site
                words = w[1:7]
                st = FastCallState(site.name, site.display, plan, words, site.display + "(" + ", ".join(left), left)
                fid = calls.next_id
                calls.next_id = fid + 1
                frame = Frame(fid, site, slot, ret, st, len(stack), now, owner=tracer, entry=fs.entry)
                stack.append(frame)
                caller = ret if ret != rt and ret != rtp else next(
                    (f.ret_addr for f in reversed(stack) if f.rsp == slot and f.ret_addr != rt and f.ret_addr != rtp), ret)
                emit(Call(fid, proc.pid, key[1], now, frame.depth, st.display_name, site.definer,
                          site.caller.name, caller, st.text, left[:], via=site.via))
                off = nxt
        except (IndexError, struct.error):
            raise EmutraceError("the program overwrote emutrace's call log", 125) from None
        finally:
            if lines:
                sink.leaf_lines(lines)

    def _left(self, w, data: bytes, off: int, start: int, fs: FastSite) -> List[str]:
        """The rendered arguments of the call record at data[off:]."""
        if self.faulted and fs.strings:
            return self._left_after_fault(w, data, off, start, fs)
        return fs.left(w, data, off)

    def _ret_memory(self, data: bytes, off: int, start: int, rax: int, captured: int, outn: int,
                    stack, words_or_slot, live, fs: Optional[FastSite] = None) -> "_Captured":
        """What the renderers of the return value and of the output argument read: the bytes the
        return trampoline copied (the returned string; the output argument at its address,
        found in the call's words: those given, or those of the frame being returned to)."""
        mem = _Captured()
        mem.fallback = live
        o = off + RET_SIZE
        if captured == RET_WSTR:
            # a returned wide string: as far as it was readable at the return
            area = data[o:o + self.wret_cap]
            if self.faulted:
                got = self.faulted.pop(start + o, None)
                if got is not None:
                    area = area[:got]
            if rax:
                mem.wide = (rax, area, self.wret_cap)
            o += area_size(self.wret_cap)
        elif captured == RET_CSTR:
            area = data[o:o + self.ret_cap]
            if self.faulted and self.faulted.pop(start + o, None) is not None:
                area = None
            mem.items = [(rax, area)]
            o += area_size(self.ret_cap)
        ins = captured & (IN_CSTR | IN_WSTR)
        if not (outn or ins):
            return mem
        # (a fault in a copy is forgotten here whatever becomes of the copy: one left behind
        # would keep decode off its quick paths)
        block = data[o:o + outn]
        if outn and self.faulted:
            got = self.faulted.pop(start + o, None)
            if got is not None:
                block = block[:got]
        o += (outn + 7) & ~7
        if ins:
            # the string shown at the return besides it: as far as it was readable (a C string
            # with no NUL before unreadable memory: unreadable, as MemView.cstring has it)
            cap = self.ret_cap if ins == IN_CSTR else self.wret_cap
            area = data[o:o + cap]
            got = self.faulted.pop(start + o, None) if self.faulted else None
            if got is not None:
                area = None if ins == IN_CSTR else area[:got]
        if fs is None:              # a frame's return: its call's words are in its state
            words, fs = self._frame_words(stack, words_or_slot)
        else:
            words = words_or_slot
        if fs is None or words is None:
            return mem
        if outn and fs.out is not None:
            mem.block = (words[fs.out[0]], outn, block)
        if ins and fs.in_string is not None:
            w = words[fs.in_string]
            if ins == IN_CSTR:
                mem.items = [(w, area)]
            elif w:
                mem.wide = (w, area, cap)
        return mem

    def _frame_words(self, stack, slot: int):
        """The argument words and FastSite of the logged frame returning at `slot`."""
        for frame in reversed(stack):
            if frame.rsp == slot:
                st = frame.state
                fs = self.tracer.fast_by_site.get(id(frame.site))
                return getattr(st, "words", None), fs
            if frame.rsp > slot:
                break
        return None, None

    def _left_after_fault(self, w, data: bytes, off: int, start: int, fs: FastSite) -> List[str]:
        """The shown arguments of a record one of whose copies faulted: a C string with no NUL
        before unreadable memory shows as its address (as MemView.cstring has it), a buffer or
        a wide string as far as it was readable, a C string bounded by a length word (CSTRN)
        from the bytes readable (its renderer knows what MemView.cstring makes of them)."""
        ops = dict(fs.plan.left_items)
        at = {}
        for i, a_off, cap, j in fs.strings:
            size = cap if j is None or j == FIXED else min(w[1 + j], cap)
            area = data[off + a_off:off + a_off + size]
            got = self.faulted.pop(start + off + a_off, None)
            if got is not None:
                bounded = ops[i].capture == CSTRN
                area = None if (j is None and not bounded) or not got else area[:got]
            at[i] = (area, j)
        out = []
        for i, op in fs.plan.left_items:
            if i in at:
                area, j = at[i]
                out.append(op.from_bytes(w[1 + i], area, w[1 + op.len_arg]) if op.capture == CSTRN
                           else op.from_bytes(w[1 + i], area) if j is None or j == FIXED
                           else op.from_bytes(w[1 + i], area, w[1 + j]))
            else:
                out.append(op.word(w[1 + i], None))
        return out

