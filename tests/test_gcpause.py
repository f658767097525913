"""emutrace.gcpause: the command's collector pause during start-up."""
import gc
import subprocess
import sys

from emutrace import gcpause


def test_pause_then_resume_freezes_what_exists_and_collects_again():
    assert gc.isenabled()
    before = gc.get_freeze_count()
    try:
        gcpause.pause()
        assert not gc.isenabled()
        gcpause.resume()
        assert gc.isenabled()
        assert gc.get_freeze_count() > before
        frozen = gc.get_freeze_count()
        gcpause.resume()                       # a second resume does nothing
        assert gc.isenabled() and gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
        gc.enable()


def test_resume_without_pause_leaves_a_disabled_collector_alone():
    """The Python API's caller owns the collector: cli.run's resume() changes nothing it set."""
    gc.disable()
    try:
        gcpause.resume()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_command_collects_again_while_the_program_runs():
    """`emutrace` (cli.entry) pauses the collector and the run resumes it after the exec: a
    session observer sees it enabled once the program runs."""
    code = ("import gc, sys\n"
            "from emutrace import cli, session\n"
            "seen = []\n"
            "run = session.Run.run\n"
            "def spy(self):\n"
            "    seen.append(gc.isenabled())\n"
            "    return run(self)\n"
            "session.Run.run = spy\n"
            "import os\n"
            "real_exit = os._exit\n"
            "def report(status):\n"
            "    sys.stderr.write(f'gc-enabled-in-run={seen}\\n'); sys.stderr.flush(); real_exit(status)\n"
            "os._exit = report\n"
            "sys.argv = ['emutrace', '--no-trace', '/bin/true']\n"
            "cli.entry()\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "gc-enabled-in-run=[True]" in proc.stderr
