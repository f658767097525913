"""The TLB fill's compiled hook (emutrace/machine/_tlbfill.c) against the Python fill (tlb.py).

The C hook answers a miss from its page cache and asks the Python fill for everything else, so
the two must agree: the cache behaves as the dict the pure path uses (random operations,
hypothesis), the hook answers what the cache holds and nothing it does not (a page whose
permissions changed, emutrace's own lookups, a refused access), and programs that fault, flip
W^X and mprotect in loops print the same bytes on both paths."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from conftest import built
from emutrace.machine import tlb
from emutrace.machine.native import native
from test_native_paths import assert_same

TlbFill = getattr(native, "TlbFill", None)
pytestmark = pytest.mark.skipif(TlbFill is None, reason="the compiled event path is not built")

PAGE = 0x1000


# pages that collide in a small table and pages far apart; values are UC_PROT_* bits
pages = st.one_of(st.integers(0, 4096).map(lambda n: n * PAGE),
                  st.integers(0, (1 << 52) - 1).map(lambda n: n * PAGE))
ops = st.lists(st.one_of(
    st.tuples(st.just("set"), pages, st.integers(0, 7)),
    st.tuples(st.just("pop"), pages, st.none()),
    st.tuples(st.just("get"), pages, st.none()),
    st.tuples(st.just("clear"), st.none(), st.none()),
    st.tuples(st.just("forget"), pages, st.integers(0, 5000)),   # (a range: page by page, or a pass)
), max_size=400)


def _registered():
    """A TlbFill attached to a fresh engine's address space (the compiled path's page cache)."""
    from emutrace.machine.cpu import Machine
    from emutrace.machine.memory import AddressSpace
    m = Machine()
    a = AddressSpace(m.uc, 1 << 30)
    assert isinstance(a.page_perms, TlbFill)
    return m, a


_ENGINE = []


@settings(max_examples=150, deadline=None)
@given(ops)
def test_the_cache_is_a_dict(seq):
    """Whatever the sequence of stores, deletions (linear probing's backward shift), growth and
    clears, the C cache holds exactly what a dict would."""
    if not _ENGINE:
        _ENGINE.append(_registered())
    c, d = _ENGINE[0][1].page_perms, {}
    c.clear()
    for op, page, v in seq:
        if op == "set":
            c[page] = v
            d[page] = v
        elif op == "pop":
            assert c.pop(page, None) == d.pop(page, None)
        elif op == "get":
            assert c.get(page) == d.get(page)
        elif op == "forget":
            c.forget(page, page + v * PAGE)
            tlb.forget(d, page, page + v * PAGE)
        else:
            c.clear()
            d.clear()
        assert len(c) == len(d)
    for page, v in d.items():
        assert c[page] == v and page in c
    for page in range(0, 64 * PAGE, PAGE):
        assert (page in c) == (page in d)


@pytest.mark.parametrize("compiled", [True, False])
def test_a_large_change_forgets_only_its_own_pages(compiled):
    """munmap or mmap of a large range forgets the cached permissions of its pages and keeps the
    others' (it emptied the whole cache: each page touched afterwards asked Python again)."""
    from emutrace.linux.mman import PROT_READ, PROT_WRITE
    m, a = _registered()
    if not compiled:
        a.page_perms = {}                   # (the pure path's cache: a dict)
    base = 0x7F0000000000
    a.map(base, 512 * PAGE, PROT_READ | PROT_WRITE)
    a.map(base + (1 << 30), 8 * PAGE, PROT_READ)
    cache = a.page_perms
    for page in range(base, base + 512 * PAGE, PAGE):
        cache[page] = 3
    cache[base + (1 << 30)] = 1
    a.unmap(base + 100 * PAGE, 300 * PAGE)                 # (more than 64 pages)
    assert len(cache) == 212 + 1 and cache.get(base + (1 << 30)) == 1
    assert base + 99 * PAGE in cache and base + 100 * PAGE not in cache
    assert base + 399 * PAGE not in cache and base + 400 * PAGE in cache


def test_bad_keys_and_values_are_errors():
    m, a = _registered()
    c = a.page_perms
    with pytest.raises(ValueError):
        c[PAGE] = 8
    with pytest.raises(KeyError):
        c.pop(PAGE)
    with pytest.raises(KeyError):
        del c[PAGE]
    with pytest.raises(OverflowError):
        c.get(-1)
    with pytest.raises(TypeError):
        c.get()


def _run(m, code: bytes, at: int = 0x1000):
    m.write(at, code + b"\xf4")                    # ... hlt
    m.uc.emu_start(at, at + len(code))


def test_hits_are_answered_in_c_and_changes_go_to_python():
    """A page seen once is answered by the C hook afterwards; an mprotect that takes a
    permission away drops the page from the cache, so the next access asks Python, which refuses
    it as the pure path does."""
    from unicorn import UcError, unicorn_const as UCC
    m, a = _registered()
    c = a.page_perms
    a.map(0x1000, 0x1000, 5)
    a.map(0x200000, 0x1000, 3)
    m.set_reg("rbx", 0x200000)
    store = b"\x48\x89\x03"                         # mov [rbx], rax
    _run(m, store)
    assert 0x200000 in c and c[0x200000] == UCC.UC_PROT_READ | UCC.UC_PROT_WRITE
    hits0, misses0 = c.counts
    from emutrace.machine import tlb
    for _ in range(3):
        tlb.flush(m.uc)                             # Unicorn forgets; the C cache answers
        _run(m, store)
    hits, misses = c.counts
    assert hits > hits0 and misses == misses0
    assert a.protect(0x200000, 0x1000, 1)           # read-only now
    assert 0x200000 not in c
    with pytest.raises(UcError):
        _run(m, store)
    assert a.denied == (UCC.UC_ERR_WRITE_PROT, 0x200000)


def test_host_lookups_bypass_the_cache():
    """Inside tlb.host_lookups every fill is Python's (it grants exec for emutrace's own lookups)."""
    from emutrace.machine import tlb
    m, a = _registered()
    a.map(0x1000, 0x1000, 5)
    _run(m, b"\x90")
    with tlb.host_lookups(a):
        assert a.page_perms.bypass
    assert not a.page_perms.bypass


@pytest.mark.parametrize("prog,args", [
    ("pages", []),                  # faults at exact addresses, W^X flips, JIT rounds
    ("mprot", ["3000", "64"]),      # mprotect back and forth, the page written in between
    ("jit", []),                    # code written, made executable, rewritten; dual-mapped memfd
    ("mmlimits", []),               # huge reservations, max_map_count
    ("mmchurn", ["20"]),            # mmap/mprotect/munmap churn
])
def test_programs_print_the_same_with_either_fill(prog, args, tmp_path):
    assert_same(["--no-trace", built(prog), *args])
    assert_same(["--strace", built(prog), *args], trace_dir=str(tmp_path))


def test_a_tlb_that_keeps_missing_is_flushed_so_that_it_grows():
    """QEMU resizes its TLB only at a flush: the fill flushes after every tlb.GROW_FILLS fills.
    A loop writing then reading back one word on each of 3 x GROW_FILLS pages makes the flushes,
    and the values read back are the ones written (a flush inside a fill loses nothing)."""
    m, a = _registered()
    c = a.page_perms
    pages = 3 * tlb.GROW_FILLS
    base = 0x10000000
    a.map(0x1000, 0x1000, 5)
    a.map(base, pages * PAGE, 3)
    m.set_reg("rbx", base)
    m.set_reg("rcx", pages)
    m.set_reg("rdx", 0)
    code = bytes.fromhex(
        "4889d8"            # mov rax, rbx
        "4889ce"            # mov rsi, rcx
        "488930"            # w: mov [rax], rsi
        "480500100000"      # add rax, 0x1000
        "48ffce"            # dec rsi
        "75f2"              # jnz w
        "4889d8"            # mov rax, rbx
        "4889ce"            # mov rsi, rcx
        "480310"            # r: add rdx, [rax]
        "480500100000"      # add rax, 0x1000
        "48ffce"            # dec rsi
        "75f2")             # jnz r
    before = c.grown
    _run(m, code)
    assert m.reg("rdx") == pages * (pages + 1) // 2         # sum of pages..1, each read back
    assert c.grown - before >= 2


def test_the_tlb_growth_can_be_turned_off_and_refuses_a_null_uc_ctl():
    m, a = _registered()
    with pytest.raises(ValueError):
        a.page_perms.grow_tlb(0, 0, 5)
    a.page_perms.grow_tlb(0, 0, 0)                  # never: no uc_ctl needed
    a.map(0x1000, 0x1000, 5)
    _run(m, b"\x90")
    assert a.page_perms.grown == 0


@pytest.mark.parametrize("pure", [False, True])
def test_a_sweep_larger_than_the_tlb_prints_the_same(pure, tmp_path):
    """bins/sweep.c reads a byte of each of 262,144 pages (1 GiB): many TLB growth flushes, on
    the compiled fill and the pure one, and the output is native's."""
    env = dict(os.environ)
    if pure:
        env["EMUTRACE_PURE"] = "1"
    r = subprocess.run([sys.executable, "-m", "emutrace", "--no-trace", built("sweep"), "1"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "swept 1024 MiB, sum 0\n"
