"""The compiled event path and the pure-Python one print the same bytes.

Each program runs twice, as is and with EMUTRACE_PURE=1, and both runs' stdout, stderr (where
the trace goes) and exit status must be identical: bins/ programs in every layout in ltrace's
text (what the compiled renderer serves) and, in the default layout, in jsonl, --strace and -c;
real programs (ls -l, sort, python3 -c pass) in all four. Also: --version names the path, and a
missing extension falls back with one line on stderr."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, built
from emutrace.machine.native import native

MODES = {"text": [], "jsonl": ["--format", "jsonl"], "strace": ["--strace"], "summary": ["-c"]}
LAYOUTS = ["nopie", "znow", "zlazy", "ibt", "fnoplt", "static", "static-pie", "musl-static", "plain",
           "stripped"]
# programs with many logged calls of every argument kind, and the ones with unusual control flow
PROGRAMS = ["strings", "protos", "qsort", "cxx", "jmp", "calllog", "callloop", "threads", "signal", "crash",
            "determinism", "forkwait", "sigs", "fib"]
MODE_PROGRAMS = ["strings", "protos", "cxx", "threads", "forkwait"]      # (jsonl, --strace, -c)
LAYOUT_PROGRAMS = ["strings", "protos", "cxx", "calllog"]


def run_both(args, cwd=None, input=None, timeout=300, stdin=None, trace_dir=None):
    """(compiled, pure) (stdout, stderr, status) of `python -m emutrace ARGS`, run side by side;
    stdin: a file each run opens for itself (one shared open file would be read by both).
    With trace_dir, the trace goes to a file there (returned as stderr) and the program's stdout
    and stderr to /dev/null: host pipes leak their identities into a trace (fstat(2) shows the
    pipe's inode), which would make two runs differ whatever the path."""
    procs = []
    for pure in ("0", "1"):
        env = dict(os.environ, EMUTRACE_PURE=pure)
        extra, out = [], subprocess.PIPE
        if trace_dir is not None:
            extra, out = ["-o", os.path.join(trace_dir, f"trace-{pure}")], subprocess.DEVNULL
        fin = open(stdin, "rb") if stdin is not None else subprocess.PIPE
        procs.append(subprocess.Popen([sys.executable, "-m", "emutrace", *extra, *args], cwd=cwd, env=env,
                                      stdin=fin, stdout=out, stderr=out))
        if stdin is not None:
            fin.close()                 # (the child has its own copy)
    results = []
    for pure, p in zip(("0", "1"), procs):
        so, se = p.communicate(input, timeout=timeout)
        if trace_dir is not None:
            with open(os.path.join(trace_dir, f"trace-{pure}"), "rb") as f:
                se = f.read()
        results.append((so, se, p.returncode))
    return results


def assert_same(args, **kw):
    compiled, pure = run_both(args, **kw)
    assert compiled[2] == pure[2], (compiled[1][-2000:], pure[1][-2000:])
    assert compiled[0] == pure[0]
    assert compiled[1] == pure[1]
    return compiled


needs_native = pytest.mark.skipif(native is None, reason="the compiled event path is not built")


@needs_native
@pytest.mark.parametrize("prog,mode", [(p, "text") for p in PROGRAMS] +
                         [(p, m) for m in MODES if m != "text" for p in MODE_PROGRAMS])
def test_bins_same_bytes_both_paths(prog, mode, tmp_path):
    path = built(prog, "pie")
    assert_same([*MODES[mode], path], cwd=str(tmp_path))


@needs_native
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("prog", LAYOUT_PROGRAMS)
def test_bins_in_every_layout_same_text_both_paths(prog, layout, tmp_path):
    from bins.build import BuildError
    try:
        path = built(prog, layout)
    except BuildError as e:             # (calllog needs execinfo.h, which musl lacks)
        pytest.skip(str(e).splitlines()[0])
    assert_same([path], cwd=str(tmp_path))


@needs_native
@pytest.mark.parametrize("prog,variant,mode", [("dwargs", "g", []), ("dwargs", "o2g", ["--format", "jsonl"]),
                                               ("dwargs_cxx", "g", ["-C"]), ("dwlibc", "g", []),
                                               ("dwwide", "g", []), ("dwwide", "o2g", ["--format", "jsonl"])])
def test_ftrace_arguments_same_bytes_both_paths(prog, variant, mode, tmp_path):
    """--ftrace -a (issue 38): arguments and returns from DWARF, library calls typed from it."""
    assert_same(["--ftrace", "-a", *mode, built(prog, variant)], cwd=str(tmp_path))


@needs_native
def test_library_calls_typed_from_dwarf_same_bytes_both_paths(tmp_path):
    """ltrace's default mode: libc functions the database lacks typed from libc6-dbg's DWARF
    (issue 38), kept on the hooked path beside the guest log."""
    assert_same([built("dwlibc", "g")], cwd=str(tmp_path))


REAL = {"ls": ["/bin/ls", "-l", "/usr/share"], "sort": ["/usr/bin/sort"],
        "python3": ["/usr/bin/python3", "-c", "pass"]}


@pytest.mark.slow
@needs_native
@pytest.mark.parametrize("opts", [["-a20", "-Xverbose", "-xx"], ["-yy", "-e", "read=3", "-qq"],
                                  ["-n", "-e", "signal=none", "-Xraw", "-x"], ["-e", "write=1", "-a50"]])
def test_strace_options_same_bytes_both_paths(opts, tmp_path):
    """strace's options of issue 39 (-a, -X, -x, -yy, -e read=/write=, -n, -qq) print the same
    bytes on both event paths."""
    cat = shutil.which("cat", path="/usr/bin:/bin")
    if cat is None:
        pytest.skip("no cat")
    assert_same(["--strace", *opts, cat, "/etc/hostname"], trace_dir=str(tmp_path))


@needs_native
@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("prog", list(REAL))
def test_real_programs_same_bytes_both_paths(prog, mode, tmp_path):
    args = REAL[prog]
    if not os.path.exists(args[0]):
        pytest.skip(f"{args[0]} is not installed")
    lines = tmp_path / "lines.txt"
    lines.write_bytes(b"".join(b"line %d %s\n" % (i * 7919 % 1000, b"x" * (i % 13)) for i in range(2000)))
    assert_same([*MODES[mode], *args], stdin=str(lines), timeout=900, trace_dir=str(tmp_path))


@needs_native
def test_the_compiled_path_renders_the_lines():
    """Not a vacuous comparison: with the extension, most of a call loop's lines come from it."""
    script = ("import sys, runpy, emutrace.machine.native as n\n"
              "run = n.native.leaf_run; got = [0]\n"
              "def count(data, off, top, sites, suffix, lines):\n"
              "    r = run(data, off, top, sites, suffix, lines); got[0] += r[1]\n"
              "    print('rendered', got[0], file=sys.stderr); return r\n"      # (emutrace ends with _exit)
              "n.native.leaf_run = count\n"
              "sys.argv = ['emutrace', '-o', sys.argv[1], sys.argv[2], '500']\n"
              "runpy.run_module('emutrace', run_name='__main__')\n")
    out = os.path.join(str(ROOT), "bins", "out", "native-count.txt")
    r = subprocess.run([sys.executable, "-c", script, out, built("callloop", "pie")], capture_output=True,
                       cwd=str(ROOT))
    rendered = int(r.stderr.decode().rsplit("rendered", 1)[1])
    lines = open(out).read().count("\n")
    os.unlink(out)
    assert lines >= 2000 and rendered >= 1990, (rendered, lines)


def test_version_names_the_event_path():
    for pure, want in (("1", b"event path: pure Python (EMUTRACE_PURE=1)\n"),
                       ("0", b"event path: compiled (emutrace.machine._native)\n" if native is not None else b"pure Python")):
        r = subprocess.run([sys.executable, "-m", "emutrace", "--version"], capture_output=True,
                           env=dict(os.environ, EMUTRACE_PURE=pure))
        assert r.returncode == 0 and want in r.stdout, r.stdout
        assert r.stderr == b"" or native is None


def test_missing_extension_falls_back_with_one_line(tmp_path):
    """No compiler at install (or a broken module): one line on stderr, the trace as the pure
    path prints it, no traceback."""
    block = ("import sys, importlib.abc\n"
             "class NoNative(importlib.abc.MetaPathFinder):\n"
             "    def find_spec(self, name, path, target=None):\n"
             "        if name == 'emutrace.machine._native':\n"
             "            raise ImportError('No module named emutrace.machine._native')\n"
             "sys.meta_path.insert(0, NoNative())\n"
             "import runpy; sys.argv = ['emutrace'] + sys.argv[1:]\n"
             "runpy.run_module('emutrace', run_name='__main__')\n")
    prog = built("strings", "pie")
    r = subprocess.run([sys.executable, "-c", block, prog], capture_output=True, cwd=str(tmp_path),
                       env=dict(os.environ, EMUTRACE_PURE="0"))
    pure = subprocess.run([sys.executable, "-m", "emutrace", prog], capture_output=True, cwd=str(tmp_path),
                          env=dict(os.environ, EMUTRACE_PURE="1"))
    first, rest = r.stderr.split(b"\n", 1)
    assert first.startswith(b"emutrace: the compiled event path is not available (")
    assert first.endswith(b"); running pure Python")
    assert b"Traceback" not in r.stderr
    assert rest == pure.stderr and r.stdout == pure.stdout and r.returncode == pure.returncode == 0


def test_a_stale_extension_is_not_used(tmp_path):
    """A module built from another version of the C code (its ABI differs) falls back too."""
    fake = tmp_path / "emutrace"
    shutil.copytree(ROOT / "emutrace", fake, ignore=shutil.ignore_patterns("_native*", "__pycache__"))
    (fake / "machine" / "_native.py").write_text("ABI_VERSION = -1\n")
    r = subprocess.run([sys.executable, "-c", "import emutrace.machine.native as n; print(n.PATH)"],
                       capture_output=True, cwd=str(tmp_path), env=dict(os.environ, EMUTRACE_PURE="0",
                                                                         PYTHONPATH=str(tmp_path)))
    assert r.stdout == b"pure Python (the compiled event path is stale)\n"
    assert r.stderr.startswith(b"emutrace: the compiled event path is stale (ABI -1, expected ")
    assert r.stderr.count(b"\n") == 1


@needs_native
def test_an_oom_kill_is_the_same_on_both_paths(tmp_path):
    """A first write to MAP_NORESERVE memory past --max-mem ends the process with SIGKILL
    (docs/processes.md): the same system calls, the same ending, the same bytes on both paths."""
    out = assert_same(["--strace", "--max-mem", "64M", built("oomtouch")], cwd=str(tmp_path),
                      trace_dir=str(tmp_path))
    assert out[2] == -9 or out[2] == 137, out[2]
    assert out[1].rstrip().endswith(b"+++ killed by SIGKILL +++"), out[1][-300:]


@needs_native
@pytest.mark.parametrize("prog,variant,mode", [("costs", "plain", ["-c"]), ("fib", "pie", ["-T"])])
def test_ftrace_times_same_bytes_both_paths(prog, variant, mode, tmp_path):
    """--ftrace's times, read exactly at each function's entry and return (World.elapsed_at: the
    running block counted up to the hook's address, by either path's counter)."""
    assert_same(["--ftrace", *mode, built(prog, variant)], cwd=str(tmp_path))
