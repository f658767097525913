#!/usr/bin/env python3
"""Watch a program's library calls as they happen, and stop it after the first N.

    python3 examples/watch_events.py N PROGRAM [ARGS...]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import emutrace  # noqa: E402
from emutrace.events import Call, Exit  # noqa: E402


def main() -> int:
    if len(sys.argv) < 3:
        print("usage: watch_events.py N PROGRAM [ARGS...]", file=sys.stderr)
        return 2
    limit = int(sys.argv[1])
    session = emutrace.Session(sys.argv[2:], capture_output=True)
    seen = 0
    try:
        for ev in session.events():          # the program runs while we read
            if isinstance(ev, Call):
                seen += 1
                print(f"{seen:4d} {ev.name}({', '.join(ev.args)})  [{ev.lib or '?'}]")
                if seen >= limit:
                    print("... stopping the program")
                    break                    # leaving the loop stops the emulator
            elif isinstance(ev, Exit):
                print(f"exited: status {ev.status}, signal {ev.signal}")
    except emutrace.EmutraceError as e:
        print(f"emutrace: {e}", file=sys.stderr)
        return e.status
    return 0


if __name__ == "__main__":
    sys.exit(main())
