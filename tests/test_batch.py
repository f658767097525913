"""`emutrace batch`: a pool of runs with per-job outputs and a summary; parallel runs beat serial
ones on this 2-core machine and give the same outputs; an interrupted batch resumes; bad inputs
are recorded while the rest runs; the Ray executor's outputs equal the local pool's."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT, built, emutrace

OUTPUTS = ("trace.txt", "report.json", "stdout.txt", "stderr.txt")


def outputs(out) -> dict:
    """Every job's files (not status.json: it holds the wall time)."""
    got = {}
    for job in sorted(os.listdir(os.path.join(out, "jobs"))):
        for name in OUTPUTS:
            p = os.path.join(out, "jobs", job, name)
            if os.path.exists(p):
                got[(job, name)] = open(p, "rb").read()
    return got


def summary(out) -> list:
    with open(os.path.join(out, "summary.jsonl")) as f:
        return [json.loads(line) for line in f]


def manifest(tmp_path, lines, name="jobs.txt"):
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n")
    return str(p)


def eight_jobs():
    fib = built("fib")
    strings = built("strings")
    return [f"{fib}", f"{strings}", "/usr/bin/ls /", "/bin/echo one two", f"{fib}", "/usr/bin/env",
            f"{strings}", "/usr/bin/ls -l /usr"]


def test_two_workers_beat_one_with_the_same_outputs(tmp_path):
    m = manifest(tmp_path, eight_jobs())
    times = {}
    for n in (1, 2):
        out = str(tmp_path / f"out{n}")
        t0 = time.monotonic()
        p = emutrace(["batch", "--jobs", str(n), "--quiet", "--out", out, m], cwd=str(tmp_path))
        times[n] = time.monotonic() - t0
        assert p.returncode == 0, p.stderr.decode() + p.stdout.decode()
        assert [r["status"] for r in summary(out)] == ["ok"] * 8
    assert outputs(tmp_path / "out1") == outputs(tmp_path / "out2")
    assert len(outputs(tmp_path / "out1")) == 32
    print(f"8 jobs: --jobs 1 {times[1]:.1f} s, --jobs 2 {times[2]:.1f} s")
    assert times[2] < times[1], times


def test_summary_table_and_per_job_files(tmp_path):
    out = str(tmp_path / "out")
    m = manifest(tmp_path, ["/bin/echo hello", "# a comment", "", "/bin/false"])
    p = emutrace(["batch", "--jobs", "2", "--out", out, m, "--", "--strace"], cwd=str(tmp_path))
    assert p.returncode == 1                     # /bin/false did not exit 0
    rows = summary(out)
    assert [(r["id"], r["status"], r["exit_code"]) for r in rows] == [("0001-echo", "ok", 0), ("0002-false", "exited", 1)]
    job = os.path.join(out, "jobs", "0001-echo")
    assert open(os.path.join(job, "stdout.txt")).read() == "hello\n"
    assert "execve(\"/bin/echo\"" in open(os.path.join(job, "trace.txt")).read()      # -- --strace reached the run
    assert json.load(open(os.path.join(job, "report.json")))["run"]["exit_code"] == 0
    table = p.stdout.decode()
    assert table == open(os.path.join(out, "summary.txt")).read()
    assert table.splitlines()[0].split() == ["job", "status", "exit", "time", "limits", "hit", "findings"]
    assert "2 jobs: 1 exited, 1 ok" in table


def test_bad_input_is_recorded_and_the_batch_goes_on(tmp_path):
    notelf = tmp_path / "notelf"
    notelf.write_text("just text, not an ELF\n")
    notelf.chmod(0o755)
    m = manifest(tmp_path, ["/bin/true", str(tmp_path / "missing"), str(notelf), "'unclosed",
                            built("spin"), "/bin/echo after"])
    out = str(tmp_path / "out")
    p = emutrace(["batch", "--jobs", "2", "--timeout", "2", "--out", out, m],
                 cwd=str(tmp_path))
    assert p.returncode == 1 and b"Traceback" not in p.stderr
    got = [(r["status"], r["exit_code"]) for r in summary(out)]
    # (a manifest or folder that does not exist is a usage error: tests/test_silent_options.py)
    assert got == [("ok", 0), ("not-found", 127), ("not-executable", 126), ("bad-input", None),
                   ("limit", 124), ("ok", 0)]
    rows = summary(out)
    assert "No closing quotation" in rows[3]["message"]
    assert rows[4]["limits_hit"] == ["timeout"]


def test_an_interrupted_batch_resumes(tmp_path):
    lines = ["/bin/echo 1", "/bin/echo 2", "/bin/echo 3", "/bin/echo 4"]
    m = manifest(tmp_path, lines)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "emutrace", "batch", "--jobs", "1", "--out", str(out), m]
    p = subprocess.Popen(cmd, cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = out / "jobs" / "0001-echo" / "status.json"
    deadline = time.monotonic() + 120
    while not first.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert first.exists()
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err.decode()
    assert b"interrupted" in err
    done_before = {r["id"]: r for r in summary(out)}
    assert 1 <= len(done_before) < 4
    kept = first.read_bytes()
    p2 = subprocess.run(cmd, cwd=str(tmp_path), capture_output=True, timeout=300)
    assert p2.returncode == 0, p2.stderr.decode()
    assert f"{len(done_before)} of 4 jobs already done, skipped".encode() in p2.stderr
    assert first.read_bytes() == kept              # not run again
    assert [r["status"] for r in summary(out)] == ["ok"] * 4
    assert [open(out / "jobs" / f"000{i}-echo" / "stdout.txt").read() for i in range(1, 5)] == ["1\n", "2\n", "3\n", "4\n"]
    # a changed option makes every job new again
    p3 = subprocess.run(cmd + ["--", "-S"], cwd=str(tmp_path), capture_output=True, timeout=300)
    assert b"already done" not in p3.stderr


def test_a_folder_of_binaries(tmp_path):
    folder = tmp_path / "samples"
    folder.mkdir()
    for name in ("b_true", "a_false"):
        os.symlink("/bin/" + name[2:], folder / name)
    out = str(tmp_path / "out")
    p = emutrace(["batch", "-q", "--out", out, str(folder)], cwd=str(tmp_path))
    assert p.returncode == 1
    assert [(r["id"], r["status"]) for r in summary(out)] == [("0001-a_false", "exited"), ("0002-b_true", "ok")]


@pytest.mark.parametrize("args,needle", [
    (["batch"], "needs --out DIR"), (["batch", "--jobs", "0", "--out", "x", "m"], "--jobs takes a positive"),
    (["batch", "--out", "x", "m", "--", "--bogus"], "options for the runs: unknown option --bogus"),
    (["batch", "--executor", "spark", "--out", "x", "m"], "--executor is local or ray")])
def test_batch_usage_errors(tmp_path, args, needle):
    p = emutrace(args, cwd=str(tmp_path))
    assert p.returncode == 2 and needle in p.stderr.decode() and b"Traceback" not in p.stderr


def test_max_disk_is_passed_through_or_refused(tmp_path):
    m = manifest(tmp_path, ["/bin/true"])
    p = emutrace(["batch", "-q", "--max-disk", "1M", "--out", str(tmp_path / "out"), m], cwd=str(tmp_path))
    from emutrace.batch import _supports
    if _supports("--max-disk"):
        assert p.returncode == 0
    else:
        assert p.returncode == 2 and "no disk limit option" in p.stderr.decode()


def test_ray_executor_equals_the_local_pool(tmp_path):
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'emutrace[ray]')")
    m = manifest(tmp_path, ["/bin/echo ray", built("fib"), "/usr/bin/ls /", "/bin/false"])
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        from emutrace.batch import main
        assert main(["--jobs", "2", "--quiet", "--out", "local", m]) == 1
        for attempt in (1, 2):      # Ray gives its raylet 30 s to start: a loaded machine may need two tries
            try:
                ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                         runtime_env={"env_vars": {"PYTHONPATH": str(ROOT)}})
                break
            except Exception as e:  # noqa: BLE001 (Ray's own start-up failing, not emutrace)
                ray.shutdown()
                if attempt == 2:
                    pytest.skip(f"a local Ray instance did not start here: {str(e).splitlines()[0]}")
        try:
            assert main(["--jobs", "2", "--quiet", "--executor", "ray", "--out", "ray", m]) == 1
        finally:
            ray.shutdown()
    finally:
        os.chdir(cwd)
    local, remote = outputs(tmp_path / "local"), outputs(tmp_path / "ray")
    assert len(local) == 16 and local == remote
    strip = lambda rows: [{k: v for k, v in r.items() if k != "time_s"} for r in rows]
    assert strip(summary(tmp_path / "local")) == strip(summary(tmp_path / "ray"))


class _Tty:
    def __init__(self):
        self.text = ""

    def isatty(self):
        return True

    def write(self, s):
        self.text += s

    def flush(self):
        pass


def test_progress_line_with_eta_on_a_terminal(monkeypatch):
    from emutrace.batch import summary as s
    clock = iter([100.0, 110.0, 120.0])
    monkeypatch.setattr(s.time, "monotonic", lambda: next(clock))
    tty = _Tty()
    p = s.Progress(4, 1, quiet=False, stream=tty, resumed=1)
    assert "1 of 4 jobs already done, skipped" in tty.text
    p.done({"status": "ok", "id": "0002-a", "time_s": 1.0})          # 10 s for one job, 2 left
    assert "\r[2/4] 0 not ok, elapsed 0m10s, ETA 0m20s" in tty.text
    p.done({"status": "limit", "id": "0003-b", "time_s": 1.0})       # 20 s for two, 1 left
    assert "\r[3/4] 1 not ok, elapsed 0m20s, ETA 0m10s" in tty.text
    p.close()
    assert tty.text.endswith("\n")
