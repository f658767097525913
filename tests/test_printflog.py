"""printf-family calls logged by guest code and rendered by C hooks (emutrace.printflog,
emutrace/machine/_printfcap.c) print the bytes of the hooked path, the reference: the same
program traced compiled, with EMUTRACE_PURE=1 and with --hook-returns (no guest log) gives one
trace, in text, jsonl, -c and -S, in several layouts and with the __*_chk forms; also when the
program dies of a wild %s or of a format running into an unmapped page. bins/printfs.c has every
conversion kind, stack and xmm arguments, 200 conversions, %n, NULL and unterminated strings at
a mapping's end, mappings changing under a string, and the v* forms."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import built
from emutrace.machine.native import native
from emutrace.printflog import printf_spec
from emutrace.protos import parse_conf
from test_guestlog import _fast_sites, _run_in_process, guest_log_of

needs_native = pytest.mark.skipif(native is None, reason="the compiled event path is not built")

FORTIFY = {"_FORTIFY_SOURCE": 2}
# the names each build calls through a logged printf site
PRINTF_NAMES = {"printf", "sprintf", "snprintf", "fprintf", "dprintf", "vsprintf", "vdprintf"}
CHK_NAMES = {"__printf_chk", "__sprintf_chk", "__snprintf_chk", "__fprintf_chk", "__dprintf_chk",
             "__vsprintf_chk", "__vdprintf_chk"}


def _three_traces(argv, opts, tmp_path):
    """The traces (bytes) of the compiled run, the pure-Python run and the --hook-returns run."""
    runs = {"compiled": ({"EMUTRACE_PURE": "0"}, []), "pure": ({"EMUTRACE_PURE": "1"}, []),
            "hooked": ({"EMUTRACE_PURE": "0"}, ["--hook-returns"])}
    procs = {}
    for name, (env, extra) in runs.items():
        out = tmp_path / name
        procs[name] = (out, subprocess.Popen(
            [sys.executable, "-m", "emutrace", *extra, *opts, "-o", str(out), *argv],
            env=dict(os.environ, **env), cwd=str(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    traces = {}
    for name, (out, p) in procs.items():
        p.wait(timeout=300)
        traces[name] = out.read_bytes()
    return traces


def _assert_same(traces, hooked=True):
    assert traces["compiled"], "no trace"
    assert traces["compiled"] == traces["pure"], _first_difference(traces["compiled"], traces["pure"])
    if hooked:
        assert traces["compiled"] == traces["hooked"], _first_difference(traces["compiled"], traces["hooked"])


def _first_difference(a: bytes, b: bytes) -> str:
    for x, y in zip(a.splitlines(), b.splitlines()):
        if x != y:
            return f"\n{x!r}\n{y!r}"
    return f"lengths {len(a)} {len(b)}"


@needs_native
def test_printf_sites_are_logged_and_rendered_in_c(tmp_path):
    out = tmp_path / "t.txt"
    run = _run_in_process(["-o", str(out), built("printfs")])
    fast = _fast_sites(run)
    logged = {name for name, fs in fast.items() if fs.native_point}
    assert PRINTF_NAMES <= logged, logged
    session, _ = run
    hooks = guest_log_of(session, session.processes[0].machine).printf_hooks
    calls, returns, refreshes = hooks.counts
    # (every printf call of printfs returns; only they return through the hooked entry)
    assert calls >= 30 and returns == calls
    # the mappings are copied again only when they changed (mmap, mprotect, munmap), not per call
    assert 1 <= refreshes < calls
    text = out.read_text()
    for line in ('printf("hello %d %s %c\\n", 42, "world", \'x\')     = 17',
                 'snprintf("truncat", 8, "%s %d", "truncated output", 123456) = 23',
                 'sprintf("left-12-right", "%s-%d-%s", "left", 12, "right") = 13',
                 'printf("%s %s\\n", "a string far longer than the thi"..., nil) = 71',
                 'printf("[%.8s]\\n", "BBBBBBBB")                   = 11'):
        assert line in text, line
    assert "-293, -286" in text and "0x43e, 0x445) = 819" in text          # 200 conversions


@needs_native
def test_only_printf_returns_run_the_return_hook(tmp_path):
    """printf-family sites return through their own entry of the return trampoline, which alone
    carries the C return hook: freshcalls' seven other calls per iteration return without it."""
    n = 300
    out = tmp_path / "t.txt"
    session, _ = _run_in_process(["-o", str(out), built("freshcalls"), str(n)])
    gl = guest_log_of(session, session.processes[0].machine)
    calls, returns, _ = gl.printf_hooks.counts
    lines = out.read_text().splitlines()
    printfs = sum(1 for line in lines if line.startswith(("snprintf(", "printf(")))
    assert printfs == n + 1 and calls == printfs
    assert returns == printfs, (returns, len(lines))     # (not one per logged return: ~8 n)
    assert len(lines) > 8 * n
    assert gl.ret_printf != gl.ret_tramp and gl.is_return_entry(gl.ret_printf)


@needs_native
def test_chk_forms_are_logged(tmp_path):
    out = tmp_path / "t.txt"
    fast = _fast_sites(_run_in_process(["-o", str(out), built("printfs", defines=FORTIFY)]))
    logged = {name for name, fs in fast.items() if fs.native_point}
    assert CHK_NAMES <= logged, logged
    assert '__snprintf_chk("truncat", 8, 1, 8, "%s %d", "truncated output", 123456) = 23' in out.read_text()


@needs_native
@pytest.mark.parametrize("opts", [[], ["--format", "jsonl"], ["-c"], ["-S"], ["-s", "5"], ["-s", "200"]],
                         ids=["text", "jsonl", "summary", "syscalls", "s5", "s200"])
def test_same_bytes_as_the_hooked_path(opts, tmp_path):
    _assert_same(_three_traces([built("printfs")], opts, tmp_path))


@needs_native
@pytest.mark.parametrize("opts", [[], ["--format", "jsonl"], ["-c"], ["-S"]],
                         ids=["text", "jsonl", "summary", "syscalls"])
def test_chk_forms_same_bytes(opts, tmp_path):
    # (with -S, glibc's %n check reads /proc/self/maps, which shows the guest log's pages when
    # there is one: --hook-returns has none, as before printf sites were logged)
    _assert_same(_three_traces([built("printfs", defines=FORTIFY)], opts, tmp_path), hooked=opts != ["-S"])


@needs_native
@pytest.mark.parametrize("variant", ["nopie", "fnoplt", "musl-static"])
def test_other_layouts_same_bytes(variant, tmp_path):
    _assert_same(_three_traces([built("printfs", variant)], [], tmp_path))


@needs_native
@pytest.mark.parametrize("how", ["wild", "fmtend"])
def test_a_hostile_call_kills_the_program_not_the_host(how, tmp_path):
    traces = _three_traces([built("printfs"), how], [], tmp_path)
    _assert_same(traces)
    text = traces["compiled"].decode()
    assert "+++ killed by SIGSEGV +++" in text and "Traceback" not in text
    # (a format's values are shown at the call, as ltrace shows them: the wild pointer as a number)
    want = 'printf("%d %s\\n", 1, 0x1234 <unfinished ...>' if how == "wild" else "printf(0x"
    assert want in text


@needs_native
@pytest.mark.parametrize("opts", [["-f"], ["-f", "-s", "5"]], ids=["text", "s5"])
def test_strings_across_host_memory_same_bytes(opts, tmp_path):
    """The hooks read guest memory from the host memory under it (their copy of the mappings, cut
    where that changes): strings crossing from one mapping into another on different host memory
    (a 2 MiB slab edge, private/shared, a memfd mapped twice), ending before a hole, a PROT_NONE
    or a write-only page, wild pointers, and a forked child's own copy."""
    traces = _three_traces([built("printfmaps")], opts, tmp_path)
    _assert_same(traces)
    if opts == ["-f"]:
        text = traces["compiled"].decode()
        for line in ('printf("slab edge %s|%.14s|%.3s\\n", "CCCCCCCCCCCCDDDDDDDDD", "CCCCCCCDDDDDDD", "CDD") = 51',
                     'printf("format %s %d across the edge\\n", "x", 3) = 27',
                     'printf("%s\\n", "CCfowritten across the edge") = 28',
                     '"PPPPPPSSSSSSSSSSSSSS", "SSSQQQQQ") = 56',
                     'printf("shared then private %s\\n", "TTTTUUUU") = 29',
                     'snprintf("via snprintf beef", 32, "%s %x", "via snprintf", 0xbeef) = 17',
                     'printf("[%.4s] [%.3s]\\n", 0x',
                     '"", "", "", "") = 17',
                     'printf("%s %s\\n", "child\'s copy", "CCCCCCfowkid") = 26',
                     '"parent\'s copy", "CCCCCCfowritten across the edge", "child wrote 1") = 60'):
            assert line in text, line


@needs_native
def test_freshcalls_same_bytes(tmp_path):
    _assert_same(_three_traces([built("freshcalls"), "40"], [], tmp_path))


_CONF = """
int printf(format);
int snprintf(+string2,ulong,format);
int vdprintf(int, vformat, addr);
int asprintf(+string*, format);
int scanf(sformat);
double dprintf_d(format);
int fmt_hex(hex(int), format);
int fmt_bounded(string[3], format);
int fmt_long(long, long, long, long, long, long, long, format);
"""


@needs_native
def test_which_prototypes_the_hooks_render():
    protos = parse_conf(_CONF)
    got = {name: printf_spec(p) is not None for name, p in protos.items()}
    assert got == {"printf": True, "snprintf": True, "vdprintf": True, "asprintf": False, "scanf": False,
                   "dprintf_d": False, "fmt_hex": False, "fmt_bounded": True, "fmt_long": False}
    vformat, idx, split, fixed = printf_spec(protos["snprintf"])
    assert (vformat, idx, split) == (0, 2, 0)
    assert fixed[0] == (native.PF_STR, 8, native.PF_LIM_ARG, 1)        # +string2: bounded by argument 2


@needs_native
@pytest.mark.parametrize("prog", ["printfs", "freshcalls"])
def test_the_store_joins_lines_as_python_does(prog, tmp_path, monkeypatch):
    """The lines leaf_run makes of printf-family leaf calls (PrintfLeaf) are those decode's Python
    path makes from the store's texts as lists (PrintfSite._line_of)."""
    from emutrace.printflog import PrintfSite
    joined, lists = tmp_path / "joined", tmp_path / "lists"
    argv = [built(prog)] + (["300"] if prog == "freshcalls" else [])
    _run_in_process(["-o", str(joined), *argv])
    monkeypatch.setattr(PrintfSite, "native_leaf", lambda self, gl: None)      # decode's Python path
    monkeypatch.setattr(PrintfSite, "_line", PrintfSite._line_of)
    _run_in_process(["-o", str(lists), *argv])
    assert joined.read_bytes() == lists.read_bytes()


@needs_native
@pytest.mark.parametrize("prefix, suffix", [("printf(", "\n"), ("pr\u00eftf(", "\n"), ("printf(", " <\u00e9>\n"),
                                            ("a_display_name_longer_than_the_alignment(", "")])
@pytest.mark.parametrize("rax", [0, 17, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0x1234500000007])
def test_take_line_of_a_call_without_texts(prefix, suffix, rax):
    """take_line builds the line in one string when the prefix and suffix are ASCII and joins
    them to it otherwise; both as PrintfSite._line_of has it (here for a sequence number with no
    texts: the call's arguments shown as none)."""
    from emutrace.machine.abi import result_at
    from emutrace.printflog import _IntReturn
    from emutrace.values import LEAF_COLUMN
    store = native.PrintfStore()
    want = result_at(prefix + ")", _IntReturn.word(rax, None), LEAF_COLUMN) + suffix
    assert store.take_line(987654, prefix, rax, suffix, LEAF_COLUMN) == want


@needs_native
def test_freshcalls_runs_stay_in_c(tmp_path, monkeypatch):
    """freshcalls' leaf calls, snprintf's and mbstowcs's included, are rendered by leaf_run: only
    a pair at the end of a ring's read (leaf_run needs the next record's tag) goes to Python."""
    n = 2000
    by_c = {"snprintf": 0, "mbstowcs": 0, "all": 0}
    leaf_run = native.leaf_run

    def counting(data, off, top, sites, suffix, lines):
        before = len(lines)
        got = leaf_run(data, off, top, sites, suffix, lines)
        for line in (line for text in lines[before:] for line in text.splitlines()):
            by_c["all"] += 1
            name = line.split("(", 1)[0]
            if name in by_c:
                by_c[name] += 1
        return got

    monkeypatch.setattr(native, "leaf_run", counting)
    out = tmp_path / "t"
    _run_in_process(["-o", str(out), built("freshcalls"), str(n)])
    text = out.read_text()
    assert text.count("snprintf(") == text.count("mbstowcs(") == n
    # (a few hundred rings' worth of records: at most a pair or two each left to Python)
    assert by_c["snprintf"] > n * 0.95 and by_c["mbstowcs"] > n * 0.95 and by_c["all"] > 8 * n * 0.95, by_c
