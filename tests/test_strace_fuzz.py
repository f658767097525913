"""The strace formatter never raises, whatever the guest's memory, paths and strings hold (issue 39:
`-y` on a path that is not UTF-8 ended in a UnicodeEncodeError traceback, fsync-y of strace's own
suite). Every row of the one syscall table is decoded over random memory, with random fd paths
(bytes that are not UTF-8 arrive as surrogates, as the VFS keeps them), and the line must be
ASCII text (strace escapes every other byte)."""
import os

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st     # noqa: E402

from emutrace.decode.strace import SyscallFormatter     # noqa: E402
from emutrace.kernel import table     # noqa: E402

ROWS = sorted(table.BY_NAME.values(), key=lambda r: r.nr)
BASE = 0x10000


class BlobMem:
    """One readable blob at BASE; everything else unmapped."""

    def __init__(self, blob: bytes):
        self.blob = blob

    def read(self, addr, size):
        if BASE <= addr and addr + size <= BASE + len(self.blob) and size >= 0:
            return self.blob[addr - BASE:addr - BASE + size]
        return None

    def cstring(self, addr, limit):
        if not BASE <= addr < BASE + len(self.blob):
            return None
        chunk = self.blob[addr - BASE:addr - BASE + limit]
        nul = chunk.find(b"\0")
        return (chunk, False) if nul < 0 else (chunk[:nul], True)


arg = st.one_of(st.sampled_from([0, BASE, BASE + 8, BASE + 100, 1, 3, -1 & (2**64 - 1), -100 & (2**64 - 1)]),
                st.integers(0, 2**64 - 1))
path = st.binary(min_size=1, max_size=40).map(lambda b: os.fsdecode(b"/" + b.replace(b"\0", b"")))


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(row=st.sampled_from(ROWS), args=st.lists(arg, min_size=6, max_size=6),
       blob=st.binary(min_size=0, max_size=512), fdpath=path,
       ret=st.one_of(st.integers(-4095, 4096), st.integers(-2**63, 2**63 - 1)),
       limit=st.integers(0, 64), yflag=st.booleans())
def test_any_row_any_memory_never_raises(row, args, blob, fdpath, ret, limit, yflag):
    fmt = SyscallFormatter(string_limit=limit, fd_paths=yflag, fd_path=lambda fd: fdpath)
    mem = BlobMem(blob)
    line = fmt.format(row, args, ret, mem)
    assert isinstance(line, str) and line.isascii(), line


@settings(max_examples=200, deadline=None)
@given(raw=st.binary(min_size=1, max_size=60))
def test_non_utf8_fd_paths_are_escaped(raw):
    """fsync-y: the path beside a descriptor is the guest's bytes, octal-escaped, never an error."""
    p = os.fsdecode(b"/" + raw.replace(b"\0", b""))
    fmt = SyscallFormatter(fd_paths=True, fd_path=lambda fd: p)
    line = fmt.format(table.BY_NAME["fsync"], [3, 0, 0, 0, 0, 0], 0, BlobMem(b""))
    assert line.startswith("fsync(3</") and line.endswith(">) = 0") and line.isascii()
