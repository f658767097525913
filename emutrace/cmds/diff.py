"""`emutrace diff`: compare two jsonl traces.

emutrace diff [-C N] [--all] [--args] A.jsonl B.jsonl
    Aligns two jsonl traces (emutrace.tracediff) and prints the first divergence with N steps of
    context (default 3) and the calls whose counts differ. Exit status as diff(1): 0 the traces
    are the same, 1 they differ, 2 bad input or usage.
"""
from __future__ import annotations

import sys
from typing import List

from emutrace.tracediff import TraceError, compare, format_report, load

DIFF_USAGE = "usage: emutrace diff [-C N] [--all] [--args] A.jsonl B.jsonl"
DIFF_HELP = DIFF_USAGE + """

Compares two jsonl traces (emutrace --format jsonl -o FILE): aligns their events, prints the first
place where they diverge with context, and the calls whose counts differ. emutrace's traces are
deterministic, so two runs of the same program on the same inputs give no difference.

Options:
  -C N, --context N   N events of context around the divergence (default 3)
  --all               every divergence, not only the first
  --args              compare the calls' arguments and return values too (default: names only)
  -h, --help          this help

Examples:
  emutrace --format jsonl -o old.jsonl ./prog-v1 && emutrace --format jsonl -o new.jsonl ./prog-v2
  emutrace diff old.jsonl new.jsonl
  emutrace diff --args -C 10 golden.jsonl today.jsonl || echo "the behaviour changed"

Exit status as diff(1): 0 the traces are the same, 1 they differ, 2 bad input or usage."""


def _fail(message: str, status: int) -> int:
    sys.stderr.write(f"emutrace: {message}\n")
    sys.stderr.flush()
    return status


def main(args: List[str]) -> int:
    args = list(args)
    context, all_hunks, with_args, files = 3, False, False, []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-h", "--help"):
            print(DIFF_HELP)
            return 0
        if a in ("-C", "--context") or a.startswith("--context="):
            if "=" in a:
                v = a.split("=", 1)[1]
            elif i + 1 < len(args):
                i += 1
                v = args[i]
            else:
                return _fail(f"diff: {a} needs a number ({DIFF_USAGE})", 2)
            try:
                context = int(v)
                if context < 0:
                    raise ValueError
            except ValueError:
                return _fail(f"diff: {a} takes a number of steps, not {v!r}", 2)
        elif a == "--all":
            all_hunks = True
        elif a == "--args":
            with_args = True
        elif a == "--":
            files += args[i + 1:]
            break
        elif a.startswith("-") and a != "-":
            return _fail(f"diff: unknown option {a} ({DIFF_USAGE})", 2)
        else:
            files.append(a)
        i += 1
    if len(files) != 2:
        return _fail(f"diff takes two traces ({DIFF_USAGE})", 2)
    try:
        c = compare(load(files[0], with_args), load(files[1], with_args))
    except TraceError as e:
        return _fail(f"diff: {e}", 2)
    try:
        sys.stdout.write(format_report(c, context, all_hunks))
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    return 0 if c.equal else 1
