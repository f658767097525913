"""The gdb server (`emutrace --gdb`) with the real gdb: scripted sessions on bins/ programs,
compared with gdbserver on a native run where that is meaningful, reverse execution, and bad
input. Every session is bounded by a timeout; each test checks that the emutrace process it
started has ended (none is left behind)."""
from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time

import pytest

from conftest import ROOT, built, have, ptrace_works

pytestmark = pytest.mark.skipif(not have("gdb"), reason="gdb is not installed")

EMUTRACE = [sys.executable, "-m", "emutrace"]
HEAD = ["set pagination off", "set confirm off", "set width 0"]


def gdb_session(prog: str, args, commands, server=None, options=("--no-trace",), timeout=240,
                before=(), env=None) -> str:
    """gdb -batch over `target remote | emutrace --gdb - [options] PROG ARGS` (or another
    server command); its stdout+stderr, without gdb's file-transfer chatter."""
    if server is None:
        server = " ".join(EMUTRACE + ["--gdb", "-", *options, prog, *args])
    script = HEAD + list(before) + [f"target remote | {server}"] + list(commands)
    argv = ["gdb", "-nx", "-batch"] + [x for c in script for x in ("-ex", c)] + [prog]
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=ROOT,
                         start_new_session=True, env=dict(os.environ, PYTHONPATH=str(ROOT), **(env or {})))
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        raise
    finally:
        _no_leftovers(p.pid)
    text = out.decode("utf-8", "replace")
    return "\n".join(line for line in text.splitlines()
                     if not line.startswith(("Reading ", "warning: File transfers", "stdin/stdout redirected",
                                             "Process ", "Remote debugging using")))


def _no_leftovers(pgid: int) -> None:
    """Nothing of the session's process group may outlive it."""
    for _ in range(50):
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.killpg(pgid, signal.SIGKILL)
    raise AssertionError("a process of the gdb session was left behind")


def _normal(text: str) -> str:
    """What differs between a native run and emutrace's and is not the debugger's business: the
    stack's place (the environment's size), where libc was mapped, the names libraries were
    opened by, the pid."""
    text = re.sub(r"argv=0x[0-9a-f]+", "argv=ADDR", text)
    text = re.sub(r"target:\S*/(ld-linux-x86-64\.so\.2|libc\.so\.6)", r"\1", text)
    text = re.sub(r"process \d+", "process PID", text)
    return text


GDBPROG = "gdbprog"


@pytest.fixture(scope="module")
def prog():
    return built(GDBPROG)


FORWARD = ["break corrupt_one", "continue", "bt", "info locals", "x/s message", "delete", "watch guard",
           "continue", "delete", "catch syscall write", "continue", "info sharedlibrary", "kill"]


def test_forward_session_matches_gdbserver(prog):
    """bt, locals, x/s, a watchpoint's old and new values and catch syscall: as gdbserver says."""
    ours = gdb_session(prog, ["corrupt"], FORWARD)
    assert "Old value = 42" in ours and "New value = 7" in ours, ours
    assert 'x/s' not in ours and '"hello, gdb"' in ours, ours
    assert "Catchpoint 3 (syscall 'write' [1])" in ours, ours
    if not (have("gdbserver") and ptrace_works()):
        pytest.skip("no gdbserver or no ptrace here to compare with")
    theirs = gdb_session(prog, ["corrupt"], FORWARD, server=f"gdbserver - {prog} corrupt")
    lines = lambda t: [ln for ln in _normal(t).splitlines() if not re.match(r"0x[0-9a-f]{16}\s+0x", ln)
                       and "libc.so.6" not in ln]
    assert lines(ours) == lines(theirs)


def test_reverse_continue_to_the_corrupting_store(prog):
    """watch a global, run to the crash, reverse-continue: the store, its source line, Old/New."""
    script = ["break main", "continue", "watch guard", "continue", "continue", "reverse-continue", "bt 1",
              "print guard", "monitor when", "reverse-continue", "monitor when", "kill"]
    first = gdb_session(prog, ["corrupt"], script)
    after_crash = first.split("SIGSEGV", 1)[1]
    assert re.search(r"Old value = 7\nNew value = 42\n.*corrupt_one \(i=3\) at .*gdbprog\.c:27\n27\s+\*p = 7;",
                     after_crash), first
    assert "$1 = 42" in after_crash
    assert re.search(r"Breakpoint 1, main .*\n45", after_crash), first
    assert gdb_session(prog, ["corrupt"], script) == first       # byte-identical, run after run


def test_reverse_finish_step_next_out_of_a_library_call(prog):
    script = ["break main", "continue", "break strlen", "continue", "reverse-finish", "bt 1", "delete", "next",
              "print len", "reverse-next", "next", "print len", "step", "reverse-step", "reverse-stepi", "stepi",
              "info registers rip", "kill"]
    out = gdb_session(prog, ["libcall"], script, options=("--no-trace", "--env", "LD_BIND_NOW=1"))
    assert re.search(r"main \(.*gdbprog\.c:66\n66\s+size_t len = strlen\(message\);", out), out
    assert "$1 = 10" in out and "$2 = 10" in out, out
    assert re.search(r"work \(n=10\) at .*:32", out), out
    assert out.count("rip ") == 1


def test_reverse_stepi_at_the_start_is_the_beginning_of_history(prog):
    out = gdb_session(prog, ["libcall"], ["reverse-stepi", "monitor when", "kill"])
    assert "No more reverse-execution history." in out, out
    assert "position 0 " in out


def test_catch_syscall(prog):
    out = gdb_session(prog, ["libcall"], ["catch syscall write", "continue", "bt 1", "continue", "continue"])
    assert "hit Catchpoint 1 (call to syscall write)" in out or "Catchpoint 1 (call to syscall write)" in out, out
    assert "Catchpoint 1 (returned from syscall write)" in out, out
    assert "exited normally" in out


def test_watchpoint_sees_the_kernels_store(prog):
    """read(2) into a watched buffer stops at the system call, with the values it stored."""
    out = gdb_session(prog, ["readbuf"], ["break 61", "continue", "watch buf[0]", "continue", "bt 1", "kill"])
    assert re.search(r"Old value = 0 '\\000'\nNew value = 112 'p'", out), out


def test_threads(prog):
    threads = built("threads")
    out = gdb_session(threads, [], ["break pthread_create", "continue", "continue", "info threads",
                                    "thread 2", "bt 1", "delete", "continue"])
    assert re.search(r"\n\s+2\s+Thread 3e8\.3e9 \"threads\"|\n\s+2\s+Thread 1000\.1001 \"threads\"", out), out
    assert "exited normally" in out


def test_fork_catch_and_follow_child():
    forkwait = built("forkwait")
    out = gdb_session(forkwait, [], ["catch fork", "catch vfork", "continue", "continue", "continue"])
    assert "Catchpoint 1 (forked process 1001)" in out and "Catchpoint 2 (vforked process 1002)" in out, out
    assert "exited normally" in out
    out = gdb_session(forkwait, [], ["break _exit", "continue", "bt 1", "continue"],
                      before=["set follow-fork-mode child"])
    assert "[Attaching after Thread 1000.1000 fork to child Thread 1001.1001]" in out, out
    assert "__GI__exit (status=status@entry=3)" in out and "exited with code 03" in out, out


def test_cxx_exception():
    cxx = built("cxx")
    out = gdb_session(cxx, [], ["catch throw", "continue", "bt 3", "kill"])
    assert "Catchpoint 1 (exception thrown)" in out and "__cxa_throw" in out, out


@pytest.mark.parametrize("variant", ["musl-static", "ibt"])
def test_static_musl_and_ibt(variant):
    p = built(GDBPROG, variant)
    out = gdb_session(p, ["corrupt"], ["break corrupt_one", "continue", "continue", "info locals", "delete",
                                       "watch guard", "continue", "kill"])
    assert "corrupt_one (i=1)" in out and "Old value = 42\nNew value = 7" in out, out


def test_trace_keeps_flowing_to_a_file(prog, tmp_path):
    trace = tmp_path / "t.txt"
    out = gdb_session(prog, ["libcall"], ["break work", "continue", "continue"], options=("-o", str(trace)))
    assert "exited normally" in out
    assert "strlen(" in trace.read_text()


# -- bad input --------------------------------------------------------------------------------------

class Raw:
    """A bare protocol client over `emutrace --gdb -`."""

    def __init__(self, prog, args=("libcall",)):
        self.p = subprocess.Popen(EMUTRACE + ["--gdb", "-", "--no-trace", prog, *args], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)

    def raw(self, data: bytes) -> None:
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def send(self, payload: bytes, cs=None) -> None:
        cs = sum(payload) & 0xFF if cs is None else cs
        self.raw(b"$" + payload + b"#%02x" % cs)

    def ack(self) -> bytes:
        return self.p.stdout.read(1)

    def reply(self) -> bytes:
        out = self.p.stdout
        while out.read(1) not in (b"$", b""):
            pass
        data = b""
        while (c := out.read(1)) not in (b"#", b""):
            data += c
        out.read(2)
        try:
            self.raw(b"+")
        except BrokenPipeError:     # (a reply to vKill: the server may end before reading the ack)
            pass
        return data

    def ask(self, payload: bytes) -> bytes:
        self.send(payload)
        assert self.ack() == b"+"
        return self.reply()

    def close(self, timeout=60) -> int:
        try:
            self.p.stdin.close()
        except BrokenPipeError:     # (the server ended after vKill before reading the last '+')
            pass
        try:
            return self.p.wait(timeout=timeout)
        finally:
            if self.p.poll() is None:
                self.p.kill()


def test_bad_packets_get_errors_not_crashes(prog):
    c = Raw(prog)
    try:
        c.send(b"qSupported:multiprocess+", cs=0)          # a bad checksum: '-', asked again
        assert c.ack() == b"-"
        assert c.ask(b"?").startswith(b"T05thread:p")
        assert c.ask(b"mzz,4") == b"E01"                    # malformed
        assert c.ask(b"m0,4") == b"E14"                     # unmapped
        big = c.ask(b"m555555554000,ffffffffffff")         # huge: what one reply holds
        assert 0 < len(big) <= 0x10000 and big.startswith(b"7f454c46")
        assert c.ask(b"M0,2:1234") == b"E14"
        assert c.ask(b"M555555558080,4:12") == b"E01"      # length and data disagree
        assert c.ask(b"X0,4:ab") == b"E01"
        assert c.ask(b"M555555558080,ffffffffffffffff:12") == b"E01"    # huge lengths
        assert c.ask(b"X555555558080,ffffffffffff:ab") == b"E01"
        assert c.ask(b"m555555554000,ffffffffffffffffffff").startswith(b"7f454c46")
        assert c.ask(b"Z0,zz,1") == b"E01"
        assert c.ask(b"Z2,10,0") == b"E01"                  # a watchpoint of no length
        assert c.ask(b"p999") == b"E01"
        assert c.ask(b"qXfer:features:read:target.xml:zz") == b"E01"
        assert c.ask(b"vFile:open:2f6e6f2f73756368,0,0") == b"F-1,2"    # ENOENT, in the guest's root
        assert c.ask(b"unknownpacket") == b""
        assert c.ask(b"c").startswith(b"W00;process:")
    finally:
        assert c.close() == 0


def test_vfile_reads_the_guests_root_not_the_hosts(prog, tmp_path):
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    (root / "etc" / "motd").write_text("inside the sandbox\n")
    (root / "bin").mkdir()
    static = built(GDBPROG, "musl-static")
    import shutil
    shutil.copy(static, root / "bin" / "p")
    c = Raw("/bin/p")
    c.p.kill()
    c.p.wait()
    c.p = subprocess.Popen(EMUTRACE + ["--gdb", "-", "--no-trace", "--root", str(root), "/bin/p", "libcall"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    try:
        fd = c.ask(b"vFile:open:" + b"/etc/motd".hex().encode() + b",0,0")
        assert fd.startswith(b"F") and not fd.startswith(b"F-1")
        data = c.ask(b"vFile:pread:" + fd[1:] + b",100,0")
        assert data == b"F13;inside the sandbox\n"
        assert c.ask(b"vFile:open:" + b"/etc/hostname".hex().encode() + b",0,0") == b"F-1,2"
        assert c.ask(b"vFile:open:" + b"/etc/motd".hex().encode() + b",1,0") == b"F-1,d"   # read-only
        assert c.ask(b"vFile:close:" + fd[1:]) == b"F0"
    finally:
        c.p.kill()
        c.p.wait()


def test_disconnect_mid_run_kills_the_run(prog):
    c = Raw(prog, ("loop", "100000000000"))
    assert c.ask(b"?").startswith(b"T05")
    c.send(b"c")
    assert c.ack() == b"+"
    time.sleep(1)
    assert c.close(timeout=60) == 0                         # gdb went away: the run is killed


def test_ctrl_c_interrupts_a_computing_guest(prog):
    c = Raw(prog, ("loop", "100000000000"))
    try:
        assert c.ask(b"?").startswith(b"T05")
        c.send(b"c")
        assert c.ack() == b"+"
        time.sleep(1)
        c.raw(b"\x03")
        assert c.reply().startswith(b"T02thread:")
        assert c.ask(b"vKill;3e8") == b"OK"
    finally:
        c.close()


def _listening(p) -> int:
    line = p.stderr.readline().decode()
    m = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
    assert m, line
    return int(m.group(1))


def test_tcp_one_client_and_port_in_use(prog):
    p = subprocess.Popen(EMUTRACE + ["--gdb", "--no-trace", prog, "libcall"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=ROOT)
    try:
        port = _listening(p)
        first = socket.create_connection(("127.0.0.1", port), timeout=30)
        with pytest.raises(OSError):                          # a second client is refused
            socket.create_connection(("127.0.0.1", port), timeout=5).recv(1)
        busy = subprocess.run(EMUTRACE + [f"--gdb={port}", "--no-trace", prog], capture_output=True, cwd=ROOT,
                              timeout=60)
        assert busy.returncode == 125
        assert busy.stderr.decode().startswith("emutrace: --gdb: cannot listen on 127.0.0.1:")
        assert busy.stderr.count(b"\n") == 1
        first.close()
        assert p.wait(timeout=60) == 0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def test_bad_address_is_a_usage_error(prog):
    r = subprocess.run(EMUTRACE + ["--gdb=localhost:http", prog], capture_output=True, cwd=ROOT, timeout=60)
    assert r.returncode == 125 and r.stderr.decode().startswith("emutrace: --gdb localhost:http: not a port")


def test_replays_return_their_memory(prog, tmp_path, monkeypatch):
    """Each reverse step is a new session: the old one's engines and memory go back to the host
    (the replay from the start: no checkpoints)."""
    monkeypatch.setenv("EMUTRACE_GDB_CHECKPOINTS", "0")
    steps = ["break work", "continue"] + ["reverse-stepi", "stepi"] * 15 + ["info proc", "kill"]
    server = " ".join(EMUTRACE + ["--gdb", "-", "--no-trace", prog, "libcall"])
    rss = []
    for i, tail in enumerate((["break work", "continue", "reverse-stepi", "stepi", "kill"], steps)):
        out = tmp_path / f"rss{i}"
        s = HEAD + [f"target remote | /usr/bin/time -o {out} -f 'maxrss %M' {server}"] + tail
        p = subprocess.run(["gdb", "-nx", "-batch"] + [x for c in s for x in ("-ex", c)] + [prog], cwd=ROOT,
                           capture_output=True, timeout=600)
        for _ in range(100):
            if out.exists() and out.read_text().strip():
                break
            time.sleep(0.1)
        m = re.search(r"maxrss (\d+)", out.read_text())
        assert m, (p.stdout + p.stderr)[-2000:]
        rss.append(int(m.group(1)))
    # 15 more replays than the short session: far less than 15 sessions' worth more (one ~40 MB)
    assert rss[1] < rss[0] + 60_000, rss


def test_pure_path_gives_the_same_session(prog):
    """The position counter in Python (EMUTRACE_PURE=1) counts as the compiled one does."""
    script = ["break strlen", "continue", "monitor when", "reverse-stepi", "monitor when", "kill"]
    compiled = gdb_session(prog, ["libcall"], script)
    os.environ["EMUTRACE_PURE"] = "1"
    try:
        pure = gdb_session(prog, ["libcall"], script)
    finally:
        del os.environ["EMUTRACE_PURE"]
    assert "position " in compiled and compiled == pure


# -- checkpoints -------------------------------------------------------------------------------------

NO_CHECKPOINTS = {"EMUTRACE_GDB_CHECKPOINTS": "0"}
DENSE = {"EMUTRACE_GDB_CHECKPOINT_INSNS": "3000"}     # (a checkpoint every 3000 instructions)


def _without_checkpoint_lines(text: str) -> str:
    text = re.sub(r"checkpoints o(n|ff)[,:] .*\n(  \d+ pid \d+\n)*", "", text + "\n")
    # (vKill;PID ends the whole run, so gdb's kill of a second inferior finds the pipe closed,
    # with the host's word for it, which depends on timing)
    return re.sub(r"Remote communication error\.  Target disconnected\.: .*\n", "", text)


@pytest.mark.parametrize("scenario", ["corrupt", "libcall", "threads", "writes", "fork"])
def test_checkpoints_give_the_answers_of_a_replay_from_the_start(prog, scenario):
    """Going back from a checkpoint (a forked, parked copy of the run) and going back by running
    the run again from its start (a host without fork) answer gdb byte for byte the same."""
    if scenario == "corrupt":
        script = ["break main", "continue", "watch guard", "continue", "continue", "reverse-continue", "bt 1",
                  "print guard", "monitor when", "reverse-continue", "monitor when", "continue", "reverse-stepi",
                  "monitor when", "info registers rip rsp rax", "monitor checkpoints", "kill"]
    elif scenario == "libcall":
        script = ["break main", "continue", "break strlen", "continue", "reverse-finish", "bt 1", "delete", "next",
                  "print len", "reverse-next", "next", "next", "next", "print total", "reverse-step",
                  "reverse-stepi", "stepi", "monitor when", "info registers", "monitor checkpoints", "kill"]
    elif scenario == "writes":
        # gdb's writes are inputs of the run: made again in replays; going back before one
        # forgets it, and the checkpoints taken after it
        script = ["break work", "continue", "set var message[0] = 'H'", "print $rdi", "set var $rdi = 20",
                  "finish", "monitor when", "reverse-stepi", "reverse-stepi", "x/s message", "print $rdi",
                  "monitor goto 500", "continue", "monitor when", "x/s message", "monitor goto 80000",
                  "continue", "monitor when", "reverse-stepi", "x/s message", "info registers rip rax",
                  "monitor checkpoints", "kill"]
    elif scenario == "fork":
        # follow-fork-mode child: the parent gdb let go stays gone in every replay
        script = ["break _exit", "continue", "monitor when", "reverse-stepi", "reverse-stepi", "monitor when",
                  "bt 2", "info threads", "reverse-continue", "monitor when", "info threads",
                  "monitor checkpoints", "kill"]
    else:
        script = ["break pthread_create", "continue", "continue", "monitor when", "delete", "break exit",
                  "continue", "info threads", "reverse-stepi", "reverse-stepi", "monitor when", "info threads",
                  "break pthread_create", "reverse-continue", "monitor when", "info threads", "bt 1",
                  "monitor checkpoints", "kill"]
    args = {"threads": [], "writes": ["libcall"], "fork": []}.get(scenario, [scenario])
    before = ["set follow-fork-mode child"] if scenario == "fork" else []
    if scenario in ("threads", "fork"):
        prog = built({"threads": "threads", "fork": "forkwait"}[scenario])
    forked = gdb_session(prog, args, script, env=DENSE, before=before)
    m = re.search(r"checkpoints on, every 3000 instructions, (\d+) parked; (\d+) replays", forked)
    assert m and int(m.group(1)) > 3 and int(m.group(2)) > 0, forked
    replayed = gdb_session(prog, args, script, env=NO_CHECKPOINTS, before=before)
    assert "checkpoints off" in replayed, replayed
    assert _without_checkpoint_lines(forked) == _without_checkpoint_lines(replayed)


def test_checkpoints_are_few_and_none_outlives_the_session(prog):
    """O(log L) checkpoints are kept (rr's thinning), and every parked process ends with the
    session (gdb_session checks the process group; here the listed pids too)."""
    script = ["break printf", "continue", "monitor checkpoints", "reverse-stepi", "reverse-stepi", "monitor when",
              "monitor checkpoints", "kill"]
    out = gdb_session(prog, ["loop", "300000"], script, env={"EMUTRACE_GDB_CHECKPOINT_INSNS": "20000"})
    counts = [int(n) for n in re.findall(r"every 20000 instructions, (\d+) parked", out)]
    assert len(counts) == 2 and all(2 < n <= 24 for n in counts), out      # (~180 intervals in the run)
    pids = {int(p) for p in re.findall(r"  \d+ pid (\d+)", out)}
    assert pids
    for pid in pids:
        assert not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().split()[2] == "Z", pid


def test_disconnect_with_checkpoints_parked_leaves_nothing(prog):
    """gdb goes away while the run goes on with checkpoints parked: every process ends."""
    p = subprocess.Popen(EMUTRACE + ["--gdb", "-", "--no-trace", prog, "loop", "100000000000"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, start_new_session=True,
                         env=dict(os.environ, EMUTRACE_GDB_CHECKPOINT_INSNS="200000"))
    c = Raw.__new__(Raw)
    c.p = p
    assert c.ask(b"?").startswith(b"T05")
    c.send(b"c")
    assert c.ack() == b"+"
    for _ in range(600):                        # until a few checkpoints are parked
        kids = subprocess.run(["pgrep", "-g", str(p.pid)], capture_output=True, text=True).stdout.split()
        if len(kids) >= 4:
            break
        time.sleep(0.1)
    assert len(kids) >= 4, kids                 # supervisor, worker and parked checkpoints
    assert c.close(timeout=60) == 0
    _no_leftovers(p.pid)


def test_sigterm_to_emutrace_ends_every_process(prog):
    """emutrace (the supervisor) told to end while the run goes on with checkpoints parked:
    the worker and every checkpoint end too (gdb's `target remote |` sends SIGTERM on close)."""
    p = subprocess.Popen(EMUTRACE + ["--gdb", "--no-trace", prog, "loop", "100000000000"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=ROOT, start_new_session=True,
                         env=dict(os.environ, EMUTRACE_GDB_CHECKPOINT_INSNS="200000"))
    try:
        port = _listening(p)
        s = socket.create_connection(("127.0.0.1", port), timeout=60)
        s.sendall(b"$c#63")
        assert s.recv(1) == b"+"
        for _ in range(600):
            kids = subprocess.run(["pgrep", "-g", str(p.pid)], capture_output=True, text=True).stdout.split()
            if len(kids) >= 4:
                break
            time.sleep(0.1)
        assert len(kids) >= 4, kids
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=60)
        _no_leftovers(p.pid)
        s.settimeout(60)
        assert s.recv(100) == b""                  # (the connection closed with the worker)
        s.close()
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
