"""Process churn leaves host memory flat: what a guest process holds on the host (its engine and
translation buffer, the host memory under its pages, its Python objects) returns when it exits or
execs, so a shell loop of thousands of fork+exit and fork+exec ends where it began
(docs/processes.md). Measured inside one run: the guest stops at the 100th iteration and at the
last, and this test reads the emutrace process's resident set at each stop before letting it go
on; the figure must grow by less than GROWTH_MAX in between. Without the fix every fork or exec
kept ~5.5 MB (900 fork+exec reached 5 GB)."""
import os
import subprocess
import sys

import pytest

MiB = 1 << 20
GROWTH_MAX = 50 * MiB
FIRST = 100                 # the iteration of the first measurement


def loop(count: int) -> str:
    """A shell loop: each iteration a fork+exit (a subshell) and a fork+exec (/bin/true); at the
    FIRST iteration and the last the guest says where it is and waits for a line on stdin."""
    return (f"i=0; while [ $i -lt {count} ]; do (:); /bin/true; i=$((i+1)); "
            f"case $i in {FIRST}|{count}) echo $i; read x;; esac; done; echo done")


def vm_rss(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def churn(count: int, opts, env=None, timeout=900):
    """(RSS at the FIRST iteration, RSS at the last) of emutrace OPTS sh -c loop(count)."""
    e = dict(os.environ, **(env or {}))
    p = subprocess.Popen([sys.executable, "-m", "emutrace", *opts, "sh", "-c", loop(count)],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e)
    marks = []
    try:
        for want in (FIRST, count):
            line = p.stdout.readline()
            assert line == f"{want}\n".encode(), (line, p.stderr.read()[-2000:] if not line else b"")
            marks.append(vm_rss(p.pid))
            p.stdin.write(b"\n")
            p.stdin.flush()
        out, err = p.communicate(timeout=timeout)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 0, err.decode()[-2000:]
    assert out == b"done\n"
    return marks


def check_flat(count, opts, env=None):
    first, last = churn(count, opts, env)
    grown = last - first
    print(f"churn {count} {opts}: {first / MiB:.1f} -> {last / MiB:.1f} MiB")
    assert grown < GROWTH_MAX, (f"host RSS grew {grown / MiB:.1f} MiB from iteration {FIRST} to {count} "
                                f"({first / MiB:.0f} -> {last / MiB:.0f} MiB)")
    return grown


# Iterations (each a fork+exit and a fork+exec). The issue asks for 2,000; at today's speed
# (~100 ms an iteration untraced, ~170 ms with --report, on this shared machine: docs/processes.md)
# that is 3-6 minutes a run, more than this suite can spend, so the suite runs 600 untraced and
# 250 for the traced, reported and pure-Python runs, and EMUTRACE_CHURN_COUNT=2000 runs the
# issue's figure (docs/processes.md has its result). A leak of the old size (~5.5 MB a fork or
# exec) crosses GROWTH_MAX within 5 iterations; one of 100 KB a process within the 150 measured.
COUNT = int(os.environ.get("EMUTRACE_CHURN_COUNT", 600))
VARIANT_COUNT = int(os.environ.get("EMUTRACE_CHURN_COUNT", 250))


def test_churn_untraced_stays_flat():
    check_flat(COUNT, ["--no-trace"])


def test_churn_traced_stays_flat(tmp_path):
    check_flat(VARIANT_COUNT, ["-f", "--strace", "-o", str(tmp_path / "trace")])
    assert (tmp_path / "trace").stat().st_size > 0


def test_churn_report_stays_flat(tmp_path):
    check_flat(VARIANT_COUNT, ["--no-trace", "--report", str(tmp_path / "report.json")])


def test_churn_pure_path_stays_flat():
    check_flat(VARIANT_COUNT, ["--no-trace"], env={"EMUTRACE_PURE": "1"})


def test_engines_are_closed_as_processes_end():
    """The Python API's view of the same: every engine but the first process's is closed by the
    end of the run, and a closed engine's machine holds nothing (uc_close ran)."""
    from emutrace.session import Run
    s = Run(["sh", "-c", "for i in 1 2 3 4 5; do (:); /bin/true; done"])
    s.start()
    s.run()
    engines = s.kernel.engines
    # the first exec, 5 forks, 5 vfork+execs: each on a new engine or a pooled one (engines.py)
    assert engines.made + engines.reused >= 11
    assert not engines.pool
    assert engines.live == 1, (engines.made, engines.closed)
    assert s.processes[0].aspace is not None and not s.processes[0].aspace.closed
