"""The command line: `emutrace [options] PROGRAM [ARGS...]`.

Exit status: the program's own; when the program is killed by a signal, emutrace ends by the
same signal (core dumps off), as strace does. emutrace's own errors: 125 (usage, internal,
limits), 126 (cannot run: not ELF, wrong machine, malformed), 127 (not found), 124 (--timeout).
"""
from __future__ import annotations

import os
import sys
from typing import List, Optional

from . import cmds, gcpause
from .machine import gil

USAGE_STATUS, NOEXEC_STATUS, NOTFOUND_STATUS, TIMEOUT_STATUS = 125, 126, 127, 124


def fail(message: str, status: int) -> int:
    sys.stderr.write(f"emutrace: {message}\n")
    sys.stderr.flush()
    return status


def main(argv: Optional[List[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in cmds.NAMES:
        gcpause.resume()                # (a subcommand may run long: batch)
        return cmds.load(argv[0])(argv[1:])
    from .options import InfoRequested, UsageError, parse     # deferred (and below): a subcommand loads only its own modules
    from .kernel.hostfds import inherited
    host_fds = inherited()              # (first: the shell's 3<file, 9>>/dev/full reach the guest)
    try:
        cfg = parse(argv)
        if cfg.options.host_fds is None:
            cfg.options.host_fds = host_fds
    except InfoRequested as e:
        print(e)
        return 0
    except UsageError as e:
        return fail(str(e), USAGE_STATUS)
    try:
        return run(cfg)
    except KeyboardInterrupt:
        return fail("interrupted", 130)
    except BrokenPipeError:
        return 141


def entry() -> None:
    """The `emutrace` command: main(), then leave without tearing the interpreter down.

    A run ends with the emulator, the guest's memory and every translated block still allocated,
    and freeing them one by one at interpreter exit took 20-30 ms, a fifth of a short run. The
    trace is already closed (run() closes its outputs); the standard streams are flushed here.
    Python's garbage collector is paused until the program is exec'd (emutrace/gcpause.py).
    This process has no Python thread but the one that emulates (a batch's jobs are processes
    of their own), so the emulator keeps the GIL while the guest runs (emutrace/machine/gil.py)."""
    gcpause.pause()
    gil.keep_while_running()
    status = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:
            status = status or 141
        except (OSError, ValueError):
            status = status or 120          # (what Python's own exit does when the flush fails)
    os._exit(status if isinstance(status, int) else 1)


def run(cfg) -> int:
    from .session import EmutraceError, LimitReached, Session     # deferred (and below): `emutrace diff`, `report` and --help load no emulator
    from .tracer import build_observers
    try:
        session = Session(cfg.argv, world=cfg.world, options=cfg.options, program=cfg.program)
        outputs = build_observers(session, cfg)
        report = _report(session, cfg)
        ended = result = None
        try:
            session.start()
            gcpause.resume()            # (start-up is over: see emutrace/gcpause.py)
            result = session.run()
        except EmutraceError as e:
            ended = e
            raise
        finally:
            for out in outputs:
                out.close()
            if report is not None:
                report.finish(result, ended, limit=isinstance(ended, LimitReached))
                _write_report(report, cfg)
    except EmutraceError as e:
        return fail(str(e), e.status)
    except OSError as e:
        return fail(f"{e.filename or ''}{': ' if e.filename else ''}{e.strerror or e}", USAGE_STATUS)
    except MemoryError:
        return fail("out of host memory", USAGE_STATUS)
    except RecursionError:
        return fail("internal error: recursion too deep", USAGE_STATUS)
    sys.stdout.flush()
    if result.signal:
        die_by_signal(result.signal)
    return result.status


def _report(session, cfg):
    """--report: the behaviour report's collector, beside whatever trace was asked for."""
    if not cfg.report and not cfg.dump_dropped:
        return None
    from .report import attach     # deferred (and below): only --report loads the report's collector
    from .tracer import Tracer
    tracer = next((o for o in session.observers if isinstance(o, Tracer)), None)
    return attach(session, tracer)


def _write_report(collector, cfg) -> None:
    from .report.document import build, dump_dropped, write     # deferred: only --report writes a report
    if cfg.report:
        write(build(collector), cfg.report)
    if cfg.dump_dropped:
        dump_dropped(collector, cfg.dump_dropped)


def die_by_signal(sig: int) -> None:
    """End this process by the guest's signal, so a shell sees the same status (no core dump)."""
    import signal as hostsig     # deferred: only a run whose guest dies by a signal needs it
    try:
        import resource     # deferred: only a run whose guest dies by a signal needs it
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ImportError, ValueError, OSError):
        pass
    try:
        sys.stderr.flush()
        host = _host_signal(sig)
        if host is not None and hasattr(os, "kill"):
            hostsig.signal(host, hostsig.SIG_DFL)
            if hasattr(hostsig, "pthread_sigmask"):
                hostsig.pthread_sigmask(hostsig.SIG_UNBLOCK, {host})
            os.kill(os.getpid(), host)
    except (OSError, ValueError):
        pass
    os._exit(128 + sig)


def _host_signal(linux_sig: int):
    """The host's number for a Linux signal, found by name (macOS numbers differ)."""
    import signal as hostsig     # deferred: only a run whose guest dies by a signal needs it
    from emutrace.decode.xlat import signal_name     # deferred: only a guest killed by a signal needs the name tables (~2 ms)
    name = signal_name(linux_sig)
    return getattr(hostsig, name, None) if name and name.startswith("SIG") else None


if __name__ == "__main__":
    entry()
