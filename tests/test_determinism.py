"""A run is a pure function of its inputs: same program, same options → same bytes, whatever the
host's time, time zone or environment."""
import time

import pytest

from conftest import STILL_DIR, built, emutrace


def twice(args, cwd=STILL_DIR, **kw):
    a = emutrace(args, cwd=cwd, env={"TZ": "UTC", "EMUTRACE_NOISE": "one", **kw.get("env1", {})})
    time.sleep(1.1)
    b = emutrace(args, cwd=cwd, env={"TZ": "Asia/Kolkata", "EMUTRACE_NOISE": "two", "LANG": "de_DE.UTF-8",
                                     **kw.get("env2", {})})
    return a, b


def test_clock_pid_random_malloc_identical(tmp_path):
    prog = built("determinism", "pie")
    ta, tb = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a = emutrace(["-S", "--format", "jsonl", "-o", str(ta), prog], env={"TZ": "UTC"})
    time.sleep(1.1)
    b = emutrace(["-S", "--format", "jsonl", "-o", str(tb), prog], env={"TZ": "America/New_York", "X": "y"})
    assert a.returncode == b.returncode == 0, a.stderr
    assert a.stdout == b.stdout
    assert ta.read_bytes() == tb.read_bytes()
    assert b"getrandom" in ta.read_bytes() and b'"type":"call"' in ta.read_bytes()


def test_seed_changes_randomness_and_clock_moves_time():
    prog = built("determinism", "pie")
    a = emutrace(["--no-trace", prog])
    b = emutrace(["--no-trace", "--seed", "7", prog])
    # a clock before the files the program is shown would step forward to them: start after them
    c = emutrace(["--no-trace", "--clock", "4102444800", prog])
    assert a.stdout != b.stdout
    assert a.stdout != c.stdout


def test_python_random_is_deterministic(tmp_path):
    # python3 -c searches its working directory ('' on sys.path) first, and a directory's mtime
    # later than the virtual clock moves the clock to it (the clock never runs behind a time the
    # guest was shown): run both in a directory nothing else changes, not the suite's own, which
    # other tests running beside this one write into
    args = ["--no-trace", "/usr/bin/python3", "-c", "import random, os, time; print(random.random(), os.urandom(4).hex(), time.time())"]
    a, b = twice(args, cwd=tmp_path)
    assert a.returncode == 0 and a.stdout == b.stdout


@pytest.mark.slow
def test_ls_l_trace_identical(tmp_path):
    for i in range(3):
        (tmp_path / f"f{i}").write_text("x")
    args = ["-S", "--format", "jsonl", "/bin/ls", "-l", str(tmp_path)]
    a, b = twice(args)
    assert a.returncode == 0
    assert a.stdout == b.stdout and a.stderr == b.stderr


def test_environment_is_fixed_unless_asked():
    a = emutrace(["--no-trace", "/usr/bin/env"], env={"SECRET_HOST_VAR": "1"})
    assert b"SECRET_HOST_VAR" not in a.stdout
    assert a.stdout == b"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\nHOME=/root\nLANG=C.UTF-8\nTERM=dumb\n"
    b = emutrace(["--no-trace", "--env", "A=b", "/usr/bin/env"])
    assert b.stdout.endswith(b"A=b\n")
    c = emutrace(["--no-trace", "--inherit-env", "/usr/bin/env"], env={"SECRET_HOST_VAR": "1"})
    assert b"SECRET_HOST_VAR=1" in c.stdout
