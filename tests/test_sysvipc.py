"""SysV IPC (syscalls/sysvipc.py) between guest processes, compared with native runs and with
strace, and python's multiprocessing with shared-memory queues and locks."""
import re
import shutil

import pytest

from conftest import built, emutrace, native, runs_like_native, strace_both, strace_calls

MULTIPROCESSING = """
import multiprocessing as mp
from multiprocessing import shared_memory

def worker(q, lock, counter, name, i):
    shm = shared_memory.SharedMemory(name=name)
    for _ in range(50):
        with lock:
            counter.value += 1
    shm.buf[i] = i + 65
    shm.close()
    q.put((i, i * i))

if __name__ == "__main__":
    mp.set_start_method("fork")
    q, lock, counter = mp.Queue(), mp.Lock(), mp.Value("i", 0, lock=False)
    shm = shared_memory.SharedMemory(create=True, size=16)
    ps = [mp.Process(target=worker, args=(q, lock, counter, shm.name, i)) for i in range(3)]
    for p in ps:
        p.start()
    got = sorted(q.get() for _ in ps)
    for p in ps:
        p.join()
    print(got, counter.value, bytes(shm.buf[:3]), [p.exitcode for p in ps])
    shm.close()
    shm.unlink()
"""


def test_shm_sem_msg_between_processes_like_native():
    e = runs_like_native(built("sysvipc", "pie"), "--timeout", "120")
    assert b'parent reads "answer from the child"' in e.stdout
    assert b"after the child's exit (undo): GETVAL 1" in e.stdout


def _ipc_calls(text: str):
    """The *get calls that make or find objects, without pids and padding: ids are Linux's."""
    return strace_calls(text, lambda line: re.match(r"(shm|sem|msg)get\(", line))


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace not installed")
def test_ipc_calls_decode_like_strace(tmp_path):
    ours, theirs = strace_both(tmp_path, [built("sysvipc", "pie")], ["-f", "-e", "trace=%ipc"], ["--timeout", "120"])
    ours = _ipc_calls(ours)
    theirs = [re.sub(r"= \d+$", "= ID", x) for x in _ipc_calls(theirs)]
    assert len(ours) > 10
    # a fresh namespace numbers from 0; the host's already has objects in it
    assert [re.sub(r"= \d+$", "= ID", x) for x in ours] == theirs
    assert ours[0].endswith("= 0")


def test_python_multiprocessing_queues_locks_shared_memory():
    n = native(["/usr/bin/python3", "-c", MULTIPROCESSING])
    e = emutrace(["--no-trace", "--timeout", "280", "/usr/bin/python3", "-c", MULTIPROCESSING], timeout=300)
    assert e.stdout == n.stdout == b"[(0, 0), (1, 1), (2, 4)] 150 b'ABC' [0, 0, 0]\n", e.stderr[-2000:]


def _ctl_lines(text: str):
    """shmctl/semctl/msgctl lines without pids, ids, times, pids inside and stack addresses."""
    out = []
    for line in strace_calls(text, lambda line: re.match(r"(shm|sem|msg)ctl\(", line) and "resumed" not in line
                             and "unfinished" not in line):
        line = re.sub(r"^(\w+)\(\d+", r"\1(ID", line)
        line = re.sub(r"(time|pid)=\d+", r"\1=N", line)
        line = re.sub(r"0x7f[0-9a-f]+", "PTR", line)
        out.append(re.sub(r"= \d+$", "= R", line) if "GETPID" in line else line)
    return sorted(out)


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace not installed")
def test_ipc_control_calls_decode_like_strace(tmp_path):
    ours, theirs = strace_both(tmp_path, [built("sysvipc", "pie")], ["-f", "-e", "trace=shmctl,semctl,msgctl"],
                               ["--timeout", "120"])
    ours, theirs = _ctl_lines(ours), _ctl_lines(theirs)
    assert any("shm_nattch=3" in x for x in ours)
    assert ours == theirs
