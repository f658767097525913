"""Bad debug information (issue 38) never crashes or hangs emutrace: truncated and mutated
sections (fuzzed with hypothesis, as the ELF parser is), DIE cycles, lying abbreviation tables,
looping location expressions, debug files that do not match the build-id. The function is then
shown without arguments and one `emutrace:` line names the file once."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import built
from emutrace.dwarf import elfsec, info as I, loc as L
from emutrace.dwarf.index import DebugInfo
from emutrace.dwarf.types import Builder, T_pointer, T_struct, T_typedef, T_member, type_name


def _funcs(path):
    out = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
    return [int(p[0], 16) for p in (l.split() for l in out.splitlines()) if len(p) == 3 and p[1] in "Tt"]


@pytest.fixture(scope="module")
def good():
    path = built("dwargs", "g")
    data = open(path, "rb").read()
    return path, data, elfsec.read_sections(data), _funcs(path)


def _ask(secs, addrs, data=b"x"):
    said = []
    di = DebugInfo("fuzzed", data, lambda: secs, said.append)
    for a in addrs:
        di.signature(a)
    return said


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(section=st.sampled_from([".debug_info", ".debug_abbrev", ".debug_aranges", ".debug_str"]),
       edits=st.lists(st.tuples(st.integers(0, 1 << 16), st.integers(0, 255)), min_size=1, max_size=16),
       cut=st.one_of(st.none(), st.integers(0, 1 << 16)))
def test_fuzzed_sections_never_crash(good, monkeypatch, section, edits, cut):
    monkeypatch.setenv("EMUTRACE_CACHE", "")
    _, _, secs, addrs = good
    raw = bytearray(secs[section])
    for off, val in edits:
        if raw:
            raw[off % len(raw)] = val
    if cut is not None:
        raw = raw[:cut % (len(raw) + 1)]
    said = _ask({**secs, section: bytes(raw)}, addrs)
    assert len(said) <= 1                      # at most one warning per file


def test_truncated_info_warns_once(good, monkeypatch):
    monkeypatch.setenv("EMUTRACE_CACHE", "")
    _, _, secs, addrs = good
    said = _ask({**secs, ".debug_info": secs[".debug_info"][:200]}, addrs)
    assert len(said) == 1 and said[0].startswith("fuzzed: bad debug information")


def test_lying_abbreviation_table(good, monkeypatch):
    monkeypatch.setenv("EMUTRACE_CACHE", "")
    _, _, secs, addrs = good
    said = _ask({**secs, ".debug_abbrev": b"\x01\x11\x01\x03\x7f\x00\x00\x00"}, addrs)   # form 0x7f: none
    assert len(said) == 1


@pytest.mark.parametrize("expr", [b"\x2f\xfd\xff",                 # skip back onto itself
                                  b"\x30\x28\xfd\xff" * 1,          # lit0, bra (never taken), ...
                                  b"\x31\x28\xfc\xff",              # lit1; bra back: a loop
                                  b"\x12" * 5000,                   # dup without end
                                  b"\x91",                          # fbreg with no operand
                                  b"\x06"])                         # deref of an empty stack
def test_location_expressions_end(expr):
    fr = L.Frame(lambda n: 0x1000, lambda i: b"\0" * 16, lambda a, n: b"\0" * n, 0x2000)
    pieces, _ = L.evaluate(expr, fr, b"\x9c")
    assert pieces                              # (unavailable or a location: never a hang)


def test_die_cycles_end():
    # a typedef naming itself, a structure holding a pointer to itself
    dies = {}
    td = I.Die(0x10, T_typedef, {I.AT_name: "loop", I.AT_type: 0x10}, None)
    s = I.Die(0x20, T_struct, {I.AT_name: "node", I.AT_byte_size: 16}, None)
    m = I.Die(0x30, T_member, {I.AT_name: "next", I.AT_type: 0x40, I.AT_data_member_location: 0}, 0x20)
    p = I.Die(0x40, T_pointer, {I.AT_type: 0x20}, None)
    s.children.append(0x30)
    for d in (td, s, m, p):
        dies[d.off] = d
    b = Builder(None, None, dies)
    t = b.type_at(0x10)
    assert type_name(t) and t.strip() is not None
    node = b.type_at(0x20)
    assert node.members[0].type.strip().target is node


def _run(args, cwd):
    env = dict(os.environ, EMUTRACE_CACHE="")
    return subprocess.run([sys.executable, "-m", "emutrace", "--ftrace", "-a", *args], capture_output=True,
                          text=True, timeout=240, env=env, cwd=cwd)


def test_corrupt_debug_info_in_a_run(tmp_path, good):
    path, data, _, _ = good
    table = elfsec.section_table(data)
    _, _, off, size = table[".debug_abbrev"]
    bad = bytearray(data)
    bad[off:off + size] = b"\xff" * size
    prog = tmp_path / "dwargs"
    prog.write_bytes(bytes(bad))
    prog.chmod(0o755)
    r = _run([str(prog)], str(tmp_path))
    assert r.returncode == 0 and "Traceback" not in r.stderr
    warns = [l for l in r.stderr.splitlines() if l.startswith("emutrace:")]
    assert len(warns) == 1 and str(prog) in warns[0], warns
    assert "&add\n" in r.stderr                # shown without arguments


def test_separate_debug_file_by_debuglink_and_a_mismatch(tmp_path):
    if shutil.which("objcopy") is None:
        pytest.skip("no objcopy")
    src = built("dwargs", "g")
    prog, dbg = tmp_path / "dwargs", tmp_path / "dwargs.debug"
    subprocess.run(["objcopy", "--only-keep-debug", src, str(dbg)], check=True)
    subprocess.run(["objcopy", "--strip-debug", f"--add-gnu-debuglink={dbg}", src, str(prog)], check=True)
    r = _run([str(prog)], str(tmp_path))
    assert "&add(1, 2)" in r.stderr, r.stderr[-2000:]
    # another build's debug file under the same name: its build-id differs
    other = built("dwargs", "o2g")
    subprocess.run(["objcopy", "--only-keep-debug", other, str(dbg)], check=True)
    r = _run([str(prog)], str(tmp_path))
    warns = [l for l in r.stderr.splitlines() if l.startswith("emutrace:")]
    assert len(warns) == 1 and "does not match the build-id" in warns[0], warns
    assert "&add\n" in r.stderr and r.returncode == 0


def test_the_reader_is_freed_with_its_session(good, monkeypatch):
    """Inflated sections and parsed units belong to one DebugTypes (one session): they go when it
    goes (weak references to the reader and the file's index end)."""
    import gc
    import weakref
    from emutrace.dwarf.calls import DebugTypes

    monkeypatch.setenv("EMUTRACE_CACHE", "")
    path, data, _, addrs = good

    class Mod:
        base = 0

        class elf:
            pass
    Mod.path = path
    Mod.elf.data = data
    dt = DebugTypes("/", print)
    sig = next(s for s in (dt.signature(Mod, a) for a in addrs) if s is not None)
    assert sig.params is not None
    reader = weakref.ref(dt._files[path]._reader)
    info = weakref.ref(dt._files[path])
    del dt, sig
    gc.collect()
    assert reader() is None and info() is None


def test_cfi_expressions_share_the_bounded_evaluator():
    """The unwinder's CFI expressions (DW_CFA_expression) go through the same evaluator: one
    that loops in a guest's .eh_frame ends (it hung before), the others compute as they did."""
    from emutrace.dwarf.unwind import eval_expr
    reg = lambda r: 0x1000 if r == 7 else None
    assert eval_expr(bytes([0x77, 0x08]), reg, lambda a: None) == 0x1008             # breg7 +8
    assert eval_expr(bytes([0x77, 0x08, 0x06]), reg, lambda a: 0x42) == 0x42        # ... deref
    assert eval_expr(bytes([0x23, 0x10]), reg, lambda a: None, push=0x100) == 0x110  # CFA + 16
    assert eval_expr(bytes([0x2F, 0xFD, 0xFF]), reg, lambda a: None) is None         # skip onto itself


@pytest.mark.parametrize("where", ["back", "inside", "past"])
def test_lying_siblings_end(good, monkeypatch, where):
    """The lazy walker (dwarf/lazy.py) jumps over subtrees by DW_AT_sibling: one that points
    back (a loop), into the middle of an entry or past the unit ends, never hangs, and at
    worst names the file once."""
    monkeypatch.setenv("EMUTRACE_CACHE", "")
    _path, data, secs, funcs = good
    real = I.Reader.die_body
    calls = []

    def lying(self, u, table, code, off, i):
        tag, kids, attrs, end = real(self, u, table, code, off, i)
        calls.append(off)
        if kids:
            attrs[I.AT_sibling] = {"back": u.die_off, "inside": end + 1, "past": u.end + 64}[where]
        return tag, kids, attrs, end
    monkeypatch.setattr(I.Reader, "die_body", lying)
    said = []
    di = DebugInfo("lying", data, lambda: secs, said.append)
    sigs = [di.signature(a) for a in funcs]
    assert len(said) <= 1 and calls            # (DIEs were decoded: not from the cache)
    if where != "inside":                   # a sibling behind or past the unit is not trusted
        assert not said and sum(s is not None for s in sigs) >= 20, said
