"""Measuring one run for bench/run.py: the program's wall time, host CPU time and peak RSS (GNU
time when the host has it), its output's hash, a timeout that kills its whole process group, and
the scratch files it leaves; with the environment every measured program gets.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

# The environment every measured program gets (emutrace passes it on with --inherit-env), so
# that native and emulated runs see the same locale, PATH and HOME.
STD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
BENCH_ENV = {"PATH": STD_PATH, "HOME": "/root", "LANG": "C", "LC_ALL": "C", "TERM": "dumb"}

# ----------------------------------------------------------------------------------------------
# Measuring one run


@dataclass
class Run:
    wall: float                 # seconds (the timeout when timed_out)
    rc: Optional[int]           # exit status (negative: killed by that signal)
    maxrss_kb: Optional[int]    # ru_maxrss of the measured process tree (see rss_method)
    timed_out: bool
    stdout_sha: str
    stdout_head: bytes          # first bytes, to show a mismatch
    stderr_tail: str
    trace_bytes: Optional[int]
    cpu: Optional[float] = None  # host CPU seconds (user + system) of the measured process tree


def _find_gnu_time() -> Optional[str]:
    path = shutil.which("time", path=STD_PATH)
    if not path:
        return None
    with tempfile.NamedTemporaryFile() as f:
        p = subprocess.run([path, "-f", "%M", "-o", f.name, "--", "true"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            ok = p.returncode == 0 and int(Path(f.name).read_text().split()[-1]) > 0
        except (ValueError, IndexError):
            ok = False
    return path if ok else None


GNU_TIME = _find_gnu_time()


def rss_method() -> str:
    if GNU_TIME:
        return (f"Peak RSS: GNU time's `%M` ({GNU_TIME} forks the measured command and reports "
                "`ru_maxrss` from `wait4()`): the largest peak resident set of any single process "
                "of the tree (tracer or tracee) that was reaped, not a sum. The few hundred "
                "microseconds GNU time adds are in every tool's wall time alike.")
    return ("Peak RSS: `ru_maxrss` from `wait4()` on the measured process, forked from this "
            "Python process (GNU time not found): the peak survives execve, so every figure has "
            "this benchmark's own RSS as a floor. Install `time` for real figures.")


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _tree_bytes(path: Path) -> Optional[int]:
    if path.is_file():
        return path.stat().st_size
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return None


def _clear(path: Optional[Path]) -> None:
    if path is None:
        return
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    elif path.exists():
        path.unlink()


def measure(argv: Sequence[str], cwd: Path, timeout: float, scratch: Path,
            trace: Optional[Path] = None, env: Optional[Dict[str, str]] = None) -> Run:
    """Run argv once in its own session; whole-process wall time from fork to reaping.
    On timeout the whole process group is killed (a tracer and its tracee alike)."""
    _clear(trace)
    out_path, err_path = scratch / "stdout", scratch / "stderr"
    rusage = scratch / "rusage"
    _clear(rusage)
    cmd = list(argv)
    if GNU_TIME:
        # A fork of this Python process would carry its RSS into ru_maxrss (the peak survives
        # execve), so let GNU time, a small program, fork the measured process and report it.
        cmd = [GNU_TIME, "-f", "%M", "-o", str(rusage), "--"] + cmd
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                cwd=str(cwd), env=env if env is not None else BENCH_ENV,
                                start_new_session=True)
        fired = threading.Event()

        def on_timeout() -> None:
            fired.set()
            _kill_group(proc.pid)

        timer = threading.Timer(timeout, on_timeout)
        timer.daemon = True
        timer.start()
        while True:
            try:
                _pid, status, ru = os.wait4(proc.pid, 0)
                break
            except InterruptedError:
                continue
        wall = time.perf_counter() - t0
        timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)     # keep Popen from waiting again
    _kill_group(proc.pid)                   # leftovers (an orphaned tracee, a daemon child)
    timed_out = fired.is_set()
    maxrss: Optional[int] = ru.ru_maxrss
    if GNU_TIME:
        maxrss = None
        try:
            maxrss = int(rusage.read_text().split()[-1])
        except (OSError, ValueError, IndexError):
            pass                        # killed on timeout: GNU time died with its child
    data = out_path.read_bytes()
    err_text = err_path.read_bytes().decode("utf-8", "replace").strip().splitlines()
    return Run(wall=timeout if timed_out else wall, rc=proc.returncode, maxrss_kb=maxrss,
               timed_out=timed_out, stdout_sha=hashlib.sha256(data).hexdigest(),
               stdout_head=data[:4096], stderr_tail=err_text[-1] if err_text else "",
               trace_bytes=_tree_bytes(trace) if trace is not None else None,
               cpu=ru.ru_utime + ru.ru_stime)
