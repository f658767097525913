"""Job control: stop signals stop a process, SIGCONT continues it, and the parent hears of
both as on Linux (syscalls/jobctl.py)."""
import pytest

from conftest import built, emutrace, native


EXPECTED = b"""raise(SIGSTOP): stopped by STOP
SIGCONT: continued
then: exited 3
child 1: SIGCHLD CLD_STOPPED CLD_CONTINUED CLD_EXITED
waitid: CLD_STOPPED status STOP
while stopped, SIGUSR1 handled: no
after SIGCONT, SIGUSR1 handled: yes
waitid: CLD_CONTINUED status CONT
SIGSTOP: stopped by STOP
SIGKILL while stopped: killed by KILL
child 2: SIGCHLD CLD_STOPPED CLD_CONTINUED CLD_STOPPED CLD_KILLED
SIGSTOP during a sleep: stopped by STOP
the sleep went on: exited 7
child 3: SIGCHLD CLD_EXITED
"""


@pytest.mark.parametrize("variant", ["pie", "musl-static"])
def test_stop_and_continue_like_native(variant):
    """emutrace prints what Linux prints. Natively a loaded machine can merge two SIGCHLDs
    (standard signals do not queue) or end the 200 ms sleep before the stop, so the native run
    is tried up to three times for the same bytes."""
    prog = built("jobctl", variant)
    e = emutrace(["--no-trace", "--timeout", "120", prog])
    assert e.returncode == 0, e.stderr[-2000:]
    assert e.stdout == EXPECTED, e.stdout
    runs = []
    for _ in range(3):
        runs.append(native([prog]).stdout)
        if runs[-1] == EXPECTED:
            break
    assert runs[-1] == EXPECTED, runs


def test_strace_shows_the_stop():
    r = emutrace(["--strace", "-f", "-e", "trace=kill,wait4", built("jobctl")])
    lines = r.stderr.decode().splitlines()
    stop = [i for i, line in enumerate(lines) if line.endswith("--- stopped by SIGSTOP ---")]
    assert stop and lines[stop[0] - 1].endswith("--- SIGSTOP {si_signo=SIGSTOP, si_code=SI_TKILL, "
                                                 "si_pid=1001, si_uid=0} ---"), lines[:20]
    assert any("wait4(1001, [{WIFSTOPPED(s) && WSTOPSIG(s) == SIGSTOP}], WSTOPPED, NULL) = 1001" in line
               for line in lines)
    assert any("[{WIFCONTINUED(s)}], WCONTINUED" in line for line in lines)


def test_a_stopped_child_shows_state_t_and_shells_wait_for_it():
    script = ('sleep 5 & p=$!; kill -STOP $p; sleep 0.2; cut -d" " -f3 /proc/$p/stat; grep State /proc/$p/status; '
              'kill -CONT $p; kill $p; wait $p; echo "status $?"')
    n = native(["/bin/sh", "-c", script])
    e = emutrace(["--no-trace", "/bin/sh", "-c", script])
    assert e.stdout == n.stdout == b"T\nState:\tT (stopped)\nstatus 143\n", (e.stdout, n.stdout)


def test_a_run_whose_only_process_stops_ends_with_one_line():
    r = emutrace(["--no-trace", "/bin/sh", "-c", "kill -STOP $$; echo never"])
    assert r.returncode == 125 and r.stdout == b""
    assert r.stderr == b"emutrace: the program cannot continue: process 1000 is stopped by SIGSTOP, " \
                       b"and nothing else can run\n", r.stderr
