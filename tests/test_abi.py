"""One definition of what C and Python share (emutrace/machine/abi.py): the committed header is
the one abi.py makes, and no C source writes one of its numbers again by hand."""
import re
from pathlib import Path

from emutrace.machine import abi
from emutrace.machine.native import native

MACHINE = Path(abi.__file__).parent
C_SOURCES = sorted(p for p in MACHINE.glob("*.[ch]") if p.name != abi.HEADER.name)
LTRACE_FREE = ("_strace.c",)       # C that writes no ltrace text


def test_the_committed_header_is_what_abi_py_makes():
    assert abi.HEADER.read_text() == abi.c_header(), \
        "emutrace/machine/_abi.h is stale: run `python -m emutrace.machine.abi` (setup.py's build_ext does)"


def _defined_names() -> list:
    return list(abi.RECORD) + ["ABI_VERSION", "FORMAT_READ_LIMIT", "STRUCT_TOKENS_MAX", "STRUCT_DEPTH_MAX",
                                                   "PRINTF_CONVERSIONS_MAX", "MAX_CONVERSIONS",
                                                   "STRACE_COLUMN"]


def hand_copies(text: str, filename: str) -> list:
    """Each place in C text that writes one of abi.py's definitions again: a #define of its name,
    an enumerator OP_<KIND> or TOK_<TOKEN> given a number, the op kinds' enum itself, or a record
    word read at a literal offset (rec + 56)."""
    out = []
    code = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)  # (not comments)
    for name in _defined_names():
        for m in re.finditer(rf"^\s*#\s*define\s+{name}\b", code, re.M):
            out.append(f"{filename}:{code.count(chr(10), 0, m.start()) + 1}: #define {name}")
    patterns = [(r"\bOP_[A-Z]+\s*=\s*\d+", "an op kind's number"), (r"\benum\s+op_kind\b", "the op kinds' enum"),
                (r"\bTOK_OPEN\s*[,=]", "the struct tokens' enum"),
                (r"\brec\s*\+\s*(56|64|8)\b", "a call record's offset written as a literal"),
                (r"\brd64\(r\s*\+\s*(8|16|24|32|40)\)", "a return record's offset written as a literal"),
                (r"\b(39|40)\s*-\s*t\.len\b", "strace's column written as a literal")]
    # the renderers' texts and escape tables (abi.TEXTS, LTRACE_ESCAPES, STRACE_ESCAPES): a string
    # literal that is one of the texts (those of two characters or more: a one-character literal
    # is as often a digit or a quote of C's own), an escape letters' table or switch, the guess's
    # bound
    # (_strace.c writes strace's texts, not ltrace's: decode/strace's rules, not abi.TEXTS)
    texts = {_c_literal(t) for t in abi.TEXTS.values() if len(t) > 1} | {_c_literal('"...'), _c_literal('"')}
    if filename not in LTRACE_FREE:
        for m in re.finditer(r'"((?:[^"\\\n]|\\.)*)"', code):
            if m.group(1) in texts:
                out.append(f"{filename}:{code.count(chr(10), 0, m.start()) + 1}: a text of abi.TEXTS written as a "
                           f"literal: {m.group(0)}")
    patterns += [(r"'a',\s*'b',\s*'t',\s*'n'", "ltrace's escape letters written as a table"),
                 (r"case\s*'\\[fnrtv]'\s*:", "an escape letter written as a case"),
                 (r"\b10000\b", "the guess's bound written as a literal"),
                 (r"\bc\s*[!=]=\s*92\b", "the escaped printable byte written as a literal"),
                 (r'"(?:\) )?= "', "the result's separator written as a literal")]
    if filename in LTRACE_FREE:
        out += _strace_copies(code, filename)
    for pat, what in patterns:
        for m in re.finditer(pat, code):
            out.append(f"{filename}:{code.count(chr(10), 0, m.start()) + 1}: {what}: {m.group(0)}")
    return out


def _strace_copies(code: str, filename: str) -> list:
    """strace's small rules written again in C (abi.STRACE_TEXTS and the rest of strace's block):
    a string literal that is one of its texts, the error range's or plain result's bound, the
    octal escape's digits worked out by hand, the row kinds' enum."""
    out = []
    texts = {_c_literal(t) for t in abi.STRACE_TEXTS.values()} | {_c_literal('""'), _c_literal('""...')}
    for m in re.finditer(r'"((?:[^"\\\n]|\\.)*)"', code):
        if m.group(1) in texts:
            out.append(f"{filename}:{code.count(chr(10), 0, m.start()) + 1}: a text of abi.STRACE_TEXTS written as a "
                       f"literal: {m.group(0)}")
    patterns = [(rf"\b{abi.STRACE_ERRNO_MAX}\b", "strace's error range written as a literal"),
                (r"\b0x80000000(LL)?\b|\b2147483648\b", "the plain result's bound written as a literal"),
                (r"'0'\s*\+\s*\(?\s*\(?c\s*>>", "an octal escape's digits worked out by hand"),
                (r"\bK_INT\s*,\s*K_UINT\b", "the row kinds' enum written by hand"),
                (r"'\\\\'", "a backslash escape written by hand")]
    for pat, what in patterns:
        for m in re.finditer(pat, code):
            out.append(f"{filename}:{code.count(chr(10), 0, m.start()) + 1}: {what}: {m.group(0)}")
    return out


def _c_literal(text: str) -> str:
    """text as it stands between the double quotes of a C string literal."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def test_no_c_source_copies_a_python_table_by_hand():
    bad = []
    for path in C_SOURCES:
        bad += hand_copies(path.read_text(), path.name)
    assert not bad, "\n".join(bad)


def test_the_check_finds_hand_copies():
    planted = ("#define HEAD 72\n"
               "/* #define RET_SIZE 48 (a comment: fine) */\n"
               "enum op_kind { OP_UNSIGNED = 1 };\n"
               "uint64_t slot = rd64(rec + 56);\n")
    found = hand_copies(planted, "planted.c")
    assert [f.split(":")[1] for f in found] == ["1", "3", "3", "4"]


def test_the_check_finds_hand_copied_texts_and_escapes():
    planted = ('if (!v) return buf_put(b, "nil", 3);\n'
               'memcpy(o, "\\"...", 4);\n'
               "static const char named[14] = {'0', 0, 0, 0, 0, 0, 0, 'a', 'b', 't', 'n', 'v', 'f', 'r'};\n"
               "switch (c) { case '\\n': esc = x; }\n"
               "return i < -10000 ? a : b;\n"
               "if (c == 92) x();\n"
               'memcpy(o + 2 + pad, "= ", 2);\n'
               "buf_txt(b, NIL); /* \"nil\" in a comment: fine */\n")
    found = hand_copies(planted, "planted.c")
    assert [f.split(":")[1] for f in found] == ["1", "2", "3", "4", "5", "6", "7"], found


def test_the_check_finds_strace_rules_written_by_hand():
    planted = ('if (addr == 0) return text_str(t, "NULL");\n'
               'if (ret >= -4095 && ret < 0) x();\n'
               "if (digit_next || c >= 0100) *o++ = (char)('0' + (c >> 6));\n"
               "enum { K_INT, K_UINT, K_LONG };\n"
               'if (ret < 0x80000000LL) y();\n'
               "*o++ = '\\\\';\n"
               'text_add(t, ", ", 2);\n'
               'text_add(t, STR_NULL, STR_NULL_LEN); /* "NULL" in a comment: fine */\n')
    found = hand_copies(planted, "_strace.c")
    assert sorted(int(f.split(":")[1]) for f in found) == [1, 2, 3, 4, 5, 6, 7], found


def test_the_strace_rules_are_the_python_renderers():
    """decode/strace/ renders with the rules abi.py writes (and C's header is made from)."""
    from emutrace.decode.strace import common, formatter
    data = bytes(range(256)) + b"\x01" + b"7" + b"\x08" + b"9"
    expected = '"' + "".join(abi.strace_byte_texts()) + abi.strace_octal(1, True) + "7" + abi.strace_octal(8) + '9"'
    assert common.quote_string(data) == expected
    assert common.pointer(0) == abi.STRACE_TEXTS["NULL"] and common.id_text(-1) == abi.STRACE_TEXTS["ID_UNCHANGED"]
    assert common.is_error(-abi.STRACE_ERRNO_MAX) and not common.is_error(-abi.STRACE_ERRNO_MAX - 1)
    assert {k: formatter._C_KINDS[k] for k in abi.STRACE_ROW_KINDS} == abi.STRACE_ROW_KIND


def test_python_takes_the_texts_and_escapes_from_abi_py():
    """The Python renderers read the same tables the header is made from."""
    from emutrace import escapes
    from emutrace.decode.strace import common
    assert [escapes.esc_char(c) for c in abi.LTRACE_ESCAPES] == ["\\" + l for l in abi.LTRACE_ESCAPES.values()]
    assert common.quote_string(bytes(abi.STRACE_ESCAPES)) == \
        '"' + "".join("\\" + l for l in abi.STRACE_ESCAPES.values()) + '"'
    assert escapes.esc_wchar(0x1234) == "\\u" + "1234".zfill(abi.WIDE_ESC_SHORT)


def test_the_compiled_module_exports_abi_py_numbers():
    if native is None:
        return                          # (the pure path: nothing compiled to compare)
    assert native.ABI_VERSION == abi.ABI_VERSION
    for kind, code in abi.OP.items():
        assert getattr(native, "OP_" + kind.upper()) == code


def test_renderops_native_kinds_are_abi_py_op_kinds():
    """The render ops the C renderer executes are the ones abi.py numbers, no more, no fewer."""
    from emutrace.renderops import KINDS
    assert {k for k, spec in KINDS.items() if spec.native} == set(abi.OP)
