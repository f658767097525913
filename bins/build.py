#!/usr/bin/env python3
"""Build the emutrace test programs.

Library use (the repository root must be on sys.path)::

    from bins.build import build, BuildUnavailable, BuildError, PROGRAMS, VARIANTS
    exe = build("strings", "nopie")          # -> bins/out/nopie/strings
    exe = build("diffprog", "v1")            # -> pie build with -DVARIANT=1
    exe = build("fib", "pg", defines={"N": 20})   # -> bins/out/pg+N=20/fib

``build(prog, variant="pie", defines=None)`` compiles ``bins/<prog>.c``
(``.cpp``, ``.S``) into ``bins/out/<variant>/<prog>`` and returns the path.
It only rebuilds when a source file (or this script) is newer than the output,
and it is safe to call from several processes at once (each builds into a
temporary name and then ``os.replace``\\ s it into place).

``defines`` (a mapping NAME -> value, value None meaning a bare ``-DNAME``)
adds ``-D`` options; such builds go to ``bins/out/<variant>+NAME=VALUE,.../``.
``diffprog`` is meant to be built as variants ``v0`` and ``v1`` (the pie build
with ``-DVARIANT=0`` / ``-DVARIANT=1``).

It raises ``BuildUnavailable`` when the needed tool is missing (g++,
musl-gcc, strip, ...) or the variant does not apply to that program (e.g.
``musl-static`` for C++), so tests can ``pytest.skip``; ``BuildError`` when
the compiler fails for any other reason.

The demo (``demo``) is built against ``libdemo.so``, which is built into the
same output directory (``build("libdemo", variant)`` returns its path), and
finds it through ``-rpath $ORIGIN``.

Command line::

    python3 bins/build.py --all               # every program in every variant
    python3 bins/build.py PROG [VARIANT...]   # default variant: pie
    python3 bins/build.py --list              # programs and their variants
    python3 bins/build.py --prebuilt          # regenerate bins/prebuilt/*
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Tuple

BINS = Path(__file__).resolve().parent
OUT = BINS / "out"
PREBUILT = BINS / "prebuilt"


class BuildUnavailable(Exception):
    """The program/variant cannot be built here (missing tool, or the variant
    does not apply to the program).  Tests should skip."""


class BuildError(RuntimeError):
    """The compiler was there but failed."""


# --------------------------------------------------------------------------
# Variants

# name -> (compiler kind, flags, post-processing)
#   compiler kind: "gnu" (gcc/g++) or "musl" (musl-gcc, C only)
_VARIANT_FLAGS: Dict[str, Tuple[str, Tuple[str, ...], Optional[str]]] = {
    "pie":         ("gnu", ("-O1", "-fPIE", "-pie"), None),
    "nopie":       ("gnu", ("-O1", "-fno-pie", "-no-pie"), None),
    "znow":        ("gnu", ("-O1", "-Wl,-z,now"), None),
    "zlazy":       ("gnu", ("-O1", "-Wl,-z,lazy"), None),
    # Debian's crt*.o carry no IBT property, so ask ld for the IBT PLT
    # (.plt + .plt.sec) explicitly.
    "ibt":         ("gnu", ("-O1", "-fcf-protection=full", "-Wl,-z,now",
                            "-Wl,-z,ibtplt"), None),
    "fnoplt":      ("gnu", ("-O1", "-fno-plt"), None),
    "static":      ("gnu", ("-O1", "-static"), None),
    "static-pie":  ("gnu", ("-O1", "-fPIE", "-static-pie"), None),
    "musl-static": ("musl", ("-O1", "-static"), None),
    "pg":          ("gnu", ("-O0", "-pg"), None),
    "plain":       ("gnu", ("-O0",), None),
    "stripped":    ("gnu", ("-O1", "-fPIE", "-pie"), "strip"),
    # with debug information (issue 38: --ftrace -a against uftrace -pg -g and gdb at -O2)
    "g":           ("gnu", ("-O0", "-g"), None),
    "pg-g":        ("gnu", ("-O0", "-pg", "-g"), None),
    "o2g":         ("gnu", ("-O2", "-g"), None),
    "v0":          ("gnu", ("-O1", "-fPIE", "-pie", "-DVARIANT=0"), None),
    "v1":          ("gnu", ("-O1", "-fPIE", "-pie", "-DVARIANT=1"), None),
}

VARIANTS: Tuple[str, ...] = tuple(_VARIANT_FLAGS)

# the variants that make sense for an ordinary C program
C_VARIANTS: Tuple[str, ...] = (
    "pie", "nopie", "znow", "zlazy", "ibt", "fnoplt", "static", "static-pie",
    "musl-static", "pg", "plain", "stripped",
)
CXX_VARIANTS: Tuple[str, ...] = tuple(v for v in C_VARIANTS if v != "musl-static")

# --------------------------------------------------------------------------
# Programs

# Every C program gets -fno-builtin so that each library call in the source
# is a real call in the binary (gcc would otherwise fold strlen("x"), turn
# printf("x\n") into puts, drop malloc/free pairs, ...).
_C_FLAGS = ("-fno-builtin",)
_NOLIBC_FLAGS = ("-nostdlib", "-ffreestanding", "-fno-stack-protector")


def _p(lang: str, desc: str, variants: Iterable[str] = (), flags: Iterable[str] = (),
       **extra) -> dict:
    if not variants:
        variants = CXX_VARIANTS if lang == "c++" else C_VARIANTS
    meta = {
        "lang": lang,                   # "c", "c++" or "asm"
        "variants": tuple(variants),    # variants that apply
        "flags": tuple(flags),          # extra compiler/linker flags
        "desc": desc,
    }
    meta.update(extra)
    return meta


PROGRAMS: Dict[str, dict] = {
    "demo": _p("c", "no-libc program using libdemo.so (raw syscalls, own _start)",
               ("pie", "nopie"), _NOLIBC_FLAGS, kind="nolibc", needs=("libdemo",)),
    "libdemo": _p("c", "no-libc shared library for the demo (output: libdemo.so)",
                  ("pie", "nopie"), _NOLIBC_FLAGS + ("-fPIC", "-shared",
                                                     "-Wl,-soname,libdemo.so"),
                  kind="shared", output="libdemo.so"),
    "hello": _p("c", "hello world (prebuilt as a musl static binary)", flags=_C_FLAGS),
    "strings": _p("c", "string/stdlib/stdio calls", flags=_C_FLAGS),
    "files": _p("c", "file-system calls in a scratch dir (argv[1])", flags=_C_FLAGS),
    "pathwalk": _p("c", "paths looked up before and after the names under them change; open's flags on "
                        "symlinks (scratch dir argv[1])", flags=_C_FLAGS),
    "signal": _p("c", "sigaction/raise/kill/sigprocmask", flags=_C_FLAGS),
    "crash": _p("c", "prints 'before crash' then SIGSEGV", flags=_C_FLAGS),
    "cxx": _p("c++", "C++ containers, iostream, exceptions, virtual calls"),
    "jmp": _p("c", "setjmp/longjmp, longjmp out of qsort, sigsetjmp", flags=_C_FLAGS),
    "qsort": _p("c", "qsort with a strcmp comparator", flags=_C_FLAGS),
    "protos": _p("c", "every kind of library-call argument", flags=_C_FLAGS),
    "determinism": _p("c", "clocks, ids, randomness, addresses", flags=_C_FLAGS),
    "escape": _p("c", "hostile: reads the paths in argv", flags=_C_FLAGS, hostile=True),
    "escape_symlink": _p("c", "hostile: symlinks to / and ../.. then reads",
                         flags=_C_FLAGS, hostile=True),
    "writer": _p("c", "hostile: writes the paths in argv, reads them back",
                 flags=_C_FLAGS, hostile=True),
    "dropper": _p("c", "hostile: every behaviour of the report (persistence, anti-debugging, ...)",
                  flags=_C_FLAGS, hostile=True),
    "htmlhostile": _p("c", "hostile: markup, script, javascript: URLs, NUL and invalid UTF-8 in every report field",
                      flags=_C_FLAGS, hostile=True),
    "packer": _p("c", "decodes an XOR-packed payload into fresh memory, makes it executable and calls it",
                 flags=_C_FLAGS),
    "sock": _p("c", "hostile: TCP connect to 127.0.0.1:PORT", flags=_C_FLAGS, hostile=True),
    "inetloop": _p("c", "TCP and UDP over 127.0.0.1 and ::1 between processes and threads",
                   flags=_C_FLAGS + ("-pthread",)),
    "timewait": _p("c", "TCP TIME_WAIT on 127.0.0.1: the first closer's port, SO_REUSEADDR, RST; 'wait' sleeps 61 s",
                   flags=_C_FLAGS),
    "reclocks": _p("c", "POSIX, OFD and flock locks between processes, EDEADLK (scratch dir argv[1])",
                   flags=_C_FLAGS),
    "msgtrunc": _p("c", "truncated datagrams: msg_flags MSG_TRUNC and the MSG_TRUNC flag (UDP, AF_UNIX)",
                   flags=_C_FLAGS),
    "sysvipc": _p("c", "SysV shm, semaphores (SEM_UNDO) and message queues between processes",
                  flags=_C_FLAGS),
    "ipcperm": _p("c", "SysV IPC permission checks (mode bits, owner-only IPC_SET/IPC_RMID), as root or not",
                  flags=_C_FLAGS),
    "ipcinfo": _p("c", "SysV IPC_INFO/SHM_INFO/SEM_INFO/MSG_INFO before and after one object of each kind",
                  flags=_C_FLAGS),
    "mqueue": _p("c", "POSIX message queues between processes, priorities, timeouts, mq_notify",
                 flags=_C_FLAGS + ("-lrt",)),
    "mqthread": _p("c", "mq_notify SIGEV_THREAD: the C library's netlink helper thread runs the callback",
                   flags=_C_FLAGS + ("-pthread", "-lrt")),
    "forkstorm": _p("c", "a signal handler forks N children (200), main reaps them", flags=_C_FLAGS),
    "daemonlim": _p("c", "daemon() under RLIMIT_NOFILE 3: its /dev/null gets EMFILE", flags=_C_FLAGS),
    "robustpi": _p("c", "threads die holding robust (and PI) mutexes: EOWNERDEAD",
                   flags=_C_FLAGS + ("-pthread",)),
    "fprem": _p("c", "x87 FPREM/FPREM1 on a 64-bit significand; strtod of a subnormal", flags=_C_FLAGS),
    "spin": _p("c", "hostile: endless loop without syscalls", flags=_C_FLAGS, hostile=True),
    "ttyio": _p("c", "writes and calls in turn: printf, fflush, usleep three times", flags=_C_FLAGS),
    "localeinfo": _p("c", "setlocale(LC_ALL, \"\"), the codeset, mblen and strcoll as the program sees them",
                     flags=_C_FLAGS),
    "avx2": _p("c", "AVX2 (ymm) code from -O3 -march=x86-64-v3: past the CPU model", flags=("-O3", "-march=x86-64-v3")),
    "membomb": _p("c", "hostile: allocates until malloc fails or cap MiB",
                  flags=_C_FLAGS, hostile=True),
    "exhaust": _p("c", "hostile: fills the overlay, pipes, fds, epoll, backlogs, threads, processes",
                  flags=_C_FLAGS + ("-pthread",), hostile=True),
    "forkbomb": _p("c", "hostile: every process forks until fork fails (children too), then reaps",
                   flags=_C_FLAGS, hostile=True),
    "oomtouch": _p("c", "hostile: writes every page of a 4 GiB MAP_NORESERVE reservation",
                   flags=_C_FLAGS, hostile=True),
    "bigio": _p("c", "hostile: readv/writev/sendmsg/vmsplice of 1 GiB through one 1 MiB buffer",
                flags=_C_FLAGS, hostile=True),
    "jobctl": _p("c", "SIGSTOP/SIGTSTP/SIGCONT: wait4 WUNTRACED/WCONTINUED, waitid, SA_NOCLDSTOP",
                 flags=_C_FLAGS),
    "sweep": _p("c", "reads every page of a 4 GiB read-only reservation", flags=_C_FLAGS),
    "stdio_id": _p("c", "prints what it sees of its stdio and of file times against time(0)",
                   flags=_C_FLAGS),
    "threads": _p("c", "N threads, mutex counter, condvar barrier",
                  flags=_C_FLAGS + ("-pthread",)),
    "forkwait": _p("c", "fork/waitpid and vfork/_exit", flags=_C_FLAGS),
    "heldcall": _p("c", "read loop, a handler's calls while sigprocmask is open, a thread reading",
                   flags=_C_FLAGS + ("-pthread",)),
    "system": _p("c", "system() and popen()", flags=_C_FLAGS),
    "sigs": _p("c", "SA_SIGINFO, SIGSEGV recovery, alarm+pause", flags=_C_FLAGS),
    "pages": _p("c", "page permissions, exact fault addresses, code rewritten at run time (JIT)",
                flags=_C_FLAGS),
    "getenv_time": _p("c", "prints HOME and time()", flags=_C_FLAGS),
    "diffprog": _p("c", "two builds differing in one library call (v0/v1)",
                   ("v0", "v1") + C_VARIANTS, _C_FLAGS),
    "fib": _p("c", "recursive fib for function tracing", C_VARIANTS + ("g",), _C_FLAGS),
    "dwargs": _p("c", "every kind of C argument and return value, for --ftrace -a (DWARF)",
                 ("g", "pg-g", "o2g"), _C_FLAGS),
    "dwargs_cxx": _p("c++", "std::string, std::vector and `this` arguments, for --ftrace -a (DWARF)",
                     ("g", "pg-g", "o2g")),
    "dwwide": _p("c", "structures wider than --ftrace -a shows (40, 16, 17 members, unions, bitfields)",
                 ("g", "o2g"), _C_FLAGS),
    "dwwide_cxx": _p("c++", "C++ classes wider than --ftrace -a shows (trivial, with a destructor)", ("g",)),
    "dwlibc": _p("c", "libc calls the prototype database lacks (strfromd, ecvt, argz_count)", ("g",), _C_FLAGS),
    "vdso": _p("c", "the vDSO: clock reads around known work, a spin on the clock, unmapping it",
               flags=_C_FLAGS),
    "spinalarm": _p("c", "spins until a ualarm fires: the work-driven clock reaches it", flags=_C_FLAGS),
    "costs": _p("c", "four functions of known, different costs: profiles must rank them like uftrace",
                flags=_C_FLAGS),
    "gdbprog": _p("c", "gdb server scenarios: a corrupted global, read(2) into a watched buffer, a library call",
                  ("pie", "ibt", "musl-static", "static"), _C_FLAGS + ("-O0", "-g")),
    "calllog": _p("c", "edge cases of calls logged in guest code (page edges, cancel, backtrace)",
                  flags=_C_FLAGS + ("-pthread",)),
    "retcap": _p("c", "values the call log copies at the return: strings as long as the returned value, "
                      "sets of bits, structures in rax:rdx, at mapping edges and wild pointers", flags=_C_FLAGS),
    "strn": _p("c", "stringN arguments (strncpy, stpncpy, strncat, write, pwrite, send, sendto): lengths "
                    "0, short, around the limit, huge, NULL, buffers at a mapping's end", flags=_C_FLAGS),
    "twicejmp": _p("c", "setjmp's family through return stubs: two calls at one stack depth, longjmps; "
                        "an untraced forked child filling rings, a new stub and a copy fault", flags=_C_FLAGS),
    "callloop": _p("c", "N x malloc/strcpy/strlen/free (benchmark)", flags=_C_FLAGS),
    "freshcalls": _p("c", "N x 8 calls with new arguments: snprintf, buffers, wide strings (benchmark)",
                     flags=_C_FLAGS),
    "readloop": _p("c", "N one-byte reads (benchmark)", flags=_C_FLAGS),
    "printfs": _p("c", "the printf family: every conversion, stack and xmm arguments, v* forms, hostile strings",
                  flags=_C_FLAGS),
    "printfmaps": _p("c", "printf strings across mappings on different host memory (slab edge, shared, memfd), "
                          "at unreadable pages, wild pointers, a fork", flags=_C_FLAGS),
    "idcalls": _p("c", "getpid/gettid/getuid... loops between fork, setpgid, threads and a timer",
                  flags=_C_FLAGS + ("-pthread",)),
    "jit": _p("c", "JIT patterns: W^X flips, RWX rewrite, dual-mapped memfd, remap, partial",
              flags=_C_FLAGS),
    "codeio": _p("c", "code arriving by read(2) (pipe, memfd) into W^X, RWX, reused and dual-mapped pages, run",
                 flags=_C_FLAGS),
    "execjit": _p("c", "code rewritten at fixed addresses across exec (RWX, W^X, file-filled, released, same bytes)",
                  flags=_C_FLAGS),
    "mmlimits": _p("c", "2^46 reservations, map/unmap churn, vm.max_map_count",
                   flags=_C_FLAGS),
    "mmchurn": _p("c", "N x reserve/commit/guard/release/unmap (benchmark)", flags=_C_FLAGS),
    "mprot": _p("c", "N x mprotect of 4 KiB in a 1 GiB reservation (benchmark)", flags=_C_FLAGS),
    # what strace's own suite probes (issue 39): each prints what its calls returned, natively the same
    "sockname": _p("c", "AF_UNIX names (accept, getpeername, recvfrom/recvmsg's sender) and int flags "
                   "with high bits set (dup3, pipe2), as strace's suite probes them", flags=_C_FLAGS),
    "pollprobe": _p("c", "poll/ppoll/select as Linux answers them: pipe ends, invalid timeouts, int nfds, "
                    "the time left, pause and nanosleep interrupted by a handler", flags=_C_FLAGS),
    "cloneprobe": _p("c", "clone3's argument checks as Linux makes them (NULL parent_tid, set_tid without "
                     "its size)", flags=_C_FLAGS),
    "pzprobe": _p("c", "what strace's suite (tests p..z) probes: AF_UNIX socket types, sched_* and "
                  "set*id argument checks", ("pie",), _C_FLAGS),
    # kernel objects of event loops (glibc only: they print errno names with strerrorname_np)
    "eventfd": _p("c", "eventfd counter/semaphore, blocking across threads and processes, bad input",
                  ("pie",), _C_FLAGS + ("-pthread",)),
    "timerfd": _p("c", "timerfd one-shot/periodic/ABSTIME, gettime, argv[1] periodic reads",
                  ("pie",), _C_FLAGS),
    "signalfd": _p("c", "signalfd records of kill/tgkill/SIGCHLD, mask updates, bad input",
                   ("pie",), _C_FLAGS),
    "posix_timers": _p("c", "timer_create/settime/gettime/getoverrun/delete, every sigev_notify",
                       ("pie",), _C_FLAGS + ("-pthread",)),
    "inotify": _p("c", "inotify events of a scratch dir (argv[1]) from this process and a child",
                  ("pie",), _C_FLAGS),
    "splice": _p("c", "splice/tee/vmsplice between pipes, files (argv[1] dir) and memory",
                 ("pie",), _C_FLAGS),
    "epoll_events": _p("c", "epoll/select over eventfd, timerfd, signalfd, inotify, pidfd",
                       ("pie",), _C_FLAGS),
}

# --------------------------------------------------------------------------
# Building


def source_of(prog: str) -> Path:
    for ext in (".c", ".cpp", ".S"):
        p = BINS / (prog + ext)
        if p.exists():
            return p
    raise BuildUnavailable(f"no source for {prog!r} in {BINS}")


def _define_args(defines: Optional[Mapping[str, object]]) -> List[str]:
    if not defines:
        return []
    out = []
    for k in sorted(defines):
        v = defines[k]
        out.append(f"-D{k}" if v is None else f"-D{k}={v}")
    return out


def out_dir(variant: str, defines: Optional[Mapping[str, object]] = None) -> Path:
    name = variant
    if defines:
        parts = []
        for k in sorted(defines):
            v = defines[k]
            parts.append(k if v is None else f"{k}={v}")
        name += "+" + ",".join(parts)
        name = "".join(c if c.isalnum() or c in "+=,-_." else "_" for c in name)
    return OUT / name


def _tool(name: str) -> str:
    path = shutil.which(name)
    if not path:
        raise BuildUnavailable(f"{name} not found on PATH")
    return path


def _compiler(lang: str, kind: str) -> str:
    if kind == "musl":
        if lang == "c++":
            raise BuildUnavailable("musl-gcc cannot build C++ programs")
        return _tool("musl-gcc")
    return _tool("g++" if lang == "c++" else "gcc")


def _run(cmd: List[str], what: str) -> None:
    env = dict(os.environ, LC_ALL="C")
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          env=env, universal_newlines=True)
    if proc.returncode != 0:
        msg = f"building {what} failed:\n$ {' '.join(cmd)}\n{proc.stdout}"
        # A toolchain without the needed library (e.g. no static libstdc++)
        # means "cannot build here", not "the program is broken".
        if "cannot find -l" in proc.stdout:
            raise BuildUnavailable(msg)
        raise BuildError(msg)


def _up_to_date(output: Path, inputs: Iterable[Path]) -> bool:
    try:
        out_m = output.stat().st_mtime
    except FileNotFoundError:
        return False
    return all(p.stat().st_mtime <= out_m for p in inputs)


def command(prog: str, variant: str = "pie", output: Optional[Path] = None,
            defines: Optional[Mapping[str, object]] = None) -> List[str]:
    """The compiler command line used for prog/variant (output defaults to
    the final path).  Raises BuildUnavailable like build()."""
    if prog not in PROGRAMS:
        raise BuildUnavailable(f"unknown program {prog!r}")
    if variant not in _VARIANT_FLAGS:
        raise BuildUnavailable(f"unknown variant {variant!r} (known: {', '.join(VARIANTS)})")
    meta = PROGRAMS[prog]
    if variant not in meta["variants"]:
        raise BuildUnavailable(
            f"variant {variant!r} does not apply to {prog!r} "
            f"(applies: {', '.join(meta['variants'])})")
    kind, vflags, _post = _VARIANT_FLAGS[variant]
    lang = meta["lang"]
    cc = _compiler(lang, kind)
    odir = out_dir(variant, defines)
    if output is None:
        output = odir / meta.get("output", prog)
    cmd = [cc]
    if meta.get("kind") == "shared":
        # position-independent shared object whatever the variant
        cmd += ["-O1"]
    else:
        cmd += list(vflags)
    cmd += list(meta["flags"]) + _define_args(defines)
    cmd += ["-o", str(output), str(source_of(prog))]
    for dep in meta.get("needs", ()):
        cmd += [f"-L{odir}", f"-l{dep[3:] if dep.startswith('lib') else dep}"]
    if meta.get("needs"):
        cmd += ["-Wl,-rpath,$ORIGIN"]
    return cmd


def build(prog: str, variant: str = "pie",
          defines: Optional[Mapping[str, object]] = None) -> Path:
    """Build bins/<prog>.{c,cpp,S} as `variant`; return the output path."""
    cmd = command(prog, variant, defines=defines)     # validates everything
    meta = PROGRAMS[prog]
    post = _VARIANT_FLAGS[variant][2]
    if post == "strip":
        strip = _tool("strip")
    odir = out_dir(variant, defines)
    final = odir / meta.get("output", prog)

    inputs = [source_of(prog), Path(__file__).resolve()]
    for dep in meta.get("needs", ()):
        dep_path = build(dep, variant, defines)
        inputs += [source_of(dep), dep_path]
    if _up_to_date(final, inputs):
        return final

    odir.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{final.name}.", suffix=".tmp", dir=odir)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        cmd = command(prog, variant, output=tmp, defines=defines)
        _run(cmd, f"{prog} ({variant})")
        if post == "strip":
            _run([strip, "-s", str(tmp)], f"strip {prog}")
        os.chmod(tmp, 0o755)
        os.replace(tmp, final)
    finally:
        if tmp.exists():
            tmp.unlink()
    return final


def available(prog: str, variant: str = "pie") -> bool:
    """True if build(prog, variant) would not raise BuildUnavailable for a
    missing tool or an inapplicable variant (does not build anything)."""
    try:
        command(prog, variant)
        if _VARIANT_FLAGS[variant][2] == "strip":
            _tool("strip")
        return True
    except BuildUnavailable:
        return False


def build_all(jobs: Optional[int] = None) -> List[Tuple[str, str, object]]:
    """Build everything; returns (prog, variant, Path or exception) triples."""
    from concurrent.futures import ThreadPoolExecutor

    pairs = [(p, v) for p, m in PROGRAMS.items() for v in m["variants"]]
    # libdemo first: the demo links against it
    pairs.sort(key=lambda pv: pv[0] != "libdemo")

    def one(pv):
        try:
            return (pv[0], pv[1], build(*pv))
        except (BuildUnavailable, BuildError) as e:
            return (pv[0], pv[1], e)

    first = [one(pv) for pv in pairs if pv[0] == "libdemo"]
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 2) as ex:
        rest = list(ex.map(one, [pv for pv in pairs if pv[0] != "libdemo"]))
    return first + rest


def build_prebuilt() -> List[Path]:
    """Regenerate bins/prebuilt/{demo,libdemo.so,hello-static} (stripped)."""
    strip = _tool("strip")
    PREBUILT.mkdir(exist_ok=True)
    made = []
    for prog, variant, name in (("libdemo", "pie", "libdemo.so"),
                                ("demo", "pie", "demo"),
                                ("hello", "musl-static", "hello-static")):
        src = build(prog, variant)
        dst = PREBUILT / name
        tmp = PREBUILT / f".{name}.tmp{os.getpid()}"
        shutil.copyfile(src, tmp)
        _run([strip, "-s", str(tmp)], f"strip {name}")
        os.chmod(tmp, 0o755)
        os.replace(tmp, dst)
        made.append(dst)
    return made


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description="Build the emutrace test programs.")
    ap.add_argument("--all", action="store_true", help="build every program in every variant")
    ap.add_argument("--prebuilt", action="store_true",
                    help="regenerate bins/prebuilt/ (demo, libdemo.so, hello-static)")
    ap.add_argument("--list", action="store_true", help="list programs and variants")
    ap.add_argument("-D", dest="defines", action="append", default=[],
                    metavar="NAME[=VALUE]", help="extra -D define (PROG mode)")
    ap.add_argument("prog", nargs="?", help="program name")
    ap.add_argument("variants", nargs="*", help=f"variants (default pie); known: {' '.join(VARIANTS)}")
    args = ap.parse_args(argv)

    if args.list:
        for name, meta in PROGRAMS.items():
            print(f"{name:15} {meta['lang']:4} {' '.join(meta['variants'])}")
        return 0
    status = 0
    if args.prebuilt:
        for p in build_prebuilt():
            print(p)
    if args.all:
        for prog, variant, res in build_all():
            if isinstance(res, Path):
                print(res)
            else:
                kind = "unavailable" if isinstance(res, BuildUnavailable) else "FAILED"
                print(f"{prog} ({variant}): {kind}: {res}", file=sys.stderr)
                if isinstance(res, BuildError):
                    status = 1
    if args.prog:
        defines = {}
        for d in args.defines:
            k, sep, v = d.partition("=")
            defines[k] = v if sep else None
        for variant in args.variants or ["pie"]:
            try:
                print(build(args.prog, variant, defines or None))
            except (BuildUnavailable, BuildError) as e:
                print(f"{args.prog} ({variant}): {e}", file=sys.stderr)
                status = 1
    if not (args.all or args.prog or args.prebuilt):
        ap.print_usage(sys.stderr)
        return 2
    return status


if __name__ == "__main__":
    sys.exit(main())
