"""--ftrace -a's warm cache (issue 38): each unit's functions stored in store.py's checked format
and decoded function by function; C structures passed in memory read to their 16th member.

A warm run prints what a cold run prints; structures cut at their 16th member print what the
whole structure prints; a truncated or corrupt entry is made again (never a wrong argument);
an entry forged with a valid digest never crashes or hangs; the entries count in the cache's
bound."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import built
from emutrace.dwarf import elfsec, store as S
from emutrace.dwarf.index import DebugInfo
from emutrace.dwarf.plan import Plan
from emutrace.dwarf.render import Renderer
from emutrace.machine import cache as C

PROGRAMS = [("dwargs", "g", []), ("dwargs_cxx", "g", ["-C"]), ("dwwide", "g", []), ("dwwide", "o2g", []),
            ("dwwide_cxx", "g", ["-C"])]
NO_CUT = ("import sys, emutrace.dwarf.index as X; X.C_LANGUAGES = frozenset(); "
          "from emutrace import cli; sys.exit(cli.main(sys.argv[1:]))")


def _run(args, cache, cwd, no_cut=False):
    env = dict(os.environ, EMUTRACE_CACHE=str(cache))
    head = [sys.executable, "-c", NO_CUT] if no_cut else [sys.executable, "-m", "emutrace"]
    p = subprocess.run(head + ["--ftrace", "-a", *args], capture_output=True, text=True, timeout=300,
                       env=env, cwd=cwd)
    assert p.returncode == 0, p.stderr[-2000:]
    return p.stdout, p.stderr


@pytest.mark.parametrize("prog,variant,opts", PROGRAMS)
def test_warm_runs_print_what_cold_runs_print(prog, variant, opts, tmp_path):
    path = built(prog, variant)
    cache = tmp_path / "cache"
    cold = _run([*opts, path], "", tmp_path)
    fill = _run([*opts, path], cache, tmp_path)
    assert any(n.startswith("dwarf-unit-") and n.endswith(".blob") for n in os.listdir(cache))
    warm = _run([*opts, path], cache, tmp_path)
    assert cold == fill == warm
    assert "FUN" in cold[1]
    if prog == "dwargs":                         # the typed values too
        jc = _run(["--format", "jsonl", path], "", tmp_path)
        jw = _run(["--format", "jsonl", path], cache, tmp_path)
        assert jc == jw and '"typed"' in jc[0] + jc[1]


@pytest.mark.parametrize("variant", ["g", "o2g"])
def test_wide_structures_cut_at_what_is_shown(variant, tmp_path):
    """Members after the 16th of a C structure passed in memory are never decoded; the trace
    is the one every member gives (the reader told the unit is not C reads them all)."""
    path = built("dwwide", variant)
    cut = _run(["-o", "cut.txt", path], "", tmp_path)
    whole = _run(["-o", "whole.txt", path], "", tmp_path, no_cut=True)
    assert cut == whole
    text = (tmp_path / "cut.txt").read_text()
    assert text == (tmp_path / "whole.txt").read_text()
    line = next(x for x in text.splitlines() if "&by_ptr(" in x and x.startswith("FUN"))
    assert "d3=38, ...}" in line                                   # 16 of 40 members, then "..."
    line = next(x for x in text.splitlines() if "&exact(" in x and x.startswith("FUN"))
    assert "d3=0}, &{" in line and "d3=12, ...}" in line           # 16: no "...", 17: "..."
    assert "f2=-3, f3=300, ...}" in text                           # bitfields up to the 16th


def _signatures(prog, variant, monkeypatch):
    monkeypatch.setenv("EMUTRACE_CACHE", "")
    path = built(prog, variant)
    data = open(path, "rb").read()
    di = DebugInfo(path, data, lambda: elfsec.read_sections(data), lambda m: None)
    out = {}
    for pc in _funcs(path):
        sig = di.signature(pc)
        if sig is not None:
            out[pc] = sig
    assert out and not di.broken
    return path, data, out


def _funcs(path):
    out = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
    return [int(p[0], 16) for p in (x.split() for x in out.splitlines()) if len(p) == 3 and p[1] in "Tt"]


@pytest.mark.parametrize("prog,variant", [(p, v) for p, v, _ in PROGRAMS])
def test_store_reads_back_what_it_wrote(prog, variant, monkeypatch):
    _, _, sigs = _signatures(prog, variant, monkeypatch)
    unit = S.StoredUnit(S.pack(sigs))
    for pc, sig in sigs.items():
        back = unit.get(pc)
        assert S.encode(back) == S.encode(sig)
        assert [(p.name, p.where, p.from_list, p.const, p.artificial) for p in back.params] == \
            [(p.name, p.where, p.from_list, p.const, p.artificial) for p in sig.params]
    assert unit.get(1) is None


class _Mem:
    """Guest memory of a pattern: every read succeeds, strings end at once."""

    def read(self, addr, size):
        return bytes((addr + i) & 0xFF for i in range(size))

    def cstring(self, addr, limit):
        return (b"ab", True)


class _Machine:
    def reg(self, name):
        return 0x1000

    def xmm(self, i):
        return b"\x01" * 16

    def call_words(self):
        return [0x1000 + i for i in range(6)] + [0x7000]


def _show(sig):
    """What a traced call of sig prints on fixed registers and memory (or None: shown without)."""
    said = []
    plan = Plan(sig, None, 32, lambda a: None, lambda s, e: said.append(e))
    m = _Machine()
    cv = plan.enter(m.call_words(), m, _Mem, typed=True)
    if cv is None:
        return None
    return cv.texts, plan.leave(cv, 0x1234, m, _Mem, typed=True)


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """dwwide's units stored in a cache, and what each function shows when made cold."""
    cache = tmp_path_factory.mktemp("cache")
    mp = pytest.MonkeyPatch()
    mp.setenv("EMUTRACE_CACHE", "")
    path, data, sigs = _signatures("dwwide", "g", mp)
    want = {pc: _show(s) for pc, s in sigs.items()}
    mp.setenv("EMUTRACE_CACHE", str(cache))
    di = DebugInfo(path, data, lambda: elfsec.read_sections(data), lambda m: None)
    for pc in sigs:
        di.signature(pc)
    mp.undo()
    files = sorted(f for f in os.listdir(cache) if f.startswith("dwarf-unit-"))
    assert files
    return cache, path, data, want, files


def _warm(stored, monkeypatch):
    cache, path, data, want, _ = stored
    monkeypatch.setenv("EMUTRACE_CACHE", str(cache))
    said = []
    di = DebugInfo(path, data, lambda: elfsec.read_sections(data), said.append)
    return di, want, said


def _entry(name):
    kind, _, key = name[:-len(".blob")].partition("-unit-")
    return kind + "-unit", key


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(0, 255)), max_size=8),
       cut=st.one_of(st.none(), st.integers(0, 1 << 20)))
def test_corrupt_entries_are_made_again(stored, monkeypatch, edits, cut):
    """A truncated or corrupt entry (its digest no longer matches) is dropped and made again
    from the DWARF: every function shows exactly what it shows cold."""
    cache, _, _, _, files = stored
    p = cache / files[0]
    good = p.read_bytes()
    raw = bytearray(good)
    for off, val in edits:
        raw[off % len(raw)] = val
    if cut is not None:
        raw = raw[:cut % (len(raw) + 1)]
    p.write_bytes(bytes(raw))
    try:
        di, want, said = _warm(stored, monkeypatch)
        for pc, shown in want.items():
            assert _show(di.signature(pc)) == shown
        assert not said
        assert p.read_bytes() == good              # made again, as it was
    finally:
        p.write_bytes(good)


def _forge(stored, body: bytes):
    """A file of the first unit with body and a valid digest (what a hostile writer can do)."""
    cache, _, _, _, files = stored
    kind, key = _entry(files[0])
    p = cache / files[0]
    p.write_bytes(C.BLOB + C._blob_digest(kind, key, body) + body)
    return p


def _never_crashes(stored, monkeypatch, body):
    cache, _, _, _, files = stored
    good = (cache / files[0]).read_bytes()
    p = _forge(stored, body)
    try:
        di, want, said = _warm(stored, monkeypatch)
        for pc in want:
            sig = di.signature(pc)                 # (a Signature, or None: never an exception)
            if sig is not None:
                _show(sig)
        assert len(said) <= 1
    finally:
        p.write_bytes(good)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(0, 255)), min_size=1, max_size=8),
       cut=st.one_of(st.none(), st.integers(0, 1 << 20)))
def test_forged_entries_never_crash(stored, monkeypatch, edits, cut):
    cache, _, _, _, files = stored
    n = len(C.BLOB) + 16
    raw = bytearray((cache / files[0]).read_bytes()[n:])
    for off, val in edits:
        raw[off % len(raw)] = val
    if cut is not None:
        raw = raw[:cut % (len(raw) + 1)]
    _never_crashes(stored, monkeypatch, bytes(raw))


def _unit_body(stored, rows_of):
    """A forged unit entry: the first function's entry with its type table replaced."""
    cache, _, _, want, files = stored
    body = (cache / files[0]).read_bytes()[len(C.BLOB) + 16:]
    head, _, blobs = body.partition(b"\n")
    top = json.loads(head)
    pc, off, n = top[1][0]
    fn = json.loads(blobs[off:off + n])
    fn[7] = rows_of(fn)
    b = json.dumps(fn).encode()
    return json.dumps([top[0], [[pc, 0, len(b)]]]).encode() + b"\n" + b


HOSTILE = {
    "a typedef naming itself": lambda fn: [["t", "loop", 0]] * len(fn[7]),
    "a structure holding itself": lambda fn: [["s", "struct", "x", 64, False, False, False, [["m", 0, 0, 0, 0]]]]
    + [["i", "int", 4, True, False, False]] * (len(fn[7]) - 1),
    "a pointer out of range": lambda fn: [["p", 10 ** 9, ""]] * len(fn[7]),
    "huge sizes": lambda fn: [["s", "struct", "x", (1 << 64) - 1, False, False, True, [["m", 1, (1 << 64) - 2, 0, 0]]],
                              ["a", 0, (1 << 64) - 1]] + [["F"]] * (len(fn[7]) - 2),
    "bitfields of every size": lambda fn: [["s", "struct", "x", 8, False, False, False, [["m", 1, 0, 999, 77]]],
                                           ["i", "int", 4, True, False, False]] + [["v"]] * (len(fn[7]) - 2),
    "wrong field types": lambda fn: [["i", 3, "4", None, 1, 0]] * len(fn[7]),
    "deep nesting": lambda fn: json.loads("[" * 50 + "]" * 50),
}


@pytest.mark.parametrize("what", sorted(HOSTILE))
def test_crafted_entries_never_crash(stored, monkeypatch, what):
    _never_crashes(stored, monkeypatch, _unit_body(stored, HOSTILE[what]))


def test_deeply_nested_json_is_refused():
    with pytest.raises(S.StoreError):
        S.decode(b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(S.StoreError):
        S.StoredUnit(b"[" * 100_000 + b"\n")


def test_checked_entries_count_in_the_cache_bound(tmp_path, monkeypatch):
    monkeypatch.setenv("EMUTRACE_CACHE", str(tmp_path))
    for i in range(8):
        C.store_blob("dwarf-unit", f"k{i}", bytes(1000))
        os.utime(tmp_path / f"dwarf-unit-k{i}.blob", (i, i))
    C.prune(str(tmp_path), limit=4000)
    left = sorted(os.listdir(tmp_path))
    assert left and len(left) <= 3 and "dwarf-unit-k7.blob" in left and "dwarf-unit-k0.blob" not in left
    assert C.load_blob("dwarf-unit", "k7") == bytes(1000)
    assert C.load_blob("dwarf-unit", "k0") is None


def test_warm_run_reads_only_the_functions_it_calls(stored, monkeypatch):
    di, want, _ = _warm(stored, monkeypatch)
    pc = next(iter(want))
    di.signature(pc)
    unit = next(iter(di._sigs.values()))
    assert isinstance(unit, S.StoredUnit)
    assert list(unit._got) == [pc]                 # the others stay bytes
