"""The compiled rows of the strace formatter print what the generic decoding prints: every row of
the syscall table, random guest memory, random argument words and results, several settings."""
import random

import pytest

from emutrace.decode.strace import SyscallFormatter
from emutrace.kernel.table import BY_NAME, Syscall as Row

BASE = 0x10000


class Mem:
    def __init__(self, data):
        self.data = data

    def read(self, addr, size):
        o = addr - BASE
        if o < 0 or o + size > len(self.data):
            return None
        return self.data[o:o + size]

    def cstring(self, addr, limit):
        o = addr - BASE
        if o < 0 or o >= len(self.data):
            return None
        chunk = self.data[o:o + limit]
        i = chunk.find(b"\0")
        return (chunk, False) if i < 0 else (chunk[:i], True)


def _word(rng):
    c = rng.random()
    if c < .15:
        return 0
    if c < .35:
        return rng.randrange(0, 40)
    if c < .6:
        return BASE + rng.randrange(0, 4096)
    if c < .7:
        return (-rng.randrange(1, 200)) & (2**64 - 1)
    if c < .8:
        return rng.randrange(0, 2**32)
    return rng.randrange(0, 2**64)


def _ret(rng):
    c = rng.random()
    if c < .3:
        return rng.randrange(0, 64)
    if c < .5:
        return -rng.randrange(1, 140)
    if c < .55:
        return -rng.choice([512, 513, 514, 516, 4095, 4096, 5000])
    if c < .7:
        return BASE + rng.randrange(0, 4096)
    return rng.randrange(-2**63, 2**63)


def _settings():
    return [dict(), dict(string_limit=5), dict(align=40),
            dict(fd_paths=True, fd_path=lambda fd: None if fd % 3 == 0 else f"/p<{fd}>")]


class _Generic(SyscallFormatter):
    """The formatter with every row decoded by _generic (nothing compiled)."""

    def enter(self, sc, *a, **kw):
        self.compiled_rows[id(sc)] = (sc, None)
        return super().enter(sc, *a, **kw)


def _lines(f, row, args, ret, mem, mem2, col):
    try:
        st = f.enter(row, args, mem, tid=1)
        return [st.a.entry, f.unfinished(st), f.exit(st, ret, mem2, col=col), f.resumed(st, ret, mem2),
                f.no_return(st)]
    except Exception as e:              # (the same exception from both)
        return ["raised", type(e).__name__, str(e)]


@pytest.mark.parametrize("seed", range(3))
def test_compiled_rows_print_as_the_generic_decoding(seed):
    rng = random.Random(seed)
    rows = sorted(BY_NAME.values(), key=lambda r: r.nr) + [Row(999, "syscall_0x3e7", ("hex",) * 6)]
    compiled = [SyscallFormatter(**kw) for kw in _settings()]
    generic = [_Generic(**kw) for kw in _settings()]
    for _ in range(4):
        for row in rows:
            if row.name == "rt_sigreturn":
                continue
            data = bytes(rng.choice([rng.randrange(256), 0, 0x41, 10, 0x30]) for _ in range(4096))
            mem = Mem(data)
            mem2 = Mem(bytes(rng.randrange(256) for _ in range(4096))) if rng.random() < .5 else mem
            k = rng.randrange(len(compiled))
            args = [_word(rng) for _ in range(6)]
            ret, col = _ret(rng), rng.randrange(30)
            want = _lines(generic[k], row, args, ret, mem, mem2, col)
            assert _lines(compiled[k], row, args, ret, mem, mem2, col) == want, (row.name, args, ret)


def test_a_setting_changed_recompiles():
    f = SyscallFormatter()
    read = BY_NAME["read"]
    mem = Mem(b"abcdefgh" * 8)
    assert f.format(read, [3, BASE, 20, 0, 0, 0], 20, mem) == 'read(3, "abcdefghabcdefghabcd", 20) = 20'
    f.string_limit = 4
    assert f.format(read, [3, BASE, 20, 0, 0, 0], 20, mem) == 'read(3, "abcd"..., 20) = 20'
    f.fd_paths, f.fd_path = True, lambda fd: "/x"
    assert f.format(read, [3, BASE, 20, 0, 0, 0], 3, mem) == 'read(3</x>, "abc", 20) = 3'
