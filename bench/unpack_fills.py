"""Unpacked-code tracking's cost in counts that a loaded machine does not blur (issue 37): the TLB
fills of a run under `--report` with the code watch and without it, the fills that reached Python
(the watch withholds a right, so the access that needs it comes back to the fill, and those
fills skip the compiled permission cache), and the whole-TLB flushes the watch makes when a
written page first runs. Run by bench/report_pages.py beside the host CPU time (min of N).

    python3 bench/unpack_fills.py watch|nowatch OUT.json -- PROGRAM [ARGS...]

OUT.json gets {"fills", "python_fills", "flushes", "cpu_s", "watch_calls", "watch_cpu_s"}:
watch_cpu_s is the host CPU time spent inside the watch's own code (CodeWatch's methods: the
rights of a fill, a system call's writes, a mapping's end, a region found), each call timed with
the thread's CPU clock. The compiled event path only (the pure path's fill keeps no counts)."""
from __future__ import annotations

import atexit
import json
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    mode, out = sys.argv[1], sys.argv[2]
    argv = sys.argv[sys.argv.index("--") + 1:]
    import emutrace.machine.codewatch as codewatch
    import emutrace.machine.tlb as tlb
    if mode == "nowatch":         # (as bench/run.py's emutrace-report-nowatch: the report, no watch)
        import emutrace.report.unpacked as unpacked
        unpacked.Unpacked.install = lambda self, hooks: None
    hooks, flushes = [], [0]
    attach, flush = tlb.attach, codewatch.flush

    def counted_attach(uc, aspace):
        attach(uc, aspace)
        if hasattr(aspace._tlb_fill, "counts"):
            hooks.append(aspace._tlb_fill)      # (kept: its counts outlive the address space)

    def counted_flush(uc):
        flushes[0] += 1
        flush(uc)
    tlb.attach, codewatch.flush = counted_attach, counted_flush
    spent, calls, by_name = [0.0], [0], {}

    def timed(fn):
        row = by_name.setdefault(fn.__name__, [0, 0.0])

        def run(*a):
            t = time.thread_time()
            try:
                return fn(*a)
            finally:
                d = time.thread_time() - t
                spent[0] += d
                calls[0] += 1
                row[0] += 1
                row[1] += d
        return run
    for name in ("rights", "system_write", "forget", "_executed"):
        setattr(codewatch.CodeWatch, name, timed(getattr(codewatch.CodeWatch, name)))

    def write() -> None:
        hits = sum(h.counts[0] for h in hooks)
        misses = sum(h.counts[1] for h in hooks)
        ru = resource.getrusage(resource.RUSAGE_SELF)
        Path(out).write_text(json.dumps({"fills": hits + misses, "python_fills": misses,
                                         "flushes": flushes[0], "cpu_s": ru.ru_utime + ru.ru_stime,
                                         "watch_calls": calls[0], "watch_cpu_s": spent[0],
                                         "by_method": by_name}))
    atexit.register(write)
    from emutrace.cli import main as cli_main
    report = os.path.join(os.path.dirname(os.path.abspath(out)), f"report-{mode}.json")
    sys.exit(cli_main(["--inherit-env", "--no-trace", "--report", report] + argv))


if __name__ == "__main__":
    main()
