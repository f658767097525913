"""--ftrace: every function, nested; -x; --ftrace-depth; -c; --chrome; --folded.

The reference for the call tree is uftrace: each program is built twice from one source at -O0,
plainly and with -pg, and the tree `emutrace --ftrace` shows of the plain build must be the tree
`uftrace record`/`replay` shows of the -pg build — function names and nesting depth of every
entry, library calls included (uftrace shows PLT calls as leaves, as emutrace does by default).
Compared is the subtree of `main`: outside it the two builds differ by construction (gcrt1.o's
`__monstartup` and `atexit(_mcleanup)` → `__cxa_atexit` exist only in the -pg build; `_start`,
`_init`, `frame_dummy`, `__libc_start_main` and the exit path are not compiled with -pg, so
uftrace does not see them). uftrace's own records of a longjmp (an exit of `_setjmp` at the
setjmp's depth) are exits, not entries, and are not compared.
"""
import json
import re
import shutil
import subprocess

import pytest

from conftest import built, emutrace

needs_uftrace = pytest.mark.skipif(shutil.which("uftrace") is None, reason="uftrace is not installed")

FUN = re.compile(r"^FUN +(\d+) +(\d+) +([\d']+) +([\d']+) ( *)&(.+)$")


def ftrace(tmp_path, args, name="trace.txt", ok=True):
    out = tmp_path / name
    e = emutrace(["-o", str(out), *args])
    if ok:
        assert e.returncode == 0, e.stderr.decode(errors="replace")
    assert b"Traceback" not in e.stderr, e.stderr.decode(errors="replace")
    return out.read_text(), e


def fun_entries(text):
    """(depth, name) of each FUN line; library calls lose their `@library`."""
    out = []
    for line in text.splitlines():
        m = FUN.match(line)
        if m:
            indent = len(m.group(5))
            assert indent % 2 == 0, line
            out.append((indent // 2, m.group(6).split("@")[0]))
    return out


def jsonl(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def subtree(entries, root):
    """The entries of the first call to `root` and everything nested in it, depths relative to it."""
    for i, (d, name) in enumerate(entries):
        if name == root:
            out = [(0, name)]
            for d2, n2 in entries[i + 1:]:
                if d2 <= d:
                    break
                out.append((d2 - d, n2))
            return out
    raise AssertionError(f"{root} not in the trace")


UFTRACE_LINE = re.compile(r"^\s*(?:[\d.]+ [um]?s)?\s*\[\s*\d+\] \| ( *)(.*)$")


def uftrace_entries(pg_exe, args, tmp_path):
    data = tmp_path / "uftrace.data"
    rec = subprocess.run(["uftrace", "record", "-d", str(data), pg_exe, *args], capture_output=True, timeout=120)
    assert rec.returncode == 0, rec.stderr.decode(errors="replace")
    rep = subprocess.run(["uftrace", "replay", "-d", str(data)], capture_output=True, timeout=120,
                         universal_newlines=True)
    assert rep.returncode == 0, rep.stderr
    out = []
    for line in rep.stdout.splitlines():
        m = UFTRACE_LINE.match(line)
        if not m:
            continue
        body = m.group(2)
        call = re.match(r"^(\S.*)\(\)(?: \{|;)$", body)
        if call:                                 # `name() {` or `name();`; `} /* name */` is an exit
            out.append((len(m.group(1)) // 2, call.group(1)))
    assert out, rep.stdout
    return out


# -- the call tree against uftrace ---------------------------------------------------------


@needs_uftrace
@pytest.mark.parametrize("prog,args", [
    ("fib", ["6"]),          # recursion
    ("qsort", []),           # a program function called back from inside a library call
    ("jmp", []),             # longjmp out of nested functions and out of a qsort comparator
    ("signal", []),          # signal handlers, entered inside raise/kill/sigprocmask
])
def test_tree_matches_uftrace(prog, args, tmp_path):
    plain, pg = built(prog, "plain"), built(prog, "pg")
    text, _ = ftrace(tmp_path, ["--ftrace", plain, *args])
    ours = subtree(fun_entries(text), "main")
    theirs = subtree(uftrace_entries(pg, args, tmp_path), "main")
    assert ours == theirs
    assert max(d for d, _ in ours) >= 2


def test_fib_recursion_shape(tmp_path):
    """fib(n) makes 2·fib(n+1)−1 calls to fib and fib(n+1) calls to leaf, nested n deep."""
    text, _ = ftrace(tmp_path, ["--ftrace", "-L", built("fib", "plain"), "6"])
    entries = subtree(fun_entries(text), "main")
    assert sum(1 for _, n in entries if n == "fib") == 25
    assert sum(1 for _, n in entries if n == "leaf") == 13
    assert max(d for d, n in entries if n == "fib") == 6      # fib(6) … fib(1), fib(0) under main
    # every fib but the outermost is nested right under another fib
    for i, (d, n) in enumerate(entries):
        if n in ("fib", "leaf") and d > 1:
            parent = next(n2 for d2, n2 in reversed(entries[:i]) if d2 == d - 1)
            assert parent == "fib"


def test_fun_line_format(tmp_path):
    """Cosmopolitan's shape: FUN pid tid nanoseconds stack-use <2×depth spaces>&name."""
    text, _ = ftrace(tmp_path, ["--ftrace", built("fib", "plain"), "3"])
    lines = [l for l in text.splitlines() if l.startswith("FUN")]
    assert lines and all(FUN.match(l) for l in lines), text
    first = FUN.match(lines[0])
    assert first.group(6) == "_start" and first.group(4) == "0"      # stack use at program start
    pids = {FUN.match(l).group(1) for l in lines}
    assert pids == {"1000"}                                          # the World's fixed pid
    by_name = {}
    for l in lines:
        m = FUN.match(l)
        by_name.setdefault(m.group(6), []).append(int(m.group(4).replace("'", "")))
    # the recursion uses more stack the deeper it goes; library calls are named with their library
    assert max(by_name["fib"]) > min(by_name["fib"]) > by_name["main"][0] > 0
    assert "printf@libc.so.6" in by_name
    ns = [int(FUN.match(l).group(3).replace("'", "")) for l in lines]
    assert ns == sorted(ns)                                          # a clock never goes back


def test_stripped_binary_still_nests(tmp_path):
    """No .symtab: functions come from .eh_frame as fun_<addr>, and give the same tree as the
    same build with its symbols (the `pie` variant: same flags, not stripped)."""
    from emutrace.loader.elf import parse_elf
    stripped, pie = built("fib", "stripped"), built("fib", "pie")
    elf = parse_elf(pie, open(pie, "rb").read())
    assert not parse_elf(stripped, open(stripped, "rb").read()).symtab
    addr = {s.name: s.value for s in elf.symtab if s.type == 2 and s.value}
    text_s, _ = ftrace(tmp_path, ["--ftrace", stripped, "6"], "s.txt")
    text_p, _ = ftrace(tmp_path, ["--ftrace", pie, "6"], "p.txt")
    ours = subtree(fun_entries(text_s), f"fun_{addr['main']:x}")
    named = [(d, f"fun_{addr[n]:x}" if n in addr else n) for d, n in subtree(fun_entries(text_p), "main")]
    assert ours == named
    assert any(n.startswith("fun_") for d, n in ours if d >= 3)      # the recursion, nested


# -- nesting across unwinding, tail calls; jsonl -----------------------------------------------


def test_jsonl_calls_and_returns_pair_up(tmp_path):
    text, _ = ftrace(tmp_path, ["--ftrace", "--format", "jsonl", built("jmp", "plain")])
    evs = jsonl(text)
    calls = {e["id"]: e for e in evs if e["type"] == "call"}
    rets = {e["id"]: e for e in evs if e["type"] == "return"}
    assert {e["kind"] for e in calls.values()} == {"call", "function"}
    for fid, r in rets.items():
        assert calls[fid]["depth"] == r["depth"] and calls[fid]["kind"] == r["kind"]
    # calls never closed: only those still running at exit (_start, __libc_start_main; exit path)
    open_names = {calls[i]["name"] for i in calls if i not in rets}
    assert open_names <= {"_start", "__libc_start_main", "exit"}, open_names
    unwound = [calls[i]["name"] for i, r in rets.items() if r["unwound"]]
    # inner(1..3) and longjmp by the first longjmp; the comparator, longjmp and qsort by the second
    assert sorted(unwound) == sorted(["inner"] * 3 + ["longjmp"] * 2 + ["cmp_and_escape", "qsort",
                                                                       "siglongjmp"])


def test_cxx_exception_unwinds_frames(tmp_path):
    text, _ = ftrace(tmp_path, ["--ftrace", "-C", "--format", "jsonl", built("cxx", "plain")])
    evs = jsonl(text)
    calls = {e["id"]: e for e in evs if e["type"] == "call"}
    unwound = {calls[e["id"]]["name"] for e in evs if e["type"] == "return" and e["unwound"]}
    assert {"level1(int)", "level2(int)", "level3(int)", "__cxa_throw"} <= unwound
    # each Tracker's destructor runs inside the frame it belongs to, during the unwinding
    depth = {calls[i]["name"]: calls[i]["depth"] for i in calls if calls[i]["name"].startswith("level")}
    dtors = [e["depth"] for e in evs if e["type"] == "call" and e["name"] == "Tracker::~Tracker()"]
    assert dtors[:3] == [depth["level3(int)"] + 1, depth["level2(int)"] + 1, depth["level1(int)"] + 1]


TAIL_C = r"""
#include <stdio.h>
__attribute__((noipa)) int c(int x) { return x * 3 + 1; }
__attribute__((noipa)) int b(int x) { return c(x + 1); }     /* -O2: add; jmp c */
__attribute__((noipa)) int a(int x) { int r = b(x); return r + 2; }
int main(int argc, char **argv) { (void)argv; printf("%d\n", a(argc)); return 0; }
"""


def test_tail_call_nests_and_returns_together(tmp_path):
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    src = tmp_path / "tail.c"
    src.write_text(TAIL_C)
    exe = tmp_path / "tail"
    subprocess.run([cc, "-O2", "-fno-builtin", "-o", str(exe), str(src)], check=True)
    text, e = ftrace(tmp_path, ["--ftrace", "--format", "jsonl", str(exe)])
    assert e.stdout == b"9\n"
    evs = jsonl(text)
    calls = {e["name"]: e for e in evs if e["type"] == "call" and e["kind"] == "function"}
    a, b, c = calls["a"], calls["b"], calls["c"]
    assert b["caller_addr"] == c["caller_addr"] != a["caller_addr"], "gcc did not make b's call a tail call"
    assert (b["depth"], c["depth"]) == (a["depth"] + 1, a["depth"] + 2)
    rets = [e for e in evs if e["type"] == "return" and e["id"] in (a["id"], b["id"], c["id"])]
    assert [r["name"] for r in rets] == ["c", "b", "a"] and not any(r["unwound"] for r in rets)


def test_static_program_traces_its_c_library_once(tmp_path):
    """A static program's .symtab holds its C library: printf is one library call (with its
    arguments) and the C library's own functions nest under it."""
    text, _ = ftrace(tmp_path, ["--ftrace", built("fib", "static"), "4"])
    entries = subtree(fun_entries(text), "main")
    printf = [i for i, (d, n) in enumerate(entries) if n == "printf"]
    assert len(printf) == 1 and entries[printf[0]][0] == 1
    assert entries[printf[0] + 1][0] == 2                            # printf's insides
    assert sum(1 for _, n in entries if n == "fib") == 9


# -- selection: -x, --ftrace-depth, -L --------------------------------------------------------


def test_x_selects_functions(tmp_path):
    exe = built("fib", "plain")
    text, _ = ftrace(tmp_path, ["--ftrace", "-L", "-x", "fib", exe, "4"])
    entries = fun_entries(text)
    assert {n for _, n in entries} == {"fib"}
    assert [d for d, _ in entries][:4] == [0, 1, 2, 3]     # nested among themselves only
    text, _ = ftrace(tmp_path, ["--ftrace", "-L", "-x", "/^(fib|leaf)$/", exe, "4"], "rx.txt")
    assert {n for _, n in fun_entries(text)} == {"fib", "leaf"}
    # -x without --ftrace is ltrace's: internal functions beside library calls, arguments decoded
    text, _ = ftrace(tmp_path, ["-x", "leaf", exe, "2"], "lt.txt")
    assert re.search(r"^leaf\(1\b", text, re.M) and re.search(r"^printf\(", text, re.M), text


def test_depth_limit_is_a_filter(tmp_path):
    exe = built("fib", "plain")
    full = fun_entries(ftrace(tmp_path, ["--ftrace", exe, "5"], "full.txt")[0])
    limited = fun_entries(ftrace(tmp_path, ["--ftrace", "--ftrace-depth", "4", exe, "5"], "lim.txt")[0])
    assert limited == [(d, n) for d, n in full if d < 4]
    assert max(d for d, _ in limited) == 3
    e = emutrace(["--ftrace-depth", "0", "--ftrace", exe])
    assert e.returncode == 125 and e.stderr.startswith(b"emutrace: ")


def test_without_library_calls(tmp_path):
    text, _ = ftrace(tmp_path, ["--ftrace", "-L", built("qsort", "plain")])
    entries = subtree(fun_entries(text), "main")
    assert {n for _, n in entries} == {"main", "cmp"}
    assert all(d == 1 for d, n in entries if n == "cmp")


# -- -c ------------------------------------------------------------------------------------


def test_summary_table(tmp_path):
    text, _ = ftrace(tmp_path, ["--ftrace", "-c", built("fib", "plain"), "6"])
    lines = text.splitlines()
    assert lines[0] == "  Total time   Self time       Calls  Function"
    assert lines[1].startswith("  ==========  ==========  ==========  ===")
    rows = {}
    for line in lines[2:]:
        m = re.match(r"^ +([\d.]+) (us|ms|  ?s) +([\d.]+) (us|ms|  ?s) +(\d+)  (.+)$", line)
        assert m, line
        scale = {"us": 1e3, "ms": 1e6, "s": 1e9, " s": 1e9}[m.group(2).strip() or "s"]
        rows[m.group(6)] = (float(m.group(1)) * scale, float(m.group(3)) * 1e3, int(m.group(5)))
    assert rows["fib"][2] == 25 and rows["leaf"][2] == 13 and rows["main"][2] == 1
    assert rows["printf"][2] == 1 and rows["atoi"][2] == 1
    assert rows["main"][0] >= rows["printf"][0] > 0          # printf writes: a system call's time
    for total, self_, _ in rows.values():
        assert self_ <= total + 1e-6


# -- timelines ---------------------------------------------------------------------------


PHASES = {"B", "E", "X", "i", "M"}


def check_chrome(doc):
    """The trace-event format's rules this writer relies on; returns the B events."""
    assert isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list)
    stacks, last_ts, begins = {}, {}, []
    for ev in doc["traceEvents"]:
        assert isinstance(ev, dict), ev
        assert ev.get("ph") in PHASES, ev
        assert isinstance(ev.get("name"), str) and ev["name"], ev
        assert isinstance(ev.get("pid"), int) and isinstance(ev.get("tid"), int), ev
        assert isinstance(ev.get("ts"), (int, float)) and ev["ts"] >= 0, ev
        if "args" in ev:
            assert isinstance(ev["args"], dict), ev
        if ev["ph"] == "M":
            assert ev["name"] in ("process_name", "thread_name") and isinstance(ev["args"]["name"], str)
            continue
        key = (ev["pid"], ev["tid"])
        assert ev["ts"] >= last_ts.get(key, 0), ("time goes back on a track", ev)
        last_ts[key] = ev["ts"]
        if ev["ph"] == "X":
            assert isinstance(ev.get("dur"), (int, float)) and ev["dur"] >= 0, ev
        elif ev["ph"] == "i":
            assert ev.get("s") in ("t", "p", "g"), ev
        elif ev["ph"] == "B":
            assert isinstance(ev.get("cat"), str), ev
            stacks.setdefault(key, []).append(ev)
            begins.append(ev)
        elif ev["ph"] == "E":
            stack = stacks.get(key)
            assert stack, ("E without B", ev)
            b = stack.pop()
            assert b["name"] == ev["name"] and b["cat"] == ev["cat"] and b["ts"] <= ev["ts"], (b, ev)
    assert all(not s for s in stacks.values()), "B events left open"
    return begins


@pytest.mark.parametrize("prog", ["jmp", "qsort"])
def test_chrome_trace(prog, tmp_path):
    chrome = tmp_path / "trace.json"
    text, _ = ftrace(tmp_path, ["--ftrace", "--format", "jsonl", "--chrome", str(chrome), built(prog, "plain")])
    begins = check_chrome(json.loads(chrome.read_text()))
    calls = [e for e in jsonl(text) if e["type"] == "call"]
    # the same calls, in the same order, kind for kind, as the jsonl of the same run
    assert [(b["name"], b["cat"]) for b in begins if b["cat"] != "syscall"] == \
        [(c["name"], c["kind"]) for c in calls]
    assert {"function", "call"} <= {b["cat"] for b in begins}
    lib = next(b for b in begins if b["name"] == "printf")
    assert lib["args"]["module"] == "libc.so.6" and lib["args"]["args"][0].startswith('"')


def test_chrome_trace_is_deterministic(tmp_path):
    exe = built("signal", "plain")
    outs = []
    for i in range(2):
        chrome = tmp_path / f"t{i}.json"
        ftrace(tmp_path, ["--ftrace", "--chrome", str(chrome), exe], f"t{i}.txt")
        outs.append(chrome.read_bytes())
    assert outs[0] == outs[1]
    doc = json.loads(outs[0])
    check_chrome(doc)
    assert [e["name"] for e in doc["traceEvents"] if e["ph"] == "i" and e["cat"] == "signal"] == \
        ["SIGUSR1", "SIGUSR2", "SIGUSR1"]


def test_threads_get_their_own_stacks_and_tracks(tmp_path):
    chrome = tmp_path / "trace.json"
    text, e = ftrace(tmp_path, ["--ftrace", "--chrome", str(chrome), built("threads", "plain"), "3"], ok=False)
    if e.returncode != 0 or b"not implemented" in e.stderr:
        pytest.skip("threads do not run here: " + e.stderr.decode(errors="replace")[-200:])
    workers = [FUN.match(l) for l in text.splitlines() if l.endswith("&worker")]
    assert len(workers) == 3 and len({m.group(2) for m in workers}) == 3
    assert all(m.group(4) == "0" and m.group(5) == "" for m in workers)   # each at the top of its stack
    begins = check_chrome(json.loads(chrome.read_text()))
    assert len({b["tid"] for b in begins}) == 4


def test_folded_stacks_sum_to_total(tmp_path):
    folded = tmp_path / "stacks.folded"
    text, _ = ftrace(tmp_path, ["--ftrace", "--format", "jsonl", "--folded", str(folded), built("qsort", "plain")])
    total = next(e for e in jsonl(text) if e["type"] == "exit")["time_ns"]
    stacks = {}
    for line in folded.read_text().splitlines():
        m = re.match(r"^(\S(?:.*\S)?) (\d+)$", line)
        assert m, line
        assert m.group(1) not in stacks, "one line per distinct stack"
        stacks[m.group(1)] = int(m.group(2))
    assert total > 0 and sum(stacks.values()) == total
    assert all(w > 0 for w in stacks.values())
    assert stacks.get("_start;__libc_start_main;main;printf", 0) > 0   # printf's write
    assert "[untraced]" in stacks                                      # ld.so, before _start


# -- .eh_frame ------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("readelf") is None, reason="needs readelf")
@pytest.mark.parametrize("prog", ["fib", "cxx"])
def test_eh_frame_parser_agrees_with_readelf(prog):
    from emutrace.loader.elf import parse_elf
    from emutrace.dwarf.ehframe import eh_frame_image, parse_eh_frame
    exe = built(prog, "stripped")
    dump = subprocess.run(["readelf", "--debug-dump=frames", exe], capture_output=True,
                          universal_newlines=True, check=True).stdout
    want = sorted((int(a, 16), int(b, 16) - int(a, 16)) for a, b in re.findall(r"FDE .*pc=([0-9a-f]+)\.\.([0-9a-f]+)", dump))
    elf = parse_elf(exe, open(exe, "rb").read())
    assert sorted(parse_eh_frame(*eh_frame_image(elf))) == want
    # without a section table, PT_GNU_EH_FRAME leads to the same records
    data, addr = eh_frame_image(elf)
    elf.sections = []
    data2, addr2 = eh_frame_image(elf)
    assert addr2 == addr and sorted(parse_eh_frame(data2, addr2)) == want


def test_discover_prefers_symtab_and_skips_plt():
    from emutrace.loader.elf import parse_elf
    from emutrace.funcs import discover
    plain, stripped = built("fib", "plain"), built("fib", "stripped")
    names = discover(parse_elf(plain, open(plain, "rb").read())).values()
    assert {"main", "fib", "leaf", "_start"} <= set(names)
    elf = parse_elf(stripped, open(stripped, "rb").read())
    found = discover(elf)
    assert found and all(n == f"fun_{a:x}" for a, n in found.items())
    plt = [s for s in elf.sections if s.name.startswith(".plt")]
    assert plt and not any(s.addr <= a < s.addr + s.size for s in plt for a in found)
