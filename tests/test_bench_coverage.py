"""bench/run.py's coverage workload produces its table: the shape, never the speed."""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_bench_quick_coverage_table(tmp_path):
    out = tmp_path / "bench.md"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "run.py"), "--quick", "--only", "coverage", "--reps", "1",
         "--timeout", "120", "--tools", "native,emutrace-notrace,emutrace-coverage,emutrace-coverage-pure",
         "--out", str(out)], cwd=str(tmp_path), capture_output=True, timeout=900)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-2000:]
    report = out.read_text()
    assert "### Coverage: cost per executed basic block" in report
    rows = [l for l in report.splitlines() if l.startswith("| coverage: ") and " KiB | " in l
            and l.count("|") == 8]
    assert len(rows) == 2
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert int(cells[1].replace(",", "")) > 10_000                  # block executions counted
        assert all(re.fullmatch(r"\d+\.\d\d s", c) for c in cells[2:5])
        assert all(re.fullmatch(r"-?\d+(\.\d+)? (ns|µs|ms)", c) for c in cells[5:7])
    assert re.search(r"^- emutrace --no-trace --coverage: -?\d", report, re.M)
    # the coverage runs wrote a file: the detail table shows its size
    assert re.search(r"\| emutrace --no-trace --coverage \| [^|]+ \| 1 \|.*\| \d+(\.\d+)? KiB \|", report)
