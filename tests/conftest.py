"""Shared helpers: build bins/ programs on demand, run them natively and under emutrace."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:       # bins/ (the build of the test programs); appended, so an emutrace
    sys.path.append(str(ROOT))      # installed ahead on the path (.ci/arm64's layout) is the one tested

NATIVE_ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root",
              "LANG": "C", "TERM": "dumb"}          # emutrace's fixed default environment


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


def same_as_native(args, timeout=300):
    """Run natively and under emutrace (untraced): same stdout, same status, nothing on stderr."""
    n = native(args)
    e = emutrace(["--no-trace", *args], timeout=timeout)
    assert e.stderr.decode(errors="replace") == ""
    assert e.stdout == n.stdout
    assert status_of(e) == status_of(n)
    return e
