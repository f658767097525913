"""Fault injection: strace's `-e inject=` / `-e fault=` for system calls, and `--inject-call`
for library calls.

    inject=SET[:error=ERRNO|:retval=N][:signal=SIG][:syscall=PURE][:delay_enter=T][:delay_exit=T]
          [:poke_enter=@argN=HEX,...][:poke_exit=@argN=HEX,...][:when=EXPR]
    fault=SET[:error=ERRNO][:when=EXPR]          (inject= with error=ENOSYS by default)
    --inject-call NAME:retval=V[:when=EXPR]

EXPR is strace's `first[..last][+[step]]`: `3` (the 3rd call only), `3+` (3rd on), `3+2` (3rd,
5th, ...), `2..4` (2nd to 4th), `2..8+3`. Invocations are counted per system call (per library
function) and per thread, as strace counts per syscall and per tracee.

An injected error or return value replaces the call: its handler never runs (nor the library
function), and the trace line ends in ` (INJECTED)`; a delay moves the virtual clock and ends the
line in ` (DELAYED)`. Whatever strace rejects is rejected here with strace's words.
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

from emutrace.kernel import errno as E
from emutrace.kernel.table import BY_NAME
from emutrace.decode.xlat import SIGNAL_NUMBERS, SIGRTMAX

from emutrace.record import field, record
from emutrace.machine.words import s64
from emutrace.systrace import SyscallSelection, TraceSpecError
from emutrace.linux.signal import SI_KERNEL


class InjectError(ValueError):
    """An expression strace rejects; the message is strace's."""


# -- when=EXPR ---------------------------------------------------------------------------------

@record
class When:
    """Which invocations (counted from 1) are tampered with: first, then every step-th up to last.
    step 0 means only `first`."""
    first: int = 1
    last: int = 0xFFFF
    step: int = 1

    def picks(self, n: int) -> bool:
        if n < self.first or n > self.last:
            return False
        if self.step == 0:
            return n == self.first
        return (n - self.first) % self.step == 0


_WHEN = re.compile(r"(\d+)(?:\.\.(\d+))?(?:(\+)(\d*))?\Z")


def parse_when(text: str) -> When:
    """strace's ranges: first and step 1..65535, last 1..65534 and not below first."""
    m = _WHEN.match(text)
    if not m:
        raise ValueError(text)
    first = int(m.group(1))
    last = int(m.group(2)) if m.group(2) is not None else None
    if not 1 <= first <= 0xFFFF or (last is not None and not first <= last <= 0xFFFE):
        raise ValueError(text)
    if m.group(3):
        step = int(m.group(4)) if m.group(4) else 1
        if not 1 <= step <= 0xFFFF:
            raise ValueError(text)
        return When(first, last if last is not None else 0xFFFF, step)
    if last is not None:                       # first..last: every call in the range
        return When(first, last, 1)
    return When(first, first, 0)


def parse_delay_us(text: str) -> int:
    """strace's time specification: a decimal number with s, ms, us (the default) or ns; in ns."""
    m = re.fullmatch(r"([0-9]*\.?[0-9]+(?:[eE][-+]?\d+)?)(s|ms|us|ns)?", text)
    if not m:
        raise ValueError(text)
    scale = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1, None: 10**3}[m.group(2)]
    ns = float(m.group(1)) * scale
    if ns > (1 << 62):
        raise ValueError(text)
    return int(ns)


def _errno(text: str) -> int:
    if text.upper() in E.NUMBER:                        # (strace compares names ignoring case)
        return E.NUMBER[text.upper()]
    n = _number(text)
    if n is None or not 1 <= n <= 4095:
        raise ValueError(text)
    return n


def _signal(text: str) -> int:
    text = text.upper()                                 # (names ignoring case, as strace)
    n = SIGNAL_NUMBERS.get(text)
    if n is None and not text.startswith("SIG"):
        n = SIGNAL_NUMBERS.get("SIG" + text)
    if n is None:
        n = _number(text)
    if n is None or not 1 <= n <= SIGRTMAX:
        raise ValueError(text)
    return n


def _number(text: str) -> Optional[int]:
    try:
        return int(text, 0)
    except ValueError:
        return None


def _pokes(text: str) -> List[Tuple[int, bytes]]:
    """@arg1=0000DEAD0000BEEF,@arg3=00 → [(0, bytes), (2, bytes)] (arguments counted from 1)."""
    out = []
    for item in text.split(","):
        m = re.fullmatch(r"@arg([1-7])=((?:[0-9a-fA-F]{2})+)", item)
        if not m:
            raise ValueError(text)
        out.append((int(m.group(1)) - 1, bytes.fromhex(m.group(2))))
    if len({arg for arg, _ in out}) != len(out):         # one poke per argument
        raise ValueError(text)
    return out


# -- one expression ----------------------------------------------------------------------------

@record
class Tamper:
    """What an injection does to the calls it picks."""
    error: Optional[int] = None         # errno
    retval: Optional[int] = None
    signal: Optional[int] = None
    delay_enter_ns: int = 0
    delay_exit_ns: int = 0
    poke_enter: List[Tuple[int, bytes]] = field(default_factory=list)
    poke_exit: List[Tuple[int, bytes]] = field(default_factory=list)
    when: When = field(default_factory=When)

    @property
    def replaces(self) -> bool:
        return self.error is not None or self.retval is not None


def parse_tamper(tokens: List[str], original: str, fault: bool = False) -> Tamper:
    """The `:key=value` part of an inject= or fault= expression (strace's parse_inject_token)."""
    t = Tamper()
    bad = InjectError(f"invalid {'fault' if fault else 'inject'} argument '{original}'")
    pure_given = False
    given = set()                               # the keys given once at most (all but when=)
    for tok in tokens:
        if not tok:
            continue                            # (strace's tokenizer skips empty tokens: "a::b")
        key, eq, val = tok.partition("=")
        try:
            if not eq:
                raise ValueError(tok)
            if key in given:
                raise ValueError(tok)
            if key == "when":
                t.when = parse_when(val)               # the last when= wins
            elif key == "error":
                if t.error is not None or t.retval is not None:
                    raise ValueError(tok)
                t.error = _errno(val)
            elif key == "retval" and not fault:
                if t.error is not None or t.retval is not None:
                    raise ValueError(tok)
                n = _number(val)
                if n is None:
                    raise ValueError(tok)
                if not -(1 << 63) <= n < 1 << 64:
                    raise ValueError(tok)
                t.retval = n & ((1 << 64) - 1)         # as strace: an unsigned register value
            elif key == "signal" and not fault:
                if t.signal is not None:
                    raise ValueError(tok)
                t.signal = _signal(val)
            elif key == "syscall" and not fault:
                # the call put in the original's place; only side-effect-free calls are allowed,
                # so (with error= or retval= given, as strace requires) nothing of it is visible
                row = BY_NAME.get(val)
                if row is None or "%pure" not in row.classes:
                    raise ValueError(tok)
                pure_given = True
            elif key == "delay_enter" and not fault:
                t.delay_enter_ns = parse_delay_us(val)
            elif key == "delay_exit" and not fault:
                t.delay_exit_ns = parse_delay_us(val)
            elif key == "poke_enter" and not fault:
                t.poke_enter = _pokes(val)
            elif key == "poke_exit" and not fault:
                t.poke_exit = _pokes(val)
            else:
                raise ValueError(tok)
            if key != "when":
                given.add(key)
        except ValueError:
            raise bad from None
    if fault and t.error is None:
        t.error = E.ENOSYS
    if pure_given and not t.replaces:
        raise bad
    if not (t.replaces or t.signal or t.delay_enter_ns or t.delay_exit_ns or t.poke_enter or t.poke_exit):
        raise bad
    return t


def parse_inject(expr: str, fault: bool = False) -> Tuple[List[str], Tamper]:
    """`SET:...` → (syscall names, tamper). Raises InjectError with strace's message."""
    body, _, rest = expr.partition(":")
    try:
        sel = SyscallSelection([body]) if body else None
    except TraceSpecError as e:
        raise InjectError(str(e)) from None             # (strace's words: emutrace.syscallset)
    if sel is None or not body.strip(","):
        raise InjectError("invalid system call ''")
    tamper = parse_tamper(rest.split(":") if rest else [], expr, fault)
    return sorted(sel.names), tamper                 # (empty for a set of only ?-items naming nothing)


# -- system calls ------------------------------------------------------------------------------

INJECTED, DELAYED = " (INJECTED)", " (DELAYED)"


class SyscallInjector:
    """The kernel's intercept for -e inject=: enter() may replace a call, exit() may delay its
    return and poke memory. Chained in the session's hooks (machine/phases.py): an intercept
    chained before it (the API's hooks) sees the calls it does not replace."""

    def __init__(self, rules: Dict[str, Tamper]):
        self.rules = rules
        self.counts: Dict[Tuple[int, str], int] = {}
        self.marks: Dict[int, str] = {}         # tid → the marker of the call it is in
        self.at_exit: Dict[int, Tamper] = {}    # tid → the tampering left for the call's exit

    @classmethod
    def from_exprs(cls, exprs: List[Tuple[str, bool]]) -> "SyscallInjector":
        rules: Dict[str, Tamper] = {}
        for expr, fault in exprs:
            names, tamper = parse_inject(expr, fault)
            for n in names:
                rules[n] = tamper                   # a later expression for a call replaces it
        return cls(rules)

    def _picked(self, proc, sc) -> Optional[Tamper]:
        t = self.rules.get(sc.name) if sc is not None else None
        if t is None:
            return None
        key = (proc.thread.tid, sc.name)
        n = self.counts[key] = self.counts.get(key, 0) + 1
        return t if t.when.picks(n) else None

    def enter(self, proc, nr, sc, args):
        t = self._picked(proc, sc)
        tid = proc.thread.tid
        self.marks.pop(tid, None)
        if t is not None:
            mark = (INJECTED if t.replaces else "") + (DELAYED if t.delay_enter_ns or t.delay_exit_ns else "")
            if mark:
                self.marks[tid] = mark
            if t.delay_enter_ns:
                proc.kernel.world.tick(t.delay_enter_ns)
            _poke(proc, args, t.poke_enter)
            if t.signal:
                proc.queue_signal({"si_signo": t.signal, "si_code": SI_KERNEL}, thread=proc.thread)
            if t.delay_exit_ns or t.poke_exit:
                self.at_exit[tid] = t
            if t.replaces:
                return -t.error if t.error is not None else s64(t.retval)
        return None

    def exit(self, proc, nr, sc, args, ret):
        t = self.at_exit.pop(proc.thread.tid, None)
        if t is not None:
            _poke(proc, args, t.poke_exit)
            if t.delay_exit_ns:
                proc.kernel.world.tick(t.delay_exit_ns)
        return ret

    def warnings(self) -> List[str]:
        """strace's warning for a retval= that the program will read as an error."""
        return [f"Inadvertent injection of error {(1 << 64) - t.retval} is possible for retval={t.retval}"
                for t in {id(t): t for t in self.rules.values()}.values()
                if t.retval is not None and t.retval >= (1 << 64) - 4095]

    def mark(self, proc) -> str:
        """The marker for the line of the call proc's thread just finished ('' if untouched)."""
        return self.marks.pop(proc.thread.tid, "")


def _poke(proc, args, pokes) -> None:
    for i, data in pokes:
        if i < len(args) and args[i]:
            try:
                proc.aspace.write(args[i], data)
            except Exception:                 # strace too leaves an unwritable argument alone
                pass


# -- library calls -----------------------------------------------------------------------------

@record
class CallTamper:
    name: str
    retval: int
    when: When = field(default_factory=When)


def parse_inject_call(expr: str) -> CallTamper:
    """--inject-call NAME:retval=V[:when=EXPR]."""
    name, _, rest = expr.partition(":")
    bad = InjectError(f"invalid --inject-call argument '{expr}'")
    if not name or not rest:
        raise bad
    retval, when = None, When()
    for tok in rest.split(":"):
        key, eq, val = tok.partition("=")
        try:
            if key == "retval" and eq and retval is None:
                retval = _number(val)
                if retval is None:
                    raise ValueError(tok)
            elif key == "when" and eq:
                when = parse_when(val)
            else:
                raise ValueError(tok)
        except ValueError:
            raise bad from None
    if retval is None:
        raise bad
    return CallTamper(name, retval & (1 << 64) - 1, when)


class CallInjector:
    """The LibcallTracer's intercept for --inject-call: a picked call does not run, the caller
    gets the value (the same path as the API's `returns()`)."""

    def __init__(self, tampers: List[CallTamper]):
        self.by_name = {t.name: t for t in tampers}
        self.counts: Dict[Tuple[int, str], int] = {}

    def __bool__(self) -> bool:
        return True

    def wants(self, proc, site) -> bool:
        return site.name in self.by_name

    def enter(self, proc, frame, regs) -> bool:
        t = self.by_name.get(frame.site.name)
        if t is not None:
            key = (proc.thread.tid, t.name)
            n = self.counts[key] = self.counts.get(key, 0) + 1
            if t.when.picks(n):
                proc.machine.set_reg("rax", t.retval)
                return True
        return False

    def leave(self, proc, frame, regs) -> None:
        pass                                # (nothing to do at the return: the value was given)


class InjectingFilter:
    """The call filter, plus the program's calls to the functions --inject-call names (they must
    be caught to be replaced)."""

    def __init__(self, base, injector: CallInjector):
        self.base, self.injector = base, injector

    def traces_module(self, name: str, is_main: bool) -> bool:
        return is_main or self.base.traces_module(name, is_main)

    def matches(self, symbol: str, caller: str, is_main: bool, definer) -> bool:
        return self.base.matches(symbol, caller, is_main, definer) or (is_main and symbol in self.injector.by_name)
