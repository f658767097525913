"""No host identity or time reaches the guest unless it is the content of an input file: the
trace is the same whatever stdout is (a file, a pipe, /dev/null), wherever the program's copy
lives and whatever its mtime; the clock never runs behind a time the guest was shown; and
/proc/self/fd/N of a pipe leads to the pipe."""
import os
import shutil
import subprocess
import sys
import time

from conftest import built, emutrace

PAST_A, PAST_B = 1577836800, 1609459200          # 2020-01-01, 2021-01-01


def traced(cwd, prog_args, stdout, trace):
    """Run stdio_id under emutrace with -S --format jsonl into `trace`; stdout goes to `stdout`."""
    r = subprocess.run([sys.executable, "-m", "emutrace", "-S", "--format", "jsonl", "-o", str(trace),
                        *prog_args], cwd=cwd, stdin=subprocess.DEVNULL, stdout=stdout,
                       stderr=subprocess.PIPE, timeout=300,
                       env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    return r


def test_trace_identical_with_stdout_a_file_a_pipe_or_dev_null(tmp_path):
    prog = built("stdio_id")
    run = tmp_path / "run"                 # its cwd: stat(".") is traced, so nothing is written there
    run.mkdir()
    traces = []
    with open(tmp_path / "out.txt", "wb") as f:
        r = traced(run, [prog], f, tmp_path / "file.jsonl")
        assert r.returncode == 0, r.stderr
        traces.append((tmp_path / "file.jsonl").read_bytes())
        err_file = r.stderr
    r = traced(run, [prog], subprocess.PIPE, tmp_path / "pipe.jsonl")
    assert r.returncode == 0 and r.stdout == b"stdout data\n"
    traces.append((tmp_path / "pipe.jsonl").read_bytes())
    assert r.stderr == err_file
    r = traced(run, [prog], subprocess.DEVNULL, tmp_path / "null.jsonl")
    assert r.returncode == 0
    traces.append((tmp_path / "null.jsonl").read_bytes())
    assert r.stderr == err_file
    assert traces[0] == traces[1] == traces[2]
    assert (tmp_path / "out.txt").read_bytes() == b"stdout data\n"
    # what the guest saw of its stdout: a pipe with a synthetic inode and the clock's start time
    assert b"fd 1: mode 10600 ino 16129 dev c mtime 1704067200 ctime 1704067200 -> pipe:[16129] (stat -L same)" in err_file


def test_trace_identical_for_copies_in_other_directories_at_other_times(tmp_path):
    """Copies as cp -a makes them (contents, modes, mtimes kept) in two directories, made at two
    host times: other inode numbers, other ctimes, other atimes, another wall clock. The trace
    shows whole stat structs (the library-call decoder prints them), so any of these would show."""
    prog = built("stdio_id")
    runs = []
    for name in ("a", "deeper/b"):
        d = tmp_path / name
        d.mkdir(parents=True)
        shutil.copyfile(prog, d / "prog")
        os.chmod(d / "prog", 0o755)
        (d / "input.txt").write_bytes(b"the same input\n")
        for f in (d / "prog", d / "input.txt", d):
            os.utime(f, (PAST_A, PAST_A))
        time.sleep(1.1)                                  # another host time, another ctime
        trace = tmp_path / (name.replace("/", "_") + ".jsonl")
        r = traced(d, ["./prog", "input.txt"], subprocess.PIPE, trace)
        assert r.returncode == 0, r.stderr
        runs.append((trace.read_bytes(), r.stdout, r.stderr))
    assert runs[0] == runs[1]


def test_stat_text_identical_for_copies(tmp_path):
    """`stat` prints inode, device, all three times and blocks: none of them may be the host's."""
    outs = []
    for name in ("one", "two"):
        d = tmp_path / name
        d.mkdir()
        (d / "f").write_bytes(b"x" * 5000)
        os.utime(d / "f", (PAST_B, PAST_A))              # atime differs from mtime: it is not shown
        time.sleep(1.1)
        r = emutrace(["--no-trace", "/usr/bin/stat", "f"], cwd=d)
        assert r.returncode == 0, r.stderr
        outs.append(r.stdout)
    assert outs[0] == outs[1]
    host_ino = os.stat(tmp_path / "one" / "f").st_ino
    assert f"Inode: {host_ino} ".encode() not in outs[0]
    assert b"Change: 2020-01-01 00:00:00" in outs[0]
    assert b"Access: 2020-01-01 00:00:00" in outs[0]


def test_causality_every_time_seen_is_not_after_time0(tmp_path):
    prog = built("stdio_id")
    future = tmp_path / "future.txt"
    future.write_bytes(b"from the future\n")
    later = int(time.time()) + 10 * 365 * 86400
    os.utime(future, (later, later))
    r = emutrace(["--no-trace", prog, str(future), str(tmp_path), "/etc/os-release", "/usr/bin/env"])
    assert r.returncode == 0, r.stderr
    assert b"causality holds" in r.stderr and b"future" not in r.stderr.replace(b"future.txt", b"")
    # the clock stepped to that mtime: the guest's date is not before it
    r = emutrace(["--no-trace", "/bin/sh", "-c", f"stat -c %Y {future} >/dev/null; date +%s"])
    assert int(r.stdout) >= later


def test_clock_step_leaves_durations_and_monotonic_alone(tmp_path):
    f = tmp_path / "new"
    f.write_bytes(b"")
    later = int(time.time()) + 86400 * 100
    os.utime(f, (later, later))
    trace = tmp_path / "t.jsonl"
    r = emutrace(["-S", "--format", "jsonl", "-o", str(trace), "/usr/bin/stat", str(f)])
    assert r.returncode == 0, r.stderr
    import json
    for line in trace.read_text().splitlines():
        ev = json.loads(line)
        assert ev.get("duration_ns", 0) < 10**9, ev        # no syscall "took" the step


def test_proc_self_fd_of_pipes_resolves_as_on_linux():
    r = emutrace(["--no-trace", "/bin/sh", "-c",
                  "echo | { stat -L -c '%F %i' /proc/self/fd/0; readlink /proc/self/fd/0; }; "
                  "stat -L -c %F /proc/self/fd/1; stat -L -c %F /dev/stdout"])
    assert r.returncode == 0, r.stderr
    lines = r.stdout.decode().splitlines()
    kind, ino = lines[0].split()
    assert kind == "fifo" and lines[1] == f"pipe:[{ino}]"
    assert lines[2] == lines[3] == "fifo"


def test_host_inode_numbers_do_not_reach_the_guest():
    r = emutrace(["--no-trace", "/usr/bin/stat", "-c", "%i %d", "/etc/passwd", "/"])
    assert r.returncode == 0, r.stderr
    (ino, dev), (root_ino, root_dev) = (line.split() for line in r.stdout.decode().splitlines())
    st = os.stat("/etc/passwd")
    assert int(ino) != st.st_ino and int(dev) != st.st_dev
    assert int(ino) >= 0x10000 and int(dev) in (0x801, 0x802, 0x803)
    again = emutrace(["--no-trace", "/usr/bin/stat", "-c", "%i %d", "/etc/passwd", "/"])
    assert again.stdout == r.stdout


def test_what_the_guest_writes_in_a_grant_carries_the_virtual_time(tmp_path):
    grant = tmp_path / "grant"
    grant.mkdir()
    os.utime(grant, (PAST_A, PAST_A))
    start = 4102444800                     # 2100: later than every input, so no step
    r = emutrace(["--no-trace", "--clock", str(start), "--rw", f"{grant}:/g", "/bin/sh", "-c",
                  "echo hi > /g/f; mkdir /g/d; stat -c %Y /g /g/f /g/d; date +%s"])
    assert r.returncode == 0, r.stderr
    times = [int(t) for t in r.stdout.split()]
    assert all(start <= t < start + 60 for t in times), times     # not today's host time
    assert start <= int(os.stat(grant / "f").st_mtime) < start + 60


def test_a_host_stat_in_one_step_is_the_stat_in_two(tmp_path):
    """HostIds.from_host (what DirTree.lstat/stat/fstat make) gives, field for field, what
    stat_from_host and guest_stat give: for a file, a directory, a symlink, a device, a file of
    the host user (shown as the guest's) and one of another user (kept)."""
    from emutrace.kernel.hosttree import HostIds, stat_from_host
    (tmp_path / "f").write_text("x" * 5000)
    (tmp_path / "l").symlink_to("f")
    ids = HostIds(uid=1000, gid=1001)
    for path in (tmp_path / "f", tmp_path, tmp_path / "l", "/dev/null", "/"):
        st = os.lstat(path)
        one, two = ids.from_host(st), ids.guest_stat(stat_from_host(st))
        assert one == two and one.host_id == (st.st_dev, st.st_ino), path
    mine = ids.from_host(os.lstat(tmp_path / "f"))                # made by the host user: the guest's
    assert (mine.uid, mine.gid) == (1000, 1001 if os.getgid() == os.lstat(tmp_path / "f").st_gid else mine.gid)
    other = HostIds(uid=1000, gid=1001)
    other.host_uid, other.host_gid = -5, -5               # a host user that owns nothing here
    st = os.lstat(tmp_path / "f")
    assert other.from_host(st).uid == st.st_uid and other.from_host(st) == other.guest_stat(stat_from_host(st))
