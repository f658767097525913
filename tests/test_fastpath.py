"""The compiled prototypes (emutrace.values, the library-call hot path) print exactly what the
generic formatter prints: every prototype of the built-in database and of test_values' test
configurations, over many argument values (small and large integers, NULL, strings short,
long, escaped and unterminated, unreadable and dereferenced pointers), string limits included."""
from __future__ import annotations

import random
import struct

import pytest

from emutrace.protos import load_prototypes, parse_conf
from emutrace.values import CallFormatter, FastCallState

from test_values import FakeMem, FakeRegs, MORE_CONF, TEST_CONF

WORDS = [0, 1, 2, 5, 10, 10000, 10001, 0x41, 0x7F, 0xFF, 0x100, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF,
         0x100000000, (1 << 63) - 1, 1 << 63, (1 << 64) - 1, (1 << 64) - 10000, (1 << 64) - 10001,
         0x555555554000, 0x7FFFFFFFE000]


def _memory():
    m = FakeMem()
    ptrs = [m.s(""), m.s("a"), m.s("hello, callloop"), m.s("x" * 31), m.s("y" * 32), m.s("z" * 33),
            m.s("w" * 200), m.s(b"tab\there\"q'\\\x1b\x7f\xff\xe9\n"),
            m.add(b"no terminator"),                                 # cstring() fails: shown in hex
            m.add(struct.pack("<8i", 1, -2, 3, 0, 5, 6, 7, 8)),
            m.add(struct.pack("<4Q", 0, 1, 0xFFFFFFFFFFFFFFFF, 0x10000))]
    sp = m.add(struct.pack("<Q", ptrs[2]))
    ptrs += [sp, m.add(struct.pack("<Q", sp)), 0xdead0000]              # last: unreadable
    return m, ptrs


def _dbs():
    return [("libc", load_prototypes()), ("test", parse_conf(TEST_CONF, "test.conf")),
            ("more", parse_conf(MORE_CONF, "more.conf"))]


def _line(fmt, name, proto, ints, ret, mem, stack=()):
    regs = FakeRegs(ints, [1.5, -2.25], ret, 0.5, stack)
    st = fmt.enter(name, proto, regs, mem)
    text, left = st.text, list(st.left_args)
    rest = fmt.exit(st, regs, mem)
    return (text, left, rest, st.right, list(st.args), st.ret, st.line(), st.unfinished_line(),
            st.resumed_line(), st.display_name, st.known)


@pytest.mark.parametrize("limit", [32, 5, 0, 1])
def test_compiled_matches_generic_everywhere(limit):
    rnd = random.Random(limit)
    mem, ptrs = _memory()
    values = WORDS + ptrs
    fast = CallFormatter(string_limit=limit, symbolize=lambda a: "fn" if a == ptrs[2] else None)
    slow = CallFormatter(string_limit=limit, symbolize=fast.symbolize, compiled=False)
    compiled = 0
    for dbname, db in _dbs():
        for name in (db.names() if hasattr(db, "names") else list(db)):
            proto = db.get(name)
            if fast.plan(proto) is not None:
                compiled += 1
            for _ in range(12):
                ints = [rnd.choice(values) for _ in range(6)]
                stack = [rnd.choice(values) for _ in range(4)]
                ret = rnd.choice(values)
                a = _line(fast, name, proto, ints, ret, mem, stack)
                b = _line(slow, name, proto, ints, ret, mem, stack)
                assert a == b, (dbname, name, proto, ints, ret)
    assert compiled > 300           # most of the database takes the fast path


def test_default_prototype_compiled():
    mem, ptrs = _memory()
    fast, slow = CallFormatter(), CallFormatter(compiled=False)
    assert fast.plan(None) is not None
    for w in WORDS:
        ints = [w, 3, (1 << 64) - 3, 0x10000]
        assert _line(fast, "mystery", None, ints, w, mem) == _line(slow, "mystery", None, ints, w, mem)


def test_hot_path_types():
    """What callloop calls (malloc, strcpy, strlen, free) is compiled; printf is not."""
    db = load_prototypes()
    f = CallFormatter()
    for name in ("malloc", "strcpy", "strlen", "free", "getenv", "puts", "strtol", "memset"):
        assert f.plan(db.get(name)) is not None, name
    assert f.plan(db.get("printf")) is None
    mem = FakeMem()
    p = mem.s("hello, callloop")
    st = f.enter("strcpy", db.get("strcpy"), FakeRegs([0x5555555592a0, p]), mem)
    assert type(st) is FastCallState and st.text == 'strcpy(0x5555555592a0, "hello, callloop"'
    f.exit(st, FakeRegs(ret=0x5555555592a0), mem)
    assert st.line() == 'strcpy(0x5555555592a0, "hello, callloop")        = 0x5555555592a0'


def test_fetch_failure_falls_back():
    """A register that cannot be read shows '?' as before (the generic path handles it)."""
    class Broken(FakeRegs):
        def int_arg(self, i):
            if i == 1:
                raise RuntimeError("gone")
            return super().int_arg(i)

        def ret_int(self):
            raise RuntimeError("gone")
    db = load_prototypes()
    mem = FakeMem()
    for compiled in (True, False):
        f = CallFormatter(compiled=compiled)
        regs = Broken([1, 2, 3])
        st = f.enter("memset", db.get("memset"), regs, mem)
        f.exit(st, regs, mem)
        assert st.line() == "memset(0x1, ?, 3)                                = ?"


def _events():
    from emutrace.events import Call, Exit, Return, Signal, Syscall
    c = lambda i, d, name, text, t: Call(i, 1, 1, t, d, name, "libc.so.6", "prog", 0x401000 + i, text, [])
    r = lambda i, d, name, right, ret, t, unwound=False: Return(i, 1, 1, t, d, name, right, [], ret, 7000,
                                                               unwound=unwound)
    long = "f(" + '"' + "x" * 60 + '"'
    return [
        c(1, 0, "malloc", "malloc(64", 10), r(1, 0, "malloc", "", "0x5555", 20),
        c(2, 0, "strlen", 'strlen("abc"', 30), r(2, 0, "strlen", "", "3", 40),
        c(3, 0, "read", "read(3", 50), r(3, 0, "read", ', "hi", 100', "2", 60),
        c(4, 0, "f", long, 70), r(4, 0, "f", "", "<void>", 80),
        c(5, 0, "qsort", "qsort(0x1, 4, 4, cmp", 90),
        c(6, 1, "cmp", "cmp(0x1, 0x2", 100), r(6, 1, "cmp", "", "-1", 110),
        r(5, 0, "qsort", "", "<void>", 120),
        c(7, 0, "puts", 'puts("x"', 130),
        Syscall(1, 1, 135, "write", 1, 'write(1, "x\\n", 2) = 2', [1, 0, 2], 2),
        r(7, 0, "puts", "", "2", 140),
        c(8, 0, "longjmp", "longjmp(0x7ff, 1", 150), r(8, 0, "longjmp", "", "", 160, unwound=True),
        c(9, 0, "exit", "exit(0", 170),
        c(10, 1, "free", "free(0x1", 175), r(10, 1, "free", "", "<void>", 176),
        Signal(1, 1, 180, 11, "SIGSEGV", "", {}),
        Exit(1, 1, 190, 0, 0),
    ]


@pytest.mark.parametrize("opts", [{}, {"show_time_spent": True}, {"indent": 2}, {"timestamps": 1},
                                  {"show_ip": True}, {"follow": True}, {"syscalls": True}])
def test_text_fast_path_matches(opts):
    """LtraceText's one-line fast path prints what its general code prints."""
    import io

    from emutrace.options import TraceConfig
    from emutrace.output import LtraceText, Writer

    class World:
        clock_start = 0

        def realtime_base_ns(self):
            return 0

    outs = []
    for plain in (True, False):
        buf = io.StringIO()
        sink = LtraceText(Writer(buf, own=False), World(), TraceConfig(**opts))
        sink.plain = sink.plain and plain
        for ev in _events():
            sink.event(ev)
        sink.close()
        outs.append(buf.getvalue())
    assert outs[0] == outs[1]
    if not opts or "syscalls" in opts:
        assert 'strlen("abc")                                    = 3\n' in outs[0]


# integer types with every lens whose word has an op kind of its own (emutrace.renderops), and
# some that are `typed` (the generic interpreter): each op renders as the generic interpreter
SCALARS = ["char", "short", "ushort", "int", "uint", "long", "ulong", "wchar", "hex(int)", "hex(ushort)",
           "hex(ulong)", "hex(char)", "oct(uint)", "bool(char)", "bool(short)", "bool(int)", "bool(ulong)",
           "bool(wchar)", "enum(A=1,B=-1,C=255)", "enum[char](A=1,B=-1,C=200)", "enum[short](X=-2,Y=65534)",
           "enum[ulong](Z=-1,W=3)", "enum[uint](A=1,B=1,C=2)", "enum[wchar](A=65)", "guess(long)", "guess(int)"]


@pytest.mark.parametrize("type_", SCALARS)
def test_word_ops_render_as_the_generic_interpreter(type_):
    db = parse_conf(f"{type_} f({type_}, {type_});", "t.conf")
    proto = db.get("f")
    fast, slow = CallFormatter(), CallFormatter(compiled=False)
    assert fast.plan(proto) is not None
    rnd = random.Random(type_)
    values = WORDS + [65, 200, 255, 256, 65534, 65535, 0xFFFFFFFE, (1 << 64) - 2, 0xE9, 0x263A, 0x1F600]
    for _ in range(300):
        ints = [rnd.choice(values) if rnd.random() < 0.7 else rnd.getrandbits(64) for _ in range(6)]
        ret = rnd.choice(values)
        assert _line(fast, "f", proto, ints, ret, FakeMem()) == _line(slow, "f", proto, ints, ret, FakeMem()), ints


# ltrace's `stringN` (strncpy's source, write's buffer): C strings bounded by a length argument,
# the op `strn`. Real guest memory (MemView's answers at page ends and unreadable pages), every
# prototype of the database that has one and lengths of other integer types.
STRN_CONF = """
int f4(string2, int);
int fu4(string2, uint);
int f2(string2, ushort);
long fl(long, string1);
"""
STRN_PROTOS = ["strncpy", "__strncpy_chk", "stpncpy", "__stpncpy_chk", "strncat", "__strncat_chk", "write",
               "pwrite", "pwrite64", "send", "sendto", "mq_send", "mq_timedsend", "gzwrite"]


def _strn_memory():
    """(memory view, pointers): strings within a page, unterminated ones of 0..40 bytes ending
    at a page before an unmapped one and before a mapped unreadable one, strings whose NUL is
    the last readable byte, NULL and an unmapped address."""
    from emutrace.machine.cpu import Machine
    from emutrace.machine.memory import AddressSpace
    from emutrace.traceview import _VIEW
    m = Machine()
    a = AddressSpace(m.uc, 1 << 30)
    a.use_machine(m)
    base = 0x7F0000000000
    a.map(base, 2 * 4096, 3, "p")                   # then nothing mapped
    a.map(base + 4 * 4096, 4096, 3, "q")
    a.map(base + 5 * 4096, 4096, 0, "none")         # mapped, unreadable
    ptrs = [0, base + 3 * 4096]
    at = base
    for s in (b"", b"a", b"hello, world", b"x" * 31, b"y" * 32, b"z" * 33, b"w" * 34, b"v" * 100,
              b"tab\there\"q'\\\x1b\x7f\xff\xe9\n"):
        a.write(at, s + b"\0")
        ptrs.append(at)
        at += len(s) + 1
    for end in (base + 2 * 4096, base + 5 * 4096):
        a.write(end - 64, bytes(range(0x41, 0x41 + 64)))
        ptrs += [end - k for k in range(0, 41)]
        ptrs += [end - k for k in (45, 64)]
    a.map(base + 7 * 4096, 4096, 3, "r")            # strings ending with the page, unmapped after
    a.write(base + 8 * 4096 - 40, b"q" * 38 + b"\0\0")
    ptrs += [base + 8 * 4096 - k for k in range(1, 41)]
    return _VIEW(a, m), ptrs


def _copied(mem, w, cap):
    """What the call trampoline copies for a CSTRN capture (guestlog's _copy of a C string):
    up to the NUL or cap bytes, fewer up to unreadable memory; bytes past the NUL copied along
    (the qword copy), which the renderer must ignore."""
    out = b""
    while len(out) < cap:
        b = mem.read(w + len(out), 1)
        if b is None:
            return out
        out += b
        if b == b"\0":
            return (out + (mem.read(w + len(out), 7) or b"\x07" * 7))[:cap]
    return out


@pytest.mark.parametrize("limit", [32, 5, 1, 0])
def test_strn_renders_as_the_generic_interpreter(limit):
    """Every stringN prototype is compiled (the op strn) and prints what the generic formatter
    prints for every pointer and length around the limit (lengths masked to their type); and
    the op's from_bytes, given what the guest log copies (a faulted copy: what was readable),
    renders as its word renderer reads live memory."""
    mem, ptrs = _strn_memory()
    db, more = load_prototypes(), parse_conf(STRN_CONF, "strn.conf")
    protos = [(name, db.get(name)) for name in STRN_PROTOS] + [(name, more[name]) for name in more]
    fast = CallFormatter(string_limit=limit)
    slow = CallFormatter(string_limit=limit, compiled=False)
    lengths = sorted({0, 1, 2, 3, 4, 5, 6, 7, 10, 12, 13, 31, 32, 33, 34, 35, 100, limit, limit + 1, limit + 2,
                      limit + 3, 0xFFFF, 0x10000, 0x10002, 0x7FFFFFFF, 0xFFFFFFFF, 1 << 32, (1 << 32) + 3,
                      (1 << 32) + limit, 1 << 63, (1 << 64) - 1})
    for name, proto in protos:
        plan = fast.plan(proto)
        assert plan is not None, name
        (si, op), = [(i, op) for i, op in plan.left_items if op.kind == "strn"]
        for w in ptrs:
            for n in lengths:
                ints = [3] * 6
                ints[si], ints[op.len_arg] = w, n
                a = _line(fast, name, proto, ints, 7, mem)
                b = _line(slow, name, proto, ints, 7, mem)
                assert a == b, (name, hex(w), n)
                assert op.from_bytes(w, _copied(mem, w, op.cap) or None, n) == op.word(w, mem, n), (name, hex(w), n)


def test_strn_edge_cases():
    """What the generic interpreter makes of a bounded string, spelled out: the NUL search reads
    one byte past the bound (unreadable there, the string is its pointer), a length of 0 shows
    "" whatever the pointer, a 4-byte length is the word's low half."""
    mem, ptrs = _strn_memory()
    op = CallFormatter(string_limit=5).plan(parse_conf(STRN_CONF, "s.conf").get("f4")).left_items[0][1]
    base = 0x7F0000000000
    end, qend = base + 2 * 4096, base + 8 * 4096
    word = op.word
    assert word(end - 3, mem, 2) == '"~\\177"'              # reads 3 bytes: all readable
    assert word(end - 3, mem, 3) == "0x%x" % (end - 3)     # reads 4: the 4th is unmapped
    assert word(end - 3, mem, 0) == '""'
    assert word(base + 3 * 4096, mem, 0) == '""'           # (unmapped, nothing to read)
    assert word(base + 3 * 4096, mem, 1) == "0x7f0000003000"
    assert word(0, mem, 3) == "nil"
    assert word(qend - 40, mem, 3 | 1 << 32) == '"qqq"'
    assert word(qend - 40, mem, 5) == '"qqqqq"...'          # limit characters: "..."
    assert word(qend - 40, mem, 100) == '"qqqqq"...'
    assert word(qend - 3, mem, 100) == '"q"'
    assert word(qend - 1, mem, 100) == '""'                 # its NUL is the page's last byte


@pytest.mark.parametrize("limit", [32, 5, 1, 0])
def test_cstr_copies_render_as_live_memory(limit):
    """A C string argument (the op cstr) from what the call trampoline copies (limit + 2 bytes;
    a faulted copy before a NUL: None, as guestlog's _left_after_fault has it) renders as its
    word renderer reads live memory: a string of limit + 1 characters before an unreadable
    page included (the NUL search reads the byte after them)."""
    mem, ptrs = _strn_memory()
    op = CallFormatter(string_limit=limit).plan(load_prototypes().get("strlen")).left_items[0][1]
    assert op.kind == "cstr" and op.cap == limit + 2
    for w in ptrs:
        c = _copied(mem, w, op.cap)
        area = c if b"\0" in c or len(c) == op.cap else None
        assert op.from_bytes(w, area) == op.word(w, mem), hex(w)
