"""ltrace 0.7.3's escaping of string and character contents, shared by every renderer (the
render operations of emutrace.renderops and the generic type interpreter of emutrace.values).

``\\0 \\a \\b \\t \\n \\v \\f \\r \\\\`` and ``\\OOO`` (3 octal digits) for other non-printables;
``"`` and ``'`` are not escaped; wide characters above 255 as ``\\uXXXX`` / ``\\UXXXXXXXX``.
"""
from __future__ import annotations

from emutrace.machine.abi import LTRACE_ESCAPES, WIDE_ESC_LONG, WIDE_ESC_SHORT
from emutrace.machine.native import native

__all__ = ["ESC_TABLE", "esc_char", "esc_wchar", "escape_bytes", "escape_wide"]

_ESC = {c: "\\" + letter for c, letter in LTRACE_ESCAPES.items()}     # (C: _abi.h's LTRACE_ESC_LETTERS)
_WIDE_SHORT = "\\u%%0%dx" % WIDE_ESC_SHORT
_WIDE_LONG = "\\U%%0%dx" % WIDE_ESC_LONG


def esc_char(c: int) -> str:
    e = _ESC.get(c)
    if e is not None:
        return e
    if 32 <= c < 127:
        return chr(c)
    return "\\%03o" % (c & 0xFF)


ESC_TABLE = [esc_char(c) for c in range(256)]     # esc_char of every byte
_PLAIN = bytes(c for c in range(32, 127) if c not in LTRACE_ESCAPES)


def escape_bytes(b: bytes) -> str:
    """ltrace's escaping of string contents (no quotes added)."""
    if not b.translate(None, _PLAIN):           # the common case: nothing to escape
        return b.decode("ascii")
    table = ESC_TABLE
    return "".join([table[c] for c in b])


def esc_wchar(c: int) -> str:
    if c < 256:
        return esc_char(c)
    if c < 1 << 4 * WIDE_ESC_SHORT:
        return _WIDE_SHORT % c
    return _WIDE_LONG % (c & 0xFFFFFFFF)


def escape_wide(raw: bytes) -> str:
    """ltrace's escaping of wchar_t string contents: each whole 4-byte character of `raw`."""
    return "".join([esc_wchar(int.from_bytes(raw[k:k + 4], "little")) for k in range(0, len(raw) - 3, 4)])


if native is not None:              # the same, compiled (tests/test_native_render.py compares them)
    escape_bytes = native.escape    # noqa: F811
    escape_wide = native.escape_wide  # noqa: F811
