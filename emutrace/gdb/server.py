"""The GDB remote protocol: gdb's packets, answered from a stopped run.

serve(stop, position) reports a stop (a T, W or X reply) and answers packets until gdb resumes
(c, C, s, S, vCont), travels (bs, bc, `monitor goto`), kills or detaches. Packets are dispatched
by their first word through one table; what a packet changes lives in the Debugger
(emutrace/gdb/debugger.py). Thread ids are multiprocess ids, pPID.TID in hex, as gdbserver's.
"""
from __future__ import annotations

import os
import sys
import traceback
from typing import Callable, Dict, Optional, Tuple

from emutrace.gdb.debugger import Killed, Resume, Stop
from emutrace.gdb.memory import read_memory, write_memory
from emutrace.gdb.packets import INTERRUPT, MAX_PACKET, Channel, Disconnected, escape, unescape
from emutrace.gdb.regs import REGS, RegisterFile, target_xml
from emutrace.gdb.timeline import Travel, _Replan
from emutrace.gdb import xfer

MAX_READ = (MAX_PACKET - 8) // 2         # bytes one m reply can hold in hex

SUPPORTED = ("PacketSize={size:x};QPassSignals+;QProgramSignals+;QStartNoAckMode+;qXfer:features:read+;"
             "qXfer:libraries-svr4:read+;qXfer:auxv:read+;qXfer:exec-file:read+;qXfer:threads:read+;"
             "multiprocess+;swbreak+;hwbreak+;vContSupported+;QCatchSyscalls+;QThreadEvents+;"
             "ReverseStep+;ReverseContinue+")
EVENT_FEATURES = ("fork-events", "vfork-events", "exec-events")


class BadPacket(Exception):
    """A packet gdb should not have sent (malformed): E01."""


def _hex_int(text: str) -> int:
    try:
        return int(text, 16)
    except ValueError:
        raise BadPacket(text) from None


class Server:
    def __init__(self, channel: Channel):
        self.ch = channel
        self.dbg = None                   # the Debugger (set by listen.run)
        self.features: Dict[str, bool] = {}
        self.g_thread = None              # Hg: the thread g/p/m read (None: the stopped one)
        self.stop: Optional[Stop] = None
        self.pos = 0
        self.resumed = False              # gdb waits for a stop reply (it resumed or travelled)
        self.table: Dict[str, Callable[[str], Optional[object]]] = {
            "?": self.h_why, "g": self.h_g, "G": self.h_G, "p": self.h_p, "P": self.h_P,
            "m": self.h_m, "M": self.h_M, "X": self.h_X, "H": self.h_H, "T": self.h_T,
            "Z": self.h_Z, "z": self.h_z, "c": self.h_c, "C": self.h_C, "s": self.h_s, "S": self.h_S,
            "D": self.h_D, "k": self.h_k, "b": self.h_b,
        }

    # -- thread ids ----------------------------------------------------------------------------
    def thread_id(self, t) -> str:
        return f"p{t.proc.pid:x}.{t.tid:x}"

    def parse_thread(self, text: str) -> Tuple[Optional[int], Optional[int]]:
        """(pid, tid), each None for 'any' (0) or 'all' (-1)."""
        pid = None
        if text.startswith("p"):
            p, _, text = text[1:].partition(".")
            pid = None if p in ("-1", "0") else _hex_int(p)
            if not text:
                return pid, None
        tid = None if text in ("-1", "0", "") else _hex_int(text)
        return pid, tid

    def find_thread(self, pid, tid):
        for t in self.dbg.live_threads():
            if (pid is None or t.proc.pid == pid) and (tid is None or t.tid == tid):
                return t
        return None

    def reg_thread(self):
        t = self.g_thread
        if t is None or not t.alive:
            t = self.stop.thread if self.stop is not None and self.stop.thread is not None else None
        if t is None or not t.alive:
            t = self.dbg.current_thread()
        return t

    def registers(self, t) -> RegisterFile:
        m = t.proc.machine
        loaded = m.loaded if m.loaded is not None else t.proc.thread
        src = m.uc if loaded is t or t.ctx is None else t.ctx
        return RegisterFile(src, lambda: self.dbg.orig_rax.get(t, -1))

    # -- the loop ----------------------------------------------------------------------------------
    def interrupted(self) -> bool:
        try:
            return self.ch.poll_interrupt()
        except Disconnected:
            raise Killed() from None

    def serve(self, stop: Stop, pos: int) -> Resume:
        self.stop, self.pos = stop, pos
        self.g_thread = None
        if self.resumed:
            self.resumed = False
            self.send(self.stop_reply(stop))
        if stop.exit is not None and not self.dbg.live_threads():
            return Resume(None, {})            # nothing left to debug (gdbserver says W and goes)
        return self.loop()

    def loop(self) -> Resume:
        while True:
            try:
                packet = self.ch.receive()
            except Disconnected:
                raise Killed() from None
            if packet == INTERRUPT:
                continue                   # (already stopped)
            text = packet.decode("latin-1")
            try:
                answer = self.dispatch(text)
            except BadPacket:
                answer = "E01"
            except (Killed, Travel, _Replan):
                raise
            except Exception as e:         # a bug of ours: gdb gets an error, the run goes on
                if os.environ.get("EMUTRACE_GDB_DEBUG"):
                    traceback.print_exc()
                sys.stderr.write(f"emutrace: gdb server: cannot answer {text[:40]!r}: {type(e).__name__}: {e}\n")
                answer = "E01"
            if isinstance(answer, Resume):
                self.resumed = True
                return answer
            if answer is not None:
                self.send(answer)

    def send(self, payload) -> None:
        try:
            self.ch.send(payload)
        except Disconnected:
            raise Killed() from None

    def dispatch(self, text: str):
        if not text:
            return ""
        for prefix, fn in self.long_packets():
            if text.startswith(prefix):
                return fn(text[len(prefix):])
        fn = self.table.get(text[0])
        return fn(text[1:]) if fn is not None else ""

    def long_packets(self):
        return (("qSupported", self.q_supported), ("QStartNoAckMode", self.q_noack),
                ("qXfer:", self.q_xfer), ("qfThreadInfo", self.q_fthreads), ("qsThreadInfo", lambda _: "l"),
                ("qC", self.q_c), ("qAttached", lambda _: "0"), ("qSymbol", lambda _: "OK"),
                ("qThreadExtraInfo,", self.q_extra), ("QPassSignals:", self.q_pass),
                ("QProgramSignals:", lambda _: "OK"), ("QCatchSyscalls:", self.q_catch),
                ("QThreadEvents:", lambda _: "OK"), ("qRcmd,", self.q_rcmd),
                ("vCont?", lambda _: "vCont;c;C;s;S"), ("vCont;", self.v_cont), ("vKill", self.v_kill),
                ("vFile:", self.v_file), ("vMustReplyEmpty", lambda _: ""), ("bc", self.h_bc),
                ("bs", self.h_bs), ("qTStatus", lambda _: ""), ("qOffsets", lambda _: ""))

    # -- stop replies ---------------------------------------------------------------------------------
    def stop_reply(self, stop: Stop) -> str:
        if stop.exit is not None:
            kind, code = stop.exit
            return f"{kind}{code & 0xFF:02x};process:{stop.proc.pid:x}"
        parts = [f"T{stop.signal & 0xFF:02x}"]
        if stop.reason:
            parts.append(f"{stop.reason}:{stop.value};")
        parts.append(f"thread:{self.thread_id(stop.thread)};")
        return "".join(parts)

    def h_why(self, _):
        return self.stop_reply(self.stop) if self.stop is not None else "W00"

    # -- registers ------------------------------------------------------------------------------------
    def h_g(self, _):
        return self.registers(self.reg_thread()).read_all().hex()

    def h_G(self, arg):
        data = bytes.fromhex(arg) if len(arg) % 2 == 0 else None
        if data is None:
            raise BadPacket(arg)
        t = self.reg_thread()
        self.dbg.timeline.wrote(self.dbg, "regs", t, 0, data)
        self.registers(t).write_all(data)
        return "OK"

    def h_p(self, arg):
        n = _hex_int(arg)
        if n >= len(REGS):
            return "E01"
        return self.registers(self.reg_thread()).read(n).hex()

    def h_P(self, arg):
        n, _, value = arg.partition("=")
        n = _hex_int(n)
        try:
            data = bytes.fromhex(value)
        except ValueError:
            raise BadPacket(arg) from None
        if n >= len(REGS):
            return "E01"
        t = self.reg_thread()
        self.dbg.timeline.wrote(self.dbg, "reg", t, n, data)
        self.registers(t).write(n, data)
        return "OK"

    # -- memory -----------------------------------------------------------------------------------------
    def _addr_len(self, text: str) -> Tuple[int, int]:
        a, _, n = text.partition(",")
        return _hex_int(a), _hex_int(n)

    def h_m(self, arg):
        addr, length = self._addr_len(arg)
        data = read_memory(self.reg_thread().proc, addr, min(length, MAX_READ))
        if length == 0:
            return ""
        return data.hex() if data else "E14"

    def _write(self, addr: int, data: bytes) -> str:
        t = self.reg_thread()
        if not write_memory(t.proc, addr, data):
            return "E14"
        self.dbg.timeline.wrote(self.dbg, "mem", t, addr, data)
        return "OK"

    def h_M(self, arg):
        head, _, value = arg.partition(":")
        addr, length = self._addr_len(head)
        try:
            data = bytes.fromhex(value)
        except ValueError:
            raise BadPacket(arg) from None
        if len(data) != length:
            return "E01"
        return self._write(addr, data)

    def h_X(self, arg):
        head, _, value = arg.partition(":")
        addr, length = self._addr_len(head)
        data = unescape(value.encode("latin-1"))
        if len(data) != length:
            return "E01"
        return self._write(addr, data) if data else "OK"

    # -- threads ----------------------------------------------------------------------------------------
    def h_H(self, arg):
        if not arg:
            raise BadPacket(arg)
        pid, tid = self.parse_thread(arg[1:])
        if arg[0] == "g":
            if pid is None and tid is None:
                self.g_thread = None
                return "OK"
            t = self.find_thread(pid, tid)
            if t is None:
                return "E01"
            self.g_thread = t
        return "OK"

    def h_T(self, arg):
        return "OK" if self.find_thread(*self.parse_thread(arg)) is not None else "E01"

    def q_fthreads(self, _):
        ids = [self.thread_id(t) for t in self.dbg.live_threads()]
        return "m" + ",".join(ids) if ids else "l"

    def q_c(self, _):
        t = self.reg_thread() if self.stop is not None else None
        return f"QC{self.thread_id(t)}" if t is not None else ""

    def thread_name(self, t) -> str:
        p = t.proc
        return (p.comm or p.exe.rsplit("/", 1)[-1])[:15]

    def q_extra(self, arg):
        t = self.find_thread(*self.parse_thread(arg))
        return self.thread_name(t).encode().hex() if t is not None else "E01"

    # -- breakpoints --------------------------------------------------------------------------------------
    def _z(self, arg):
        kind, _, rest = arg.partition(",")
        addr, _, length = rest.partition(",")
        length = length.split(";", 1)[0]
        return _hex_int(kind), _hex_int(addr), _hex_int(length)

    def h_Z(self, arg):
        kind, addr, length = self._z(arg)
        if kind > 4:
            return ""
        return "OK" if self.dbg.insert(self.reg_thread().proc, kind, addr, length) else "E01"

    def h_z(self, arg):
        kind, addr, length = self._z(arg)
        if kind > 4:
            return ""
        self.dbg.remove(self.reg_thread().proc, kind, addr, length)
        return "OK"

    # -- resuming -----------------------------------------------------------------------------------------
    def _stopped(self):
        return self.stop.thread if self.stop is not None and self.stop.thread is not None else self.dbg.current_thread()

    def h_c(self, arg):
        return self._resume(None, 0, arg)

    def h_C(self, arg):
        sig, _, addr = arg.partition(";")
        return self._resume(None, _hex_int(sig), addr)

    def h_s(self, arg):
        return self._resume(self._stopped(), 0, arg)

    def h_S(self, arg):
        sig, _, addr = arg.partition(";")
        return self._resume(self._stopped(), _hex_int(sig), addr)

    def _resume(self, step, sig: int, addr: str):
        if self.stop is not None and self.stop.exit is not None and not self.dbg.live_threads():
            return self.stop_reply(self.stop)
        if addr:
            return "E01"                       # (resuming elsewhere: gdb uses P rip instead)
        t = self._stopped()
        self._goto(t)
        return Resume(step, {t: sig} if t is not None else {})

    def _goto(self, t) -> None:
        self.resumed = True
        self.dbg.timeline.take_goto(self.dbg, t)

    def v_cont(self, arg):
        step, signals = None, {}
        default = None
        for action in arg.split(";"):
            what, _, who = action.partition(":")
            if not what or what[0] not in "cCsS":
                return ""                      # (r, t: not offered by vCont?)
            sig = _hex_int(what[1:]) if what[0] in "CS" else 0
            if who:
                t = self.find_thread(*self.parse_thread(who))
                if t is None:
                    continue
                if what[0] in "sS" and step is None:
                    step = t
                signals.setdefault(t, sig)
            elif default is None:
                default = what[0]
                if what[0] in "sS" and step is None:
                    step = self._stopped()
        if self.stop is not None and self.stop.exit is not None and not self.dbg.live_threads():
            return self.stop_reply(self.stop)
        self._goto(self._stopped())
        return Resume(step, signals)

    def h_bc(self, _):
        self.resumed = True
        raise Travel("bc", self._stopped(), self.pos)

    def h_bs(self, _):
        self.resumed = True
        raise Travel("bs", self._stopped(), self.pos)

    def h_b(self, arg):
        return ""                               # (bNN: the serial speed, obsolete)

    def h_D(self, arg):
        pid = _hex_int(arg[1:]) if arg.startswith(";") else None
        procs = [p for p in self.dbg.processes if p.exit is None and (pid is None or p.pid == pid)]
        for p in procs:
            self.dbg.detach(p)
        self.send("OK")
        if not self.dbg.live_threads():
            return Resume(None, {})            # nobody left to debug: the run goes on alone
        return None

    def h_k(self, _):
        self.dbg.kill()

    def v_kill(self, _):
        self.send("OK")
        self.dbg.kill()

    # -- queries --------------------------------------------------------------------------------------------
    def q_supported(self, arg):
        for feat in arg.lstrip(":").split(";"):
            if feat.endswith("+"):
                self.features[feat[:-1]] = True
        offered = "".join(f";{f}+" for f in EVENT_FEATURES if self.features.get(f))
        return SUPPORTED.format(size=MAX_PACKET) + offered

    def q_noack(self, _):
        self.send("OK")
        self.ch.ack = False
        return None

    def q_pass(self, arg):
        self.dbg.pass_signals = {_hex_int(s) for s in arg.split(";") if s}
        return "OK"

    def q_catch(self, arg):
        if arg.startswith("0"):
            self.dbg.catch = None
        elif arg.startswith("1"):
            self.dbg.catch = {_hex_int(s) for s in arg[1:].split(";") if s}
        else:
            raise BadPacket(arg)
        return "OK"

    def q_rcmd(self, arg):
        try:
            command = bytes.fromhex(arg).decode("utf-8", "replace").strip()
        except ValueError:
            raise BadPacket(arg) from None
        out = self.dbg.timeline.monitor(self.dbg, self, command)
        if out:
            self.send("O" + out.encode().hex())
        return "OK"

    def q_xfer(self, arg):
        parts = arg.split(":")
        if len(parts) != 4 or parts[1] != "read":
            return ""
        obj, _, annex, span = parts
        off, length = self._addr_len(span)
        t = self.reg_thread()
        proc = t.proc if t is not None else None
        if obj == "features" and annex == "target.xml":
            doc = target_xml().encode()
        elif obj == "libraries-svr4":
            doc = xfer.libraries_svr4(proc).encode()
        elif obj == "auxv":
            doc = xfer.auxv(proc, self.dbg.stack_tops.get(proc))
        elif obj == "exec-file":
            pid = _hex_int(annex) if annex else None
            p = next((q for q in self.dbg.processes if pid is None or q.pid == pid), None)
            if p is None:
                return "E01"
            doc = p.exe.encode("utf-8", "surrogateescape")
        elif obj == "threads":
            doc = xfer.threads_xml([(self.thread_id(x), self.thread_name(x)) for x in self.dbg.live_threads()]).encode()
        else:
            return ""
        return escape(xfer.chunk(doc, off, min(length, MAX_PACKET - 8)))

    # -- host I/O (vFile) -------------------------------------------------------------------------------------
    def v_file(self, arg):
        op, _, rest = arg.partition(":")
        args = rest.split(",") if rest else []
        io = self.dbg.hostio
        proc = self.reg_thread().proc

        def result(r, data: bytes = b""):
            if isinstance(r, bytes):
                return b"F%x;" % len(r) + escape(r)
            return f"F-1,{-r:x}" if r < 0 else f"F{r:x}"
        try:
            if op == "setfs":
                return "F0"
            if op == "open":
                return result(io.open(proc, bytes.fromhex(args[0]).decode("utf-8", "surrogateescape"), _hex_int(args[1])))
            if op == "pread":
                return result(io.pread(_hex_int(args[0]), min(_hex_int(args[1]), MAX_READ), _hex_int(args[2])))
            if op == "close":
                return result(io.close(_hex_int(args[0])))
            if op == "fstat":
                return result(io.fstat(_hex_int(args[0])))
            if op == "readlink":
                return result(io.readlink(proc, bytes.fromhex(args[0]).decode("utf-8", "surrogateescape")))
        except (IndexError, ValueError):
            raise BadPacket(arg) from None
        if op in ("pwrite", "unlink"):
            return f"F-1,{xfer.FILEIO_EACCES:x}"
        return ""
