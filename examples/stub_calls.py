#!/usr/bin/env python3
"""Stub library calls: getenv("HOME") and time() return what we say, without running.

    python3 examples/stub_calls.py [PROGRAM]     (default: bins/ getenv_time, built on demand)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import emutrace  # noqa: E402


def main() -> int:
    if len(sys.argv) > 1:
        program = sys.argv[1]
    else:
        from bins.build import build
        program = str(build("getenv_time", "pie"))

    session = emutrace.Session([program], capture_output=True)

    @session.on_call("getenv")
    def fake_env(call):
        if call.string_arg(0) == "HOME":
            return "/home/example"          # a new string in guest memory; getenv does not run
        return None                          # any other variable: the real getenv runs

    session.on_call("time", lambda call: 86400)          # 1970-01-02, instantly
    session.on_call("sleep", lambda call: 0)             # sleeping costs nothing

    try:
        result = session.run()
    except emutrace.EmutraceError as e:
        print(f"emutrace: {e}", file=sys.stderr)
        return e.status
    sys.stdout.write(result.stdout.decode(errors="replace"))
    print(f"[exit {result.exit_code}; calls: {dict(result.calls)}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
