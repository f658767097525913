"""The compiled renderer of the guest call log (emutrace.machine._native) against the Python one, which
is the reference: the same line for every record of every site it accepts, random prototypes
and random records (hypothesis), and a run over random bytes that never reads past the buffer
and stops where the Python path would take over."""
from __future__ import annotations

import struct
from types import SimpleNamespace

import pytest

from emutrace.machine.native import native

pytestmark = pytest.mark.skipif(native is None, reason="the compiled event path is not built")

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from emutrace.guestlog import (FIXED, HEAD, IN_CSTR, IN_WSTR, RET_OUTLEN, RET_PAIR, RET_SIZE, RET_TAG,  # noqa: E402
                               _Captured, GuestLog, _leaf_renderer, _left_renderer, _outlen_kind,
                               area_size, capture_plan, output_of, string_at_return)
from emutrace.nativelog import native_site  # noqa: E402
from emutrace.protos import parse_conf  # noqa: E402
from emutrace.renderops import KINDS, WORD  # noqa: E402
from emutrace.machine.abi import result_at  # noqa: E402
from emutrace.values import LEAF_COLUMN, CallFormatter, escape_bytes  # noqa: E402

WORD_TYPES = ["int", "uint", "long", "ulong", "hex(uint)", "hex(ulong)", "addr", "short", "ushort",
              "char", "bool", "hex(int)", "oct(uint)", "enum(A=1,B=2,C=-1)", "wchar", "bool(int)", "enum(X=0,Y=300)",
              "oct(ushort)", "oct(long)",
              # fields (NAME=VAL:MASK) and single flags, as open's and mmap's; a zero name (PROT_NONE)
              "flags(RD=0:3,WR=1:3,RW=2:3,CREAT=0100,EXCL=0200,TRUNC=01000,CLOEXEC=02000000)",
              "flags(NONE=0,READ=1,WRITE=2,EXEC=4,DOWN=0x01000000)",
              "flags[ushort](A=1,B=2,AB=3,HI=0x10000)", "flags[long](X=0x8000000000000000,Y=1:0xf,Z=2:0xf)"]
STRING_TYPES = ["string", "wstring", "bitvec(ulong)*", "bitvec(uint)*", "bitvec(char)*",
                # pointers to structures of integers (timespec's, stat's shape), read at the call
                "struct(long, long)*", "struct(ushort, oct(uint), hex(ulong), struct(int, short), uint)*",
                "struct(char, int)*"]
# an argument after the split the return copies: strings as long as the returned value says
# (read's, mbstowcs's) and sets of bits (sigprocmask's)
OUT_TYPES = ["+string[retval]", "+wstring[retval]", "+bitvec(ulong)*", "+bitvec(ushort)*",
             # ... and structures (stat's: nested timespecs, an octal mode; an empty one)
             "+struct(ulong, oct(uint), struct(long, long), hex(short), int)*", "+struct(struct(), uint)*"]
LENGTH_RET_TYPES = ["long", "int", "ulong", "uint"]
# the length of a string bounded by another argument (ltrace's stringN: strncpy's, write's, gzwrite's)
STRN_LENGTH_TYPES = ["ulong", "long", "uint", "int", "ushort"]
RET_TYPES = ["void", "int", "uint", "long", "ulong", "addr", "hex(uint)", "short", "char", "bool", "wchar",
             "enum(A=0,B=1)", "string", "oct(int)", "flags(A=1,B=2,C=4)",
             # structures of integers returned in rax and rdx
             "struct(int, ulong)", "struct(long, long)", "struct(int, int)", "struct(short, uint, long)",
             "struct(ushort, short, int, ulong)"]


@st.composite
def prototypes(draw):
    """A prototype line for `f`: word and string arguments, and buffers bounded by a ulong or
    C strings bounded by an integer (stringN)."""
    n = draw(st.integers(0, 6))
    params = [draw(st.sampled_from(WORD_TYPES + STRING_TYPES)) for _ in range(n)]
    if n >= 2 and draw(st.booleans()):
        b, ln = draw(st.permutations(range(n)))[:2]
        if draw(st.booleans()):
            params[ln] = "ulong"
            params[b] = f"string(array(char, arg{ln + 1})*)"
        else:
            params[ln] = draw(st.sampled_from(STRN_LENGTH_TYPES))
            params[b] = f"string{ln + 1}"
    ret = draw(st.sampled_from(RET_TYPES))
    if n < 6 and draw(st.booleans()):
        params.append(draw(st.sampled_from(OUT_TYPES)))
        params += [draw(st.sampled_from(WORD_TYPES)) for _ in range(draw(st.integers(0, 5 - n)))]
        if "retval" in params[n]:
            ret = draw(st.sampled_from(LENGTH_RET_TYPES))
    return f"{ret} f({', '.join(params)});"


def site_of(line: str, limit: int, name: str = "f"):
    fmt = CallFormatter(string_limit=limit)
    plan = fmt.plan(parse_conf(line, "t.conf").get(name)) if line else fmt.plan(None)
    caps = capture_plan(plan)
    if caps is None or (plan.right is not None and plan.ret is not None and plan.ret.capture != WORD):
        return None
    off, strings = HEAD, []
    for i, cap, j in caps:
        strings.append((i, off, cap, j))
        off += area_size(cap)
    return plan, tuple(strings), off


WORDS = st.one_of(st.sampled_from([0, 1, 2, 7, 8, 9, 31, 32, 33, 10000, 10001, (1 << 64) - 1,
                                   (1 << 64) - 10000, (1 << 64) - 10001, 1 << 63, 0x7FFFFFFF, 0x80000000,
                                   0xFFFF, 0x8000, 0xFF, 0x80]),
                  st.integers(0, (1 << 64) - 1))
# text: mostly printable bytes, so that runs of 8 plain bytes (which the C escaper copies whole)
# meet the bytes it escapes at every place in a word
TEXT_BYTES = st.lists(st.one_of(st.integers(32, 126), st.integers(32, 126), st.integers(32, 126),
                                st.sampled_from([0, 9, 31, 92, 127, 128, 255])), max_size=80).map(bytes)
AREA_BYTES = st.one_of(st.binary(max_size=80),
                       st.lists(st.sampled_from([0, 9, 10, 34, 92, 65, 127, 128, 255, 1]), max_size=40).map(bytes),
                       TEXT_BYTES)


def wide(draw):
    chars = draw(st.lists(st.one_of(st.integers(0, 300), st.sampled_from([0xFFFF, 0x10000, 0x10FFFF, 0xFFFFFFFF])),
                          max_size=20))
    return b"".join(struct.pack("<I", c) for c in chars)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_native_line_is_the_python_line(data):
    limit = data.draw(st.sampled_from([1, 2, 3, 8, 32]))
    proto = data.draw(st.one_of(prototypes(), st.just("")))       # "": ltrace's default prototype
    got = site_of(proto, limit)
    if got is None:
        return
    plan, strings, size = got
    ret_cap = data.draw(st.sampled_from([limit + 2, limit + 2, limit + 1, 1, limit + 8]))
    pair = plan.ret is not None and plan.ret.kind == "intstruct"
    site = native_site("f", plan, strings, size, LEAF_COLUMN, ret_cap, RET_PAIR if pair else _outlen_kind(plan))
    if site is None:            # a renderer the C path does not have: Python serves the site
        return
    leaf, quick = _leaf_renderer("f", plan, strings, size)
    ret_string = plan.ret is not None and plan.ret.capture != WORD
    slot, ret = 0x7ffd0000, 0x401234
    w = [data.draw(WORDS) for _ in range(6)]
    rec = bytearray(struct.pack("<9Q", 5, *w, slot, ret)) + bytes(size - HEAD)
    ops = dict(plan.left_items)
    for i, a_off, cap, j in strings:
        raw = wide(data.draw) if j == FIXED else data.draw(AREA_BYTES)
        # a buffer's length word, or a bounded C string's (stringN: copied as a C string, its
        # length word the op's): around the limit, and words whose high bits the mask drops
        lw = ops[i].len_arg if ops[i].kind == "strn" else j if j is not None and j != FIXED else None
        if lw is not None:
            w[lw] = data.draw(st.one_of(st.integers(0, cap + 2), WORDS,
                                        st.integers(0, cap + 2).map(lambda v: v | 1 << 32 | 1 << 16)))
            struct.pack_into("<Q", rec, 8 + 8 * lw, w[lw])
        rec[a_off:a_off + min(len(raw), cap)] = raw[:cap]
    rax = data.draw(WORDS)
    words = (5, *w, slot, ret)
    out = output_of(plan) if plan.right is not None else None
    if out is not None:
        # guestlog.decode's general path: the output argument from the bytes the return copied
        # (as many as its copy makes: a set whole; a string's min(rax, limit + 1) characters,
        # and for a C string the byte after them)
        rax = data.draw(st.one_of(WORDS, st.integers(0, limit + 3)))
        op = dict(plan.right_items)[out[0]]
        k = min(rax & op.mask, limit + 1) if op.kind not in ("bitvec", "struct") else 0
        outn = op.size if op.kind in ("bitvec", "struct") else 4 * k if op.kind == "retwstr" else k + 1
        area = (wide(data.draw) if op.kind == "retwstr" else data.draw(AREA_BYTES)).ljust(outn, b"\x07")[:outn]
        mem = _Captured()
        mem.block = (w[out[0]], outn, area)
        left = _left_renderer(plan, strings)(words, bytes(rec), 0)
        right = plan.right(w, mem, rax)
        text = "f(" + ", ".join(left) + (", " if left else "") + ", ".join(right)
        rtext = "<void>" if plan.ret is None else plan.ret.word(rax, None)
        want = result_at(text + ")", ("<void>" if rtext is None else rtext), LEAF_COLUMN) + "\n"
        padded = area.ljust((outn + 7) & ~7, b"\0")
        assert site.line(bytes(rec), 0, rax, "\n", padded) == want
        captured = _outlen_kind(plan)
        pair = bytes(rec) + struct.pack("<6Q", RET_TAG, slot, ret, rax, captured, outn) + padded + struct.pack("<Q", 9)
        lines = []
        assert native.leaf_run(pair, 0, None, [None] * 5 + [site], "\n", lines) == (len(pair) - 8, 1)
        assert native.leaf_run(pair[:-8], 0, None, [None] * 5 + [site], "\n", lines) == (len(pair) - 8, 1)
        assert lines == [want, want]            # (the last pair of what a flush read renders too)
        # a copy of another length, or without the site's "captured" word: left to Python
        for flags in ((captured, outn + 1), (captured ^ RET_OUTLEN if captured else 1, outn)):
            other = bytes(rec) + struct.pack("<6Q", RET_TAG, slot, ret, rax, *flags) + padded + bytes(16)
            assert native.leaf_run(other, 0, None, [None] * 5 + [site], "\n", lines) == (0, 0)
        return
    if pair:
        # guestlog.decode's general path: the structure from rax and the rdx the return copied
        rdx = data.draw(WORDS)
        text = "f(" + ", ".join(_left_renderer(plan, strings)(words, bytes(rec), 0))
        want = result_at(text + ")", plan.ret.word(rax | rdx << 64, None), LEAF_COLUMN) + "\n"
        area = struct.pack("<Q", rdx)
        assert site.line(bytes(rec), 0, rax, "\n", area) == want
        lines = []
        run = bytes(rec) + struct.pack("<6Q", RET_TAG, slot, ret, rax, RET_PAIR, 8) + area + struct.pack("<Q", 9)
        assert native.leaf_run(run, 0, None, [None] * 5 + [site], "\n", lines) == (len(run) - 8, 1)
        assert native.leaf_run(run[:-8], 0, None, [None] * 5 + [site], "\n", lines) == (len(run) - 8, 1)
        assert lines == [want, want]
        for flags in ((0, 0), (RET_PAIR, 0), (0, 8)):          # not what the site's return copies
            other = bytes(rec) + struct.pack("<6Q", RET_TAG, slot, ret, rax, *flags) + area + bytes(16)
            assert native.leaf_run(other, 0, None, [None] * 5 + [site], "\n", lines) == (0, 0)
        return
    if ret_string:
        # guestlog.decode's general path: the returned string from the bytes the return copied
        area = data.draw(AREA_BYTES).ljust(area_size(ret_cap), b"\x07")[:area_size(ret_cap)]
        mem = _Captured()
        mem.items = [(rax, area[:ret_cap])]
        text = "f(" + ", ".join(_left_renderer(plan, strings)(words, bytes(rec), 0))
        want = result_at(text + ")", plan.ret.word(rax, mem), LEAF_COLUMN) + "\n"
        assert site.line(bytes(rec), 0, rax, "\n", area) == want
        tail = struct.pack("<6Q", RET_TAG, slot, ret, rax, 1, 0) + area
    else:
        want = leaf(words, bytes(rec), 0, rax, "\n")
        assert site.line(bytes(rec), 0, rax, "\n") == want
        tail = struct.pack("<6Q", RET_TAG, slot, ret, rax, 0, 0)
    # the same line from a run: a pair, then a record the run leaves to Python; and a pair that
    # ends what a flush read (nothing after it)
    pair = bytes(rec) + tail + struct.pack("<Q", 9)
    lines = []
    assert native.leaf_run(pair, 0, None, [None] * 5 + [site], "\n", lines) == (len(pair) - 8, 1)
    assert native.leaf_run(pair[:-8], 0, None, [None] * 5 + [site], "\n", lines) == (len(pair) - 8, 1)
    assert lines == [want, want]
    # a run of two pairs: one str holding both lines, and their count
    run2 = bytes(rec) + tail + pair
    two = []
    assert native.leaf_run(run2, 0, None, [None] * 5 + [site], "\n", two) == (len(run2) - 8, 2)
    assert two == [want + want]
    # a pair whose return copied what the site does not (or not what it does) is left to Python
    flags = (0, 0) if ret_string else (1, 0)
    other = bytes(rec) + struct.pack("<6Q", RET_TAG, slot, ret, rax, *flags) + bytes(area_size(ret_cap) + 8)
    assert native.leaf_run(other, 0, None, [None] * 5 + [site], "\n", lines) == (0, 0)
    assert native.leaf_run(pair, 0, slot, [None] * 5 + [site], "\n", lines) == (0, 0)     # a frame open there


class _Unreadable:
    """Live memory where nothing is readable: what a renderer reading past the copies gets."""

    def read(self, addr, size):
        return None

    def cstring(self, addr, limit):
        return None


@st.composite
def in_string_prototypes(draw):
    """A prototype showing, after the split, an output argument the return copies and a string
    it copies besides it (mbstowcs's source), among word arguments."""
    words = [draw(st.sampled_from(WORD_TYPES)) for _ in range(draw(st.integers(0, 2)))]
    out = draw(st.sampled_from(OUT_TYPES))
    shown = draw(st.sampled_from(["string", "string", "wstring"]))
    after = [draw(st.sampled_from(WORD_TYPES)) for _ in range(draw(st.integers(0, 2)))]
    tail = [out, shown]
    if draw(st.booleans()):
        tail.reverse()
    ret = draw(st.sampled_from(LENGTH_RET_TYPES if "retval" in out else ["int", "void", "long"]))
    return f"{ret} f({', '.join(words + tail + after)});"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_string_copied_at_the_return_renders_as_in_python(data):
    """A site showing a string the return copies after the output copy (mbstowcs's source): C's
    line is decode's general path's, which reads both copies through GuestLog._ret_memory; sites
    whose Python reading C does not mirror (a wide source, a C-string output) are refused."""
    limit = data.draw(st.sampled_from([1, 2, 3, 8, 32]))
    got = site_of(data.draw(in_string_prototypes()), limit)
    if got is None:
        return
    plan, strings, size = got
    out = output_of(plan)
    in_word, flag = string_at_return(plan)
    if out is None or in_word is None:
        return
    ret_cap = data.draw(st.sampled_from([limit + 2, limit + 1, 1, limit + 8, 64]))
    gl = GuestLog.__new__(GuestLog)
    gl.ret_cap, gl.faulted = ret_cap, {}
    cap = gl.ret_cap if flag == IN_CSTR else gl.wret_cap
    captured = _outlen_kind(plan) | flag
    site = native_site("f", plan, strings, size, LEAF_COLUMN, cap, captured)
    out_op = dict(plan.right_items)[out[0]]
    if flag != IN_CSTR or out_op.kind == "retstr":
        assert site is None                 # Python serves such sites
        return
    if site is None:                        # another renderer the C path does not have
        return
    slot, ret = 0x7ffd0000, 0x401234
    w = [data.draw(WORDS) for _ in range(6)]
    rec = bytearray(struct.pack("<9Q", 5, *w, slot, ret)) + bytes(size - HEAD)
    for i, a_off, c, j in strings:
        raw = wide(data.draw) if j == FIXED else data.draw(AREA_BYTES)
        rec[a_off:a_off + min(len(raw), c)] = raw[:c]
    rax = data.draw(st.one_of(WORDS, st.integers(0, limit + 3)))
    k = min(rax & out_op.mask, limit + 1) if out_op.kind not in ("bitvec", "struct") else 0
    outn = out_op.size if out_op.kind in ("bitvec", "struct") else 4 * k
    out_area = (wide(data.draw) if out_op.kind == "retwstr" else data.draw(AREA_BYTES)).ljust(outn, b"\x07")[:outn]
    in_area = data.draw(AREA_BYTES).ljust(cap, b"\x07")[:cap]
    if data.draw(st.booleans()):
        w[in_word] = w[out[0]]              # the source at the output's address
    struct.pack_into("<6Q", rec, 8, *w)
    copies = out_area.ljust((outn + 7) & ~7, b"\0") + in_area.ljust(area_size(cap), b"\0")
    run = bytes(rec) + struct.pack("<6Q", RET_TAG, slot, ret, rax, captured, outn) + copies + struct.pack("<Q", 9)
    # guestlog.decode's general path for this leaf call
    words = (5, *w, slot, ret)
    mem = gl._ret_memory(run, len(rec), 0, rax, captured, outn, None, w, _Unreadable(),
                         SimpleNamespace(out=out, in_string=in_word))
    left = _left_renderer(plan, strings)(words, bytes(rec), 0)
    right = plan.right(w, mem, rax)
    text = "f(" + ", ".join(left) + (", " if left else "") + ", ".join(right)
    r = plan.ret.word(rax, mem) if plan.ret is not None else None
    want = result_at(text + ")", ("<void>" if r is None else r), LEAF_COLUMN) + "\n"
    assert site.line(bytes(rec), 0, rax, "\n", copies) == want
    lines = []
    assert native.leaf_run(run, 0, None, [None] * 5 + [site], "\n", lines) == (len(run) - 8, 1)
    assert lines == [want]
    # without the source's copy (another "captured" word), or cut short: left to Python
    other = bytes(rec) + struct.pack("<6Q", RET_TAG, slot, ret, rax, captured & ~IN_CSTR, outn) + copies + bytes(8)
    assert native.leaf_run(other, 0, None, [None] * 5 + [site], "\n", lines) == (0, 0)
    assert native.leaf_run(run[:len(run) - 16], 0, None, [None] * 5 + [site], "\n", lines) == (0, 0)
    with pytest.raises(IndexError):         # (Site.line: the source's copy cut short)
        site.line(bytes(rec), 0, rax, "\n", copies[:((outn + 7) & ~7) + cap - 1])


def test_mbstowcs_renders_in_c():
    """mbstowcs's prototype, as freshcalls calls it, has a compiled Site (it used to drop every
    run of leaf calls back to Python)."""
    plan, strings, size = site_of("ulong mbstowcs(+wstring[retval], string, ulong);", 32, "mbstowcs")
    assert native_site("mbstowcs", plan, strings, size, LEAF_COLUMN, 33, _outlen_kind(plan) | IN_CSTR) is not None
    # its source's copy is what the site needs: without the flag, or with a wide one, refused
    assert native_site("mbstowcs", plan, strings, size, LEAF_COLUMN, 33, _outlen_kind(plan)) is None
    assert native_site("mbstowcs", plan, strings, size, LEAF_COLUMN, 33, _outlen_kind(plan) | IN_WSTR) is None
    assert native_site("mbstowcs", plan, strings, size, LEAF_COLUMN, 0, _outlen_kind(plan) | IN_CSTR) is None


def test_the_op_kinds_are_the_c_renderers():
    """One description language, two implementations: the kinds emutrace.renderops marks
    `native` are exactly the operations the C renderer has (OP_<KIND>), each a distinct code it
    accepts in a Site; the others (the generic interpreter's `typed`, `hide`) it does not have."""
    python = {kind for kind, spec in KINDS.items() if spec.native}
    c = {name[3:].lower() for name in dir(native) if name.startswith("OP_")}
    assert python == c
    assert len({getattr(native, "OP_" + kind.upper()) for kind in c}) == len(c)
    assert {kind for kind, spec in KINDS.items() if not spec.native} == {"typed", "hide"}
    for kind in python:
        # (the strings bounded by the returned value read the return's output copy: area 0)
        op = (getattr(native, "OP_" + kind.upper()), 1, 2, (1 << 64) - 1, 8, 0 if "ret" in kind else HEAD, 8)
        if kind == "enum":
            op += (((1, "ONE"),), native.OP_SIGNED)
        if kind == "flags":
            op += (((1, 1, "ONE"), (0, 6, "FIELD")), 0)
        if kind == "struct":
            op += (((0, 0, 0), (2, 0, 4), (3, 4, 4), (1, 0, 0)), 0)
        if kind == "intstruct":             # (a return value only)
            native.Site("f(", [], (op[0], 0, 0, 0, 0, 0, 0, ((0, 4, True), (8, 8, False))), HEAD, LEAF_COLUMN,
                        0, RET_PAIR)
            continue
        native.Site("f(", [op], None, HEAD + area_size(4 * 9), LEAF_COLUMN)


def test_the_fuzz_reaches_every_native_kind():
    """The prototypes the fuzz above draws from compile to every kind the C renderer has (so it
    compares each of them with its Python renderers)."""
    fmt = CallFormatter(string_limit=8)
    lines = [f"{ret} f({arg});" for ret in RET_TYPES for arg in WORD_TYPES + STRING_TYPES]
    lines.append("int f(string(array(char, arg2)*), ulong);")
    lines.append("int f(string2, uint);")
    lines += [f"{ret} f(int, {arg});" for ret in LENGTH_RET_TYPES for arg in OUT_TYPES]
    seen = {op.kind for _, op in fmt.plan(None).left_items}          # ltrace's default prototype
    for line in lines:
        plan = fmt.plan(parse_conf(line, "t.conf").get("f"))
        seen |= {op.kind for _, op in plan.left_items + plan.right_items}
        if plan.ret is not None:
            seen.add(plan.ret.kind)
    assert seen >= {kind for kind, spec in KINDS.items() if spec.native}


def test_escape_is_escape_bytes():
    every = bytes(range(256))
    assert native.escape(every) == escape_bytes(every)
    assert native.escape(b"") == ""


def test_every_byte_at_every_place_of_a_word_escapes_as_in_python():
    """The C escaper tests 8 bytes at a time whether all are shown as themselves: each byte
    value, alone among plain ones at each of the 16 places of two words (and in a tail), is
    escaped as escape_bytes escapes it."""
    from emutrace.escapes import esc_char
    for c in range(256):
        for k in range(19):
            raw = bytearray(b"abcdefghijklmnopqrs")
            raw[k] = c
            assert native.escape(bytes(raw)) == "".join(esc_char(b) for b in raw), (c, k)


def _digit_count_edges():
    """Each count of decimal and hex digits' first and last values, and their negatives."""
    ends = {0, (1 << 63) - 1}
    for k in range(20):
        ends |= {10 ** k, 10 ** k - 1}
    for k in range(16):
        ends |= {1 << (4 * k), (1 << (4 * k)) - 1}
    mask = (1 << 64) - 1
    return sorted({v & mask for v in ends} | {-v & mask for v in ends})


def test_numbers_at_every_digit_count_render_as_in_python():
    """The C digits (decimal two at a time, hex a byte at a time after counting them): every
    count of digits, its first and last values and their negatives, as argument and as
    returned value of each integer type, as the Python renderer writes them."""
    for ty in ("ulong", "long", "hex(ulong)", "addr", "int", "short", "uint", "hex(uint)", "char", "bool"):
        plan, strings, size = site_of(f"{ty} f({ty}, {ty});", 32)
        site = native_site("f", plan, strings, size, LEAF_COLUMN, 34, 0)
        leaf, _ = _leaf_renderer("f", plan, strings, size)
        edges = _digit_count_edges()
        for value, other in zip(edges, edges[::-1]):
            words = (5, value, other, 0, 0, 0, 0, 0x7ffd0000, 0x401234)
            rec = struct.pack("<9Q", *words) + bytes(size - HEAD)
            assert site.line(rec, 0, value, "\n") == leaf(words, rec, 0, value, "\n"), (ty, value)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=600), st.integers(-8, 700))
def test_a_run_over_random_bytes_stays_in_the_buffer(blob, off):
    """Random bytes as a ring: the run renders only well-formed leaf pairs of known sites, never
    reads past the buffer and returns an offset inside it (or where it started)."""
    plan, strings, size = site_of("int f(string, string(array(char, arg3)*), ulong);", 8)
    site = native_site("f", plan, strings, size, LEAF_COLUMN, 9)
    rplan, rstrings, rsize = site_of("string f(string);", 8)
    sites = [None, site, site, native_site("f", rplan, rstrings, rsize, LEAF_COLUMN, 9)]
    # sites whose returns copy an output argument: a string as long as rax says, a set of bits
    for line in ("long f(int, +string[retval], ulong);", "ulong f(+wstring[retval]);", "int f(+bitvec(ulong)*);"):
        oplan, ostrings, osize = site_of(line, 8)
        sites.append(native_site("f", oplan, ostrings, osize, LEAF_COLUMN, 9, _outlen_kind(oplan)))
    pplan, pstrings, psize = site_of("struct(int, ulong) f(int);", 8)          # a structure in rax:rdx
    sites.append(native_site("f", pplan, pstrings, psize, LEAF_COLUMN, 9, RET_PAIR))
    nplan, nstrings, nsize = site_of("long f(int, string3, ulong);", 8)        # a bounded C string
    sites.append(native_site("f", nplan, nstrings, nsize, LEAF_COLUMN, 9))
    assert None not in sites[1:]
    lines = []
    got, count = native.leaf_run(blob, off, None, sites, "\n", lines)
    assert got == (off if off >= 0 else len(blob)) or 0 <= got <= len(blob)
    assert sum(text.count("\n") for text in lines) == count
    # a tag from the bytes picks a site: force one and the run must still stay inside
    for tag in (1, 3, 4, 5, 6, 7, 8):
        forced = struct.pack("<Q", tag) + blob
        assert 0 <= native.leaf_run(forced, 0, None, sites, "\n", lines)[0] <= len(forced)


def test_bad_site_layouts_are_refused():
    """A capture outside its record is refused when the Site is made: the renderer never reads
    outside the record it is given."""
    with pytest.raises(ValueError):
        native.Site("f(", [(native.OP_CSTR, 1, 0, 0, 0, HEAD, 64)], None, HEAD + 8, LEAF_COLUMN)
    with pytest.raises(ValueError):
        native.Site("f(", [(native.OP_UNSIGNED, 7, 0, 0, 0, 0, 0)], None, HEAD, LEAF_COLUMN)
    with pytest.raises(ValueError):
        native.Site("f(", [], None, HEAD + 3, LEAF_COLUMN)
    s = native.Site("f(", [(native.OP_CSTR, 1, 0, 0, 0, HEAD, 7)], None, HEAD + 8, LEAF_COLUMN)
    with pytest.raises(IndexError):
        s.line(b"\0" * (HEAD + 7), 0, 0, "\n")
    # a bounded C string (stringN) reads limit + 2 bytes of its copy and a length word; it is
    # never a returned value nor a copy made at the return (area 0)
    m = (1 << 64) - 1
    native.Site("f(", [(native.OP_STRN, 1, 2, m, 8, HEAD, 6)], None, HEAD + 8, LEAF_COLUMN)
    for bad in ([(native.OP_STRN, 1, 2, m, 8, HEAD, 7)], [(native.OP_STRN, 1, 0, m, 8, HEAD, 6)],
                [(native.OP_STRN, 1, 7, m, 8, HEAD, 6)], [(native.OP_STRN, 1, 2, m, 8, 0, 6)]):
        with pytest.raises(ValueError):
            native.Site("f(", bad, None, HEAD + 8, LEAF_COLUMN)
    with pytest.raises(ValueError):
        native.Site("f(", [], (native.OP_STRN, 0, 2, m, 8, 0, 6), HEAD + 8, LEAF_COLUMN)


def test_non_ascii_display_names_pad_by_characters():
    plan, strings, size = site_of("int f(int);", 8)
    leaf, _ = _leaf_renderer("é∂", plan, strings, size)
    site = native_site("é∂", plan, strings, size, LEAF_COLUMN, 9)
    rec = struct.pack("<9Q", 1, 5, 0, 0, 0, 0, 0, 0, 0)
    assert site.line(rec, 0, 3, "\n") == leaf((1, 5, 0, 0, 0, 0, 0, 0, 0), rec, 0, 3, "\n")


@pytest.mark.parametrize("compiled", [True, False])
def test_syscall_hook_reads_the_registers_once(compiled, monkeypatch):
    """The `syscall` hook, a C function registered with uc_hook_add (or, pure, a ctypes callback):
    fn gets (rax, rdi, rsi, rdx, r10, r8, r9) at each syscall, and an exception in fn stops
    emulation and is raised by emu_start, in both paths."""
    import emutrace.machine.cpu as machine
    if not compiled:
        monkeypatch.setattr(machine, "native", None)
    m = machine.Machine()
    from emutrace.machine.cpu import SYSCALL_ARGS
    code = b"".join(bytes([0x48, 0xC7, 0xC0 + r]) + struct.pack("<i", v)        # mov r64, imm32
                    for r, v in ((0, 39), (7, 1), (6, 2), (2, 3))) + \
        bytes([0x49, 0xC7, 0xC2]) + struct.pack("<i", -4) + \
        bytes([0x49, 0xC7, 0xC0]) + struct.pack("<i", 5) + bytes([0x49, 0xC7, 0xC1]) + struct.pack("<i", 6) + \
        b"\x0f\x05" + b"\x48\xff\xc0" + b"\x0f\x05"                            # syscall; inc rax; syscall
    m.uc.mem_map(0x10000, 0x1000)
    m.uc.mem_write(0x10000, code)
    seen = []
    m.hook_syscall(lambda *regs: seen.append(regs))
    m.uc.emu_start(0x10000, 0x10000 + len(code))
    assert seen == [(39, 1, 2, 3, (1 << 64) - 4, 5, 6), (40, 1, 2, 3, (1 << 64) - 4, 5, 6)]
    assert len(SYSCALL_ARGS) == 7

    def boom(*regs):
        raise ValueError("from the handler")
    m2 = machine.Machine()
    m2.uc.mem_map(0x10000, 0x1000)
    m2.uc.mem_write(0x10000, code)
    m2.hook_syscall(boom)
    with pytest.raises(ValueError, match="from the handler"):
        m2.uc.emu_start(0x10000, 0x10000 + len(code))


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.binary(max_size=200), TEXT_BYTES))
def test_compiled_escapes_are_the_python_ones(raw):
    from emutrace.escapes import esc_char, esc_wchar
    assert native.escape(raw) == "".join(esc_char(c) for c in raw)
    assert native.escape_wide(raw) == "".join(esc_wchar(int.from_bytes(raw[k:k + 4], "little"))
                                              for k in range(0, len(raw) - 3, 4))


def test_struct_ops_nest_no_deeper_than_c_takes():
    """A structure nested deeper than abi.STRUCT_DEPTH_MAX stays on the generic path (C's
    parse_struct refuses it); one as deep is a struct op the compiled Site takes. 60 levels:
    laying a nested structure out is linear in its depth (it was 2**depth)."""
    from emutrace.machine.abi import STRUCT_DEPTH_MAX

    def first_op(depth):
        t = "int"
        for _ in range(depth):
            t = "struct(" + t + ")"
        plan = CallFormatter(array_limit=100).plan(parse_conf("void f(" + t + "*);\n").get("f"))
        return plan, plan.left_items[0][1]

    plan, op = first_op(STRUCT_DEPTH_MAX)
    assert op.kind == "struct"
    if native is not None:                  # (copied at the return: no string in the record)
        assert native_site("f", plan, [], HEAD, LEAF_COLUMN, 0, _outlen_kind(plan)) is not None
    assert first_op(STRUCT_DEPTH_MAX + 1)[1].kind == "typed"
    assert first_op(60)[1].kind == "typed"
