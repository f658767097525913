"""Memory shared between emulated processes: MAP_SHARED mappings (anonymous, /dev/shm and other
overlay files) are the same host memory in every engine that maps them (emutrace/machine/memory.py
SharedMemory, syscalls/mm.py, fork in syscalls/clone.py), shared futexes on them wake other
processes (syscalls/sched.py), and /dev/shm is a writable tmpfs inside the sandbox.

The C program and the Python programs run natively and under emutrace: stdout and exit status
must match, and two traced runs must be byte-identical.
"""
import os
import shutil
import subprocess

import pytest

from conftest import STILL_DIR, emutrace, native, same_as_native, status_of, system_program

SHM_C = r"""
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

struct area {
    pthread_mutex_t mu, robust;
    sem_t ping, pong;
    long counter;
    int flag;
    char msg[64];
};

#define N 3000

static void check(int ok, const char *what) {
    if (!ok) { printf("FAILED: %s (errno %d)\n", what, errno); exit(1); }
}

static void reap(pid_t pid) {
    int st;
    check(waitpid(pid, &st, 0) == pid, "waitpid");
    printf("child status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

int main(void) {
    setvbuf(stdout, NULL, _IONBF, 0);

    /* 1: MAP_SHARED|MAP_ANONYMOUS is shared with the child, MAP_PRIVATE is copied */
    int *anon = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    int *priv = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    check(anon != MAP_FAILED && priv != MAP_FAILED, "mmap");
    anon[0] = 1; anon[1024] = 2; priv[0] = 1;
    pid_t pid = fork();
    if (pid == 0) { anon[0] = 42; anon[1024] = 43; priv[0] = 42; _exit(0); }
    reap(pid);
    printf("anon %d %d private %d\n", anon[0], anon[1024], priv[0]);
    /* shared pages keep their contents through MADV_DONTNEED; mremap moves them */
    check(madvise(anon, 8192, MADV_DONTNEED) == 0, "madvise");
    printf("after MADV_DONTNEED %d\n", anon[0]);
    void *spot = mmap(NULL, 8192, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int *moved = mremap(anon, 8192, 8192, MREMAP_MAYMOVE | MREMAP_FIXED, spot);
    check(moved == spot, "mremap");
    pid = fork();
    if (pid == 0) { moved[0] = 5; moved[1500] = 7; _exit(0); }
    reap(pid);
    printf("after mremap %d %d %d\n", moved[0], moved[1024], moved[1500]);

    /* 2: shm_open + ftruncate + MAP_SHARED, coherent with read/write */
    const char *name = "/emutrace-shm-test";
    shm_unlink(name);
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    check(fd >= 0, "shm_open");
    check(ftruncate(fd, sizeof(struct area)) == 0, "ftruncate");
    struct stat st;
    check(fstat(fd, &st) == 0, "fstat");
    printf("size %ld\n", (long)st.st_size);
    struct area *a = mmap(NULL, sizeof *a, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    check(a != MAP_FAILED, "mmap shm");
    check(pwrite(fd, "hello", 6, offsetof(struct area, msg)) == 6, "pwrite");
    printf("mapping sees %s\n", a->msg);
    strcpy(a->msg, "world");
    char buf[8] = {0};
    check(pread(fd, buf, 6, offsetof(struct area, msg)) == 6, "pread");
    printf("read sees %s\n", buf);
    DIR *d = opendir("/dev/shm");
    check(d != NULL, "opendir");
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, name + 1) == 0)
            printf("listed %s\n", e->d_name);
    closedir(d);
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[512];
    while (fgets(line, sizeof line, maps))
        if (strstr(line, "/dev/shm/emutrace-shm-test") && strstr(line, " rw-s "))
            printf("maps: rw-s /dev/shm/emutrace-shm-test\n");
    fclose(maps);

    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
    check(pthread_mutex_init(&a->mu, &ma) == 0, "mutex_init");
    pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
    check(pthread_mutex_init(&a->robust, &ma) == 0, "robust mutex_init");
    check(sem_init(&a->ping, 1, 0) == 0 && sem_init(&a->pong, 1, 0) == 0, "sem_init");

    /* 3: a contended process-shared mutex, a ping-pong on process-shared semaphores, and a
       counter both processes increment; the child maps the object again, at another address */
    pthread_mutex_lock(&a->mu);
    pid = fork();
    if (pid == 0) {
        int fd2 = shm_open(name, O_RDWR, 0);
        check(fd2 >= 0, "shm_open in child");
        struct area *b = mmap(NULL, sizeof *b, PROT_READ | PROT_WRITE, MAP_SHARED, fd2, 0);
        check(b != MAP_FAILED && b != a, "second mapping");
        pthread_mutex_lock(&b->mu);            /* the parent holds it: waits */
        printf("child got the mutex, flag %d\n", b->flag);
        pthread_mutex_unlock(&b->mu);
        for (int i = 0; i < N; i++) {
            pthread_mutex_lock(&b->mu);
            b->counter++;
            pthread_mutex_unlock(&b->mu);
        }
        for (int i = 0; i < 3; i++) {
            sem_wait(&b->ping);
            snprintf(b->msg, sizeof b->msg, "pong %d", i);
            sem_post(&b->pong);
        }
        _exit(0);
    }
    usleep(20000);
    a->flag = 7;
    pthread_mutex_unlock(&a->mu);
    for (int i = 0; i < N; i++) {
        pthread_mutex_lock(&a->mu);
        a->counter++;
        pthread_mutex_unlock(&a->mu);
    }
    for (int i = 0; i < 3; i++) {
        sem_post(&a->ping);
        sem_wait(&a->pong);
        printf("%s\n", a->msg);
    }
    reap(pid);
    printf("counter %ld\n", a->counter);

    /* 4: a robust mutex whose owner process dies */
    pid = fork();
    if (pid == 0) { pthread_mutex_lock(&a->robust); _exit(3); }
    reap(pid);
    int r = pthread_mutex_lock(&a->robust);
    printf("robust lock: %s\n", r == EOWNERDEAD ? "EOWNERDEAD" : strerror(r));
    if (r == EOWNERDEAD) pthread_mutex_consistent(&a->robust);
    pthread_mutex_unlock(&a->robust);

    /* 5: a named semaphore */
    sem_unlink("/emutrace-sem-test");
    sem_t *s = sem_open("/emutrace-sem-test", O_CREAT | O_EXCL, 0600, 0);
    check(s != SEM_FAILED, "sem_open");
    pid = fork();
    if (pid == 0) { usleep(10000); sem_post(s); _exit(0); }
    sem_wait(s);
    printf("named semaphore posted by the child\n");
    reap(pid);
    check(sem_close(s) == 0 && sem_unlink("/emutrace-sem-test") == 0, "sem_unlink");

    munmap(a, sizeof *a);
    close(fd);
    /* what was written through the mapping stays in the file */
    fd = shm_open(name, O_RDONLY, 0);
    check(fd >= 0, "reopen");
    memset(buf, 0, sizeof buf);
    check(pread(fd, buf, 6, offsetof(struct area, msg)) == 6, "pread after munmap");
    printf("after munmap: %s\n", buf);
    close(fd);
    check(shm_unlink(name) == 0, "shm_unlink");
    fd = shm_open(name, O_RDWR, 0);
    printf("after unlink: %s\n", fd < 0 && errno == ENOENT ? "ENOENT" : "still there");
    return 0;
}
"""

POOL = "from multiprocessing import Pool; print(Pool(2).map(abs, [-1, -2, -3]))"

PY_MP = r"""
import multiprocessing as mp
def inc(v, lock, n):
    for _ in range(n):
        with lock:
            v.value += 1
def sq(x):
    return x * x
def put(q, e, arr):
    arr[0] = 99
    q.put("from child")
    e.wait()
    q.put("after event")
if __name__ == "__main__":
    v = mp.Value("i", 0)
    lock = mp.Lock()
    ps = [mp.Process(target=inc, args=(v, lock, 100)) for _ in range(3)]
    for p in ps: p.start()
    for p in ps: p.join()
    print("value", v.value, [p.exitcode for p in ps])
    q, e, arr = mp.Queue(), mp.Event(), mp.Array("i", 4)
    p = mp.Process(target=put, args=(q, e, arr)); p.start()
    print(q.get()); e.set(); print(q.get()); p.join(); print("array", arr[:])
    with mp.Pool(3) as pool:
        print(pool.map(sq, range(10)))
        print(pool.apply_async(sq, (7,)).get())
        print(sorted(pool.imap_unordered(sq, range(5))))
"""


def _python():
    return system_program("python3")


@pytest.fixture(scope="module")
def shm_prog(tmp_path_factory):
    cc = shutil.which("gcc")
    if cc is None:
        pytest.skip("no gcc")
    d = tmp_path_factory.mktemp("shmprog")
    src = d / "shm.c"
    src.write_text(SHM_C)
    exe = d / "shm"
    r = subprocess.run([cc, "-O1", "-pthread", "-o", str(exe), str(src)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot compile shm.c: {r.stderr[-500:]}")
    return str(exe)


def repeatable(args, tmp_path, timeout=300):
    runs = []
    for i in range(2):
        out = tmp_path / f"t{i}.txt"
        r = emutrace(["--strace", "-f", "-o", str(out), *args], timeout=timeout, cwd=STILL_DIR)
        assert r.returncode == 0, r.stderr
        runs.append((r.stdout, out.read_bytes()))
    assert runs[0] == runs[1]
    return runs[0]


# ---------------------------------------------------------------- C: mmap, shm_open, sem_t, mutexes

def test_c_shared_memory_same_as_native(shm_prog):
    e = same_as_native([shm_prog])
    out = e.stdout.decode()
    assert "anon 42 43 private 1\n" in out
    assert "counter 6000\n" in out
    assert "robust lock: EOWNERDEAD\n" in out


def test_c_shared_memory_trace_repeatable(shm_prog, tmp_path):
    stdout, trace = repeatable([shm_prog], tmp_path)
    assert b"counter 6000" in stdout
    # the two processes really waited on and woke each other through shared futexes
    assert b"FUTEX_WAIT, 2, NULL) = 0" in trace
    assert b"MAP_SHARED, 3, 0)" in trace


# ---------------------------------------------------------------- Python's multiprocessing

def test_multiprocessing_pool_same_as_native():
    e = same_as_native([_python(), "-c", POOL])
    assert e.stdout == b"[1, 2, 3]\n"


def test_multiprocessing_pool_trace_repeatable(tmp_path):
    stdout, trace = repeatable([_python(), "-c", POOL], tmp_path)
    assert stdout == b"[1, 2, 3]\n"
    assert b'openat(AT_FDCWD, "/dev/shm/sem.' in trace


def test_multiprocessing_value_queue_event_array_same_as_native(tmp_path):
    script = tmp_path / "mp.py"
    script.write_text(PY_MP)
    e = same_as_native([_python(), str(script)])
    assert e.stdout.startswith(b"value 300 [0, 0, 0]\n")


# ---------------------------------------------------------------- /dev/shm and limits

def test_dev_shm_is_a_writable_tmpfs_in_the_overlay():
    if os.path.exists("/dev/shm/emutrace-probe"):
        pytest.skip("the host has a stray /dev/shm/emutrace-probe")
    script = ("echo hi > /dev/shm/emutrace-probe && cat /dev/shm/emutrace-probe && ls -A /dev/shm && "
              "rm /dev/shm/emutrace-probe && ls -A /dev/shm && echo empty && stat -c %a /dev/shm && "
              "grep /dev/shm /proc/self/mounts; touch /dev/other 2>/dev/null || echo /dev stays read-only")
    r = emutrace(["--no-trace", "sh", "-c", script])
    assert r.returncode == 0, r.stderr
    assert r.stdout.decode() == ("hi\nemutrace-probe\nempty\n1777\ntmpfs /dev/shm tmpfs rw,nosuid,nodev 0 0\n"
                                 "/dev stays read-only\n")
    assert not os.path.exists("/dev/shm/emutrace-probe")          # the host never saw it


def test_shared_mappings_count_against_max_mem():
    code = ("import mmap\ntry:\n    mmap.mmap(-1, 1 << 30)\nexcept OSError as e:\n    print('refused', e.errno)\n"
            "m = mmap.mmap(-1, 16 << 20)\nm[-1:] = b'x'\nprint(len(m), m[-1:])\n")
    r = emutrace(["--no-trace", "--max-mem", "256M", _python(), "-c", code])
    assert r.returncode == 0, r.stderr
    assert r.stdout == b"refused 12\n16777216 b'x'\n"


# ---------------------------------------------------------------- the address space, in-process

def test_address_spaces_share_memory():
    from emutrace.machine.cpu import Machine
    from emutrace.machine.memory import AddressSpace
    from emutrace.linux.mman import PROT_READ, PROT_WRITE
    from emutrace.machine.budget import OutOfMemory
    from emutrace.machine.shm import SharedMemory
    from emutrace.kernel.clone import copy_address_space
    rw = PROT_READ | PROT_WRITE
    a = AddressSpace(Machine().uc, 1 << 30)
    shm = SharedMemory()
    a.map_shared(0x10000, 0x3000, rw, shm, 0, "/dev/zero (deleted)")
    a.map(0x20000, 0x1000, rw)
    a.write(0x10010, b"shared")
    a.write(0x20000, b"private")
    b = AddressSpace(Machine().uc, 1 << 30)
    copy_address_space(a, b)                                  # what fork does
    assert b.read(0x10010, 6) == b"shared" and b.read(0x20000, 7) == b"private"
    b.write(0x12000, b"from b")
    b.write(0x20000, b"PRIVATE")
    assert a.read(0x12000, 6) == b"from b"
    assert a.read(0x20000, 7) == b"private"
    assert a.mapped == b.mapped == 0x4000
    # the same object at another address, from an offset; split by mprotect and munmap
    a.map_shared(0x40000, 0x1000, rw, shm, 0x2000, "/dev/zero (deleted)")
    assert a.read(0x40000, 6) == b"from b"
    assert b.protect(0x11000, 0x1000, PROT_READ)
    b.unmap(0x10000, 0x1000)
    v = b.find(0x12000)
    assert v.shm is shm and v.shm_off == 0x2000
    a.write(0x12008, b"!")
    assert b.read(0x12008, 1) == b"!"
    assert "rw-s" in a.maps_text() and "r--s" in b.maps_text()
    # a file-like object: new extents start from the file's bytes
    f = SharedMemory(fill=lambda off, n: bytes(range(256)) * (n // 256))
    a.map_shared(0x50000, 0x1000, rw, f, 0x1000)
    assert a.read(0x50000, 4) == bytes([0, 1, 2, 3])
    small = AddressSpace(Machine().uc, 0x1000)
    with pytest.raises(OutOfMemory):
        small.map_shared(0x10000, 0x2000, rw, SharedMemory(), 0)
