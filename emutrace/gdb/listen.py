"""`emutrace --gdb[=ADDR:PORT|-]`: where gdb connects, and the run that serves it.

- No address: 127.0.0.1 on a free port, printed in one line on stderr.
- `PORT` or `:PORT`: 127.0.0.1:PORT. Any other host must be named (`0.0.0.0:PORT`): the server
  gives whoever connects the program's memory and a way to run it.
- `-`: the protocol on stdin/stdout (`target remote | emutrace --gdb - PROG`); the program's
  stdout then goes to stderr and its stdin is empty, as under `gdbserver -`.

One client: the listening socket closes once gdb connects, so a second one is refused. When
gdb goes away mid-run, the run is killed (gdbserver's choice too); emutrace exits 0.
"""
from __future__ import annotations

import copy
import gc
import os
import socket
import sys
from typing import Optional, Tuple

from emutrace.machine import gil
from emutrace.errors import EmutraceError

from emutrace.gdb import checkpoints as ckpt
from emutrace.gdb.debugger import Debugger, Killed, Stop
from emutrace.gdb.packets import Channel
from emutrace.gdb.server import Server
from emutrace.gdb.timeline import Plan, Timeline, Travel, _Replan

USAGE = 125


def parse_address(spec: Optional[str]) -> Tuple[str, str, int]:
    """('stdio', '', 0) or ('tcp', host, port)."""
    if spec == "-":
        return "stdio", "", 0
    if not spec:
        return "tcp", "127.0.0.1", 0
    host, sep, port = spec.rpartition(":")
    if not sep:
        host, port = "", spec
    try:
        n = int(port, 10)
    except ValueError:
        raise EmutraceError(f"--gdb {spec}: not a port (--gdb, --gdb=PORT, --gdb=ADDR:PORT or --gdb -)", USAGE) from None
    if not 0 <= n <= 65535:
        raise EmutraceError(f"--gdb {spec}: port out of range", USAGE)
    return "tcp", host.strip("[]") or "127.0.0.1", n


def connect(spec: Optional[str]):
    """The channel to gdb (waiting for it to connect) and what to close at the end."""
    kind, host, port = parse_address(spec)
    if kind == "stdio":
        rfd, wfd = os.dup(0), os.dup(1)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)                        # the program's stdin: empty
        os.close(null)
        os.dup2(2, 1)                           # its stdout: our stderr (the protocol owns ours)
        return Channel(rfd, wfd), (rfd, wfd)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    lsock = socket.socket(family, socket.SOCK_STREAM)
    try:
        lsock.bind((host, port))
        lsock.listen(1)
    except OSError as e:
        lsock.close()
        raise EmutraceError(f"--gdb: cannot listen on {host}:{port}: {e.strerror or e}", USAGE) from None
    bound = lsock.getsockname()[1]
    sys.stderr.write(f"emutrace: gdb server listening on {host}:{bound}\n")
    sys.stderr.flush()
    try:
        conn, _ = lsock.accept()
    finally:
        lsock.close()                            # one client: a second one is refused
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return Channel(conn.fileno(), conn.fileno()), (conn,)


def _build(cfg, pristine_world, replay: bool):
    from emutrace.session import Run        # (the tracer level: the session and its observers)
    from emutrace.tracer import build_observers
    run_cfg = copy.copy(cfg)
    run_cfg.world = copy.deepcopy(pristine_world)
    if replay:
        run_cfg.trace = copy.copy(cfg.trace)
        run_cfg.trace.output = os.devnull       # (a replay traces to nowhere: see timeline.py)
    session = Run(run_cfg.argv, world=run_cfg.world, options=run_cfg.options, program=run_cfg.program)
    outputs = build_observers(session, run_cfg)
    return session, outputs


def _client_fds(closers) -> list:
    return [c if isinstance(c, int) else c.fileno() for c in closers]


def _close(closers) -> None:
    for c in closers:
        if isinstance(c, int):
            os.close(c)
        else:
            c.close()


def serve(cfg) -> int:
    """Run cfg's program under gdb's control; the exit status of emutrace."""
    gil.keep_while_running(False)              # (Ctrl-C is read while the guest runs)
    pristine = copy.deepcopy(cfg.world)
    channel, closers = connect(cfg.gdb)
    status_w = None
    if ckpt.enabled():
        # checkpoints are forked processes: this one supervises them and the workers
        status, status_w = ckpt.supervise(_client_fds(closers), lambda: _close(closers))
        if status is not None:
            return status
    status = 0
    try:
        status = _work(cfg, pristine, channel, closers, status_w)
    finally:
        ckpt.report_status(status_w, status)
    return status


def _work(cfg, pristine, channel, closers, status_w) -> int:
    """The worker: runs the session, serves gdb, and travels in time (from a checkpoint, or
    by running the run again from its start)."""
    server = Server(channel)
    timeline = Timeline()
    dbg = Debugger(cfg, server, timeline)
    server.dbg = dbg
    dbg.checkpoints = ckpt.Checkpoints(_client_fds(closers), status_w)
    plan: Optional[Plan] = None
    status = 0
    try:
        while True:
            session, outputs = _build(cfg, pristine, replay=plan is not None)
            dbg.attach_run(session.hooks, session.kernel, session.processes, outputs)
            session.add_observer(dbg)
            try:
                timeline.begin(plan)
                if plan is not None:
                    dbg.replay_begins(plan)
                session.start()
                main = session.processes[0]
                session.kernel.sched.admit_process(main)     # (run() does it too: its threads get ids)
                if plan is None:
                    dbg.report(Stop(main.thread))
                else:
                    dbg.arm()
                result = session.run()
                status = result.exit_code
                dbg.flush_outputs()
                break
            except Travel as travel:
                plan = timeline.plan_for(travel, dbg.checkpoints)
                _from_checkpoint(dbg, plan)
            except _Replan as again:
                plan = again.plan
                _from_checkpoint(dbg, plan)
            finally:
                dbg.close()
                session = outputs = None
                gc.collect()                    # (the engines of a run left behind: see test_gdb)
    except Killed:
        status = 0
    finally:
        timeline.end()
        dbg.checkpoints.close_all()
        _close(closers)
    return status


def _from_checkpoint(dbg, plan: Plan) -> None:
    """Hand the session to the latest checkpoint before the replay's start, if there is one:
    this worker then ends here (the checkpoint's copy goes on). Otherwise return: the replay
    runs from the start of the run, in this process."""
    cks = dbg.checkpoints
    gone = dbg.timeline.forget_after(plan.keep())
    if gone is not None:
        cks.drop_after(gone)                    # (they hold gdb's writes that are now forgotten)
    c = cks.best(plan.start())
    if c is None:
        return
    dbg.flush_outputs()
    try:
        cks.resume(c, dbg.export(plan))
    except OSError:
        return                                  # (it is gone: from the start, then)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
