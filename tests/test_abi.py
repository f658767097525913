"""One definition of what C and Python share (emutrace/machine/abi.py): the committed header is
the one abi.py makes, and no C source writes one of its numbers again by hand."""
import re
from pathlib import Path

from emutrace.machine import abi
from emutrace.machine.native import native

MACHINE = Path(abi.__file__).parent
C_SOURCES = sorted(p for p in MACHINE.glob("*.[ch]") if p.name != abi.HEADER.name)


def test_the_committed_header_is_what_abi_py_makes():
    assert abi.HEADER.read_text() == abi.c_header(), \
        "emutrace/machine/_abi.h is stale: run `python -m emutrace.machine.abi` (setup.py's build_ext does)"


def _defined_names() -> list:
    return list(abi.RECORD) + ["ABI_VERSION", "FORMAT_READ_LIMIT", "STRUCT_TOKENS_MAX",
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
    for pat, what in patterns:
        for m in re.finditer(pat, code):
            out.append(f"{filename}:{code.count(chr(10), 0, m.start()) + 1}: {what}: {m.group(0)}")
    return out


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
