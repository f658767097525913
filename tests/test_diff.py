"""`emutrace diff`: two jsonl traces aligned; the first divergence, count differences, and exit
statuses 0 (same), 1 (different), 2 (bad input)."""
import json

import pytest

from emutrace.tracediff import TraceError, compare, format_report, load

from conftest import built, emutrace


def trace(tmp_path, exe, name, *extra):
    out = tmp_path / name
    r = emutrace(["--format", "jsonl", "-o", str(out), *extra, exe])
    assert r.returncode == 0, r.stderr
    return str(out)


def test_diffprog_v0_v1_names_the_differing_call(tmp_path):
    a = trace(tmp_path, built("diffprog", "v0"), "v0.jsonl")
    b = trace(tmp_path, built("diffprog", "v1"), "v1.jsonl")
    r = emutrace(["diff", a, b])
    assert r.returncode == 1, r.stderr
    out = r.stdout.decode()
    lines = out.splitlines()
    minus = [l for l in lines if l.startswith("- ")]
    plus = [l for l in lines if l.startswith("+ ")]
    assert len(minus) == 1 and "strcmp(" in minus[0]
    assert len(plus) == 1 and "strncmp(" in plus[0] and ", 3)" in plus[0]
    assert "first divergence at step 5 of A" in out
    # context around it: the calls before and after
    assert any(l.startswith("  A:") and "strlen(" in l for l in lines)
    assert any(l.startswith("  A:") and "puts(\"diffprog end\")" in l for l in lines)
    table = out[out.index("counts that differ:"):].splitlines()
    assert any(l.split()[:5] == ["call", "strcmp", "1", "0", "-1"] for l in table)
    assert any(l.split()[:5] == ["call", "strncmp", "0", "1", "+1"] for l in table)
    assert not any("printf" in l for l in table)
    assert r.stderr == b""


def test_two_runs_of_one_build_are_the_same(tmp_path):
    exe = built("diffprog", "v0")
    a = trace(tmp_path, exe, "a.jsonl")
    b = trace(tmp_path, exe, "b.jsonl")
    r = emutrace(["diff", a, b])
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.decode().startswith("traces are the same: 9 steps")


def test_pie_and_nopie_builds_align_despite_addresses(tmp_path):
    a = trace(tmp_path, built("qsort", "pie"), "pie.jsonl")
    b = trace(tmp_path, built("qsort", "nopie"), "nopie.jsonl")
    assert open(a).read() != open(b).read()          # addresses differ: they are not compared
    r = emutrace(["diff", a, b])
    assert r.returncode == 1, r.stdout
    out = r.stdout.decode()
    # the one real difference: only a PIE calls __cxa_finalize at exit
    assert "1 difference: 1 step only in A, 0 only in B" in out
    changed = [l for l in out.splitlines() if l.startswith(("- ", "+ "))]
    assert len(changed) == 1 and changed[0].startswith("- A:") and " __cxa_finalize(" in changed[0]


def test_bad_input_exits_2_with_one_line(tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_text('{"type":"exit","pid":1,"tid":1,"time_ns":0,"status":0,"signal":0}\n')
    text = tmp_path / "text.txt"
    text.write_text('puts("x") = 2\n')
    noname = tmp_path / "noname.jsonl"
    noname.write_text('{"type":"call","id":1}\n')
    cases = [
        ["diff", str(good)],
        ["diff", str(good), str(tmp_path / "missing.jsonl")],
        ["diff", str(good), str(text)],
        ["diff", str(good), str(noname)],
        ["diff", "-C", "many", str(good), str(good)],
        ["diff", "--bogus", str(good), str(good)],
    ]
    for args in cases:
        r = emutrace(args)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        err = r.stderr.decode()
        assert err.startswith("emutrace: ") and err.count("\n") == 1, (args, err)
        assert "Traceback" not in err
    assert b"missing.jsonl" in emutrace(cases[1]).stderr
    assert b"text.txt:1: not JSON" in emutrace(cases[2]).stderr


def _write(path, events):
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return str(path)


def _call(i, name, args=(), t=0, addr=0x1000):
    return [{"type": "call", "id": i, "pid": 1, "tid": 1, "time_ns": t, "name": name, "args": list(args),
             "caller_addr": addr, "kind": "call"},
            {"type": "return", "id": i, "pid": 1, "tid": 1, "time_ns": t + 5, "name": name, "ret": "0",
             "args": list(args)}]


def test_alignment_ignores_ids_times_and_addresses_and_finds_an_insertion(tmp_path):
    a = _write(tmp_path / "a.jsonl", _call(1, "open") + _call(2, "read", ["0x555555554000"]) + _call(3, "close"))
    b = _write(tmp_path / "b.jsonl", _call(7, "open", t=99, addr=0x2000) + _call(8, "read", ["0x7fff00000000"])
               + _call(9, "fsync") + _call(10, "close"))
    c = compare(load(a), load(b))
    assert len(c.hunks) == 1 and c.hunks[0].tag == "insert"
    assert c.hunks[0].a == (2, 2) and c.hunks[0].b == (2, 3)
    assert c.counts == [("call", "fsync", 0, 1)]
    report = format_report(c, context=1)
    assert "+ B:" in report and "fsync()" in report and "- A:" not in report
    # with --args, decoded arguments count too, pointers still do not
    same_b = _write(tmp_path / "b2.jsonl", _call(4, "open") + _call(5, "read", ["0x7fff00000000"]) + _call(6, "close"))
    assert compare(load(a, args=True), load(same_b, args=True)).equal
    other = _write(tmp_path / "b3.jsonl", _call(4, "open") + _call(5, "read", ['"x"']) + _call(6, "close"))
    assert compare(load(a), load(other)).equal
    assert not compare(load(a, args=True), load(other, args=True)).equal


def test_exit_status_and_signals_are_steps(tmp_path):
    base = _call(1, "puts")
    a = _write(tmp_path / "a.jsonl", base + [{"type": "exit", "status": 0, "signal": 0}])
    b = _write(tmp_path / "b.jsonl", base + [{"type": "signal", "name": "SIGSEGV", "signo": 11},
                                             {"type": "exit", "status": 0, "signal": 11, "signal_name": "SIGSEGV"}])
    c = compare(load(a), load(b))
    assert not c.equal
    report = format_report(c)
    assert "killed by SIGSEGV" in report and "exited with status 0" in report
    assert ("signal", "SIGSEGV", 0, 1) in c.counts


def test_load_rejects_non_traces(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_text("[1, 2]\n")
    with pytest.raises(TraceError, match="x.jsonl:1"):
        load(str(p))
    p.write_bytes(b"\xff\xfe\x00garbage\n")
    with pytest.raises(TraceError):
        load(str(p))


def test_long_low_entropy_traces_align_fast():
    """Traces of a few distinct calls repeated (loops) are where difflib is quadratic: Myers' diff
    takes over and still finds the two real changes."""
    import random
    import time
    from emutrace.tracediff import Step, Trace
    rnd = random.Random(7)
    names = [rnd.choice(["malloc", "free", "strlen", "memcpy"]) for _ in range(20000)]
    mk = lambda seq: Trace("x", [Step(("call", n), i + 1, n + "()", "call", n) for i, n in enumerate(seq)])
    other = names[:100] + ["fork"] + names[100:19900] + ["exit"] + names[19901:]
    t0 = time.monotonic()
    c = compare(mk(names), mk(other))
    assert time.monotonic() - t0 < 10
    assert [h.tag for h in c.hunks][0] == "insert" and c.hunks[0].b == (100, 101)
    assert sum(h.a[1] - h.a[0] for h in c.hunks) == 1 and sum(h.b[1] - h.b[0] for h in c.hunks) == 2
    assert any(h.b[0] <= 19901 < h.b[1] for h in c.hunks)
    assert ("call", "exit", 0, 1) in c.counts and ("call", "fork", 0, 1) in c.counts
