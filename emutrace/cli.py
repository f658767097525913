"""The command line: `emutrace [options] PROGRAM [ARGS...]`.

Exit status: the program's own; when the program is killed by a signal, emutrace ends by the
same signal (core dumps off), as strace does. emutrace's own errors: 125 (usage, internal,
limits), 126 (cannot run: not ELF, wrong machine, malformed), 127 (not found), 124 (--timeout).
"""
from __future__ import annotations

import os
import sys
from typing import List, Optional

from emutrace import cmds, gcpause
from emutrace.machine import gil
from emutrace.linux.fcntl import S_IFMT, S_IFREG

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
    from emutrace.options import InfoRequested, UsageError, parse     # deferred (and below): a subcommand loads only its own modules
    from emutrace.kernel.hostfds import inherited
    host_fds = inherited()              # (first: the shell's 3<file, 9>>/dev/full reach the guest)
    try:
        cfg = parse(argv)
        if cfg.options.host_fds is None:
            cfg.options.host_fds = host_fds
    except InfoRequested as e:
        (sys.stdout if e.status == 0 else sys.stderr).write(f"{e}\n")
        return e.status
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
    from emutrace.machine.interrupt import restore     # deferred: the signal handling loads only for a run
    try:
        return _run(cfg)
    finally:
        restore()                   # (a run called in a longer-lived process leaves its signals as they were)


def _run(cfg) -> int:
    from emutrace.session import EmutraceError, LimitReached, Result, Run     # deferred (and below): `emutrace diff`, `report` and --help load no emulator
    from emutrace.tracer import build_observers
    if cfg.gdb is not None:
        return _debug(cfg)
    from emutrace.machine.interrupt import Interrupted, arm, disarm     # deferred: the signal handling loads only for a run
    stop = None                 # the host signal that interrupted the run
    try:
        session = Run(cfg.argv, world=cfg.world, options=cfg.options, program=cfg.program)
        outputs = build_observers(session, cfg)
        report = _report(session, cfg)
        ended = result = None
        status = _status_line(session, cfg, outputs)
        try:
            arm()                       # (SIGINT, SIGTERM, SIGHUP stop the guest at once)
            session.start()
            gcpause.resume()            # (start-up is over: see emutrace/gcpause.py)
            result = session.run()
        except Interrupted as e:
            stop = e.signum
            disarm()                    # (a second Ctrl-C must not cut the trace's last lines)
            result = Result(signal=stop)
            session.interrupted(stop)   # strace's and ltrace's `+++ killed by SIGINT +++`
        except EmutraceError as e:
            ended = e
            raise
        finally:
            disarm()
            if status is not None:
                status.stop()
            for out in outputs:
                out.close()
            if report is not None:
                report.finish(result, ended, limit=isinstance(ended, LimitReached))
                _write_report(report, cfg)
    except Interrupted as e:            # (before the guest ran)
        stop = e.signum
    except EmutraceError as e:
        from emutrace.session import StartLimit     # deferred: the same module, loaded by now
        if isinstance(e, StartLimit):
            return fail(f"{e}; it starts with --max-mem {_smallest_max_mem(cfg)}M "
                        f"(it may need more to run)", e.status)
        return fail(str(e), e.status)
    except OSError as e:
        return fail(f"{e.filename or ''}{': ' if e.filename else ''}{e.strerror or e}", USAGE_STATUS)
    except MemoryError:
        return fail("out of host memory", USAGE_STATUS)
    except RecursionError:
        return fail("internal error: recursion too deep", USAGE_STATUS)
    sys.stdout.flush()
    for ill in session.illegal[:1]:     # (the first: the one that killed it, if nothing caught it)
        sys.stderr.write(f"emutrace: illegal instruction `{ill['instruction']}` at {ill['address']:#x} "
                         f"({ill['module']}): the CPU emutrace models is {ill['cpu']} (Unicorn 2.1 has "
                         f"no AVX); the program got SIGILL\n")
    if not cfg.quiet and not cfg.dump_dropped:
        _note_dropped(session)
    if stop is not None:
        fail("interrupted", 128 + stop)
        die_by_signal(stop)             # (host and Linux numbers agree for SIGINT, SIGTERM, SIGHUP)
    if result.signal:
        die_by_signal(result.signal)
    return result.status


def _status_line(session, cfg, outputs):
    """On a terminal, with the trace in a file or none: a status line (emutrace/statusline.py)."""
    from emutrace import statusline     # deferred: the same
    if not statusline.wanted(cfg, sys.stderr):
        return None
    gil.keep_while_running(False)       # (its thread must run while the guest computes)
    line = statusline.StatusLine(session.world, session.kernel, [getattr(o, "w", None) for o in outputs], sys.stderr)
    line.start()
    return line


def _smallest_max_mem(cfg) -> int:
    """The smallest --max-mem, in MiB, with which the program starts (its exec succeeds): found
    by bisection, each try a fresh session that only starts the program."""
    from emutrace.session import Run, StartLimit     # deferred: only a --max-mem too small asks
    import copy     # deferred: the same

    def starts(mib: int) -> bool:
        opts = copy.copy(cfg.options)
        opts.max_mem = mib << 20
        try:
            Run(cfg.argv, world=copy.deepcopy(cfg.world), options=opts, program=cfg.program).start()
        except StartLimit:
            return False
        except Exception:           # (anything else: it got past the memory it needs)
            return True
        return True
    lo, hi = max(1, cfg.options.max_mem >> 20), 64
    while not starts(hi) and hi < 1 << 16:
        lo, hi = hi, hi * 2
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if starts(mid) else (mid, hi)
    return hi


def _note_dropped(session) -> None:
    """Files the program wrote into the sandbox's overlay vanish with it: say so in one line, with
    how to keep them (-q: not a word)."""
    files = sorted((path, len(ov.data)) for path, ov in list(session.vfs.overlay.items())
                   if ov.stat.mode & S_IFMT == S_IFREG and ov.data is not None)
    if not files:
        return
    size = sum(n for _, n in files)
    first = ", ".join(path for path, _ in files[:3]) + (", ..." if len(files) > 3 else "")
    sys.stderr.write(f"emutrace: the sandbox dropped {len(files)} file{'s' if len(files) > 1 else ''} "
                     f"({_bytes(size)}) the program wrote: {first}; keep them with --rw DIR or "
                     f"--dump-dropped DIR (-q: no note)\n")


def _bytes(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} bytes"
def _debug(cfg) -> int:
    """--gdb: the run is gdb's (emutrace/gdb/)."""
    from emutrace.gdb.listen import serve     # deferred: only --gdb loads the debugger
    from emutrace.session import EmutraceError, LimitReached
    gcpause.resume()                    # (a replay leaves a whole session behind for the collector)
    try:
        status = serve(cfg)
    except LimitReached as e:
        return fail(str(e), e.status)
    except EmutraceError as e:
        return fail(str(e), e.status)
    except OSError as e:
        return fail(f"{e.filename or ''}{': ' if e.filename else ''}{e.strerror or e}", USAGE_STATUS)
    sys.stdout.flush()
    return status


def _report(session, cfg):
    """--report: the behaviour report's collector, beside whatever trace was asked for."""
    if not cfg.report and not cfg.dump_dropped:
        return None
    from emutrace.report import attach     # deferred (and below): only --report loads the report's collector
    from emutrace.tracer import Tracer
    tracer = next((o for o in session.observers if isinstance(o, Tracer)), None)
    collector = attach(session, tracer)
    if cfg.yara:
        from emutrace.report.yarascan import Yara     # deferred: only --yara loads the rules (and yara-x)
        collector.yara = Yara(cfg.yara)
    return collector


def _write_report(collector, cfg) -> None:
    from emutrace.report.document import build, dump_code, dump_dropped, write     # deferred: only --report writes a report
    if cfg.report:
        write(build(collector), cfg.report)
    if cfg.dump_dropped:
        dump_dropped(collector, cfg.dump_dropped)
        dump_code(collector, cfg.dump_dropped)


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
