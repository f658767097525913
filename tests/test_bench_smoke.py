"""bench/run.py produces its report: a smoke test of the benchmark's shape, never of speed.

It runs the quickest workload (startup: /bin/true) once per tool, with a short timeout, and
checks that the markdown has the machine block, the tables, a row for every tool that ran and a
number (or a timeout mark) in every time cell.
"""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

TIME = re.compile(r"^(\d+(\.\d+)? (µs|ms|s)|>\d+ s \(timeout\))$")


def test_bench_quick_startup_table(tmp_path):
    out = tmp_path / "bench.md"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "run.py"), "--quick", "--only", "startup",
         "--reps", "1", "--timeout", "60", "--out", str(out)],
        cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-2000:]
    report = out.read_text()
    assert report.strip() == proc.stdout.decode().strip()

    for heading in ("## emutrace benchmark", "### Wall time (median)",
                    "### Every tool on every workload"):
        assert heading in report
    for key in ("- CPU:", "- Python:", "- Unicorn:"):
        assert key in report

    # the summary matrix: a header naming native and emutrace, and one row for /bin/true
    lines = report.splitlines()
    i = lines.index("### Wall time (median)")
    header = [c.strip() for c in lines[i + 2].strip("|").split("|")]
    assert header[:2] == ["workload", "native"]
    assert "emutrace" in header
    row = [c.strip() for c in lines[i + 4].strip("|").split("|")]
    assert row[0] == "startup: /bin/true"
    assert len(row) == len(header)
    for cell in row[1:]:
        assert TIME.match(cell), (cell, row)

    # the detail table: native, emutrace and the python+unicorn reference, each with a time
    detail = [l for l in lines if l.startswith("| startup: /bin/true |")
              and l.count("|") == 10]
    tools = {[c.strip() for c in l.strip("|").split("|")][1]: l for l in detail}
    assert {"native", "emutrace", "emutrace --no-trace",
            "python3 -c 'import unicorn'"} <= set(tools)
    emu = [c.strip() for c in tools["emutrace"].strip("|").split("|")]
    assert TIME.match(emu[2]) and emu[3] == "1"
    assert emu[4].startswith(("×", ">×"))           # ratio to native
    assert emu[5] == "×1.00"                         # ratio to itself
    assert emu[8] in ("same",) or "DIFFERS" in emu[8] or "exit" in emu[8]
