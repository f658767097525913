"""Shared helpers: build bins/ programs on demand, run them natively and under emutrace."""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:       # bins/ (the build of the test programs); appended, so an emutrace
    sys.path.append(str(ROOT))      # installed ahead on the path (.ci/arm64's layout) is the one tested

NATIVE_ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root",
              "LANG": "C.UTF-8", "TERM": "dumb"}    # emutrace's fixed default environment (LANG: the
                                                    # root's UTF-8 locale, C.UTF-8 on Debian's root)


def _default_dispositions() -> None:
    """Give the programs the tests start the signal dispositions of an interactive shell's command.

    A suite started in the background of a non-interactive shell (`pytest ... &`, nohup) inherits
    SIGINT and SIGQUIT (or SIGHUP) ignored, and an ignored disposition survives exec: a native
    `sort` then skips its sigaddset for them and ltrace's call sequence differs from the guest's,
    which starts with Linux's defaults as a program started from a terminal does. Python's own
    ignores (SIGPIPE, SIGXFSZ) are reset by subprocess itself (restore_signals)."""
    for sig in (signal.SIGHUP, signal.SIGQUIT, signal.SIGTERM, signal.SIGUSR1, signal.SIGUSR2,
                signal.SIGALRM, signal.SIGCHLD, signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU):
        if signal.getsignal(sig) == signal.SIG_IGN:
            signal.signal(sig, signal.SIG_DFL)
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


_default_dispositions()

# A working directory nothing writes to while the suite runs (one per process: xdist workers each
# have their own). A guest that stats its working directory (python3 -c puts it on sys.path, bash
# checks ".") is shown its mtime, and a mtime later than the virtual clock moves the clock to it
# (the clock never runs behind a time the guest was shown). The suite's own directory changes
# while other tests run beside a test (.hypothesis/, bins/out/), so runs compared for equal bytes
# start here.
STILL_DIR = tempfile.mkdtemp(prefix="emutrace-still-")


def system_program(name: str) -> str:
    """A program of the machine's own, looked up on the guest's fixed PATH, never the host's: a
    host PATH may put a shim first (a pyenv `python3` is a bash script running `pyenv exec`), and
    a test must not depend on what a given machine's PATH holds."""
    path = shutil.which(name, path=NATIVE_ENV["PATH"])
    if path is None:
        pytest.skip(f"no {name} on {NATIVE_ENV['PATH']}")
    return path


def built(prog: str, variant: str = "pie", **kw) -> str:
    """The path of a bins/ program, built on first use; skips the test when it cannot be built."""
    from bins.build import BuildUnavailable, build
    try:
        return str(build(prog, variant, **kw))
    except BuildUnavailable as e:
        pytest.skip(str(e))


def emutrace(args, cwd=None, input=None, timeout=300, env=None):
    """Run `python -m emutrace ARGS`; returns CompletedProcess with bytes stdout/stderr."""
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "emutrace", *args], cwd=cwd, input=input,
                          capture_output=True, timeout=timeout, env=e)


def native(args, cwd=None, input=None, timeout=120):
    return subprocess.run(list(args), cwd=cwd, input=input, capture_output=True, timeout=timeout,
                          env=NATIVE_ENV)


def status_of(proc: subprocess.CompletedProcess) -> int:
    """Exit status as a shell sees it (128 + signal for a killed process)."""
    return 128 - proc.returncode if proc.returncode < 0 else proc.returncode


def have(tool: str) -> bool:
    return shutil.which(tool) is not None


def ptrace_works() -> bool:
    if not have("strace"):
        return False
    r = subprocess.run(["strace", "-o", os.devnull, "true"], capture_output=True)
    return r.returncode == 0


@pytest.fixture
def tmpdir_path(tmp_path):
    return str(tmp_path)


def runs_like_native(prog: str, *options) -> subprocess.CompletedProcess:
    """Run a program natively, then untraced under emutrace (options: emutrace's): it ends with
    status 0 and prints what it printed natively. Returns emutrace's run."""
    n = native([prog])
    e = emutrace(["--no-trace", *options, prog])
    assert e.returncode == 0, e.stderr[-2000:]
    assert e.stdout == n.stdout
    return e


def same_as_native(args, timeout=300):
    """Run natively and under emutrace (untraced): same stdout, same status, nothing on stderr."""
    n = native(args)
    e = emutrace(["--no-trace", *args], timeout=timeout)
    assert e.stderr.decode(errors="replace") == ""
    assert e.stdout == n.stdout
    assert status_of(e) == status_of(n)
    return e


STRACE_PREFIX = re.compile(r"^(\[pid +\d+\] |\d+ +)")     # -f's "[pid N] ", or -o's "N  "
STRACE_PADDING = re.compile(r"\) +=")


def strace_calls(text: str, keep, fold: bool = True) -> list:
    """The lines of a trace in strace's format (emutrace's or strace's own) whose call `keep(line)`
    accepts, without the pid prefix and (fold) with the padding before ' = ' folded to one space."""
    out = []
    for line in text.splitlines():
        line = STRACE_PREFIX.sub("", line)
        if keep(line):
            out.append(STRACE_PADDING.sub(") =", line) if fold else line)
    return out


def strace_both(tmp_path, prog_argv, trace_args, extra=(), run=None):
    """(emutrace's trace, strace's) of the same program with the same strace options: natively
    under `strace ... -o FILE` (run: how to start it, native by default), and under `emutrace
    --strace` (extra: emutrace's own options)."""
    log = tmp_path / "strace.txt"
    (run or native)(["strace", *trace_args, "-o", str(log), *prog_argv])
    e = emutrace(["--strace", *trace_args, *extra, *prog_argv])
    return e.stderr.decode(), log.read_text()
