"""The Python API (emutrace.api): hooks that stub library calls and deny system calls, events
while the program runs, captured output, counts, errors as emutrace's own exceptions."""
import os
import shutil
import threading

import pytest

import emutrace
from emutrace import api
from emutrace.events import Call, Exit, Return, Syscall

from conftest import built, emutrace as run_cli, system_program


def getenv_time():
    return built("getenv_time", "pie")


def lines(b: bytes):
    return b.decode().splitlines()


# ---------------------------------------------------------------- stubbing library calls

def test_stub_getenv_and_time():
    s = emutrace.Session([getenv_time()], env={"HOME": "/real/home"}, capture_output=True)
    seen = []

    @s.on_call("getenv")
    def fake_home(call):
        seen.append((call.name, call.string_arg(0), call.library, call.args))
        assert call.caller == "getenv_time" and call.return_address
        if call.string_arg(0) == "HOME":
            return "/stubbed/home"          # a new guest string; getenv does not run

    s.on_call("time", lambda call: 1234567)
    r = s.run()
    assert r.ok and r.exit_code == 0
    assert lines(r.stdout) == ["HOME=/stubbed/home", "time=1234567"]
    assert r.stderr == b""
    assert seen == [("getenv", "HOME", "libc.so.6", ['"HOME"'])]
    assert r.calls["getenv"] == 1 and r.calls["time"] == 1 and r.calls["printf"] == 2
    assert r.syscalls["write"] >= 1 and r.syscalls["exit_group"] == 1


@pytest.mark.parametrize("variant", ["nopie", "znow", "fnoplt", "ibt", "static", "static-pie"])
def test_stubs_work_however_the_call_is_made(variant):
    """PLT (lazy or bound, IBT), -fno-plt GOT calls, and static programs' C-library entries."""
    s = emutrace.Session([built("getenv_time", variant)], capture_output=True)
    s.on_call("getenv", lambda call: "/x")
    s.on_call("time", lambda call: 7)
    r = s.run()
    assert lines(r.stdout) == ["HOME=/x", "time=7"] and r.status == 0


def test_hook_that_returns_none_lets_the_call_run():
    # a clock later than every file the program is shown (ld.so fstats its cache and libraries:
    # a later mtime would step the clock forward to it)
    s = emutrace.Session([getenv_time()], env={"HOME": "/real/home"}, capture_output=True, clock=4102444800)
    calls = []
    s.on_call("getenv", lambda call: calls.append(call.name))
    r = s.run()
    assert calls == ["getenv"]
    assert lines(r.stdout)[0] == "HOME=/real/home"
    # the virtual clock starts where it is told and advances by microseconds
    assert lines(r.stdout)[1] == "time=4102444800"


def test_on_return_sees_and_replaces_the_result():
    # a clock later than the files ld.so is shown (an earlier one would step forward to them)
    s = emutrace.Session([getenv_time()], capture_output=True, clock=4102444800)
    got = {}

    @s.on_return("getenv")
    def see(call):
        got["getenv"] = (call.string_return, call.skipped, call.returned)

    s.on_return("time", lambda call: call.signed_return + 5)
    r = s.run()
    assert got["getenv"] == ("/root", False, True)
    assert lines(r.stdout) == ["HOME=/root", "time=4102444805"]


def test_stub_is_seen_by_return_hooks_and_events():
    s = emutrace.Session([getenv_time()], capture_output=True)
    s.on_call("time", lambda call: call.returns(-1))
    after = []
    s.on_return("time", lambda call: after.append((call.skipped, call.signed_return)))
    events = []
    s.on_event(events.append)
    r = s.run()
    assert lines(r.stdout)[1] == "time=-1"
    assert after == [(True, -1)]
    rets = [e for e in events if isinstance(e, Return) and e.name == "time"]
    assert len(rets) == 1 and rets[0].ret == "-1"


def test_patterns_by_glob_and_library():
    s = emutrace.Session([getenv_time()], capture_output=True)
    by_glob, by_lib, other_lib = [], [], []
    s.on_call("get*", lambda c: by_glob.append(c.name))
    s.on_call("/^ti.e$/@libc.so*", lambda c: by_lib.append(c.name))
    s.on_call("time", lambda c: other_lib.append(c.name), library="libm*")
    s.run()
    assert by_glob == ["getenv"] and by_lib == ["time"] and other_lib == []


def test_guest_memory_helpers():
    s = emutrace.Session([getenv_time()], capture_output=True)

    @s.on_call("getenv")
    def check(call):
        m = call.memory
        a = m.alloc_string("abc")
        assert m.read(a, 4) == b"abc\0" and m.read_string(a) == "abc"
        m.write(a, b"xy")
        assert m.read_string(a) == "xyc"
        b = m.alloc(b"\1\2\3\4\5\6\7\x08")
        assert b % 16 == 0 and m.read_u64(b) == 0x0807060504030201
        with pytest.raises(api.GuestMemoryError):
            m.read(0x10, 8)
        call.set_arg(0, "TERM")             # getenv("TERM") runs instead of getenv("HOME")

    r = s.run()
    assert lines(r.stdout)[0] == "HOME=dumb"


# ---------------------------------------------------------------- system calls

def test_deny_openat_of_one_path(tmp_path):
    cat = system_program("cat")
    if cat is None:
        pytest.skip("no cat on this host")
    secret, public = tmp_path / "secret.txt", tmp_path / "public.txt"
    secret.write_text("do not read\n")
    public.write_text("fine\n")
    s = emutrace.Session(["cat", str(public), str(secret)], capture_output=True)
    asked = []

    @s.on_syscall("openat")
    def deny(sc):
        asked.append(sc.path)
        if sc.path == str(secret):
            sc.deny("EACCES")

    r = s.run()
    assert r.status == 1
    assert r.stdout == b"fine\n"
    assert r.stderr.decode() == f"cat: {secret}: Permission denied\n"
    assert str(public) in asked and str(secret) in asked


def test_fake_and_change_syscall_results():
    s = emutrace.Session([getenv_time()], capture_output=True)
    results = []
    s.on_syscall("exit_group", lambda sc: results.append(("exit", sc.arg(0))))
    # every write to fd 1 reports success without writing anything
    s.on_syscall("write", lambda sc: len(sc.memory.read(sc.arg(1), sc.arg(2))) if sc.arg(0) == 1 else None)
    r = s.run()
    assert r.stdout == b"" and r.status == 0
    assert results == [("exit", 0)]


def test_syscall_return_hook_sees_the_errno(tmp_path):
    cat = system_program("cat")
    if cat is None:
        pytest.skip("no cat on this host")
    s = emutrace.Session([cat, str(tmp_path / "missing")], capture_output=True)
    seen = []
    s.on_syscall_return("openat", lambda sc: seen.append((sc.path, sc.result, sc.errno)))
    r = s.run()
    assert r.status == 1
    assert (str(tmp_path / "missing"), -2, "ENOENT") in seen


# ---------------------------------------------------------------- events

def test_events_generator_yields_while_running():
    s = emutrace.Session([getenv_time()], capture_output=True)
    stdout_at_getenv = []
    names = []
    # one unread event at most: the run cannot get past getenv's return before it is read
    for ev in s.events(buffer=1):
        if isinstance(ev, Call):
            names.append(ev.name)
            if ev.name == "getenv":          # nothing was printed yet: the program is mid-run
                stdout_at_getenv.append(s.stdout)
        assert threading.current_thread() is threading.main_thread()
    assert stdout_at_getenv == [b""]
    assert names[:3] == ["__libc_start_main", "getenv", "printf"]
    assert isinstance(ev, Exit) and ev.status == 0
    assert s.result is not None and lines(s.result.stdout)[0] == "HOME=/root"


def test_leaving_the_events_loop_early_ends_the_run():
    s = emutrace.Session([built("spin", "pie")], capture_output=True, trace_calls=True, timeout=60)
    for ev in s.events(buffer=1):
        assert isinstance(ev, Call) and ev.name == "__libc_start_main"
        break                                # spin never returns: the run must end anyway
    assert s.result is None
    assert not any(t.name == "emutrace-run" for t in threading.enumerate())


def test_syscall_events():
    pytest.importorskip("emutrace.decode.strace")
    s = emutrace.Session([getenv_time()], capture_output=True, trace_syscalls=True)
    evs = []
    s.on_event(evs.append)
    s.run()
    writes = [e for e in evs if isinstance(e, Syscall) and e.name == "write"]
    assert writes and writes[0].ret == len("HOME=/root\ntime=1704067200\n")


def test_write_trace_is_the_command_lines_trace(tmp_path):
    exe = built("diffprog", "v0")
    out = tmp_path / "api.jsonl"
    s = emutrace.Session([exe], capture_output=True)
    s.write_trace(out, "jsonl")
    s.run()
    cli = run_cli(["--format", "jsonl", "-o", str(tmp_path / "cli.jsonl"), exe])
    assert cli.returncode == 0, cli.stderr
    assert out.read_bytes() == (tmp_path / "cli.jsonl").read_bytes()
    assert b'"name":"strcmp"' in out.read_bytes()


def test_write_trace_with_syscalls_is_the_command_lines_trace(tmp_path):
    pytest.importorskip("emutrace.decode.strace")
    exe = built("diffprog", "v0")
    s = emutrace.Session([exe], capture_output=True, trace_syscalls=True)   # a pipe, as the CLI's below
    s.write_trace(tmp_path / "api.jsonl", "jsonl")
    s.run()
    cli = run_cli(["-S", "--format", "jsonl", "-o", str(tmp_path / "cli.jsonl"), exe])
    assert cli.returncode == 0, cli.stderr
    api_bytes = (tmp_path / "api.jsonl").read_bytes()
    assert api_bytes == (tmp_path / "cli.jsonl").read_bytes()
    assert b'"type":"syscall"' in api_bytes and b'"name":"write"' in api_bytes


# ---------------------------------------------------------------- errors

def test_errors_are_emutrace_errors(tmp_path):
    with pytest.raises(emutrace.ProgramNotFound) as e:
        emutrace.Session([str(tmp_path / "nope")]).run()
    assert e.value.status == 127 and isinstance(e.value, emutrace.EmutraceError)
    (tmp_path / "text").write_text("not a program\n")
    os.chmod(tmp_path / "text", 0o755)
    with pytest.raises(emutrace.CannotExecute):
        emutrace.Session([str(tmp_path / "text")]).run()
    with pytest.raises(emutrace.ApiError):
        emutrace.Session(["x"], root=str(tmp_path / "text"))
    with pytest.raises(emutrace.ApiError):
        emutrace.Session([]).run()
    s = emutrace.Session([getenv_time()])
    with pytest.raises(emutrace.ApiError):
        s.on_syscall("no_such_syscall", print)
    with pytest.raises(emutrace.ApiError):
        s.on_call("getenv@libc*", print, library="libc*")        # one way to name the library
    with pytest.raises(emutrace.ApiError):
        s.on_call("/unclosed(/", print)


def test_bad_errno_name_raises_from_run():
    s = emutrace.Session([getenv_time()], capture_output=True)
    s.on_syscall("write", lambda sc: sc.deny("ENOTANERRNO"))
    with pytest.raises(emutrace.ApiError, match="ENOTANERRNO"):
        s.run()


def test_hook_exceptions_propagate_and_session_runs_once():
    s = emutrace.Session([getenv_time()], capture_output=True)

    def boom(call):
        raise KeyError("from the hook")
    s.on_call("getenv", boom)
    with pytest.raises(KeyError, match="from the hook"):
        s.run()
    with pytest.raises(emutrace.ApiError):
        s.run()


def test_limits_raise_limit_reached():
    s = emutrace.Session([built("spin", "pie")], capture_output=True, max_insns=200_000)
    with pytest.raises(emutrace.LimitReached) as e:
        s.run()
    assert e.value.status == 124


def test_stdin_bytes():
    cat = system_program("cat")
    if cat is None:
        pytest.skip("no cat on this host")
    r = emutrace.Session([cat], stdin=b"from the API\n", capture_output=True, trace_calls=False).run()
    assert r.stdout == b"from the API\n" and r.status == 0 and r.events == 1   # the exit event


def test_examples_run():
    """The runnable examples in examples/ work as shown."""
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    r = subprocess.run([sys.executable, os.path.join(root, "examples", "stub_calls.py"), getenv_time()],
                       capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert b"HOME=/home/example" in r.stdout and b"time=86400" in r.stdout
