"""Threads, processes and signals, deterministically (syscalls/sched.py, syscalls/clone.py).

Every program here runs natively and under emutrace; stdout and the exit status must match.
Traces of the same run taken twice must be byte-identical. The small C programs below are
compiled into a temporary directory (skipped without a C compiler); their waits are ordered
with sleeps so that the native runs are not racy (under emutrace sleeps cost no time).
"""
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import STILL_DIR, built, emutrace, native, same_as_native, status_of

PY_POOL_SUBPROCESS = r"""
import subprocess, threading
from concurrent.futures import ThreadPoolExecutor
with ThreadPoolExecutor(4) as ex:
    print(sum(ex.map(lambda n: sum(range(n)), range(200))))
r = subprocess.run(["echo", "hi"], capture_output=True)
print(r.stdout, r.returncode)
out = []
t = threading.Thread(target=lambda: out.append(threading.current_thread().name))
t.start(); t.join()
print(out)
"""

PY_SUBPROCESS_MORE = r"""
import os, subprocess
r = subprocess.run("echo one | tr a-z A-Z; exit 4", shell=True, capture_output=True, text=True)
print(repr(r.stdout), r.returncode)
p = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
out, _ = p.communicate(b"x" * 100000)
print(len(out), p.returncode)
print(subprocess.run(["sh", "-c", "kill -TERM $$"]).returncode)
try:
    subprocess.run(["/nonexistent/prog"])
except FileNotFoundError as e:
    print("FileNotFoundError", e.errno)
pid = os.fork()
if pid == 0:
    os._exit(9)
print(os.waitpid(pid, 0)[1] >> 8)
"""


@pytest.fixture(scope="module")
def cprog(tmp_path_factory):
    """Compile one of the C sources below (cached for the module)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    d = tmp_path_factory.mktemp("threadprogs")
    done = {}

    def get(name):
        if name not in done:
            src = d / f"{name}.c"
            src.write_text(SOURCES[name])
            exe = d / name
            r = subprocess.run([cc, "-O1", "-pthread", "-o", str(exe), str(src)], capture_output=True, text=True)
            if r.returncode != 0:
                pytest.skip(f"cannot compile {name}: {r.stderr[-500:]}")
            done[name] = str(exe)
        return done[name]
    return get


def events(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


# ---------------------------------------------------------------- the bins/ programs

@pytest.mark.parametrize("prog,args", [("threads", ["2"]), ("threads", ["16"]), ("forkwait", []),
                                       ("system", []), ("sigs", [])])
def test_bins_like_native(prog, args):
    same_as_native([built(prog), *args])


@pytest.mark.parametrize("prog,args", [("threads", ["16"]), ("forkwait", []), ("system", []), ("sigs", [])])
def test_bins_strace_repeatable(prog, args, tmp_path):
    exe = built(prog)
    runs = []
    for i in range(2):
        out = tmp_path / f"t{i}.txt"
        r = emutrace(["--strace", "-f", "-o", str(out), exe, *args], cwd=STILL_DIR)
        assert r.returncode == 0, r.stderr
        runs.append((r.stdout, out.read_bytes()))
    assert runs[0] == runs[1]
    assert b"exit_group" in runs[0][1]


def test_ltrace_S_repeatable(tmp_path):
    exe = built("threads")
    outs = []
    for i in range(2):
        out = tmp_path / f"t{i}.jsonl"
        r = emutrace(["-f", "-S", "--format", "jsonl", "-o", str(out), exe, "4"])
        assert r.returncode == 0, r.stderr
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]


# ---------------------------------------------------------------- shells and Python

@pytest.mark.parametrize("script", [
    "seq 1000 | sort -rn | head -3",
    'yes | head -2; echo "status $?"',
    "x=$(echo hi | tr h H); echo $x; (exit 3); echo $?",
    "{ for i in 1 2 3; do (echo $i; exit $i) & done; wait; } | sort; echo done",
    'trap "echo trapped" USR1; kill -USR1 $$; echo after',
    "sleep 1 & wait $!; echo slept $?",
])
def test_sh_like_native(script):
    same_as_native(["/bin/sh", "-c", script])


def test_python_threads_and_subprocess():
    e = same_as_native(["/usr/bin/python3", "-c", PY_POOL_SUBPROCESS])
    assert e.stdout.splitlines()[:2] == [b"1313400", b"b'hi\\n' 0"]


def test_python_trace_repeatable(tmp_path):
    """Threads preempted by instruction budgets and woken by futexes: the same interleaving
    every time (run in an empty directory: Python lists its script's directory)."""
    empty = tmp_path / "empty"
    empty.mkdir()
    runs = []
    for i in range(2):
        out = tmp_path / f"t{i}.txt"
        r = emutrace(["--strace", "-f", "-o", str(out), "/usr/bin/python3", "-c", PY_POOL_SUBPROCESS],
                     cwd=str(empty))
        assert r.returncode == 0, r.stderr
        runs.append(out.read_bytes())
    assert runs[0] == runs[1]
    text = runs[0].decode()
    assert text.count("clone3(") >= 5 and "execve(\"/usr/bin/echo\"" in text


def test_python_subprocess_variants():
    same_as_native(["/usr/bin/python3", "-c", PY_SUBPROCESS_MORE])


# ---------------------------------------------------------------- C programs

def test_processes_and_signals(cprog):
    """kill, SIGKILL/SIGTERM to a paused child, read interrupted with and without SA_RESTART,
    SIGPIPE and EPIPE, a pipe bigger than its buffer, waitid, SIGCHLD, ECHILD, getppid."""
    e = same_as_native([cprog("procsig")])
    assert b"no SA_RESTART: read failed: Interrupted system call" in e.stdout
    assert b"SA_RESTART: read 4 bytes" in e.stdout


def test_thread_features(cprog):
    """A robust mutex whose owner died, a spinning main thread, pthread_kill, a PI mutex under
    contention, a timed condition wait, TLS and FP state across switches."""
    e = same_as_native([cprog("threadx")])
    assert b"EOWNERDEAD" in e.stdout and b"ETIMEDOUT" in e.stdout


def test_futex_operations(cprog):
    """cmp_requeue, wake_op, bitsets, relative and CLOCK_REALTIME timeouts, EAGAIN, EINVAL, ENOSYS."""
    e = same_as_native([cprog("futexops")])
    assert b"cmp_requeue: 3" in e.stdout and b"wake f2: 2" in e.stdout


def test_interrupted_wait_and_sleep(cprog):
    """waitpid interrupted by SIGALRM: EINTR, or restarted with SA_RESTART; nanosleep's rem."""
    e = same_as_native([cprog("eintr")])
    assert e.stdout == (b"waitpid: -1 Interrupted system call\nnanosleep: -1 Interrupted system call rem>3s=1\n"
                        b"waitpid with SA_RESTART: child 0\n")


def test_sigwaitinfo_and_sigtimedwait(cprog):
    e = same_as_native([cprog("sigwait")])
    assert e.stdout.splitlines()[1] == b"sigtimedwait with nothing pending: -1"


def test_pi_futex_contention_traced(cprog, tmp_path):
    out = tmp_path / "t.txt"
    r = emutrace(["--strace", "-f", "-o", str(out), cprog("threadx")])
    assert r.returncode == 0, r.stderr
    lines = out.read_text().splitlines()
    locks = [line for line in lines if "FUTEX_LOCK_PI_PRIVATE" in line]
    unlocks = [line for line in lines if "FUTEX_UNLOCK_PI_PRIVATE" in line and "0x7fff" not in line]
    assert len(locks) >= 3 and all(line.endswith(" = 0") for line in locks)      # the kernel handed it over
    assert len(unlocks) >= len(locks) and all(line.endswith(" = 0") for line in unlocks)


def test_deadlock_ends_with_a_message(cprog):
    r = emutrace(["--no-trace", cprog("deadlock")], timeout=60)
    assert r.returncode == 125
    lines = r.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("emutrace: the program cannot continue: every thread is blocked")
    assert "futex" in lines[0] and "thread 1001 of process 1000" in lines[0]


def _children_of(pid):
    kids = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                kids.append(int(d))
    return kids


def test_fork_bomb_hits_max_procs(cprog):
    exe = cprog("forkbomb")           # never run natively
    p = subprocess.Popen([sys.executable, "-m", "emutrace", "--no-trace", "--max-procs", "8", exe],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    seen = set()
    while p.poll() is None:
        seen.update(_children_of(p.pid))
        time.sleep(0.02)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    assert out == b"fork failed with EAGAIN: yes\n"
    assert not seen                   # every guest process lives inside the one host process


def test_max_procs_counts_processes_not_threads(cprog):
    r = emutrace(["--no-trace", "--max-procs", "2", built("threads"), "16"])
    assert r.returncode == 0 and b"all 16 threads done" in r.stdout


# ---------------------------------------------------------------- who did what (-f)

def test_follow_threads_jsonl(tmp_path):
    out = tmp_path / "t.jsonl"
    r = emutrace(["-f", "-S", "--format", "jsonl", "-o", str(out), built("threads"), "2"])
    assert r.returncode == 0, r.stderr
    ev = events(out)
    assert {e["pid"] for e in ev} == {1000}
    assert {e["tid"] for e in ev} == {1000, 1001, 1002}
    clones = [e for e in ev if e.get("name") in ("clone3", "clone")]
    assert [(e["tid"], e["ret"]) for e in clones] == [(1000, 1001), (1000, 1002)]
    exits = [(e["tid"], e["name"]) for e in ev if e.get("name") in ("exit", "exit_group")]
    assert sorted(exits) == [(1000, "exit_group"), (1001, "exit"), (1002, "exit")]
    # a thread's calls are its own: each worker locked and unlocked the mutex 1000+ times
    for tid in (1001, 1002):
        names = [e["name"] for e in ev if e["tid"] == tid and e["type"] == "call"]
        assert names.count("pthread_mutex_lock") >= 1001


def test_follow_processes_jsonl(tmp_path):
    out = tmp_path / "t.jsonl"
    r = emutrace(["-f", "-S", "--format", "jsonl", "-o", str(out), built("forkwait")])
    assert r.returncode == 0, r.stderr
    ev = events(out)
    assert all(e["pid"] == e["tid"] for e in ev)
    exits = {e["pid"]: e["status"] for e in ev if e["type"] == "exit"}
    assert exits == {1000: 0, 1001: 3, 1002: 4}
    writes = [(e["pid"], e["line"]) for e in ev if e.get("name") == "write"]
    assert (1001, 'write(1, "child\\n", 6) = 6') in writes
    wait = [e for e in ev if e.get("name") == "wait4"]
    assert [(e["pid"], e["ret"]) for e in wait] == [(1000, 1001), (1000, 1002)]
    chld = [e for e in ev if e["type"] == "signal"]
    assert [(e["pid"], e["info"]["si_pid"], e["info"]["si_status"]) for e in chld] == [(1000, 1001, 3), (1000, 1002, 4)]


def test_follow_exec_in_child(tmp_path):
    out = tmp_path / "t.jsonl"
    r = emutrace(["-f", "-S", "--format", "jsonl", "-o", str(out), built("system")])
    assert r.returncode == 0, r.stderr
    ev = events(out)
    execs = [(e["pid"], e["ret"]) for e in ev if e.get("name") == "execve"]
    assert execs == [(1000, 0), (1001, 0), (1002, 0)]          # sh for system(), sh for popen()
    # the child's echo wrote the line; its library calls are traced after its exec
    assert any(e["pid"] != 1000 and e["type"] == "syscall" and e["name"] == "write"
               and "hello from system" in e["line"] for e in ev)
    assert any(e["pid"] != 1000 and e["type"] == "call" for e in ev)


def test_without_follow_only_the_first_process(tmp_path):
    """Children run untraced; the first process's threads are part of it and are traced."""
    expect = {"forkwait": {(1000, 1000)}, "threads": {(1000, 1000), (1000, 1001), (1000, 1002)}}
    for prog, args in (("forkwait", []), ("threads", ["2"])):
        out = tmp_path / f"{prog}.jsonl"
        r = emutrace(["-S", "--format", "jsonl", "-o", str(out), built(prog), *args])
        assert r.returncode == 0, r.stderr
        ev = events(out)
        assert {(e["pid"], e["tid"]) for e in ev} == expect[prog]
        assert [e["status"] for e in ev if e["type"] == "exit"] == [0]


# ---------------------------------------------------------------- the Python API of the core

def test_session_processes_and_result():
    from emutrace.session import Run
    s = Run([built("forkwait")])
    r = s.run()
    assert r.status == 0
    assert [p.pid for p in s.processes] == [1000, 1001, 1002]
    assert [p.wait_status >> 8 for p in s.processes[1:]] == [3, 4]
    assert s.kernel.sched.tasks == [] and s.kernel.sched.procs == []


def test_session_deadlock_is_limit_reached(cprog):
    from emutrace.session import LimitReached, Run
    s = Run([cprog("deadlock")])
    with pytest.raises(LimitReached) as e:
        s.run()
    assert "every thread is blocked" in str(e.value)



# ---------------------------------------------------------------- C sources

PROCSIG_C = r"""#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got;
static void on_usr1(int s) { (void)s; got++; }

static void nap(void) { struct timespec ts = {0, 100 * 1000 * 1000}; nanosleep(&ts, NULL); }

static void report(const char *what, int st)
{
    if (WIFEXITED(st)) printf("%s: exited %d\n", what, WEXITSTATUS(st));
    else if (WIFSIGNALED(st)) printf("%s: killed by signal %d\n", what, WTERMSIG(st));
    else printf("%s: status %#x\n", what, st);
}

static void handler(int sig, int flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = flags;
    sigaction(sig, &sa, NULL);
}

/* a child blocked in read() gets SIGUSR1: with SA_RESTART the read goes on, without it fails with EINTR */
static void interrupted_read(int flags, const char *name)
{
    int p[2];
    pipe(p);
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        char buf[16];
        close(p[1]);
        handler(SIGUSR1, flags);
        ssize_t n = read(p[0], buf, sizeof buf);
        if (n < 0) printf("%s: read failed: %s (handler ran %d)\n", name, strerror(errno), (int)got);
        else printf("%s: read %zd bytes \"%.*s\" (handler ran %d)\n", name, n, (int)n, buf, (int)got);
        fflush(stdout);
        _exit(0);
    }
    close(p[0]);
    nap();
    kill(c, SIGUSR1);
    nap();
    signal(SIGPIPE, SIG_IGN);           /* the child may be gone already */
    write(p[1], "data", 4);
    signal(SIGPIPE, SIG_DFL);
    close(p[1]);
    int st;
    waitpid(c, &st, 0);
}

int main(void)
{
    int st;
    setvbuf(stdout, NULL, _IOLBF, 0);

    /* SIGKILL to a child waiting in pause() */
    pid_t c = fork();
    if (c == 0) { pause(); _exit(1); }
    nap();
    kill(c, SIGKILL);
    waitpid(c, &st, 0);
    report("paused child", st);

    /* SIGTERM with a handler: pause() returns, the child exits normally */
    c = fork();
    if (c == 0) { handler(SIGTERM, 0); pause(); _exit(got ? 7 : 1); }
    nap();
    kill(c, SIGTERM);
    waitpid(c, &st, 0);
    report("handled SIGTERM", st);

    interrupted_read(SA_RESTART, "SA_RESTART");
    interrupted_read(0, "no SA_RESTART");

    /* a broken pipe: EPIPE is only seen when SIGPIPE is ignored; else SIGPIPE kills */
    int p[2];
    pipe(p);
    close(p[0]);
    c = fork();
    if (c == 0) { write(p[1], "x", 1); _exit(0); }
    waitpid(c, &st, 0);
    report("writer to a closed pipe", st);
    signal(SIGPIPE, SIG_IGN);
    errno = 0;
    ssize_t n = write(p[1], "x", 1);
    printf("write with SIGPIPE ignored: %zd (%s)\n", n, strerror(errno));
    close(p[1]);

    /* more than a pipe's capacity goes through: the writer blocks until the reader reads */
    pipe(p);
    c = fork();
    if (c == 0) {
        close(p[0]);
        static char big[300000];
        memset(big, 'z', sizeof big);
        ssize_t done = 0;
        while (done < (ssize_t)sizeof big) { ssize_t k = write(p[1], big + done, sizeof big - done); if (k <= 0) _exit(2); done += k; }
        _exit(0);
    }
    close(p[1]);
    long total = 0;
    char buf[4096];
    while ((n = read(p[0], buf, sizeof buf)) > 0) total += n;
    waitpid(c, &st, 0);
    printf("read %ld bytes through a pipe\n", total);
    report("pipe writer", st);

    /* SIGCHLD handler, waitid, ECHILD */
    handler(SIGCHLD, SA_RESTART);
    got = 0;
    c = fork();
    if (c == 0) _exit(5);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    waitid(P_PID, c, &si, WEXITED);
    printf("waitid: code=%s status=%d pid ok=%d, SIGCHLD handled %d\n",
           si.si_code == CLD_EXITED ? "CLD_EXITED" : "?", si.si_status, si.si_pid == c, (int)got);
    errno = 0;
    int r = wait(&st), e = errno;
    printf("wait with no children: %d (%s)\n", r, strerror(e));
    printf("getppid of child is parent: ");
    fflush(stdout);
    pid_t me = getpid();
    c = fork();
    if (c == 0) { printf("%s\n", getppid() == me ? "yes" : "no"); _exit(0); }
    waitpid(c, &st, 0);
    return 0;
}
"""

THREADX_C = r"""#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t robust;
static atomic_int flag;
static volatile long spins;
static pid_t main_tid;
static volatile pid_t handled_in;

static void *die_holding(void *a) { (void)a; pthread_mutex_lock(&robust); return NULL; }
static void *set_flag(void *a) { (void)a; for (volatile int i = 0; i < 100000; i++); atomic_store(&flag, 1); return NULL; }
static void on_usr1(int s) { (void)s; handled_in = (pid_t)syscall(SYS_gettid); }
static void *signal_main(void *a) { (void)a; pthread_kill(*(pthread_t *)a, SIGUSR1); return NULL; }

static pthread_mutex_t pi;
static long pi_count;
static void *pi_worker(void *a)
{
    (void)a;
    for (int i = 0; i < 2000; i++) {
        pthread_mutex_lock(&pi);
        pi_count++;
        if (i % 500 == 0) usleep(1000);      /* the others find it locked */
        pthread_mutex_unlock(&pi);
    }
    return NULL;
}

static int tls_value(void);
static __thread int tls = 1;
static void *tls_worker(void *a) { tls = (int)(long)a; sched_yield(); return (void *)(long)tls_value(); }
static int tls_value(void) { return tls; }

static double fp_sum(double x) { double s = 0; for (int i = 1; i <= 2000; i++) s += x / i; return s; }
static void *fp_worker(void *a) { static double r[2]; long k = (long)a; r[k] = fp_sum(k + 1.5); return &r[k]; }

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    main_tid = (pid_t)syscall(SYS_gettid);

    /* a thread dies holding a robust mutex: the next locker gets EOWNERDEAD */
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&robust, &ma);
    pthread_t t;
    pthread_create(&t, NULL, die_holding, NULL);
    pthread_join(t, NULL);
    int r = pthread_mutex_lock(&robust);
    printf("robust mutex after its owner died: %s\n", r == EOWNERDEAD ? "EOWNERDEAD" : strerror(r));
    pthread_mutex_consistent(&robust);
    pthread_mutex_unlock(&robust);

    /* main spins (no system calls) until a thread sets a flag: the thread must get to run */
    pthread_create(&t, NULL, set_flag, NULL);
    while (!atomic_load(&flag)) spins++;
    pthread_join(t, NULL);
    printf("spinning main saw the flag\n");

    /* pthread_kill: the handler runs in the target thread */
    signal(SIGUSR1, on_usr1);
    pthread_t self = pthread_self();
    pthread_create(&t, NULL, signal_main, &self);
    pthread_join(t, NULL);
    while (!handled_in) sched_yield();
    printf("SIGUSR1 handled in the main thread: %s\n", handled_in == main_tid ? "yes" : "no");

    /* priority-inheritance mutex under contention */
    pthread_mutexattr_t pa;
    pthread_mutexattr_init(&pa);
    pthread_mutexattr_setprotocol(&pa, PTHREAD_PRIO_INHERIT);
    pthread_mutex_init(&pi, &pa);
    pthread_t w[4];
    for (int i = 0; i < 4; i++) pthread_create(&w[i], NULL, pi_worker, NULL);
    for (int i = 0; i < 4; i++) pthread_join(w[i], NULL);
    printf("PI mutex count: %ld\n", pi_count);

    /* a timed condition wait nobody signals */
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t c = PTHREAD_COND_INITIALIZER;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 50 * 1000 * 1000;
    if (ts.tv_nsec >= 1000000000) { ts.tv_sec++; ts.tv_nsec -= 1000000000; }
    pthread_mutex_lock(&m);
    r = pthread_cond_timedwait(&c, &m, &ts);
    pthread_mutex_unlock(&m);
    printf("timed wait: %s\n", r == ETIMEDOUT ? "ETIMEDOUT" : strerror(r));

    /* thread-local storage and FP/SSE state survive switches */
    pthread_t a, b;
    pthread_create(&a, NULL, tls_worker, (void *)41L);
    pthread_create(&b, NULL, tls_worker, (void *)42L);
    void *ra, *rb;
    pthread_join(a, &ra);
    pthread_join(b, &rb);
    printf("tls: %ld %ld main %d\n", (long)ra, (long)rb, tls);
    pthread_create(&a, NULL, fp_worker, (void *)0L);
    pthread_create(&b, NULL, fp_worker, (void *)1L);
    pthread_join(a, &ra);
    pthread_join(b, &rb);
    printf("fp: %.12f %.12f main %.12f\n", *(double *)ra, *(double *)rb, fp_sum(3.5));
    return 0;
}
"""

FUTEXOPS_C = r"""#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int f1, f2;
static long results[8];

static long fx(int *uaddr, int op, int val, const struct timespec *ts, int *uaddr2, int val3)
{
    long r = syscall(SYS_futex, uaddr, op, val, ts, uaddr2, val3);
    return r < 0 ? -errno : r;
}

struct w { int *addr; int bitset; int slot; };
static void *waiter(void *a)
{
    struct w *w = a;
    results[w->slot] = fx(w->addr, FUTEX_WAIT_BITSET_PRIVATE, *w->addr, NULL, NULL, w->bitset);
    return NULL;
}

static void nap(void) { usleep(100 * 1000); }

int main(void)
{
    pthread_t t[4];
    struct w ws[4];

    /* CMP_REQUEUE: wake one, move the rest to f2, then wake them there */
    for (int i = 0; i < 3; i++) { ws[i] = (struct w){&f1, -1, i}; pthread_create(&t[i], NULL, waiter, &ws[i]); }
    nap();
    printf("cmp_requeue with a stale value: %ld\n", fx(&f1, FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)10L, &f2, 7));
    printf("cmp_requeue: %ld\n", fx(&f1, FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)10L, &f2, 0));
    printf("wake f1 after requeue: %ld\n", fx(&f1, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0));
    printf("wake f2: %ld\n", fx(&f2, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0));
    for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
    printf("waiters returned %ld %ld %ld\n", results[0], results[1], results[2]);

    /* WAKE_OP: f2 += 1, wake one on f1 and, as f2 was 0, one on f2 */
    f1 = f2 = 0;
    ws[0] = (struct w){&f1, -1, 0};
    ws[1] = (struct w){&f2, -1, 1};
    pthread_create(&t[0], NULL, waiter, &ws[0]);
    pthread_create(&t[1], NULL, waiter, &ws[1]);
    nap();
    long r = fx(&f1, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1L, &f2, FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_EQ, 0));
    printf("wake_op: %ld, f2 now %d\n", r, f2);
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);

    /* bitsets: a wake with a disjoint bitset wakes nobody */
    f1 = 0;
    ws[0] = (struct w){&f1, 1, 0};
    pthread_create(&t[0], NULL, waiter, &ws[0]);
    nap();
    printf("wake_bitset 2: %ld\n", fx(&f1, FUTEX_WAKE_BITSET_PRIVATE, 1, NULL, NULL, 2));
    printf("wake_bitset 1: %ld\n", fx(&f1, FUTEX_WAKE_BITSET_PRIVATE, 1, NULL, NULL, 1));
    pthread_join(t[0], NULL);
    printf("bitset waiter returned %ld\n", results[0]);

    /* timeouts, relative and absolute (CLOCK_REALTIME), and a changed value */
    struct timespec rel = {0, 10 * 1000 * 1000}, abs;
    printf("wait with a stale value: %ld\n", fx(&f1, FUTEX_WAIT_PRIVATE, 5, NULL, NULL, 0));
    printf("relative timeout: %ld\n", fx(&f1, FUTEX_WAIT_PRIVATE, 0, &rel, NULL, 0));
    clock_gettime(CLOCK_REALTIME, &abs);
    abs.tv_nsec += 10 * 1000 * 1000;
    if (abs.tv_nsec >= 1000000000) { abs.tv_sec++; abs.tv_nsec -= 1000000000; }
    printf("absolute realtime timeout: %ld\n",
           fx(&f1, FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME, 0, &abs, NULL, FUTEX_BITSET_MATCH_ANY));
    printf("zero bitset: %ld\n", fx(&f1, FUTEX_WAIT_BITSET_PRIVATE, 0, NULL, NULL, 0));
    printf("unknown op: %ld\n", fx(&f1, 99, 0, NULL, NULL, 0));
    return 0;
}
"""

FORKBOMB_C = r"""#include <errno.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
int main(void)
{
    pid_t root = getpid();
    int saw = 0;
    for (int i = 0; i < 100000; i++) {
        pid_t p = fork();
        if (p < 0) { saw = errno == EAGAIN; break; }
        /* parent and child both go on forking */
    }
    int st, any = saw;
    while (wait(&st) > 0)
        if (WIFEXITED(st) && WEXITSTATUS(st) == 42)
            any = 1;
    if (getpid() == root) {
        printf("fork failed with EAGAIN: %s\n", any ? "yes" : "no");
        return 0;
    }
    return any ? 42 : 0;
}
"""

DEADLOCK_C = r"""#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static void *other(void *x) { (void)x; pthread_mutex_lock(&b); usleep(1000); pthread_mutex_lock(&a); return NULL; }
int main(void)
{
    pthread_t t;
    pthread_mutex_lock(&a);
    pthread_create(&t, NULL, other, NULL);
    usleep(1000);
    pthread_mutex_lock(&b);
    pthread_join(t, NULL);
    puts("unreachable");
    return 0;
}
"""

SIGWAIT_C = r"""#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
static pthread_t main_t;
static void *sender(void *a) { (void)a; usleep(50000); pthread_kill(main_t, SIGUSR2); return NULL; }
int main(void)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR1);
    sigaddset(&s, SIGUSR2);
    pthread_sigmask(SIG_BLOCK, &s, NULL);
    raise(SIGUSR1);
    siginfo_t si;
    int sig = sigwaitinfo(&s, &si);
    printf("sigwaitinfo: %d code %d\n", sig, si.si_code);
    struct timespec ts = {0, 20 * 1000 * 1000};
    printf("sigtimedwait with nothing pending: %d\n", sigtimedwait(&s, &si, &ts));
    main_t = pthread_self();
    pthread_t t;
    pthread_create(&t, NULL, sender, NULL);
    sig = sigwaitinfo(&s, &si);
    printf("from a thread: %d code %d\n", sig, si.si_code);
    pthread_join(t, NULL);
    return 0;
}
"""

EINTR_C = r"""#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static void h(int s) { (void)s; }
int main(void)
{
    struct sigaction sa; memset(&sa, 0, sizeof sa); sa.sa_handler = h; sigaction(SIGALRM, &sa, NULL);
    pid_t c = fork();
    if (c == 0) { sleep(3); _exit(0); }
    alarm(1);
    int st; pid_t r = waitpid(c, &st, 0); int e = errno;
    printf("waitpid: %d %s\n", (int)r, r < 0 ? strerror(e) : "");
    alarm(1);
    struct timespec ts = {5, 0}, rem = {0, 0};
    int n = nanosleep(&ts, &rem); e = errno;
    printf("nanosleep: %d %s rem>3s=%d\n", n, n ? strerror(e) : "", rem.tv_sec >= 3);
    sa.sa_flags = SA_RESTART; sigaction(SIGALRM, &sa, NULL);
    alarm(1);
    r = waitpid(c, &st, 0);
    printf("waitpid with SA_RESTART: %s %d\n", r == c ? "child" : "?", WEXITSTATUS(st));
    return 0;
}
"""

SOURCES = {"eintr": EINTR_C, "procsig": PROCSIG_C, "threadx": THREADX_C, "futexops": FUTEXOPS_C, "forkbomb": FORKBOMB_C,
           "deadlock": DEADLOCK_C, "sigwait": SIGWAIT_C}
