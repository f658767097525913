"""A fixed sample of strace's own test suite (bench/strace_suite.py --sample), run as the suite
judges itself with emutrace --strace as the tracer (issue 39). The full run (756 tests, 620
runnable) is `python3 bench/strace_suite.py`; docs/strace-suite.md has its figures.

Skips when the pinned strace snapshot cannot be obtained or built here (no git access to it, no
autotools): set EMUTRACE_STRACE_GIT to a local mirror, or EMUTRACE_STRACE_CACHE to a prepared
cache. Takes about 1-3 minutes once the snapshot is built (the first build adds a few minutes).
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "strace_suite.py"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the suite's programs are Linux x86-64 programs")
def test_strace_suite_sample(tmp_path):
    results = tmp_path / "results.tsv"
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0")
    try:
        r = subprocess.run([sys.executable, str(SCRIPT), "--sample", "--quiet", "--jobs", "2",
                            "--results", str(results)], env=env, capture_output=True, text=True,
                           timeout=1800)
    except subprocess.TimeoutExpired:
        pytest.fail("the strace suite sample did not finish in 30 minutes")
    if r.returncode == 2:
        pytest.skip("strace snapshot unavailable: " + r.stderr.strip()[-300:])
    rows = [line.split("\t") for line in results.read_text().splitlines()] if results.exists() else []
    failed = [f"{name}: {res} {why}" for name, res, why in rows if res not in ("pass", "skip")]
    assert rows, r.stdout + r.stderr
    assert not failed, "\n".join(failed) + "\n" + r.stdout[-2000:]
    assert r.returncode == 0, r.stdout + r.stderr
