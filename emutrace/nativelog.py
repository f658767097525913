"""The guest call log's sites as the compiled renderer sees them.

A logged call site (guestlog.FastSite) renders its leaf lines in C when every shown argument and
its return value carry a `native` description (values._native_op): the same rendering as the
Python renderer, as one operation of emutrace.machine._native. This module turns a site's plan and its
record layout into an emutrace.machine._native.Site; a site with anything else gets None and keeps the
Python renderers, record by record, so the two paths print the same bytes.
"""
from __future__ import annotations

from typing import Optional

from .machine.native import native

FIXED = -1                          # guestlog.FIXED: a capture of a fixed number of bytes

_WORD_KINDS = ("unsigned", "signed", "hex", "guess", "addr", "char", "wchar", "bool", "enum")
# capture kind → (the capture's length word in guestlog's layout: None for a C string, FIXED for
# a wide string, an index for a buffer; the bytes it captures for a string limit)
_CAPTURES = {
    "cstr": (lambda j: j is None, lambda limit: limit + 1),
    "buf": (lambda j: j is not None and j != FIXED, lambda limit: limit + 1),
    "wstr": (lambda j: j == FIXED, lambda limit: 4 * (limit + 1)),
}


def _opcode(kind: str) -> int:
    return getattr(native, "OP_" + {"addr": "ADDR", "cstr": "CSTR", "buf": "BUF", "wstr": "WSTR"}.get(
        kind, kind.upper()))


def _word_op(fn, word: int) -> Optional[tuple]:
    desc = getattr(fn, "native", None)
    if desc is None or desc[0] not in _WORD_KINDS:
        return None
    kind, mask, size, _, names, fallback = desc
    if kind == "enum":
        return (_opcode(kind), word, 0, mask, size, 0, 0, names, _opcode(fallback))
    return (_opcode(kind), word, 0, mask, size, 0, 0)


def _capture_op(fn, word: int, area: int, cap: int, j) -> Optional[tuple]:
    desc = getattr(fn, "native", None)
    if desc is None or desc[0] not in _CAPTURES:
        return None
    kind, _, _, limit, _, _ = desc
    layout_ok, cap_of = _CAPTURES[kind]
    if not layout_ok(j) or cap != cap_of(limit):
        return None
    return (_opcode(kind), word, 0 if j is None or j == FIXED else j + 1, 0, 0, area, limit)


def _ret_op(fn) -> Optional[tuple]:
    """A word, or a returned C string (the bytes the return trampoline copied)."""
    desc = getattr(fn, "native", None)
    if desc is not None and desc[0] in ("cstr", "wstr"):
        return (_opcode(desc[0]), 0, 0, 0, 0, 0, desc[3])
    return _word_op(fn, 0)


def native_site(display: str, plan, strings, size: int, align_pad: int, ret_cap: int):
    """The emutrace.machine._native.Site rendering this site's leaf lines as guestlog's decode does (its
    quick path, and its general path for a leaf call returning a C string), or None (no compiled
    path, or a renderer it does not have). `ret_cap`: the bytes of a returned string the
    return trampoline copies."""
    if native is None:
        return None
    at = {i: (a_off, cap, j) for i, a_off, cap, j in strings}
    ops = []
    for i, fn in plan.left_items:
        op = _capture_op(fn, i + 1, *at[i]) if i in at else _word_op(fn, i + 1)
        if op is None:
            return None
        ops.append(op)
    ret = None
    if plan.ret is not None:
        ret = _ret_op(plan.ret)
        if ret is None or (ret[0] in (native.OP_CSTR, native.OP_WSTR) and plan.right is not None):
            return None             # (such a return's line also shows output arguments)
    try:
        return native.Site(display + "(", ops, ret, size, align_pad, ret_cap)
    except ValueError:              # a layout the extension refuses: the Python renderers serve it
        return None
