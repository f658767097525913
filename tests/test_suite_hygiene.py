"""The suite is like for like on any machine (issue 40): what a test starts does not depend on
how the suite itself was started, nor on what the host's PATH holds."""
import os
import signal
import subprocess

from conftest import NATIVE_ENV, STILL_DIR, system_program


def test_children_inherit_no_ignored_signal():
    """A suite run in the background (`pytest &`) inherits SIGINT/SIGQUIT ignored; conftest resets
    them, so native runs (and ltrace's) see a terminal's defaults, as the guest does."""
    out = subprocess.run(["grep", "^SigIgn", "/proc/self/status"], capture_output=True, text=True).stdout
    assert int(out.split()[1], 16) == 0, out


def test_an_ignored_sigint_at_start_is_reset(tmp_path):
    """The reset itself, proven in a Python started with SIGINT and SIGQUIT ignored."""
    probe = ("import sys; sys.path.insert(0, %r); import conftest, subprocess; "
             "print(subprocess.run(['grep', '^SigIgn', '/proc/self/status'], capture_output=True, text=True).stdout)"
             % os.path.dirname(__file__))
    ignore = lambda: [signal.signal(s, signal.SIG_IGN) for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGHUP)]
    r = subprocess.run([system_program("python3"), "-c", "import subprocess, sys; print(subprocess.run("
                        "['grep', '^SigIgn', '/proc/self/status'], capture_output=True, text=True).stdout)"],
                       preexec_fn=ignore, capture_output=True, text=True)
    assert int(r.stdout.split()[1], 16) != 0          # without the reset, a child inherits them
    import sys
    r = subprocess.run([sys.executable, "-c", probe], preexec_fn=ignore, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert int(r.stdout.split()[1], 16) == 0, r.stdout


def test_system_program_ignores_the_host_path(monkeypatch, tmp_path):
    shim = tmp_path / "python3"
    shim.write_text("#!/bin/sh\nexec pyenv exec python3 \"$@\"\n")
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    found = system_program("python3")
    assert os.path.dirname(found) in NATIVE_ENV["PATH"].split(":")


def test_still_dir_stays_empty():
    assert os.path.isdir(STILL_DIR) and os.listdir(STILL_DIR) == []
