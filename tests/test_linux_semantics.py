"""Linux semantics real programs rely on: a process limit they do not hit (a bound on host
memory), EMFILE from daemon() under a low RLIMIT_NOFILE as the C library gives it."""
import pytest

from conftest import built, emutrace, native


def test_a_signal_handler_forks_200_children_like_native():
    prog = built("forkstorm", "pie")
    n = native([prog, "200"])
    e = emutrace(["--no-trace", "--timeout", "200", prog, "200"], timeout=300)
    assert e.stdout == n.stdout == b"forked 200, failed 0 (-), reaped 200, status sum 594\n", e.stderr[-2000:]


def test_the_default_process_limit_follows_max_mem():
    """--max-mem 512M allows 64 processes (one per 8 MiB): a fork bomb of processes that exit at
    once ends at that count (their memory comes back as each ends)."""
    prog = built("forkstorm", "pie")
    e = emutrace(["--no-trace", "--max-mem", "512M", "--timeout", "200", prog, "100"], timeout=300)
    assert e.stdout == b"forked 63, failed 37 (Resource temporarily unavailable), reaped 63, status sum 189\n"


@pytest.mark.parametrize("variant", ["pie", "musl-static"])
def test_daemon_under_a_low_nofile_limit_like_native(variant):
    """The open of /dev/null gets EMFILE. musl's daemon() reports it; glibc's (2.36) then calls
    close(-1), whose EBADF replaces errno natively too: emutrace gives what each C library gives."""
    import time
    prog = built("daemonlim", variant)
    n = native([prog])
    time.sleep(0.3)                           # the native daemon child writes after its parent ends
    e = emutrace(["--no-trace", prog])
    assert e.stdout.startswith(b"open: ")
    assert b"Too many open files" in e.stdout or b"No file descriptors available" in e.stdout
    assert e.stdout == n.stdout, (e.stdout, n.stdout)


@pytest.mark.parametrize("variant", ["pie", "musl-static"])
def test_thread_dying_with_a_robust_pi_mutex_wakes_its_waiter(variant):
    """glibc flags PI entries in the robust list; musl releases robust mutexes itself at thread
    exit and never reaches a PI waiter: the kernel's exit_pi_state_list hands the futex over."""
    prog = built("robustpi", variant)
    n = native([prog])
    e = emutrace(["--no-trace", "--timeout", "120", prog])
    assert e.stdout == n.stdout, e.stderr[-2000:]
    assert e.stdout.count(b"waiter: EOWNERDEAD, consistent: ok, unlock: ok") == 2
