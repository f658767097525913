#!/usr/bin/env python3
"""strace's own test suite, run with emutrace `--strace` as the tracer (issue 39).

    python3 bench/strace_suite.py [--sample | --tests NAME,...] [--jobs N] [--timeout 60]
                                  [--cache DIR] [--git URL|PATH] [--results FILE] [--strace CMD]

It obtains a pinned strace snapshot, builds the suite's test programs (only the programs; strace
itself is never built) and runs each selected `tests/NAME.gen.test` as the suite judges itself
(`tests/run.sh`: `timeout -s XCPU 60`, stdin /dev/null) with `$STRACE` set to emutrace. It prints
one line per test and the pass count, and writes `NAME<TAB>pass|fail|skip|timeout<TAB>why` lines
to --results (default: CACHE/results.tsv).

Which tests: the "simple and inject" ones (the `.gen.test` files whose body is
`run_strace_match_diff` or `run_strace ... match_diff`: 756 at the pinned snapshot, of which a
native strace built from it passes 620; the rest skip themselves, exit 77). `--sample` runs a
fixed sample (SAMPLE below) that needs only its own programs built: CI and the pytest suite use it.

The snapshot: strace v7.2-3-g3e4d70a5e (commit PIN), the one issue 39 was measured on. Its tests
follow its bundled kernel headers (linux 6.18-era uapi), not the host's: constants such as
MADV_GUARD_INSTALL and TCP_AO_* exist there, and emutrace's decoders follow that ABI.
--git names the repository to clone (default https://github.com/strace/strace.git, or
$EMUTRACE_STRACE_GIT: a local mirror works). Nothing is written into the emutrace tree: the
checkout and the build live in --cache (default $EMUTRACE_STRACE_CACHE or
~/.cache/emutrace/strace-suite). Needs git, gcc, make, autoconf, automake, libtool (Debian:
`apt-get install autoconf automake libtool`).

Exit status: 0 when every selected test passed or skipped, 1 when some failed, 2 when the
snapshot could not be obtained or built (the message says why).
"""
from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
PIN = "3e4d70a5e497dc924fba50766f1dc31081c7a59b"          # v7.2-3-g3e4d70a5e
DEFAULT_GIT = "https://github.com/strace/strace.git"

# A fixed sample: a few tests from each of the suite's big groups (file, memory, process, signal,
# network, -a/-X/-v/-y/-x/-f options, fault injection), chosen to pass and to run in about a minute.
SAMPLE = (
    "access", "chdir", "chmod", "close_range", "dev--decode-fds-path", "dev-yy", "dup", "dup2",
    "epoll_create1", "fchmod", "fsync-y", "getcwd", "getgroups", "getrandom", "ioprio-Xabbrev", "kill",
    # issue 39's second round: -v structures, -f -o prefixes, (deleted), socket options, -X, tails
    "fstat-Xverbose", "fork-f", "fchmod-y", "ip_protocol", "mount-Xraw", "sol_tipc-group_join",
    "utimensat-Xverbose", "clone3-success",
)


class SetupError(Exception):
    pass


def _run(cmd: List[str], cwd: Path, log: Path, what: str) -> None:
    with open(log, "ab") as f:
        f.write(("$ " + " ".join(cmd) + "\n").encode())
        f.flush()
        r = subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT)
    if r.returncode:
        raise SetupError(f"{what} failed (exit {r.returncode}); see {log}")


def obtain(cache: Path, git: str, log: Path) -> Path:
    """The pinned checkout under cache/src (cloned once, then checked out at PIN)."""
    src = cache / "src"
    if not (src / ".git").exists():
        if shutil.which("git") is None:
            raise SetupError("git is not installed")
        cache.mkdir(parents=True, exist_ok=True)
        os.environ.setdefault("GIT_TERMINAL_PROMPT", "0")      # (never wait for a password)
        _run(["git", "clone", "-q", "--no-checkout", git, str(src)], cache, log, f"git clone {git}")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=src, capture_output=True, text=True).stdout.strip()
    if head != PIN:
        _run(["git", "checkout", "-q", "-f", PIN], src, log, f"git checkout {PIN}")
        (src / ".emutrace-configured").unlink(missing_ok=True)
    return src


def configure(src: Path, log: Path) -> None:
    """bootstrap + configure, once per checkout (mpers off: only the native x86-64 tests)."""
    stamp = src / ".emutrace-configured"
    if stamp.exists():
        return
    for tool in ("autoreconf", "automake", "libtoolize", "make", "gcc"):
        if shutil.which(tool) is None:
            raise SetupError(f"{tool} is not installed (apt-get install autoconf automake libtool gcc make)")
    _run(["./bootstrap"], src, log, "bootstrap")
    _run(["./configure", "--enable-mpers=no", "--disable-dependency-tracking"], src, log, "configure")
    stamp.write_text(PIN + "\n")


def build(src: Path, log: Path, names: Optional[List[str]], jobs: int) -> None:
    """The test programs: every check program, or only libtests.a and those the names need."""
    tests = src / "tests"
    if names is None:
        _run(["make", f"-j{jobs}", "check", "TESTS="], tests, log, "make check TESTS=")
        return
    missing = [n for n in names if not (tests / n).exists()]
    if missing:
        _run(["make", f"-j{jobs}", "libtests.a", *missing], tests, log, "make " + " ".join(missing))


_BODY = re.compile(r"^(run_strace_match_diff|run_strace )", re.M)


def simple_tests(tests: Path) -> List[str]:
    """The suite's simple and inject tests (see the module's docstring)."""
    names = []
    for p in sorted(tests.glob("*.gen.test")):
        if _BODY.search(p.read_text(errors="replace")):
            names.append(p.name[:-len(".gen.test")])
    return names


def wrapper(cache: Path, strace_cmd: Optional[str]) -> str:
    """The $STRACE the tests run: a one-word script that starts this tree's emutrace --strace."""
    if strace_cmd:
        return strace_cmd
    # One script per tree: several worktrees may share one cache, and a run must never start
    # another tree's emutrace halfway through.
    tag = hashlib.blake2b(str(ROOT).encode(), digest_size=4).hexdigest()
    path = cache / f"emutrace-strace-{tag}"
    text = (f"#!/bin/sh\nPYTHONPATH={ROOT}${{PYTHONPATH:+:$PYTHONPATH}} "
            f"exec {sys.executable} -m emutrace --strace \"$@\"\n")
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
        path.chmod(0o755)
    return str(path)


def _why(output: str) -> str:
    """The first line that says why a test failed (the suite's 'failed test:' line, else a diff
    line or an emutrace: line)."""
    lines = output.splitlines()
    for ln in lines:
        if "Traceback" in ln or ln.startswith("emutrace: unknown") or ln.startswith("emutrace: invalid"):
            return ln.strip()[:200]
    for ln in lines:
        if (ln.startswith("-") or ln.startswith("+")) and not ln.startswith(("---", "+++")):
            return ln.strip()[:200]
    for ln in lines:
        if "failed test:" in ln:
            return ln.split("failed test:", 1)[1].strip()[:200]
    return (lines[-1].strip() if lines else "")[:200]


def run_one(tests: Path, name: str, strace: str, timeout: int) -> Tuple[str, str, str, float]:
    # (what the suite's Makefile passes each test: AM_TEST_LOG_FLAGS, for x86-64)
    env = dict(os.environ, STRACE=strace, TIMEOUT_DURATION=str(timeout), srcdir=".",
               STRACE_ARCH="x86_64", STRACE_NATIVE_ARCH="x86_64", SIZEOF_KERNEL_LONG_T="8",
               SIZEOF_LONG="8", MIPS_ABI="")
    t0 = time.monotonic()
    try:
        r = subprocess.run(["sh", "./run.sh", f"./{name}.gen.test"], cwd=tests, env=env,
                           stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout + 30)
        out = (r.stdout + r.stderr).decode(errors="replace")
        rc = r.returncode
    except subprocess.TimeoutExpired as e:
        out = ((e.stdout or b"") + (e.stderr or b"")).decode(errors="replace")
        rc = 124
    dt = time.monotonic() - t0
    if rc == 0:
        res = "pass"
    elif rc == 77:
        res = "skip"
    elif rc in (124, 152) or "time limit" in out:      # 152: killed by XCPU (128+24)
        res = "timeout"
    else:
        res = "fail"
    shutil.rmtree(tests / f"{name}.dir", ignore_errors=True)
    (tests.parent.parent / "logs").mkdir(exist_ok=True)
    (tests.parent.parent / "logs" / f"{name}.log").write_text(out)
    return name, res, "" if res in ("pass", "skip") else _why(out), dt


_SIGNALS = {134: "SIGABRT", 135: "SIGBUS", 136: "SIGFPE", 137: "SIGKILL", 139: "SIGSEGV", 142: "SIGALRM"}
_NOT_IMPLEMENTED = re.compile(r"^emutrace: system call (\w+) \(\d+\) is not implemented", re.M)


def why(result: str, first: str, log: str) -> str:
    """The group a failing test falls in, from its log: what stopped it, or what differs."""
    if result == "timeout":
        return "time limit: the test waits for CPU-time clocks or a signal that never comes"
    if "Traceback" in log:
        return "emutrace ended in a Python traceback"
    code = re.search(r"failed with code (\d+)", log)
    if code:
        rc = int(code.group(1))
        head = (log.splitlines() or [""])[0].strip()[:90].replace("|", "\\|")
        if rc == 77:
            return f"the guest skips itself (a call it probes fails): `{head}`"
        if rc in _SIGNALS:
            return f"the guest dies by {_SIGNALS[rc]}: `{head}`"
        if "the program cannot continue" in log:       # (emutrace's own stop, status 125)
            return f"emutrace stops the guest, which would wait forever: `{head}`"
        return f"the guest's own check fails (exit {rc}): `{head}`"
    missing = _NOT_IMPLEMENTED.findall(log)
    if first.startswith("-") and "(INJECTED)" in first:
        return "decoding differs on an injected call (its structures)"
    if missing:
        return f"decoding differs on a call emutrace does not implement ({', '.join(sorted(set(missing)))})"
    if first.startswith("+"):
        return "emutrace prints a line strace does not"
    return "decoding differs"


def markdown(results: Path) -> int:
    """The failing tests of a results file, one table row each: the test, why it fails (from its
    log in the logs directory beside the results), and the first line where the trace differs."""
    rows = [ln.split("\t") for ln in results.read_text().splitlines() if ln.count("\t") == 2]
    bad = [(n, r, w) for n, r, w in rows if r in ("fail", "timeout")]
    runnable = sum(1 for _, r, _ in rows if r != "skip")
    print(f"{runnable - len(bad)} of {runnable} runnable tests pass ({len(rows)} run).\n")
    print("| test | result | why | first difference (- expected, + emutrace) |")
    print("|---|---|---|---|")
    logs = results.parent / "logs"
    for n, r, w in bad:
        try:
            log = (logs / f"{n}.log").read_text(errors="replace")
        except OSError:
            log = ""
        reason = why(r, w, log)
        w = re.sub(r"\S*emutrace-strace(?:-[0-9a-f]+)?|\S*strace-wrap", "$STRACE", w).replace("|", "\\|")
        w = "" if "failed with code" in w else f"`{w[:140]}`"
        print(f"| {n} | {r} | {reason} | {w} |")
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", default=os.environ.get("EMUTRACE_STRACE_CACHE")
                    or os.path.expanduser("~/.cache/emutrace/strace-suite"))
    ap.add_argument("--git", default=os.environ.get("EMUTRACE_STRACE_GIT") or DEFAULT_GIT)
    ap.add_argument("--sample", action="store_true", help="only the fixed sample")
    ap.add_argument("--tests", help="comma-separated test names (default: every simple test)")
    ap.add_argument("--match", help="only tests whose name matches this regular expression")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--results", help="the per-test result file (default CACHE/results.tsv)")
    ap.add_argument("--strace", help="the tracer command (default: this tree's emutrace --strace)")
    ap.add_argument("--build-only", action="store_true")
    ap.add_argument("-q", "--quiet", action="store_true", help="no per-test lines")
    ap.add_argument("--markdown", metavar="RESULTS", help="print a results file's failures as a "
                    "markdown table (docs/strace-suite.md) and exit")
    a = ap.parse_args(argv)
    if a.markdown:
        return markdown(Path(a.markdown))

    cache = Path(a.cache).expanduser().resolve()
    cache.mkdir(parents=True, exist_ok=True)
    log = cache / "build.log"
    names: Optional[List[str]] = None
    if a.sample:
        names = list(SAMPLE)
    elif a.tests:
        names = [n for n in a.tests.split(",") if n]
    try:
        src = obtain(cache, a.git, log)
        configure(src, log)
        build(src, log, names, a.jobs)
    except SetupError as e:
        print(f"strace_suite: {e}", file=sys.stderr)
        return 2
    tests = src / "tests"
    if names is None:
        names = simple_tests(tests)
    if a.match:
        names = [n for n in names if re.search(a.match, n)]
    if a.build_only:
        print(f"built {len(names)} tests in {tests}")
        return 0
    strace = wrapper(cache, a.strace)
    results: Dict[str, Tuple[str, str, float]] = {}
    t0 = time.monotonic()
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        for name, res, why, dt in ex.map(lambda n: run_one(tests, n, strace, a.timeout), names):
            results[name] = (res, why, dt)
            if not a.quiet:
                print(f"{res:7s} {name:32s} {dt:5.1f}s {why}", flush=True)
    out = Path(a.results) if a.results else cache / "results.tsv"
    with open(out, "w") as f:
        for name in sorted(results):
            res, why, dt = results[name]
            f.write(f"{name}\t{res}\t{why}\n")
    count = {k: sum(1 for r in results.values() if r[0] == k) for k in ("pass", "fail", "timeout", "skip")}
    runnable = len(results) - count["skip"]
    print(f"strace suite @ {PIN[:10]}: {count['pass']} of {runnable} runnable tests pass "
          f"({count['fail']} fail, {count['timeout']} time out, {count['skip']} skip themselves; "
          f"{len(results)} run in {time.monotonic() - t0:.0f} s); results in {out}")
    return 0 if count["fail"] == count["timeout"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
