#!/usr/bin/env python3
"""Deny a system call: the program's openat of one path fails with EACCES.

    python3 examples/deny_syscall.py FILE        (runs `cat FILE`, and cat cannot open it)
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import emutrace  # noqa: E402


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: deny_syscall.py FILE", file=sys.stderr)
        return 2
    target = os.path.abspath(sys.argv[1])
    session = emutrace.Session([shutil.which("cat") or "/bin/cat", target], capture_output=True)

    @session.on_syscall("openat")
    def guard(sc):
        if sc.path == target:
            sc.deny("EACCES")

    try:
        r = session.run()
    except emutrace.EmutraceError as e:
        print(f"emutrace: {e}", file=sys.stderr)
        return e.status
    print(f"exit {r.exit_code}; stderr: {r.stderr.decode().strip()!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
