"""What the compiled event path and Python agree on, written once: the guest log's record layout,
the render ops' numbers and the struct layouts' tokens, strace's column. C reads it as the header
_abi.h, generated from this file (`python -m emutrace.machine.abi` writes it; setup.py's build_ext
does at every build, and tests/test_abi.py fails when the committed header is not current).

This module imports nothing of emutrace (setup.py loads it by its path, before the package is
installed). The Python side takes its numbers from here: emutrace/guestlog/format.py (the record
layout), emutrace/renderops.py (the struct tokens), emutrace/nativelog.py (the op numbers),
emutrace/output.py and emutrace/systrace.py (strace's column).
"""
from __future__ import annotations

from pathlib import Path

# Bumped whenever the Python side's expectations of the compiled module change
# (emutrace/machine/native.py refuses a module built with another).
ABI_VERSION = 14

# -- the guest log's records (emutrace/guestlog/format.py has the rest of the format) --------
RET_TAG = (1 << 64) - 1     # a return record's first word (a call record's is its site's tag)
HEAD = 72                   # call record: tag, rdi..r9, slot, return address; then the copies at the call
REC_ARGS = 8                # ... its six argument words
REC_SLOT = 56               # ... its return slot (the stack address of the return address)
REC_RET = 64                # ... its return address
RET_SIZE = 48               # return record: RET_TAG, slot, return address, rax, captured, output bytes
RET_SLOT, RET_ADDR, RET_RAX, RET_CAPTURED, RET_OUTN = 8, 16, 24, 32, 40     # ... its words' offsets
RET_CSTR = 1                # a return record's "captured" word: a returned C string's copy follows
RET_WSTR = 2                # ... a returned wide string's copy follows
RET_OUTLEN = 4              # ... an output string as long as the returned value (flags OUTLEN_*)
OUTLEN_WIDE = 1             # (RET_OUTLEN's flag: characters of 4 bytes)
OUTLEN_32 = 2               # (RET_OUTLEN's flag: rax read as 32 bits)
RET_PAIR = 8                # ... a structure returned in rax and rdx: the output copy is rdx
IN_CSTR = 16                # flag: a C string shown at the return besides the output argument follows it
IN_WSTR = 32                # flag: ... a wide one
PRINTF_RECORD = HEAD + 8    # a printf-family call record: the head, then the sequence number of
                            # the texts the hooks rendered (emutrace/printflog.py)
RPTR = 0                    # the control page: the record being written
SHTOP = 16                  # ... the shadow stack's top
# what _abi.h defines of the above
RECORD = ("RET_TAG", "HEAD", "REC_ARGS", "REC_SLOT", "REC_RET", "RET_SIZE", "RET_SLOT", "RET_ADDR", "RET_RAX",
          "RET_CAPTURED", "RET_OUTN", "RET_CSTR", "RET_WSTR", "RET_OUTLEN",
          "OUTLEN_WIDE", "OUTLEN_32", "RET_PAIR", "IN_CSTR", "IN_WSTR", "PRINTF_RECORD", "RPTR", "SHTOP")

# -- the render ops the C renderer has (emutrace/renderops.py's KINDS whose `native` is true) --
# numbered from 1 in this order; emutrace.machine._native exports each as OP_<KIND>
OP_KINDS = (
    ("unsigned", "str(w & mask)"),
    ("signed", "the low `size` bytes as a signed integer"),
    ("hex", "\"0x%x\" % (w & mask), \"0\" for zero"),
    ("guess", "ltrace's guess for a 64-bit word: decimal near zero, else hex"),
    ("addr", "a pointer: \"0x%x\", \"0\" for NULL"),
    ("cstr", "a C string copied at the call (limit + 2 bytes, of which limit + 1 are read)"),
    ("buf", "a buffer whose length is another argument word"),
    ("wstr", "a wide string copied at the call (4 * (limit + 1) bytes)"),
    ("char", "a char: its escape between single quotes"),
    ("bool", "\"false\" when w & mask is 0, else \"true\""),
    ("enum", "the first name whose value & mask is w & mask, else `fallback`"),
    ("wchar", "a wchar_t: its escape between L' and '"),
    ("retstr", "an output C string of at most the returned value's characters"),
    ("retwstr", "... a wide one: both copied by the return (the \"output copy\")"),
    ("bitvec", "a pointer to a `size`-byte set of bits, copied at the call or (area 0) by the return"),
    ("intstruct", "a returned structure of integers in rax and rdx (the output copy holds rdx)"),
    ("strn", "a C string of at most the length word's characters (ltrace's stringN)"),
    ("flags", "the names of the flags set in w & mask, \"|\"-joined"),
    ("oct", "\"0%o\" % (w & mask)"),
    ("struct", "a pointer to a `size`-byte structure of integers: its fields by its layout's tokens"),
)
OP = {kind: i + 1 for i, (kind, _what) in enumerate(OP_KINDS)}

# -- a struct op's layout tokens: a brace, or an integer field shown as _fmt_integer shows it --
STRUCT_TOKENS = ("open", "close", "unsigned", "signed", "hex", "oct")
STRUCT_OPEN, STRUCT_CLOSE, STRUCT_UNSIGNED, STRUCT_SIGNED, STRUCT_HEX, STRUCT_OCT = range(len(STRUCT_TOKENS))

# -- bounds both renderers keep --------------------------------------------------------------
FORMAT_READ_LIMIT = 1 << 16     # bytes of a printf format read
STRUCT_TOKENS_MAX = 512         # tokens of a struct op's layout
STRUCT_DEPTH_MAX = 32           # structures nested in a struct op's layout (values/plan.py keeps
                                # deeper ones on the generic path; C's parse_struct refuses them)
PRINTF_CONVERSIONS_MAX = 4096   # conversions of one printf format fetched and shown

# -- strace's line: the head padded to this column, then " = " and the result (strace's own) --
STRACE_COLUMN = 39
RESULT_SEP = " = "


def result_at(head: str, result: str, column: int, start: int = 0) -> str:
    """The rule of every trace line with a result: `head` padded with spaces to `column`, then
    RESULT_SEP and the result (strace: column STRACE_COLUMN; ltrace: -a's align - 2,
    values.close_call). `start`: the columns already written before `head` on its line (a
    resumed call's). C has it as result_pad() in _abi.h, generated from here; the per-site Python
    code guestlog writes spells it with result_at_expr."""
    return head.ljust(column - start) + RESULT_SEP + result


def result_at_expr(head: str, result: str, column: int) -> str:
    """result_at as a Python expression over the expressions `head` and `result` (for code that
    is generated and compiled: guestlog's per-site line makers)."""
    return f"{head}.ljust({column}) + {RESULT_SEP!r} + {result}"


# -- the texts the value renderers write (ltrace's), each once: C has them as TXT_<NAME> ---------
TEXTS = {
    "NIL": "nil",               # a NULL string, buffer, structure or set pointer
    "TRUE": "true",             # a bool
    "FALSE": "false",
    "VOID": "<void>",           # a void function's return value
    "QUOTE": '"',               # around a string's characters
    "ELLIPSIS": "...",          # after a string cut at the string limit
    "WIDE_OPEN": 'L"',          # before a wide string's characters
    "CHAR_QUOTE": "'",          # around a char
    "WCHAR_OPEN": "L'",         # before a wchar_t
    "CALL_CLOSE": ")",          # after a call's arguments
    "SEP": ", ",                # between arguments, structure fields
    "STRUCT_OPEN": "{ ",        # around a structure's fields
    "STRUCT_CLOSE": " }",
    "FLAG_SEP": "|",            # between the names of a flags value
    "HEX": "0x",                # before a number in hex
    "OCT": "0",                 # before a number in octal
    "BITS_NOT": "~",            # a bit set shown by its clear bits
    "BITS_OPEN": "<",           # around a bit set's ranges
    "BITS_CLOSE": ">",
    "BITS_SEP": ",",            # between them
    "BITS_RANGE": "-",          # in one
}
# ltrace's guess for a word of unknown type: decimal within +-GUESS_DECIMAL_MAX, else hex
GUESS_DECIMAL_MAX = 10000
# ltrace's escapes of a string's bytes: the letter after the backslash (other unprintable bytes and
# the rest as \OOO; printable ASCII but the backslash as itself); wide characters past 255 as
# \u + WIDE_ESC_SHORT hex digits up to 0xFFFF, else \U + WIDE_ESC_LONG digits
LTRACE_ESCAPES = {0: "0", 7: "a", 8: "b", 9: "t", 10: "n", 11: "v", 12: "f", 13: "r", 92: "\\"}
WIDE_ESC_SHORT, WIDE_ESC_LONG = 4, 8
# the one printable byte with an escape (C tests 8 bytes at a time for it)
(LTRACE_ESC_PRINTABLE,) = (c for c in LTRACE_ESCAPES if 32 <= c < 127)
# strace's escapes (string_quote): the letter after the backslash; other unprintable bytes in octal
STRACE_ESCAPES = {34: '"', 92: "\\", 12: "f", 10: "n", 13: "r", 9: "t", 11: "v"}

# -- strace's small rules, each once: decode/strace/ (common.py, formatter.py's compiled rows) in
# Python, _strace.c's StraceRow in C (as STR_<NAME>, STRACE_*) --------------------------------
STRACE_TEXTS = {
    "NULL": "NULL",             # a null pointer
    "ELLIPSIS": "...",          # after a string cut at the string limit (-s) or not NUL-terminated
    "QUOTE": '"',               # around a string
    "SEP": ", ",                # between arguments
    "CALL_CLOSE": ")",          # after them
    "HEX": "0x",                # before a number in hex
    "ZERO": "0",                # zero, in hex as in decimal
    "MINUS": "-",               # before a negative number
    "ID_UNCHANGED": "-1",       # a uid or gid of all ones (chown's and setresuid's "leave it")
}
STRACE_ERRNO_MAX = 4095         # a result in [-STRACE_ERRNO_MAX, -1] is an error: -errno (is_error)
STRACE_PLAIN_MAX = 1 << 31      # a plain result in [0, STRACE_PLAIN_MAX) is printed as a number
# (the argument kinds StraceRow renders in C, numbered from 0 in this order as SK_<KIND>; the
# compiled rows of decode/strace/formatter.py hand them over by these numbers)
STRACE_ROW_KINDS = ("int", "uint", "long", "ulong", "hex", "hex32", "ptr", "uid", "fd", "buf_in", "buf_out")
STRACE_ROW_KIND = {kind: i for i, kind in enumerate(STRACE_ROW_KINDS)}
# strace's octal escape of a byte: as few digits as it needs, STRACE_OCTAL_LONG when an octal
# digit ('0'..'7') follows it (then "\1" + "2" would read as "\12")
STRACE_OCTAL_LONG = 3


def strace_octal(c: int, digit_next: bool = False) -> str:
    """A byte in strace's octal escape: \\0, \\33, \\177; \\000 before an octal digit."""
    return "\\" + format(c, "0%do" % STRACE_OCTAL_LONG if digit_next else "o")


def strace_byte_texts() -> list:
    """Each byte's text inside strace's quotes (string_quote): its escape letter after a backslash
    (STRACE_ESCAPES), printable ASCII as itself, any other byte in octal (strace_octal)."""
    return [("\\" + STRACE_ESCAPES[c]) if c in STRACE_ESCAPES else chr(c) if 0x20 <= c < 0x7f else strace_octal(c)
            for c in range(256)]


HEADER = Path(__file__).with_name("_abi.h")


def _c_value(v: int) -> str:
    return f"UINT64_C({v:#X})".replace("0X", "0x") if v >= 1 << 63 else str(v)


def _c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _c_char(c: str) -> str:
    return "'" + ("\\" + c if c in "\\'" else c) + "'"


def _letters(name: str, table: dict, what: str) -> list:
    """A static const char[256]'s initializer: each escaped byte's letter, 0 for the others."""
    items = ", ".join(f"[{byte}] = {_c_char(letter)}" for byte, letter in sorted(table.items()))
    return [f"/* {what} */", f"#define {name} {{ {items} }}"]


def _render_texts() -> list:
    """The renderers' texts and escape tables, the rule of the result's column."""
    out = ["/* the texts the value renderers write (abi.TEXTS; TXT_<NAME>_LEN: its length) */"]
    for name, text in TEXTS.items():
        out.append(f"#define TXT_{name} {_c_string(text)}")
        out.append(f"#define TXT_{name}_LEN {len(text)}")
    out += ["", f"#define GUESS_DECIMAL_MAX {GUESS_DECIMAL_MAX}",
            f"#define WIDE_ESC_SHORT {WIDE_ESC_SHORT}", f"#define WIDE_ESC_LONG {WIDE_ESC_LONG}",
            f"#define LTRACE_ESC_PRINTABLE {LTRACE_ESC_PRINTABLE}"]
    out += _letters("LTRACE_ESC_LETTERS", LTRACE_ESCAPES, "ltrace's escape letter of each byte (abi.LTRACE_ESCAPES)")
    out += _letters("STRACE_ESC_LETTERS", STRACE_ESCAPES, "strace's escape letter of each byte (abi.STRACE_ESCAPES)")
    out += _strace_rules()
    out += ["", "/* result_at (abi.py): a head padded with spaces to a column, then RESULT_SEP and the result */",
            f"#define RESULT_SEP {_c_string(RESULT_SEP)}", f"#define RESULT_SEP_LEN {len(RESULT_SEP)}",
            "/* the spaces after a head of `len` columns */",
            "static inline ptrdiff_t result_pad(ptrdiff_t len, ptrdiff_t column) "
            "{ return len < column ? column - len : 0; }"]
    return out


def _c_strings(name: str, texts: list, what: str) -> list:
    """A static const char *const[256]'s initializer: the texts, NULL for None."""
    items = [_c_string(t) if t is not None else "NULL" for t in texts]
    rows = [", ".join(items[i:i + 16]) for i in range(0, len(items), 16)]
    return [f"/* {what} */", f"#define {name} {{ \\"] + [f"    {r}, \\" for r in rows] + ["}"]


def _strace_rules() -> list:
    """strace's small rules (STRACE_TEXTS, its error range, its octal escapes, StraceRow's kinds)."""
    out = ["", "/* strace's texts (abi.STRACE_TEXTS; STR_<NAME>_LEN: its length) */"]
    for name, text in STRACE_TEXTS.items():
        out.append(f"#define STR_{name} {_c_string(text)}")
        out.append(f"#define STR_{name}_LEN {len(text)}")
    out += [f"#define STRACE_ERRNO_MAX {STRACE_ERRNO_MAX}", f"#define STRACE_PLAIN_MAX {STRACE_PLAIN_MAX}LL",
            f"#define STRACE_OCTAL_LONG {STRACE_OCTAL_LONG}", "",
            "/* the argument kinds StraceRow renders (abi.STRACE_ROW_KINDS) */",
            "enum strace_row_kind { " + ", ".join(f"SK_{k.upper()}" for k in STRACE_ROW_KINDS) + ", SK_COUNT };", ""]
    texts = strace_byte_texts()
    out += _c_strings("STRACE_BYTE_TEXTS", texts, "each byte's text in strace's quotes (abi.strace_byte_texts)")
    long = [strace_octal(c, True) if t == strace_octal(c) != strace_octal(c, True) else None for c, t in enumerate(texts)]
    out += _c_strings("STRACE_BYTE_TEXTS_BEFORE_DIGIT", long,
                      "... when an octal digit follows it (abi.strace_octal; NULL: the same text)")
    return out


def c_header() -> str:
    """The text of _abi.h."""
    out = ["/* Generated from emutrace/machine/abi.py (python -m emutrace.machine.abi; setup.py's",
           " * build_ext writes it at every build). Do not edit: edit abi.py. */",
           "#ifndef EMUTRACE_ABI_H", "#define EMUTRACE_ABI_H", "", "#include <stddef.h>", "#include <stdint.h>", "",
           f"#define ABI_VERSION {ABI_VERSION}", ""]
    out += [f"#define {name} {_c_value(globals()[name])}" for name in RECORD]
    out += ["", f"#define FORMAT_READ_LIMIT {FORMAT_READ_LIMIT}", f"#define STRUCT_TOKENS_MAX {STRUCT_TOKENS_MAX}",
            f"#define STRUCT_DEPTH_MAX {STRUCT_DEPTH_MAX}", f"#define PRINTF_CONVERSIONS_MAX {PRINTF_CONVERSIONS_MAX}",
            f"#define STRACE_COLUMN {STRACE_COLUMN}", "", "enum op_kind {"]
    for kind, what in OP_KINDS:
        out.append(f"    OP_{kind.upper()} = {OP[kind]},".ljust(28) + f"/* {what} */")
    out += [f"    OP_MAX = {len(OP_KINDS)}", "};", "",
            "/* a struct op's layout tokens (renderops.STRUCT_*) */",
            "enum { " + ", ".join(f"TOK_{t.upper()}" for t in STRUCT_TOKENS) + " };", "",
            "/* the constants the module exports (PyModule_AddIntConstant) */",
            "#define ABI_CONSTS \\",
            "    {\"ABI_VERSION\", ABI_VERSION}, \\"]
    out += [f"    {{\"OP_{kind.upper()}\", OP_{kind.upper()}}}, \\" for kind, _ in OP_KINDS]
    out += [""] + _render_texts()
    out += ["", "#endif", ""]
    return "\n".join(out)


def write_header(path: Path = HEADER) -> bool:
    """Write _abi.h when its text changed; returns whether it did."""
    text = c_header()
    if path.exists() and path.read_text() == text:
        return False
    path.write_text(text)
    return True


if __name__ == "__main__":
    print(f"{HEADER}: {'written' if write_header() else 'current'}")
