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
