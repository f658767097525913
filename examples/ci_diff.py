#!/usr/bin/env python3
"""CI: trace two builds (or two inputs) to jsonl and report where they part ways.

    python3 examples/ci_diff.py OLD_PROGRAM NEW_PROGRAM [ARGS...]

Exit status as `emutrace diff`: 0 same calls, 1 they differ.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import emutrace  # noqa: E402


def trace(program, args, path):
    s = emutrace.Session([program] + args, capture_output=True)
    s.write_trace(path, "jsonl")
    return s.run()


def main() -> int:
    if len(sys.argv) < 3:
        print("usage: ci_diff.py OLD_PROGRAM NEW_PROGRAM [ARGS...]", file=sys.stderr)
        return 2
    old, new, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    with tempfile.TemporaryDirectory() as d:
        a, b = os.path.join(d, "old.jsonl"), os.path.join(d, "new.jsonl")
        trace(old, args, a)
        trace(new, args, b)
        return subprocess.call([sys.executable, "-m", "emutrace", "diff", a, b])


if __name__ == "__main__":
    sys.exit(main())
