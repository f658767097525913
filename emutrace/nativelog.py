"""The guest call log's sites as the compiled renderer sees them.

A logged call site (guestlog.FastSite) renders its leaf lines in C when every shown argument and
its return value is a render operation (emutrace.renderops) of a kind the C renderer has: the
same rendering as the op's Python renderers, as the operation OP_<KIND> of
emutrace.machine._native. This module turns a site's ops and its record layout into an
emutrace.machine._native.Site; a site with any other op gets None and keeps the Python renderers,
record by record, so the two paths print the same bytes.
"""
from __future__ import annotations

from typing import Optional

from emutrace.machine.abi import OP
from emutrace.machine.native import native
from emutrace.renderops import CSTR, CSTRN, FIXED_SIZE, LENGTH, RAXRDX, WORD

# what a returned value may be in C: a word, or a string the return trampoline copied, or a
# structure in rax and rdx (whose rdx it copied)
_RET_CAPTURES = (WORD, CSTR, FIXED_SIZE, RAXRDX)


def opcode(kind: str) -> Optional[int]:
    """The C renderer's operation for an op kind (None: it has none)."""
    return OP.get(kind) if native is not None else None


def _op(op, word: int, area: int) -> Optional[tuple]:
    """The extension's operation (kind, word, length word, mask, size, area, limit[, names,
    fallback]) for op, the argument in `word` (1..6, 0 for the return value) whose capture lies at
    `area` in the call record; None when C does not render it."""
    if not op.native:
        return None
    code = opcode(op.kind)
    if op.kind == "enum":
        return (code, word, 0, op.mask, op.size, 0, 0, op.names, opcode(op.fallback))
    if op.kind == "intstruct":
        return (code, word, 0, 0, 0, 0, 0, op.names, 0)
    if op.kind == "struct":
        return (code, word, 0, 0, op.size, area, 0, op.names, 0)
    if op.kind == "flags":
        # (value, mask, name) for C, each a 64-bit word: any other the Python renderer keeps
        if any(not (0 <= v < 1 << 64 and 0 <= m < 1 << 64) for _, v, m in op.names):
            return None
        return (code, word, 0, op.mask, op.size, 0, 0, tuple((v, m, name) for name, v, m in op.names), 0)
    lenword = op.len_arg + 1 if op.capture in (LENGTH, CSTRN) else 0
    return (code, word, lenword, op.mask, op.size, area, op.limit)


def native_site(display: str, plan, strings, size: int, column: int, ret_cap: int, out_captured: int = 0):
    """The emutrace.machine._native.Site rendering this site's leaf lines as guestlog's decode does (its
    quick path, and its general path for a leaf call returning a C string or copying an output
    argument at the return), or None (no compiled path, or an op it does not have). `strings`:
    guestlog's captures ((word index, offset in the record, bytes, length word), ...).
    `ret_cap`: the bytes of a returned string the return trampoline copies; `out_captured`: the
    return record's "captured" word of a site whose output argument's copy is as long as the
    returned value says (guestlog.RET_OUTLEN...)."""
    if native is None:
        return None
    area = {i: a_off for i, a_off, _, _ in strings}
    ops = []
    # (an argument after the split renders from its word, or from what the return copied: the
    # output copy, or the C string shown beside it (mbstowcs's source): area 0)
    for i, op in plan.left_items + plan.right_items:
        got = _op(op, i + 1, area.get(i, 0))
        if got is None:
            return None
        ops.append(got)
    ret = None
    if plan.ret is not None:
        if plan.ret.capture not in _RET_CAPTURES:
            return None
        if plan.ret.capture != WORD and plan.right is not None:
            return None             # (such a return's line also shows output arguments)
        ret = _op(plan.ret, 0, 0)
        if ret is None:
            return None
    try:
        return native.Site(display + "(", ops, ret, size, column, ret_cap, out_captured)
    except ValueError:              # a layout the extension refuses: the Python renderers serve it
        return None
