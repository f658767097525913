"""The sandbox holds under exhaustion: a hostile guest (bins/exhaust.c, run only under emutrace)
tries to make the host hold without bound each thing the kernel keeps for it, and every attempt
ends with Linux's errno for that bound while the host process's peak RSS stays under
--max-mem + --max-disk + the fixed overhead docs/bounds.md states."""
import os
import subprocess
import sys

import pytest

from conftest import built

MiB = 1 << 20
MAX_MEM = 256 * MiB
OVERHEAD = 320 * MiB          # docs/bounds.md: the host's own cost at the default bounds


def run_rss(args, timeout=600, env=None):
    """(exit status, stdout, stderr, peak RSS in bytes) of `python -m emutrace ARGS`, the RSS of
    that process alone. GNU time forks it and reads its wait4 rusage: a process this test process
    started itself (vfork, or fork, then exec) would report this process's own resident set when
    that is larger, because Linux keeps the high-water mark of the memory it exec'd from."""
    import tempfile
    time_cmd = "/usr/bin/time"
    if not os.path.exists(time_cmd):
        pytest.skip("GNU time (/usr/bin/time) measures the peak RSS")
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss_file:
        # --no-host-fds: GNU time leaves its -o file open (not close-on-exec) in the command it
        # runs, and emutrace now passes inherited descriptors >= 3 to the guest (syscalls/hostfds.py),
        # as Linux would to a program run under time directly; that fd 3 would take one of the
        # guest's files (files=500 gave 496 fds, not 497). These tests measure the bounds alone.
        p = subprocess.run([time_cmd, "-f", "%M", "-o", rss_file.name, sys.executable, "-m", "emutrace",
                            "--no-host-fds", *args], capture_output=True, env=env, timeout=timeout)
        rss = int(rss_file.read().split()[-1]) * 1024          # kilobytes
    return p.returncode, p.stdout.decode(), p.stderr.decode(), rss


# mode, extra options, the line the guest must end with
CASES = [
    ("disk", ["--max-disk", "16M"], "disk: 15 MiB, stopped by ENOSPC"),
    ("unlinked", ["--max-disk", "16M"], "unlinked: 2 files, stopped by ENOSPC"),
    ("inodes", ["--limit", "inodes=300"], "inodes: 298 files, stopped by ENOSPC"),
    ("fsize", [], "fsize: 1048576 bytes, stopped by EFBIG"),
    ("memfd", ["--max-disk", "16M"], "memfd: 15 MiB, stopped by ENOSPC"),
    ("shm", ["--max-disk", "16M"], "shm: 15 MiB, stopped by ENOSPC"),
    ("truncate", [], "truncate: 1 TiB file holding 4 KiB"),      # sparse, as tmpfs
    ("pipes", ["--limit", "buffers=4M"], "pipes: 65 pipes, stopped by EAGAIN"),
    ("epoll", ["--limit", "epoll_watches=1000"], "epoll: 1000 watches, stopped by ENOSPC"),
    ("backlog", ["--limit", "unix_backlog=50"], "backlog: 51 connections, stopped by EAGAIN"),
    ("threads", ["--limit", "threads=16"], "threads: 15 threads, stopped by EAGAIN"),
    ("procs", ["--max-procs", "4"], "procs: 3 children, stopped by EAGAIN"),
    ("timers", ["--limit", "timers=100"], "timers: 100 timers, stopped by EAGAIN"),
    ("kobjects", ["--limit", "kobjects=50"], "kobjects: 50 queues, stopped by ENOSPC"),
    ("files", ["--limit", "files=500"], "files: 497 fds, stopped by ENFILE"),
    ("mem", [], "mem: 210 MiB, stopped by ENOMEM"),
    ("forkmem", [], "forkmem: 4 children, stopped by ENOMEM"),
]


@pytest.mark.parametrize("mode,opts,expect", CASES, ids=[c[0] for c in CASES])
def test_each_bound_ends_with_its_errno(mode, opts, expect):
    prog = built("exhaust")
    max_disk = 16 * MiB if "16M" in opts else 1 << 30
    status, out, err, rss = run_rss(["--no-trace", "--max-mem", str(MAX_MEM), *opts, prog, mode])
    assert status == 0, err
    assert expect in out.splitlines(), out
    assert rss < MAX_MEM + max_disk + OVERHEAD, rss
    if mode == "fsize":
        assert "fsize: SIGXFSZ caught" in out


def test_overlay_writes_do_not_grow_the_host():
    """The bug that opened issue 17: 1 MiB writes to /tmp until something says no. With a 64 MiB
    quota, the host's peak RSS must stay near the quota, not near what the guest tried."""
    prog = built("exhaust")
    status, out, err, rss = run_rss(["--no-trace", "--max-mem", str(MAX_MEM), "--max-disk", "64M",
                                       prog, "disk"])
    assert "disk: 63 MiB, stopped by ENOSPC" in out, out + err
    base = run_rss(["--no-trace", "--max-mem", str(MAX_MEM), prog, "truncate"])[3]
    assert rss - base < 64 * MiB + 16 * MiB, (rss, base)     # the quota plus the bytearray's slack


def test_every_bound_at_once_keeps_the_host_under_the_stated_bound():
    """One guest that reaches every bound in turn, keeping all it got (nothing is freed)."""
    prog = built("exhaust")
    max_disk = 32 * MiB
    status, out, err, rss = run_rss(
        ["--no-trace", "--max-mem", str(MAX_MEM), "--max-disk", "32M", "--limit", "inodes=2000",
         "--limit", "threads=16", "--max-procs", "4", "--limit", "files=3000", "--limit",
         "epoll_watches=2000", "--limit", "unix_backlog=100", "--limit", "buffers=8M",
         "--limit", "timers=200", "--limit", "kobjects=200", prog, "all"])
    assert status == 0, err
    lines = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line and "stopped" in line)
    # what the full overlay stops, and what each later bound stops
    assert lines["disk"].endswith("ENOSPC") and lines["inodes"].endswith("ENOSPC")
    assert lines["memfd"].endswith("ENOSPC") and lines["shm"].endswith("ENOSPC")
    assert lines["pipes"].endswith("EAGAIN") and lines["epoll"].endswith("ENOSPC")
    assert lines["threads"].endswith("EAGAIN") and lines["procs"].endswith("EAGAIN")
    assert lines["timers"].endswith("EAGAIN") and lines["kobjects"].endswith("ENOSPC")
    assert lines["files"].endswith("ENFILE") and lines["mem"].endswith("ENOMEM")
    assert lines["forkmem"].endswith(("ENOMEM", "EAGAIN"))
    assert rss < MAX_MEM + max_disk + OVERHEAD, rss


def test_one_memory_bound_holds_for_all_processes_together():
    """--max-mem is the run's, not each process's: children that each take 32 MiB and keep it
    end with ENOMEM from fork once the run holds --max-mem (their engines are charged too),
    where each one alone could have taken --max-mem (the host held 63 x 32 MiB, 2.5 GB, at
    --max-mem 256M before)."""
    prog = built("exhaust")
    status, out, err, rss = run_rss(["--no-trace", "--max-mem", str(MAX_MEM), prog, "forkmem"])
    assert status == 0, err
    held = [line for line in out.splitlines() if line.startswith("forkmem: ") and "holding" in line]
    children, mib = int(held[0].split()[1]), int(held[0].split()[4])
    assert children >= 2 and 32 * (children - 1) < mib <= 32 * children, out   # the last one: what was left
    assert "forkmem: %d children, stopped by ENOMEM" % children in out.splitlines(), out
    assert rss < MAX_MEM + OVERHEAD, rss                    # (nothing on disk: no --max-disk term)


def test_one_call_never_makes_the_host_hold_what_it_moves():
    """readv/writev/sendmsg/vmsplice of 1024 views of one 1 MiB buffer (1 GiB per call) move
    in pieces of 16 MiB: the host holds no more than that beyond guest memory (it held 2.1 GB
    at --max-mem 256M before). A write cut short by the quota reports what it wrote."""
    prog = built("bigio")
    status, out, err, rss = run_rss(["--no-trace", "--max-mem", str(MAX_MEM), "--max-disk", "64M", prog])
    assert status == 0, err
    assert out.splitlines()[:4] == ["readv /dev/zero: 1073741824", "writev /dev/null: 1073741824",
                                    "writev file: 66060288 ", "readv file: 66060288"], out
    assert out.splitlines()[4].startswith("sendmsg: ") and out.splitlines()[5] == "vmsplice: 65536 ", out
    assert rss < MAX_MEM + 64 * MiB + OVERHEAD, rss


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
def test_a_sweep_of_uncharged_memory_keeps_the_host_small(pure):
    """Reading every page of a 4 GiB read-only reservation (no commit charge) fills the TLB's
    permission cache, which starts over at PERMS_CACHE_MAX pages: the host does not keep an
    entry per page swept (the pure path's dict for 1 M pages, or the C table for 3 M, would
    take the host past the bound)."""
    prog = built("sweep")
    gib = 4 if pure else 12
    env = dict(os.environ, EMUTRACE_PURE="1") if pure else None
    status, out, err, rss = run_rss(["--no-trace", "--max-mem", str(MAX_MEM), prog, str(gib)], env=env)
    assert status == 0 and out == f"swept {gib << 10} MiB, sum 0\n", err
    assert rss < 100 * MiB, rss


def test_memory_comes_back_when_a_process_ends_or_execs():
    """What an ended (or exec'd) process held goes back to the run's budget: a shell runs five
    programs in a row that each take all the memory they can, and each gets the same."""
    from conftest import emutrace
    prog = built("exhaust")
    r = emutrace(["--no-trace", "--max-mem", "256M", "/bin/sh", "-c",
                  f"for i in 1 2 3 4 5; do {prog} mem; done"], timeout=600)
    lines = r.stdout.decode().splitlines()
    assert len(lines) == 5 and len(set(lines)) == 1 and lines[0].endswith("MiB, stopped by ENOMEM"), lines
    assert int(lines[0].split()[1]) > 150, lines


def test_space_comes_back_when_the_last_name_and_fd_are_gone():
    from conftest import emutrace
    r = emutrace(["--no-trace", "--max-disk", "16M", "/bin/sh", "-c",
                  "for i in 1 2 3 4; do head -c 10000000 /dev/zero > /dev/shm/x || exit 1; rm /dev/shm/x; done; "
                  "exec 3>/dev/shm/y; head -c 10000000 /dev/zero >&3; rm /dev/shm/y; "
                  "head -c 10000000 /dev/zero > /dev/shm/z && echo unexpected; exec 3>&-; "
                  "head -c 10000000 /dev/zero > /dev/shm/z && echo freed"])
    assert r.stdout == b"freed\n", r.stdout + r.stderr


def test_statfs_reports_the_quota():
    from conftest import emutrace
    r = emutrace(["--no-trace", "--max-disk", "64M", "/bin/sh", "-c",
                  "head -c 2000000 /dev/zero > /dev/shm/x; df -k /tmp; df -i /tmp"])
    assert r.returncode == 0, r.stderr
    lines = r.stdout.decode().splitlines()
    blocks, used, avail = lines[1].split()[1:4]
    assert int(blocks) == 65536                          # 64 MiB in 1K blocks
    assert 1960 <= int(used) <= 1970 and int(used) + int(avail) == 65536   # 489 pages + metadata
    assert lines[3].split()[1] == str(1 << 18)           # the inode bound


def test_bad_limit_is_one_line_and_status_125():
    from conftest import emutrace
    for args in (["--limit", "nosuch=1"], ["--limit", "files"], ["--limit", "files=x"], ["--max-disk", "x"]):
        r = emutrace([*args, "/bin/true"])
        assert r.returncode == 125
        err = r.stderr.decode()
        assert err.startswith("emutrace: ") and err.count("\n") == 1 and "Traceback" not in err


def test_api_takes_max_disk_and_limits():
    from emutrace.api import ApiError, Session
    s = Session(["/bin/sh", "-c", "head -c 3000000 /dev/zero > /dev/shm/x; echo $?"], max_disk=1 << 20,
                limits={"files": 100}, capture_output=True, trace_calls=False)
    r = s.run()
    assert r.stdout.endswith(b"1\n") and b"No space left on device" in r.stderr
    with pytest.raises(ApiError):
        Session(["/bin/true"], limits={"nosuch": 1})


def test_a_fork_bomb_ends_at_max_procs_with_the_host_inside_the_bound():
    """bins/forkbomb.c: every process forks until a fork fails, children too. At --max-procs the
    guest's forks fail with EAGAIN and the tree ends by itself (it took the host past 13 GB
    before, the guest seeing ENOMEM while every exited child's engine stayed on the host)."""
    prog = built("forkbomb")
    status, out, err, rss = run_rss(["--no-trace", "--max-mem", "512M", "--max-procs", "16",
                                     "--timeout", "300", prog])
    assert status == 0, err
    assert out == "forkbomb: stopped by EAGAIN after more than 8 processes\n", out + err
    assert rss < 512 * MiB + OVERHEAD, rss


def test_a_fork_bomb_under_a_small_max_mem_meets_enomem_traced():
    """The same bomb with the default process limit (64) and --max-mem 256M, traced with -f: the
    engines' cost (charged with each address space) fills --max-mem first, so forks fail with
    ENOMEM, and the host stays inside --max-mem plus the overhead."""
    prog = built("forkbomb")
    status, out, err, rss = run_rss(["-f", "--strace", "-o", os.devnull, "--max-mem", str(MAX_MEM),
                                     "--timeout", "300", prog])
    assert status == 0, err
    assert out == "forkbomb: stopped by ENOMEM after more than 8 processes\n", out + err
    assert rss < MAX_MEM + OVERHEAD, rss


def test_touching_noreserve_memory_past_max_mem_is_an_oom_kill(tmp_path):
    """bins/oomtouch.c writes each page of a 4 GiB MAP_NORESERVE reservation (mmap succeeded: no
    ENOMEM to act on). As Linux's OOM killer, emutrace ends it with SIGKILL, which its SIGSEGV
    handler never sees, and the report's limits_hit says so (it died by SIGSEGV before)."""
    import json
    prog = built("oomtouch")
    report = tmp_path / "report.json"
    status, out, err, rss = run_rss(["--no-trace", "--max-mem", "64M", "--report", str(report), prog])
    assert status == 128 + 9, (status, out, err)
    assert out == "oomtouch: reserved 4 GiB\n", out
    hits = json.loads(report.read_text())["limits_hit"]
    assert [h["limit"] for h in hits] == ["max-mem"] and "SIGKILL" in hits[0]["how"], hits
    assert rss < 64 * MiB + OVERHEAD, rss
