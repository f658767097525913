"""Formatting library-call arguments and return values the way ltrace 0.7.3 does.

    from emutrace.values import CallFormatter
    fmt = CallFormatter(string_limit=32, array_limit=4, symbolize=lambda a: "cmp" or None)
    st = fmt.enter("strtol", proto_or_None, regs, mem)  # at the call
    st.text                 # 'strtol("42abc"' : name, '(' and the arguments shown at entry
    rest = fmt.exit(st, regs, mem)                       # at the return
    rest                    # ', 0x7ffd1234) = 42'
    st.text + rest          # the whole call, unaligned
    st.line()               # the whole call as ltrace prints it (' = ' at column 49)
    st.args, st.ret         # every shown argument / the return value, as strings

What ``regs`` and ``mem`` must offer: ``regs.int_arg(i)`` (i-th integer-class
argument slot at function entry: rdi, rsi, rdx, rcx, r8, r9, then the stack
slots [rsp+8], [rsp+16]...), ``regs.float_arg(i)`` (xmm0..xmm7, the low 64
bits read as a double: the raw bits must survive, a ``float`` argument is
taken from the low 32 of them), ``regs.ret_int()`` (rax), ``regs.ret_float()``
(xmm0 as a double) and, optionally, ``regs.ret_int_hi()`` (rdx, for 9..16-byte
structures returned by value).  ``mem.read(addr, size) -> bytes | None`` and
``mem.cstring(addr, limit) -> (bytes, nul_found) | None``.

Entry and exit
--------------
As ltrace, every argument *word* is fetched at the call (registers are
clobbered by the time the function returns), the arguments before the first
output parameter (``+`` in the prototype) are formatted then, and the output
parameters are formatted at the return, reading memory as it is then.
``st.text`` is what ltrace prints before `` <unfinished ...>`` when another
call interrupts the line: ``read(3`` for ``long read(int, +string[retval],
ulong)``.  The delimiter before the first output parameter belongs to the part
printed at return (ltrace prints ``<... read resumed> , "hello\\n", 100)``), so
``fmt.exit`` returns ``', "hello\\n", 100) = 6'`` and ``st.right`` is
``', "hello\\n", 100'``.  When nothing is an output parameter, ``st.text``
holds all the arguments (``strlen("abc"``) and exit returns ``') = 3'``.

Helpers for the output code: ``st.line(align=50)``, ``st.unfinished_line()``,
``st.resumed_line(align=50)`` and :func:`close_call` (pads with spaces to
column ``align - 1`` after ``") "``, like ltrace's ``-a``, default 50).

Rendering rules (checked against the real ltrace 0.7.3 on x86-64)
----------------------------------------------------------------
* strings: ``"..."`` with ``\\0 \\a \\b \\t \\n \\v \\f \\r \\\\`` and ``\\OOO``
  (3 octal digits) for other non-printables; ``"`` and ``'`` are not
  escaped; longer than ``string_limit`` -> cut, ``...`` after the closing
  quote; NULL -> ``nil``.
* chars ``'a'``; ints decimal; unsigned decimal; ``hex`` -> ``0x1f`` (``0`` for
  zero); ``oct`` -> ``0755`` (``00`` for zero); ``bool`` -> ``true``/``false``;
  float and double ``%f`` (``1.500000``), ``hex(double)`` ``%a``.
* ``addr``/``file``/``void*`` -> ``0x55d0c0ffee00``, NULL -> ``0``; any other
  pointer is dereferenced (``int*`` shows the int), NULL -> ``nil``.
* arrays ``[ 1, 2, 3, 4... ]`` (at most ``array_limit`` elements); structs
  ``{ 1, "a" }``; ``bitvec`` ``<1,3-5>`` / ``~<0>``; enums by name, unknown
  values as the number; recursive structures ``recurse^`` and ``...``.
* ``void`` return -> ``<void>``.
* printf-family ``format``: every conversion becomes an argument with ltrace's
  own typing quirks: ``%hhd``/``%hhu``/``%c`` are chars (``'*'``), ``%lld``
  ``%llu`` ``%jd`` are shown unsigned, ``%x`` in hex, ``%o`` in octal,
  ``%p``/``%n`` as hex addresses (NULL -> ``0``), floats from the xmm
  registers in order (then the stack), ``%s`` cut at the limit *and* at the
  field width or precision digits (``%10s`` and ``%.3s`` show at most 10
  and 3 chars, as ltrace), ``%*d`` shows the width as an argument.
* a function without a prototype: ltrace's ``long f(long, long, long, long)``
  with its "guess" rendering: 4 arguments, each decimal when it lies in
  [-10000, 10000], else hex of the 64-bit word; the return value the same.
* a pointer that cannot be read: its address in hex (ltrace would print
  garbage or ``?``); a value that cannot be fetched at all: ``?``.
* ``funcptr`` (extension): the symbol name when ``symbolize(addr)`` returns
  one, else hex like ``addr`` -- so with ``symbolize=None`` the output is
  ltrace's (``qsort(0x7ffd..., 4, 4, 0x5555...)``), with a symbolizer it is
  ``qsort(0x7ffd..., 4, 4, compare)``.
"""

# The package: the call's state (state.py), argument fetching (fetch.py), compiled prototypes
# (plan.py) and the formatting (formatter.py), which CallFormatter joins.
from emutrace.values.state import (DEFAULT_ALIGN, LEAF_COLUMN, DEFAULT_ARRAY_LIMIT, DEFAULT_STRING_LIMIT, FORMAT_READ_LIMIT,
                                   CallState, close_call)
from emutrace.values.fetch import _PrintfPack, _scanf_types
from emutrace.values.plan import FastCallState, _Plan
from emutrace.values.formatter import CallFormatter, _Ctx, format_summary
from emutrace.escapes import escape_bytes

__all__ = ["CallFormatter", "CallState", "FastCallState", "close_call", "escape_bytes", "format_summary",
           "DEFAULT_ALIGN", "LEAF_COLUMN", "DEFAULT_STRING_LIMIT", "DEFAULT_ARRAY_LIMIT", "FORMAT_READ_LIMIT", "_PrintfPack",
           "_scanf_types", "_Plan", "_Ctx"]
