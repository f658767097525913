"""The test programs in bins/ build in every variant that applies, the
variants really are what they claim to be, and the programs run natively
as intended (so any difference under emutrace is emutrace's fault).

Builds are cached in bins/out/, so only the first run is slow.
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest

import bins.build as B
from bins.build import PROGRAMS, VARIANTS, BuildError, BuildUnavailable, build

ROOT = Path(__file__).resolve().parent.parent


def get(prog, variant="pie", **kw):
    try:
        return build(prog, variant, **kw)
    except BuildUnavailable as e:
        pytest.skip(str(e))


def run(exe, *args, cwd=None, input=None, timeout=30, env=None):
    return subprocess.run([str(exe)] + [str(a) for a in args], input=input,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          cwd=cwd, timeout=timeout, env=env)


def readelf(*args):
    return subprocess.run(["readelf", "-W"] + [str(a) for a in args],
                          stdout=subprocess.PIPE, universal_newlines=True,
                          check=True, env=dict(os.environ, LC_ALL="C")).stdout


def objdump_d(exe):
    return subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(exe)],
                          stdout=subprocess.PIPE, universal_newlines=True,
                          check=True).stdout


def elf_type(exe):
    return re.search(r"Type:\s+(\w+)", readelf("-h", exe)).group(1)


def has_interp(exe):
    return "INTERP" in readelf("-l", exe)


def dynsyms(exe):
    """Names in .dynsym (version suffixes removed)."""
    return set(re.findall(r"^\s*\d+:.*\s(\w+)(?:@\S*)?(?: \(\d+\))?$",
                          readelf("--dyn-syms", exe), re.M))


def variants_of(prog):
    return PROGRAMS[prog]["variants"]


needs_binutils = pytest.mark.skipif(not (shutil.which("readelf") and shutil.which("objdump")),
                                    reason="needs binutils (readelf, objdump)")

# ---------------------------------------------------------------------------
# build.py API


def test_api_shape():
    assert VARIANTS == ("pie", "nopie", "znow", "zlazy", "ibt", "fnoplt", "static",
                        "static-pie", "musl-static", "pg", "plain", "stripped", "g", "pg-g", "o2g", "v0", "v1")
    for name, meta in PROGRAMS.items():
        assert meta["lang"] in ("c", "c++", "asm")
        assert set(meta["variants"]) <= set(VARIANTS), name
        assert B.source_of(name).exists()
    assert "musl-static" not in variants_of("cxx")
    assert variants_of("demo") == ("pie", "nopie")
    assert issubclass(BuildUnavailable, Exception)


def test_unavailable():
    with pytest.raises(BuildUnavailable, match="musl"):
        build("cxx", "musl-static")
    with pytest.raises(BuildUnavailable):
        build("demo", "static")
    with pytest.raises(BuildUnavailable):
        build("no-such-program")
    with pytest.raises(BuildUnavailable):
        build("strings", "no-such-variant")


def test_missing_compiler_is_unavailable(monkeypatch):
    real_which = shutil.which
    monkeypatch.setattr(B.shutil, "which",
                        lambda name, *a, **k: None if name == "musl-gcc" else real_which(name, *a, **k))
    with pytest.raises(BuildUnavailable, match="musl-gcc"):
        build("hello", "musl-static")
    assert not B.available("hello", "musl-static")
    assert B.available("hello", "pie")


def test_build_is_cached():
    exe = get("qsort", "pie")
    m = exe.stat().st_mtime_ns
    assert build("qsort", "pie") == exe
    assert exe.stat().st_mtime_ns == m
    assert exe == ROOT / "bins" / "out" / "pie" / "qsort"


def test_concurrent_builds(tmp_path):
    """Several builders racing for the same output all succeed."""
    defines = {"EMUTRACE_RACE": uuid.uuid4().hex[:8]}
    results, errors = [], []

    def worker():
        try:
            results.append(build("qsort", "nopie", defines=defines))
        except Exception as e:      # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        assert len(set(results)) == 1
        out = results[0]
        assert "EMUTRACE_RACE=" in out.parent.name
        assert run(out).stdout.startswith(b"0: alpha\n")
        assert [p.name for p in out.parent.iterdir()] == ["qsort"]   # no temp files left
    finally:
        shutil.rmtree(B.out_dir("nopie", defines), ignore_errors=True)


def test_cli(tmp_path):
    script = ROOT / "bins" / "build.py"
    p = subprocess.run([sys.executable, str(script), "qsort", "pie", "nopie"],
                       stdout=subprocess.PIPE, universal_newlines=True, check=True)
    assert p.stdout.split() == [str(ROOT / "bins/out/pie/qsort"), str(ROOT / "bins/out/nopie/qsort")]
    p = subprocess.run([sys.executable, str(script), "--list"],
                       stdout=subprocess.PIPE, universal_newlines=True, check=True)
    assert re.search(r"^demo\s+c\s+pie nopie$", p.stdout, re.M)


# ---------------------------------------------------------------------------
# the variants are what they claim


@needs_binutils
@pytest.mark.parametrize("variant", [v for v in VARIANTS if v not in ("v0", "v1")])
def test_variant_properties(variant):
    exe = get("strings", variant)
    etype = elf_type(exe)
    dyn = readelf("-d", exe)
    relocs = readelf("-r", exe)
    sections = readelf("-S", exe)
    static = variant in ("static", "static-pie", "musl-static")
    assert has_interp(exe) != static
    if static:
        assert "NEEDED" not in dyn
    else:
        assert "Shared library: [libc.so.6]" in dyn
    if variant in ("nopie", "static", "musl-static"):
        assert etype == "EXEC"
    else:
        assert etype == "DYN"
    if variant == "static-pie":
        assert "(DYNAMIC)" not in dyn or "PIE" in dyn

    bind_now = bool(re.search(r"BIND_NOW|Flags:.*\bNOW\b", dyn))
    assert bind_now == (variant in ("znow", "ibt"))

    assert (".symtab" in sections) == (variant != "stripped")
    if variant == "stripped":
        return                  # no symbols: nothing more to look at
    main_code = objdump_d(exe).split("<main>:", 1)[1].split("\n\n", 1)[0]
    if variant == "ibt":
        assert ".plt.sec" in sections
        assert main_code.lstrip().split("\n", 1)[0].rstrip().endswith("endbr64")
    else:
        assert ".plt.sec" not in sections
    if variant == "fnoplt":
        assert "R_X86_64_JUMP_SLOT" not in relocs
        assert re.search(r"call\s+\*0x[0-9a-f]+\(%rip\)", main_code)
        assert "@plt>" not in main_code
    elif not static:
        assert "R_X86_64_JUMP_SLOT" in relocs
        assert "@plt>" in main_code
    if variant == "zlazy":
        assert re.search(r"call\s+[0-9a-f]+ <puts@plt>", main_code)

    if variant == "pg":
        assert "mcount" in readelf("--dyn-syms", exe)
        assert "mcount" in main_code
    else:
        assert "mcount" not in main_code
    if variant in ("pg", "plain"):
        # -O0 keeps the frame pointer set-up
        assert re.search(r"push\s+%rbp", main_code)


@needs_binutils
def test_diffprog_v0_v1_differ_in_one_call():
    syms = {}
    for v in ("v0", "v1"):
        exe = get("diffprog", v)
        syms[v] = dynsyms(exe)
    assert syms["v0"] - syms["v1"] == {"strcmp"}
    assert syms["v1"] - syms["v0"] == {"strncmp"}
    out = {v: run(get("diffprog", v)).stdout.decode() for v in ("v0", "v1")}
    assert out["v0"] == "diffprog start\nlen = 6\ncompare = -1\ndiffprog end\n"
    assert out["v1"] == out["v0"].replace("compare = -1", "compare = 0")


def test_defines_parameter():
    exe = get("diffprog", "pie", defines={"VARIANT": 1})
    assert exe.parent == B.out_dir("pie", {"VARIANT": 1})
    assert exe.parent.name == "pie+VARIANT=1"
    assert "compare = 0\n" in run(exe).stdout.decode()


# ---------------------------------------------------------------------------
# the demo: no libc at all

DEMO_OUT = """\
hello from the demo
2 + 3 = 5
strlen("emutrace") = 8
itoa(-1234567) = -1234567
apply(square, 7) = 49
add_ptr(40, 2) = 42
name(3) = three
version: libdemo 1.0
counter = 8
bye
"""


@pytest.mark.parametrize("variant", variants_of("demo"))
def test_demo_runs(variant, tmp_path):
    exe = get("demo", variant)
    p = run(exe, cwd=tmp_path)
    assert p.returncode == 0
    assert p.stdout.decode() == DEMO_OUT
    assert p.stderr == b""


@needs_binutils
@pytest.mark.parametrize("variant", variants_of("demo"))
def test_demo_elf(variant):
    exe = get("demo", variant)
    lib = exe.parent / "libdemo.so"
    assert lib == get("libdemo", variant)

    dyn = readelf("-d", exe)
    assert re.findall(r"\(NEEDED\).*\[(.*)\]", dyn) == ["libdemo.so"]
    assert re.search(r"\((RUNPATH|RPATH)\).*\[\$ORIGIN\]", dyn)
    assert has_interp(exe)
    assert elf_type(exe) == ("EXEC" if variant == "nopie" else "DYN")
    relocs = readelf("-r", exe)
    assert "R_X86_64_JUMP_SLOT" in relocs
    if variant == "nopie":
        assert re.search(r"R_X86_64_COPY .* demo_counter", relocs)
    else:
        assert re.search(r"R_X86_64_GLOB_DAT .* demo_add", relocs)
    code = objdump_d(exe)
    assert "<_start>:" in code and re.search(r"\ssyscall\b", code)
    assert "__libc_start_main" not in readelf("--dyn-syms", exe)

    ldyn = readelf("-d", lib)
    assert "NEEDED" not in ldyn          # in particular, no libc.so.6
    assert re.search(r"\(SONAME\).*\[libdemo.so\]", ldyn)
    lrel = readelf("-r", lib)
    assert "R_X86_64_RELATIVE" in lrel
    assert re.search(r"R_X86_64_GLOB_DAT .* demo_counter", lrel)
    assert re.search(r"R_X86_64_JUMP_SLOT .* demo_strlen", lrel)
    syms = readelf("--dyn-syms", lib)
    for name in ("demo_strlen", "demo_puts", "demo_add", "demo_itoa", "demo_apply",
                 "demo_name", "demo_counter", "demo_version"):
        assert re.search(r"GLOBAL\s+DEFAULT\s+\d+ %s$" % name, syms, re.M), name


def test_prebuilt(tmp_path):
    pre = ROOT / "bins" / "prebuilt"
    for name in ("demo", "libdemo.so", "hello-static"):
        assert (pre / name).stat().st_size < 64 * 1024, name
    # copy elsewhere: the demo must find its library through $ORIGIN
    for name in ("demo", "libdemo.so"):
        shutil.copy2(pre / name, tmp_path / name)
    p = run(tmp_path / "demo", cwd="/")
    assert (p.returncode, p.stdout.decode()) == (0, DEMO_OUT)
    p = run(pre / "hello-static")
    assert (p.returncode, p.stdout) == (0, b"hello, world\n")
    if shutil.which("readelf"):
        assert not has_interp(pre / "hello-static")
        assert elf_type(pre / "hello-static") == "EXEC"
        assert ".symtab" not in readelf("-S", pre / "demo")


# ---------------------------------------------------------------------------
# programs in every variant

STRINGS_OUT = """\
strlen("the quick brown fox") = 19
strcpy+strcat = "hello, world"
strcmp(abc, abd) = -1
strncmp(abcdef, abcxyz, 3) = 0
strchr(o) = "own fox"
strrchr(o) = "ox"
strstr(brown) = "brown fox"
strstr(cat) = NULL
memset = "xxxxxxxx"
memcpy = "ABCDxxxx"
memcmp = -1
toupper('q') = Q
snprintf = "42-x-003.1" (10)
snprintf truncated = "truncat" (16)
sprintf = "ff/10/1.234500e+03"
atoi("  -123xyz") = -123
strtol("0x1fz", 16) = 31 rest="z"
The quick brown fox
strings done
"""


@pytest.mark.parametrize("variant", variants_of("strings"))
def test_strings(variant, tmp_path):
    p = run(get("strings", variant), cwd=tmp_path)
    assert p.returncode == 0
    assert p.stdout.decode() == STRINGS_OUT


FILES_OUT = """\
mkdir ok
write = 12
lseek(6, SET) = 6
read = 5 "world"
lseek(0, END) = 12
fstat size = 12 regular = 1
stat size = 12 mode = 644
lstat link: symlink = 1 size = 5
stat link: regular = 1 size = 12
readlink = 5 "a.txt"
access(b.txt, R_OK) = 0
access(a.txt, F_OK) = -1 ENOENT
stat dangling link = -1 ENOENT
open O_EXCL again = -1 EEXIST
entries (4): b.txt c.txt d link
rmdir non-empty = -1 ENOTEMPTY
cleaned up
"""


@pytest.mark.parametrize("variant", variants_of("files"))
def test_files(variant, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    umask = os.umask(0o022)
    os.umask(umask)
    p = run(get("files", variant), work, cwd=tmp_path)
    assert p.returncode == 0, p.stdout
    assert p.stdout.decode() == FILES_OUT.replace("mode = 644", "mode = %o" % (0o644 & ~umask))
    assert list(work.iterdir()) == []
    # default directory is "."
    p = run(get("files", variant), cwd=work)
    assert p.returncode == 0 and p.stdout.decode().endswith("cleaned up\n")
    assert [f.name for f in work.iterdir()] in ([], ["gmon.out"])   # pg writes gmon.out


SIGNAL_OUT = """\
raise: count1=1 signo=10 code=-6 (SI_TKILL)
kill: count2=1 signo=12
blocked: pending=1 count1=1
unblocked: count1=2 signo=10 code=0 (SI_USER)
pending after = 0
signal done
"""


@pytest.mark.parametrize("variant", variants_of("signal"))
def test_signal(variant, tmp_path):
    p = run(get("signal", variant), cwd=tmp_path)
    assert p.returncode == 0
    assert p.stdout.decode() == SIGNAL_OUT


@pytest.mark.parametrize("variant", variants_of("crash"))
def test_crash(variant, tmp_path):
    exe = get("crash", variant)
    p = run(exe, cwd=tmp_path)
    assert p.returncode == -signal.SIGSEGV
    assert p.stdout == b"before crash\n"


def test_crash_shell_status(tmp_path):
    exe = get("crash", "pie")
    p = subprocess.run(["sh", "-c", '"$0" 2>/dev/null; echo "status=$?"', str(exe)],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=tmp_path)
    assert p.stdout.decode().endswith("status=139\n")


CXX_OUT = """\
sorted: apple banana cherry fig pear
apple=5
banana=6
cherry=6
fig=3
pear=4
Hello, C++ (10 chars)
unwind level3
unwind level2
unwind level1
caught runtime_error: too deep: 3
caught invalid_argument from stoi
caught out_of_range from vector::at
rect area 6
square area 16
cxx done
"""


@pytest.mark.parametrize("variant", variants_of("cxx"))
def test_cxx(variant, tmp_path):
    p = run(get("cxx", variant), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.decode() == CXX_OUT


JMP_OUT = """\
setjmp returned 0, going deep
inner depth 1
inner depth 2
inner depth 3
longjmp back with 30
escaped from qsort comparator with 99 after 3 compares
sigsetjmp 0, SIGUSR1 blocked = 1
siglongjmp back with 7, SIGUSR1 blocked = 0
jmp done
"""


@pytest.mark.parametrize("variant", variants_of("jmp"))
def test_jmp(variant, tmp_path):
    p = run(get("jmp", variant), cwd=tmp_path)
    assert p.returncode == 0
    assert p.stdout.decode() == JMP_OUT


PROTOS_OUT = (
    b'tab\there "quoted" caf\xc3\xa9 byte\xff nl\\n\n'
    b'line1\nline2\t"q"|\x01\x7f\n'
    b"This string is definitely longer than forty characters, to test truncation.\n"
    b"open missing = -1 errno=ENOENT\n"
    b"open create ok = 1\n"
    b"write = 5\n"
    b"unlink = 0\n"
    b'strtol("456", NULL, 10) = 456\n'
    b'strtol("123abc", &end, 10) = 123 end="abc"\n'
    b"pipe = 0\n"
    b"pipe write = 3\n"
    b'pipe read = 3 "xyz"\n'
    b"sscanf = 2 num=17 word=apples\n"
    b"qsort = 1 3 5 7 9\n"
    b"atexit = 0\n"
    b"signal handler got 10\n"
    b"-42 42 -1234567890123 1234567890123 beef Z str NIL 3.500000 1.235e+04 %\n"
    b"memcpy = abcdef\n"
    b"strncpy = hello\n"
    b"abs(-5) = 5\n"
    b"labs(-1234567890123) = 1234567890123\n"
    b"toupper('a') = A\n"
    b"isdigit('7') = 1\n"
    b"getenv = (null)\n"
    b"atexit handler ran\n"
)


@pytest.mark.parametrize("variant", variants_of("protos"))
def test_protos(variant, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "EMUTRACE_TEST_UNSET"}
    p = run(get("protos", variant), tmp_path, cwd=tmp_path, env=env)
    assert p.returncode == 0
    nil = b"0" if variant == "musl-static" else b"(nil)"       # printf("%p", NULL)
    assert p.stdout == PROTOS_OUT.replace(b"NIL", nil)
    assert list(tmp_path.iterdir()) == [] or variant == "pg"   # pg leaves gmon.out


@pytest.mark.parametrize("prog", ["strings", "files", "signal", "cxx", "jmp", "protos",
                                  "qsort", "forkwait", "threads", "system"])
def test_stdout_is_repeatable(prog, tmp_path):
    exe = get(prog)
    args = [tmp_path] if prog in ("files", "protos") else []
    outs = {run(exe, *args, cwd=tmp_path).stdout for _ in range(2)}
    assert len(outs) == 1


# ---------------------------------------------------------------------------
# the other programs


def test_qsort():
    p = run(get("qsort"))
    assert p.returncode == 0
    assert p.stdout.decode() == ("0: alpha\n1: bravo\n2: charlie\n3: delta\n"
                                 "4: echo\n5: foxtrot\n")


def test_determinism_varies():
    exe = get("determinism")
    a, b = (run(exe).stdout.decode() for _ in range(2))
    keys = ["realtime", "monotonic", "time", "gettimeofday", "pid", "getrandom result",
            "getrandom", "urandom", "malloc", "stack", "rand", "nodename"]
    for out in (a, b):
        got = [line.split(" = ")[0] for line in out.splitlines()]
        assert got == keys, out
        assert "getrandom result = 16\n" in out
        assert re.search(r"^getrandom = [0-9a-f]{32}$", out, re.M)
    la, lb = a.splitlines(), b.splitlines()
    assert la[0] != lb[0]                   # realtime (ns)
    assert la[4] != lb[4]                   # pid
    assert la[6] != lb[6] and la[7] != lb[7]   # random bytes


def test_escape(tmp_path):
    (tmp_path / "f.txt").write_text("first line\nsecond line\n")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x").write_text("")
    p = run(get("escape"), "f.txt", "d", "missing", "f.txt/x", cwd=tmp_path)
    assert p.returncode == 0
    assert p.stdout.decode() == (
        "f.txt: first line\n"
        "f.txt: opendir: ENOTDIR\n"
        "d: EISDIR\n"
        "d: opendir: 3 entries\n"
        "missing: ENOENT\n"
        "missing: opendir: ENOENT\n"
        "f.txt/x: ENOTDIR\n"
        "f.txt/x: opendir: ENOTDIR\n")


def test_escape_symlink(tmp_path):
    target = tmp_path / "target.txt"
    target.write_text("through the link\n")
    linkdir = tmp_path / "a" / "b"
    linkdir.mkdir(parents=True)
    rel = str(target).lstrip("/")
    p = run(get("escape_symlink"), linkdir, rel)
    assert p.returncode == 0
    lines = p.stdout.decode().splitlines()
    assert lines[0] == "symlink abs -> /: ok"
    assert lines[1] == "abs/%s: through the link" % rel
    assert lines[2].startswith("symlink rel -> ../") and lines[2].endswith(": ok")
    if len(linkdir.parts) - 1 <= lines[2].count(".."):
        assert lines[3] == "rel/%s: through the link" % rel
    assert list(linkdir.iterdir()) == []        # links removed


def test_writer(tmp_path):
    f, d = tmp_path / "out.txt", tmp_path / "newdir"
    p = run(get("writer"), f, str(d) + "/", "/nonexistent-dir/x")
    assert p.returncode == 0
    assert p.stdout.decode() == (
        f"write {f}: ok\nwrite {d}/: ok\nwrite /nonexistent-dir/x: ENOENT\n"
        f"read {f}: written by writer: {f}\nread {d}/: directory\n"
        f"read /nonexistent-dir/x: ENOENT\n")
    assert f.read_text() == f"written by writer: {f}\n"
    assert d.is_dir()


def _free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_sock_closed_port():
    port = _free_port()
    p = run(get("sock"), port)
    assert p.returncode == 1
    assert p.stdout.decode() == f"socket: ok\nconnect 127.0.0.1:{port}: ECONNREFUSED\n"


def test_sock_local_listener():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    srv.settimeout(10)
    port = srv.getsockname()[1]
    got = []

    def accept():
        conn, _ = srv.accept()
        with conn:
            got.append(conn.makefile("rb").read())

    t = threading.Thread(target=accept)
    t.start()
    try:
        p = run(get("sock"), port)
    finally:
        t.join(10)
        srv.close()
    assert p.returncode == 0
    assert p.stdout.decode() == f"socket: ok\nconnect 127.0.0.1:{port}: ok\nsend = 16\n"
    assert got == [b"hello from sock\n"]


def test_spin_never_ends():
    with pytest.raises(subprocess.TimeoutExpired):
        run(get("spin"), timeout=0.3)


@pytest.mark.parametrize("variant", ["pie", "musl-static"])
def test_membomb_with_cap(variant):
    p = run(get("membomb", variant), 4)
    assert p.returncode == 2
    assert p.stdout == b"allocated 4 MiB\n"


@pytest.mark.parametrize("variant", ["pie", "static", "musl-static"])
@pytest.mark.parametrize("n", [1, 2, 8])
def test_threads(variant, n):
    p = run(get("threads", variant), n)
    assert p.returncode == 0
    assert p.stdout.decode() == f"total = {n * 1000}\nall {n} threads done\n"


def test_threads_default():
    assert run(get("threads")).stdout.decode() == "total = 2000\nall 2 threads done\n"


@pytest.mark.parametrize("variant", ["pie", "static", "musl-static"])
def test_forkwait(variant):
    p = run(get("forkwait", variant))
    assert p.returncode == 0
    assert p.stdout.decode() == ("parent start\nchild\nchild exited with 3\n"
                                 "vfork child exited with 4\n")


@pytest.mark.parametrize("variant", ["pie", "musl-static"])
def test_system(variant):
    p = run(get("system", variant))
    assert p.returncode == 0
    assert p.stdout.decode() == (
        "hello from system\nsystem returned 0 (exit status 0)\n"
        "popen: one\npopen: two\npclose returned 0 (exit status 0)\n")


@pytest.mark.parametrize("variant", ["pie", "musl-static"])
def test_sigs(variant):
    p = run(get("sigs", variant), timeout=10)
    assert p.returncode == 0
    assert p.stdout.decode() == (
        "SIGUSR1: si_signo=10 si_code=-6\n"
        "recovered from SIGSEGV (si_code=1 si_addr=0x10)\n"
        "alarm\nafter pause\n")


def test_getenv_time():
    import time
    exe = get("getenv_time")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/home/emutrace"}
    before = int(time.time())
    out = run(exe, env=env).stdout.decode()
    after = int(time.time())
    m = re.fullmatch(r"HOME=/home/emutrace\ntime=(\d+)\n", out)
    # time() reads the coarse clock, which may lag time.time() across a second boundary
    assert m and before - 1 <= int(m.group(1)) <= after
    del env["HOME"]
    assert run(exe, env=env).stdout.decode().startswith("HOME=(null)\n")


@pytest.mark.parametrize("variant", ["plain", "pg"])
def test_fib(variant, tmp_path):
    exe = get("fib", variant)
    assert run(exe, cwd=tmp_path).stdout == b"fib(10) = 55\n"
    assert run(exe, 15, cwd=tmp_path).stdout == b"fib(15) = 610\n"


@needs_binutils
def test_fib_symbols():
    syms = readelf("-s", get("fib", "plain"))
    for name in ("fib", "leaf", "main"):
        assert re.search(r"FUNC\s+GLOBAL\s+DEFAULT\s+\d+ %s$" % name, syms, re.M)


def test_callloop():
    p = run(get("callloop"), 1000)
    assert (p.returncode, p.stdout) == (0, b"sum = 15000\n")


def test_readloop(tmp_path):
    exe = get("readloop")
    assert run(exe, 100, "/dev/zero").stdout == b"count = 100\n"
    assert run(exe, 100, input=b"12345").stdout == b"count = 5\n"
    p = run(exe, 1, tmp_path / "missing")
    assert p.returncode == 1


@pytest.mark.parametrize("variant", ["pie", "musl-static"])
def test_hello(variant):
    p = run(get("hello", variant))
    assert (p.returncode, p.stdout) == (0, b"hello, world\n")
