"""strace's options, as emutrace reads them: the -e qualifiers (trace=, inject=, fault=, status=,
signal=, read=, write=, ...), their long forms (--trace, --signal, --decode-fds, --quiet...) and
the small rows of strace's group (-q, -y, -V). Each setter takes (tc, text) and raises UsageError
with the one-line message; emutrace/options.py's table calls them (through _tc)."""
from __future__ import annotations

from typing import Optional

from emutrace.version import __version__
from emutrace.optconfig import InfoRequested, UsageError, _int

# -- the power tools' options: strace's -e qualifiers and long forms ---------------------------

def _inject(fault: bool):
    def add(tc, text: str) -> None:
        from emutrace.inject import InjectError, parse_inject     # deferred: only -e inject= and --inject-call need the parser
        try:
            parse_inject(text, fault)
        except InjectError as e:
            raise UsageError(str(e)) from None
        tc.inject.append((text, fault))
    return add


def _status(tc, text: str) -> None:
    from emutrace.sysgate import StatusError, parse_status     # deferred: only -e status= needs the parser
    try:
        tc.status = parse_status(text)
    except StatusError as e:
        raise UsageError(str(e)) from None


def _inject_call(tc, text: str) -> None:
    from emutrace.inject import InjectError, parse_inject_call     # deferred: only -e inject= and --inject-call need the parser
    try:
        parse_inject_call(text)
    except InjectError as e:
        raise UsageError(str(e)) from None
    tc.inject_calls.append(text)


def _coverage_format(tc, text: str) -> None:
    if text not in ("drcov", "lcov", "text"):
        raise UsageError("--coverage-format is drcov, lcov or text")
    tc.coverage_format = text


STRACE_QUALIFIERS = {"inject": _inject(False), "fault": _inject(True), "status": _status}


# == strace's options (issue 39) ===============================================================
# The qualifiers of strace 7.2's options that emutrace --strace takes: their grammar and setters,
# used by the -e qualifiers below and by the rows of group G in OPTIONS. -x, -n, -N, -q, -v, -V
# and -Y are strace's only after --strace (rows with mode "strace"); elsewhere -x is ltrace's
# -x FILTER and -n ltrace's indent. -a N is the column of ' = ' in every mode (ltrace's -a too)
# but after --ftrace, where it is uftrace's -a.

_DECODE_FD_KINDS = ("path", "socket", "dev", "pidfd", "signalfd", "eventfd")
_QUIET_KINDS = ("attach", "exit", "personality", "thread-execve", "path-resolution")
_QUIET_ALIASES = {"exits": "exit", "superseded": "thread-execve"}


def _qual_set(text: str, what: str, item, everything) -> Optional[set]:
    """strace's qualifier set grammar: 'all', 'none', a comma list, a leading '!' negating it.
    item(word) -> value (raises UsageError); everything: the set 'all' means (None: unbounded,
    then the result is None for 'all' and a ('not', set) is not representable)."""
    negate = text.startswith("!")
    body = text[1:] if negate else text
    chosen: set = set()
    for word in body.split(","):
        if not word:
            continue
        if word == "all":
            chosen = set(everything) if everything is not None else None
            if chosen is None:
                break
        elif word == "none":
            continue
        else:
            chosen.add(item(word))
    if chosen is None:
        return set() if negate else None
    if negate:
        if everything is None:
            return ("not", chosen)
        return set(everything) - chosen
    return chosen


def _signal_item(word: str) -> int:
    from emutrace.decode.xlat import SIGNAL_NUMBERS     # deferred: the tables load only for -e signal=
    if word.isdigit():
        n = int(word)
        if not 0 < n <= 64:
            raise UsageError(f"invalid signal '{word}'")
        return n
    name = word.upper()
    name = name if name.startswith("SIG") else "SIG" + name
    if name not in SIGNAL_NUMBERS:
        raise UsageError(f"invalid signal '{word}'")
    return SIGNAL_NUMBERS[name]


def _fd_item(word: str) -> int:
    if not word.isdigit():
        raise UsageError(f"invalid descriptor '{word}'")
    return int(word)


def _word_item(choices, aliases=None, what="value"):
    def item(word: str) -> str:
        word = (aliases or {}).get(word, word)
        if word not in choices:
            raise UsageError(f"invalid {what} '{word}'")
        return word
    return item


def _syscall_item(word: str) -> str:
    return word


def _signals(tc, text: str) -> None:
    tc.signals = _qual_set(text, "signal", _signal_item, range(1, 65))


def _fds(attr):
    def set_fds(tc, text: str) -> None:
        got = _qual_set(text, "descriptor", _fd_item, None)
        setattr(tc, attr, got)
    return set_fds


def _decode_fds(tc, text: Optional[str]) -> None:
    tc.decode_fds = _qual_set(text or "path", "decode-fds", _word_item(_DECODE_FD_KINDS, None, "decode-fds"),
                              _DECODE_FD_KINDS)
    tc.fd_paths = bool(tc.decode_fds)


def _quiet(tc, text: Optional[str]) -> None:
    tc.quiet = _qual_set(text or "attach,personality", "quiet",
                         _word_item(_QUIET_KINDS, _QUIET_ALIASES, "quiet"), _QUIET_KINDS)


def _xlat_style(tc, text: str) -> None:
    if text not in ("raw", "abbrev", "verbose"):
        raise UsageError(f"invalid -X/--const-print-style '{text}' (raw, abbrev or verbose)")
    tc.xlat_style = text


def _hex_strings(tc, text: Optional[str]) -> None:
    levels = {None: 2, "all": 2, "non-ascii": 1, "non-ascii-chars": 3, "none": 0}
    if text not in levels:
        raise UsageError(f"invalid --strings-in-hex '{text}' (none, non-ascii, non-ascii-chars or all)")
    tc.hex_strings = levels[text]


def _verbose(tc, text: str) -> None:
    got = _qual_set(text, "verbose", _syscall_item, None)
    tc.verbose = got is None or (isinstance(got, tuple) and not got[1]) or bool(got)


def _abbrev(tc, text: str) -> None:
    got = _qual_set(text, "abbrev", _syscall_item, None)
    tc.verbose = got is not None and not got


def _raw(tc, text: str) -> None:
    got = _qual_set(text, "raw", _syscall_item, None)
    tc.raw = {"all"} if got is None else got


def _decode_pids(tc, text: str) -> None:
    """-Y, --decode-pids=, -e decode-pids=: refused with one line (status 125) rather than
    accepted and ignored: no decoder marks an argument or a result as a process id yet."""
    raise UsageError("-Y (--decode-pids) is not supported: no decoder marks an argument as a process id yet")


def _namespace(tc, text: Optional[str]) -> None:
    _word_item(("new", "all", "none"), None, "namespace")((text or "new").lstrip("!"))


def _columns(tc, text: str) -> None:
    tc.align = _int(text, "-a", 0)


def _trace(tc, text: str) -> None:
    tc.filters.append("trace=" + text)


# -e NAME=VALUE (and --NAME=VALUE below): strace's qualifiers
STRACE_QUALIFIERS.update({
    "trace": _trace, "t": _trace,
    "signal": _signals, "signals": _signals, "s": _signals,
    "read": _fds("read_fds"), "reads": _fds("read_fds"), "r": _fds("read_fds"),
    "write": _fds("write_fds"), "writes": _fds("write_fds"), "w": _fds("write_fds"),
    "trace-fds": _fds("trace_fds"), "trace-fd": _fds("trace_fds"), "fd": _fds("trace_fds"),
    "fds": _fds("trace_fds"),
    "decode-fds": _decode_fds, "decode-fd": _decode_fds,
    "quiet": _quiet, "silent": _quiet, "silence": _quiet, "q": _quiet,
    "verbose": _verbose, "v": _verbose, "abbrev": _abbrev, "a": _abbrev, "raw": _raw, "x": _raw,
    "decode-pids": _decode_pids, "decode-pid": _decode_pids,
    "namespace": _namespace,
    "kvm": lambda tc, text: None,       # (strace's -e kvm=vcpu: no KVM in the sandbox, nothing to show)
    "secontext": lambda tc, text: None,     # (no SELinux contexts in the sandbox: nothing to show)
})



def _strace_q(st, v: Optional[str]) -> None:
    """-q, --quiet[=SET]: no notes of emutrace's (the dropped files, the status line), and strace's
    quieter levels: -q attach and personality, -qq also exit, -qqq everything."""
    st.quiet = True
    tc = st.tc
    if v is not None:
        _quiet(tc, v)
    else:
        tc.quiet = set(_QUIET_KINDS) if len(tc.quiet) >= 3 else \
            ({"attach", "personality", "exit"} if tc.quiet else {"attach", "personality"})


def _strace_y(st, v) -> None:
    """-y: paths beside descriptors; -yy (under --strace): every kind of descriptor decoded."""
    tc = st.tc
    if tc.strace and tc.fd_paths:
        tc.decode_fds = set(_DECODE_FD_KINDS)
    tc.fd_paths = True
    tc.decode_fds = set(tc.decode_fds) | {"path"}


def _strace_version(st, v):
    raise InfoRequested(f"strace -- version 7.2 (emutrace {__version__})")


def _tc(setter):
    """A row's apply from one of the qualifier setters above, which take (tc, text)."""
    return lambda st, v: setter(st.tc, v)


def _no_effect(st, v) -> None:
    """strace's --kvm, --secontext and --no-abbrev-signals: accepted, with nothing to show in the
    sandbox (no KVM, no SELinux contexts; signal names are never abbreviated)."""


# ============================================================================ the option table
# One row per option: the parser, --help, the argparse parser that the man page and the shell
# completions are made from (tools/manpage.py), and tests/test_option_audit.py's coverage all
