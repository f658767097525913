"""Command-line options: ltrace's and strace's flags where they have them, plus emutrace's own.

Options end at the first word that is not an option (the program) or at `--`; short flags
cluster (-fS, -tt) and take attached values (-s64, -oFILE); long ones take `--name=value` or
`--name value`. Subcommands (`diff`, `sysroot`, `report`, `batch`) are recognized only as a bare
first word (emutrace/cmds/).

OPTIONS, the table at the end, is the one source of the options: parse() dispatches through it,
help_text() is `--help`, argparse_parser() is what tools/manpage.py gives argparse-manpage and
shtab for the man page and the bash/zsh completions, and tests/test_option_audit.py fails for an
option of the table it has no case for. To add an option:

1. a field for it in TraceConfig, Options or World (or Config) if it needs one;
2. one Opt row in OPTIONS, in its group: its spellings, its value's name (None for a flag), the
   help line, and `apply(state, value)`, which sets the field or raises UsageError with the
   one-line message (helpers: _set, _store, _append, _choice; `choices=` for a fixed list,
   `repeat=True` when it may be given again);
3. a row in tests/test_option_audit.py's CASES: a valid use (compared with native, ltrace or
   strace where they have the option) and invalid values, each refused with status 125.
"""
from __future__ import annotations

import os
from typing import Callable, Dict, List, Optional

from emutrace.kernel.world import World
from emutrace.record import field, record
from emutrace.version import __version__
from emutrace.kernel.limits import LimitError, parse_limit
from emutrace.session import Options

class UsageError(Exception):
    pass


class InfoRequested(Exception):
    """--help or --version: print the text on stdout and exit 0 (no arguments at all: the short
    usage on stderr, status 125)."""

    def __init__(self, text: str, status: int = 0):
        super().__init__(text)
        self.status = status


@record
class TraceConfig:
    output: Optional[str] = None
    syscalls: bool = False              # -S
    strace: bool = False                # --strace
    libcalls: bool = True
    filters: List[str] = field(default_factory=list)
    internal: List[str] = field(default_factory=list)   # -x
    libs: List[str] = field(default_factory=list)       # -l
    proto_files: List[str] = field(default_factory=list)
    string_limit: int = 32
    indent: int = 0
    demangle: bool = False
    show_ip: int = 0                    # -i: the caller's address; -ii: and the position (docs/time.md)
    show_time_spent: bool = False
    timestamps: int = 0                 # 1 -t, 2 -tt, 3 -ttt
    relative: bool = False
    summary: bool = False
    fd_paths: bool = False
    follow: bool = False
    separate: bool = False              # -ff with -o FILE: FILE.PID per thread, as strace
    format: str = "text"
    ftrace: bool = False
    ftrace_libs: bool = False
    ftrace_depth: int = 0               # 0: no limit
    ftrace_args: Optional[List[str]] = None   # --ftrace -a: [] every function; -A FUNC[@SPEC] patterns
    chrome: Optional[str] = None
    folded: Optional[str] = None
    enabled: bool = True
    guest_log: bool = True              # library calls logged by guest code (--hook-returns: off)
    # power tools (emutrace.inject, sysgate, backtrace, coverage)
    inject: List[tuple] = field(default_factory=list)        # (-e inject=/fault= text, is fault=)
    inject_calls: List[str] = field(default_factory=list)    # --inject-call NAME:retval=V[:when=]
    trace_paths: List[str] = field(default_factory=list)     # -P PATH
    status: Optional[set] = None        # -z, -Z, -e status=: the statuses shown
    stack_trace: int = 0                # -k 1, -kk 2 (with file:line)
    call_stack: int = 0                 # ltrace -w N: frames after each library call
    coverage: Optional[str] = None      # --coverage FILE
    coverage_format: str = "drcov"      # drcov | lcov | text
    # -- strace's options (issue 39: the rows of group G in OPTIONS) --
    align: int = 0                      # -a N, --columns=N: the column of ' = ' (0: the mode's default)
    xlat_style: str = "abbrev"          # -X, --const-print-style: abbrev | raw | verbose
    verbose: bool = False               # -v, --no-abbrev, -e verbose=all, -e abbrev=none
    raw: Optional[set] = None           # -e raw=SET: calls whose arguments print as hex numbers
    signals: Optional[set] = None       # -e signal=SET, --signal=SET: the signals shown (None: all)
    quiet: set = field(default_factory=set)    # -q/-qq/-qqq, --quiet=: attach, exit, personality...
    hex_strings: int = 0                # -x 1 (non-ASCII), -xx 2 (all), --strings-in-hex=
    decode_fds: set = field(default_factory=set)    # -y path, -yy all, --decode-fds=SET
    read_fds: Optional[set] = None      # -e read=FDS: hex dumps of what is read from them
    write_fds: Optional[set] = None     # -e write=FDS: hex dumps of what is written to them
    trace_fds: Optional[set] = None     # -e trace-fds=FDS: only calls on these fds
    syscall_numbers: bool = False       # -n, --syscall-number: '[ nr] ' before each call
    arg_names: bool = False             # -N, --arg-names
    always_show_pid: bool = False       # --always-show-pid
    decode_pids: set = field(default_factory=set)   # -Y comm, --decode-pids=comm|pidns


@record
class Config:
    argv: List[str]
    program: str
    world: World
    options: Options
    trace: TraceConfig
    report: Optional[str] = None        # --report FILE
    dump_dropped: Optional[str] = None  # --dump-dropped DIR
    yara: Optional[str] = None          # --yara RULES
    gdb: Optional[str] = None           # --gdb[=ADDR:PORT|-]: serve gdb ("" a free loopback port)
    quiet: bool = False                 # -q


def parse_size(text: str) -> int:
    t = text.strip().upper()
    mult = 1
    for suffix, m in (("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30), ("T", 1 << 40)):
        if t.endswith(suffix) or t.endswith(suffix + "B") or t.endswith(suffix + "IB"):
            t = t[:t.index(suffix)]
            mult = m
            break
    try:
        v = int(float(t) * mult)
    except ValueError:
        raise UsageError(f"bad size: {text!r}") from None
    if v <= 0:
        raise UsageError(f"bad size: {text!r}")
    return v


def _int(text: str, what: str, lo: int = 0) -> int:
    try:
        v = int(text, 0)
    except ValueError:
        raise UsageError(f"{what} takes a number, not {text!r}") from None
    if v < lo:
        raise UsageError(f"{what} must be at least {lo}")
    return v


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
    levels = {None: 2, "all": 2, "non-ascii": 1, "non-ascii-chars": 1, "none": 0}
    if text not in levels:
        raise UsageError(f"invalid --strings-in-hex '{text}' (none, non-ascii or all)")
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
    tc.decode_pids = _qual_set(text, "decode-pids", _word_item(("comm", "pidns"), None, "decode-pids"),
                               ("comm", "pidns"))


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
# read OPTIONS. See the module's docstring for how to add a row.

@record
class Opt:
    flags: tuple                    # ("-o", "--output"): short and long spellings
    metavar: Optional[str]          # the value's name (None: a flag without a value)
    help: str
    group: str
    apply: Callable                 # apply(state, value) (value None for a flag)
    choices: Optional[tuple] = None # the values it takes, where they are a fixed list
    repeat: bool = False            # may be given more than once (-t, -e, --env...)
    optional: bool = False          # the value may be left out (--gdb, --gdb=ADDR:PORT, --gdb -)
    mode: str = ""                  # "ftrace"/"strace": this meaning only after --ftrace/--strace
                                    # (uftrace's -a, strace's -x); a row without one serves otherwise

    @property
    def key(self) -> str:
        """The row's name in the option audit: its first spelling, and its mode if it has one."""
        return self.flags[0] + (f"@{self.mode}" if self.mode else "")


class _State:
    """What the options build while they are parsed."""

    def __init__(self):
        self.world = World()
        self.opts = Options()
        self.opts.host_fds = None           # (the CLI passes what it inherited, unless --no-host-fds)
        self.tc = TraceConfig()
        self.report = {"report": None, "dump_dropped": None, "yara": None, "gdb": None}
        self.env_add: List[str] = []
        self.inherit = False
        self.quiet = False


def _set(target: str, attr: str, value):
    return lambda st, v: setattr(getattr(st, target), attr, value)


def _store(target: str, attr: str, conv=lambda v: v):
    return lambda st, v: setattr(getattr(st, target), attr, conv(v))


def _append(target: str, attr: str):
    return lambda st, v: getattr(getattr(st, target), attr).append(v)


def _choice(target: str, attr: str, name: str, choices: tuple):
    def apply(st, v):
        if v not in choices:
            raise UsageError(f"{name} is {', '.join(choices[:-1])} or {choices[-1]}")
        setattr(getattr(st, target), attr, v)
    return apply


def _e(st, v: str) -> None:
    """-e: an ltrace filter, strace's trace= (sorted out later) or one of strace's qualifiers."""
    qual, eq, rest = v.partition("=")
    if eq and qual in STRACE_QUALIFIERS:
        STRACE_QUALIFIERS[qual](st.tc, rest)
    else:
        st.tc.filters.append(v)


def _follow(st, v) -> None:
    st.tc.separate = st.tc.follow          # (-ff: the second one)
    st.tc.follow = True


def _root(st, v: str) -> None:
    if not os.path.isdir(v):
        from emutrace.kernel.tarfs import is_tar_archive     # deferred: tarfile, gzip, lzma and bz2 load only for a tar root
        if not is_tar_archive(v):
            raise UsageError(f"--root {v}: not a directory or a tar archive")
    st.opts.root = v


def _rw(st, spec: str) -> None:
    host, _, guest = spec.partition(":")
    if not os.path.isdir(host):
        raise UsageError(f"--rw {host}: not a directory")
    st.opts.rw += ((host, guest or os.path.abspath(host)),)


def _env(st, kv: str) -> None:
    if "=" not in kv or kv.startswith("="):
        raise UsageError("--env takes NAME=VALUE")
    st.env_add.append(kv)


def _timeout(st, v: str) -> None:
    try:
        t = float(v)
    except ValueError:
        raise UsageError("--timeout takes seconds") from None
    if not t > 0 or t == float("inf"):
        raise UsageError("--timeout takes a number of seconds above 0")
    st.opts.timeout = t


def _limit(st, v: str) -> None:
    try:
        st.opts.limits = st.opts.limits + (parse_limit(v),)
    except LimitError as e:
        raise UsageError(str(e)) from None


def _ftrace_libs(st, v) -> None:
    st.tc.ftrace = st.tc.ftrace_libs = True


def _args(st, v) -> None:
    st.tc.ftrace_args = st.tc.ftrace_args or []


def _arg_spec(st, v: str) -> None:
    st.tc.ftrace_args = (st.tc.ftrace_args or []) + [v]


def _strace(st, v) -> None:
    st.tc.strace, st.tc.libcalls = True, False


def _help(st, v):
    raise InfoRequested(help_text())


def _version(st, v):
    from emutrace.machine.native import PATH as event_path     # deferred: only --version asks which event path runs (it loads the compiled module)
    raise InfoRequested(f"emutrace {__version__}\nevent path: {event_path}")


T, G, D, R, S, I = ("Tracing", "strace's options (for --strace)", "Debugging", "Behaviour report",
                    "Sandbox and determinism", "Information")
OPTIONS: List[Opt] = [
    # -- tracing
    Opt(("-o", "--output"), "FILE", "write the trace to FILE (default: stderr)", T, _store("tc", "output")),
    Opt(("-S",), None, "also show system calls, interleaved with library calls (ltrace -S)", T,
        _set("tc", "syscalls", True)),
    Opt(("--strace",), None, "system calls only, in strace's format", T, _strace),
    Opt(("-L",), None, "no library calls", T, _set("tc", "libcalls", False)),
    Opt(("-e",), "EXPR", "ltrace filter (malloc+free, -strlen, *@libc.so*, /regex/) or, with --strace, "
        "strace's -e trace=SET (names, numbers, %class, /regex, ?NAME, all; !SET); also strace's "
        "-e inject=SET:error=E|retval=N|signal=S|delay_enter=T|delay_exit=T[:when=EXPR], "
        "-e fault=SET[:error=E][:when=EXPR] and -e status=SET", T, _e, repeat=True),
    Opt(("-x",), "FILTER", "also trace program-internal functions matching FILTER", T,
        _append("tc", "internal"), repeat=True),
    Opt(("-l",), "LIB", "only calls into libraries matching LIB", T, _append("tc", "libs"), repeat=True),
    Opt(("-F",), "FILE", "extra prototypes in ltrace.conf syntax", T, _append("tc", "proto_files"), repeat=True),
    Opt(("-s", "--string-limit"), "N", "string length limit (default 32)", T, _store("tc", "string_limit", lambda v: _int(v, "-s"))),
    Opt(("-n",), "N", "indent nested calls by N spaces", T, _store("tc", "indent", lambda v: _int(v, "-n"))),
    Opt(("-C",), None, "demangle C++ names", T, _set("tc", "demangle", True)),
    Opt(("-i", "--instruction-pointer"), None, "show the instruction pointer of each call (-ii: and its position, the count of "
        "retired instructions: docs/time.md)", T,
        lambda st, v: setattr(st.tc, "show_ip", min(st.tc.show_ip + 1, 2)), repeat=True),
    Opt(("-T", "--syscall-times"), None, "show the (virtual) time spent in each call", T, _set("tc", "show_time_spent", True)),
    Opt(("-t",), None, "timestamps on the virtual clock (-tt: with microseconds, -ttt: since the epoch)", T,
        lambda st, v: setattr(st.tc, "timestamps", min(st.tc.timestamps + 1, 3)), repeat=True),
    Opt(("-r",), None, "relative timestamps on the virtual clock", T, _set("tc", "relative", True)),
    Opt(("-c", "--summary-only"), None, "summary table instead of a trace", T, _set("tc", "summary", True)),
    Opt(("-y",), None, "show paths beside file descriptors (--strace; -yy: every kind of descriptor)", T,
        _strace_y, repeat=True),
    Opt(("-f", "--follow-forks"), None, "follow forks and threads (-ff with -o FILE: FILE.PID per process, as strace)", T,
        _follow, repeat=True),
    Opt(("-k", "--stack-traces"), None, "a backtrace after each system call (-kk: with source file:line)", T,
        lambda st, v: setattr(st.tc, "stack_trace", min(st.tc.stack_trace + 1, 2)), repeat=True),
    Opt(("-w",), "N", "a backtrace of N frames after each library call (ltrace -w)", T,
        _store("tc", "call_stack", lambda v: _int(v, "-w", 1))),
    Opt(("-P", "--trace-path"), "PATH", "only system calls naming PATH or an fd open on it", T,
        _append("tc", "trace_paths"), repeat=True),
    Opt(("-z", "--successful-only"), None, "only successful system calls", T, _set("tc", "status", {"successful"})),
    Opt(("-Z", "--failed-only"), None, "only failed system calls", T, _set("tc", "status", {"failed"})),
    Opt(("--status",), "SET", "only system calls with these statuses (strace's -e status=)", T,
        lambda st, v: _status(st.tc, v)),
    Opt(("--inject",), "SPEC", "strace's fault injection (-e inject=)", T, lambda st, v: _inject(False)(st.tc, v),
        repeat=True),
    Opt(("--fault",), "SPEC", "strace's -e fault=", T, lambda st, v: _inject(True)(st.tc, v), repeat=True),
    Opt(("--inject-call",), "NAME:retval=V[:when=EXPR]", "make library function NAME return V without "
        "running it (when= as strace's inject)", T, lambda st, v: _inject_call(st.tc, v), repeat=True),
    Opt(("--coverage",), "FILE", "write the basic blocks executed", T, _store("tc", "coverage")),
    Opt(("--coverage-format",), "FMT", "the --coverage file's format", T,
        lambda st, v: _coverage_format(st.tc, v), choices=("drcov", "lcov", "text")),
    Opt(("--format",), "FMT", "the trace's format (default text)", T,
        _choice("tc", "format", "--format", ("text", "jsonl")), choices=("text", "jsonl")),
    Opt(("--ftrace",), None, "trace every function of the program", T, _set("tc", "ftrace", True)),
    Opt(("--ftrace-libs",), None, "--ftrace, and the libraries' functions too", T, _ftrace_libs),
    Opt(("--ftrace-depth",), "N", "report calls nested at most N deep (functions and library calls)", T,
        _store("tc", "ftrace_depth", lambda v: _int(v, "--ftrace-depth", 1))),
    Opt(("--args",), None, "with --ftrace: arguments and return values from DWARF, as uftrace -a "
        "(docs/dwarf.md)", T, _args),
    Opt(("-a",), None, "the same as --args (uftrace's -a)", T, _args, mode="ftrace"),
    Opt(("-A",), "FUNC[@SPEC]", "arguments of matching functions only; SPEC: arg1,name,retval (uftrace's -A)",
        T, _arg_spec, repeat=True, mode="ftrace"),
    Opt(("--chrome",), "FILE", "write a Chrome trace-event JSON timeline", T, _store("tc", "chrome")),
    Opt(("--folded",), "FILE", "write folded stacks for flame graphs", T, _store("tc", "folded")),
    Opt(("--no-trace",), None, "run without tracing", T, _set("tc", "enabled", False)),
    Opt(("--hook-returns",), None, "catch every return with a Python hook instead of logging library "
        "calls in guest code (slower; leaves every return address on the stack untouched)", T,
        _set("tc", "guest_log", False)),
    # -- strace's own (issue 39, docs/strace-suite.md)
    Opt(("-a", "--columns"), "N", "the column of ' = ' (strace's and ltrace's -a)", G, _tc(_columns)),
    Opt(("-X", "--const-print-style"), "STYLE", "constants as names (abbrev), numbers (raw) or both (verbose)", G,
        _tc(_xlat_style), choices=("raw", "abbrev", "verbose")),
    Opt(("-x",), None, "strings' non-ASCII bytes in hex (-xx: every byte)", G,
        lambda st, v: setattr(st.tc, "hex_strings", min(st.tc.hex_strings + 1, 2)), repeat=True, mode="strace"),
    Opt(("--strings-in-hex",), "[=none|non-ascii|all]", "strings in hex (-x, -xx)", G, _tc(_hex_strings),
        optional=True),
    Opt(("-n", "--syscall-number"), None, "each call's number before it: [ 1] write(...)", G,
        _set("tc", "syscall_numbers", True), mode="strace"),
    Opt(("-N", "--arg-names"), None, "arguments' names (accepted; not shown yet)", G,
        _set("tc", "arg_names", True), mode="strace"),
    Opt(("-q", "--quiet", "--silent", "--silence"), "[=SET]", "no notes (attach, personality; -qq: exit too)", G,
        _strace_q, optional=True, repeat=True, mode="strace"),
    Opt(("-v", "--no-abbrev"), None, "structures in full (accepted; most decoders print them in full)", G,
        _set("tc", "verbose", True), mode="strace"),
    Opt(("-V",), None, "strace's version line, then emutrace's", G, _strace_version, mode="strace"),
    Opt(("-Y", "--decode-pids"), "[=comm|pidns]", "process ids with their command names (accepted)", G,
        lambda st, v: _decode_pids(st.tc, v or "comm"), optional=True, mode="strace"),
    Opt(("--trace",), "SET", "strace's -e trace=SET", G, _tc(_trace), repeat=True),
    Opt(("--signal", "--signals"), "SET", "only these signals shown (-e signal=SET)", G, _tc(_signals)),
    Opt(("--read",), "FDS", "hex dumps of what is read from these descriptors (-e read=)", G, _tc(_fds("read_fds"))),
    Opt(("--write",), "FDS", "hex dumps of what is written to these descriptors (-e write=)", G,
        _tc(_fds("write_fds"))),
    Opt(("--trace-fds",), "FDS", "only calls on these descriptors (-e trace-fds=)", G, _tc(_fds("trace_fds"))),
    Opt(("--decode-fds",), "[=SET]", "what descriptors are shown with: path, socket, dev, pidfd, signalfd, "
        "eventfd (-y, -yy)", G, _tc(_decode_fds), optional=True),
    Opt(("--verbose",), "SET", "calls whose structures print in full (-e verbose=)", G, _tc(_verbose)),
    Opt(("--abbrev",), "SET", "calls whose structures are abbreviated (-e abbrev=)", G, _tc(_abbrev)),
    Opt(("--raw",), "SET", "calls whose arguments print as numbers (-e raw=)", G, _tc(_raw)),
    Opt(("--namespace",), "[=new|all|none]", "pid namespaces (accepted: the sandbox has one)", G,
        _tc(_namespace), optional=True),
    Opt(("--always-show-pid",), None, "[pid N] on every line, one process or many", G,
        _set("tc", "always_show_pid", True)),
    Opt(("--no-abbrev-signals", "--secontext", "--kvm"), "[=...]", "accepted, with nothing to show in the "
        "sandbox (no SELinux contexts, no KVM)", G, _no_effect, optional=True),
    # -- debugging
    Opt(("--gdb",), "[=ADDR:PORT|-]", "serve the GDB remote protocol, reverse execution too (docs/gdb.md): "
        "127.0.0.1 on a free port by default; `--gdb -` on stdin/stdout (gdb: target remote | emutrace "
        "--gdb - PROG); the program starts stopped at its first instruction", D,
        lambda st, v: st.report.__setitem__("gdb", v or ""), optional=True),
    # -- the behaviour report
    Opt(("--report",), "FILE", "write a JSON behaviour report (processes, files, dropped files, network, "
        "findings, strings) at the end of the run, also when a limit ends it", R,
        lambda st, v: st.report.__setitem__("report", v)),
    Opt(("--dump-dropped",), "DIR", "write every file the program created or changed to DIR/<sha256>, and "
        "every region of code it wrote and then ran to DIR/code/<sha256>", R,
        lambda st, v: st.report.__setitem__("dump_dropped", v)),
    Opt(("--yara",), "RULES", "run YARA rules (a file, or a folder of .yar/.yara files) over the sample, its "
        "dropped files, its unpacked code and its memory at exit; matches go into the report (needs "
        "--report and pip install 'emutrace[yara]')", R, lambda st, v: st.report.__setitem__("yara", v)),
    # -- sandbox and determinism
    Opt(("--root",), "DIR|TAR", "the guest's file system (default /), read-only; writes go to a throw-away "
        "overlay; a .tar/.tar.gz archive (docker export, rootfs tarball, `emutrace sysroot`) is read in place", S,
        _root),
    Opt(("--rw",), "HOST[:GUEST]", "grant real writes to a host directory", S, _rw, repeat=True),
    Opt(("--cwd",), "DIR", "the guest's working directory (default: the host's, when inside the root)", S,
        _store("opts", "cwd")),
    Opt(("--env",), "K=V", "add to the fixed default environment", S, _env, repeat=True),
    Opt(("--inherit-env",), None, "start from the host's environment instead of the fixed one "
        "(the trace then depends on it)", S, lambda st, v: setattr(st, "inherit", True)),
    Opt(("--seed",), "N", "seed for AT_RANDOM, getrandom, /dev/urandom (default 0)", S,
        _store("world", "seed", lambda v: _int(v, "--seed", -(1 << 63)))),
    Opt(("--clock",), "T", "start of the virtual clock, in seconds since the epoch", S,
        _store("world", "clock_start", lambda v: _int(v, "--clock"))),
    Opt(("--uid",), "N", "the guest's user id (default 0: root of the sandbox)", S,
        _store("world", "uid", lambda v: _int(v, "--uid"))),
    Opt(("--gid",), "N", "the guest's group id (default 0)", S, _store("world", "gid", lambda v: _int(v, "--gid"))),
    Opt(("--net",), None, "let Internet sockets reach non-loopback hosts (default: ENETUNREACH; the "
        "guest's 127.0.0.0/8 and ::1 are its own either way)", S, _set("opts", "net", True)),
    Opt(("--no-host-fds",), None, "do not pass the descriptors (>= 3) emutrace inherited to the guest "
        "(default: the shell's 3<file, 9>>/dev/full reach it at the same numbers; /dev/null and the "
        "memory devices become the guest's own)", S, lambda st, v: setattr(st.opts, "host_fds", ())),
    Opt(("--no-vdso",), None, "map no vDSO: clock_gettime, gettimeofday, time and getcpu become system "
        "calls (default: emutrace's own vDSO answers them, docs/time.md)", S, _set("opts", "vdso", False)),
    Opt(("--timeout",), "S", "stop after S seconds of wall time (exit status 124)", S, _timeout),
    Opt(("--max-insns",), "N", "stop after about N guest instructions (exit status 124)", S,
        _store("opts", "max_insns", lambda v: _int(v, "--max-insns", 1))),
    Opt(("--max-mem",), "BYTES", "guest memory limit of the whole run, all processes together "
        "(default 4G; suffixes K M G)", S, _store("opts", "max_mem", lambda v: parse_size(v))),
    Opt(("--max-procs",), "N", "process limit (default: --max-mem / 8 MiB of host memory per process, "
        "at least 64; 512 with the default --max-mem)", S,
        _store("opts", "max_procs", lambda v: _int(v, "--max-procs", 1))),
    Opt(("--max-disk",), "BYTES", "what the overlay may hold, data and metadata (default 1G); past it ENOSPC", S,
        _store("opts", "max_disk", lambda v: parse_size(v))),
    Opt(("--limit",), "NAME=N", "another bound on what the guest makes the host hold: inodes, files, buffers, "
        "pipe_size, epoll_watches, unix_backlog, threads, timers, kobjects", S, _limit, repeat=True),
    Opt(("--loader",), "MODE", "auto (default), interp (run the program's ld.so) or builtin (emutrace links)", S,
        _choice("opts", "loader", "--loader", ("auto", "interp", "builtin")), choices=("auto", "interp", "builtin")),
    # -- information
    Opt(("-q", "--quiet"), None, "no notes from emutrace at the end of a run (files the sandbox dropped) "
        "and no status line on a terminal", I, lambda st, v: setattr(st, "quiet", True)),
    Opt(("-h", "--help"), None, "this help", I, _help),
    Opt(("--version",), None, "emutrace's version and its event path", I, _version),
]
# the rows by spelling: BY_FLAG the plain meaning, BY_MODE the meaning after --ftrace/--strace
BY_FLAG: Dict[str, Opt] = {f: o for o in OPTIONS if not o.mode for f in o.flags}
BY_MODE: Dict[tuple, Opt] = {(o.mode, f): o for o in OPTIONS if o.mode for f in o.flags}
MODES = (("ftrace", lambda tc: tc.ftrace), ("strace", lambda tc: tc.strace))
UNSUPPORTED_SHORT = "uEIDp"             # ltrace/strace letters emutrace does not have


def find(st, flag: str) -> Optional[Opt]:
    """The row a spelling names given the options so far: a mode's own meaning where that mode
    is on (-a after --ftrace), else the plain one."""
    for mode, on in MODES:
        if on(st.tc) and (mode, flag) in BY_MODE:
            return BY_MODE[(mode, flag)]
    o = BY_FLAG.get(flag)
    if o is None:
        needs = [m for m, _ in MODES if (m, flag) in BY_MODE]
        if needs:
            raise UsageError(f"option {flag} needs --{needs[0]} before it (see emutrace --help)")
    return o

USAGE = """usage: emutrace [options] PROGRAM [ARGS...]
       emutrace diff A.jsonl B.jsonl
       emutrace sysroot PROGRAM OUT.tar
       emutrace report REPORT.json
       emutrace batch [--jobs N] --out DIR MANIFEST|FOLDER [-- OPTIONS...]"""
DESCRIPTION = """Runs an x86-64 Linux program inside the Unicorn emulator (no ptrace, nothing runs on the host CPU)
and traces its library calls (default), system calls (-S, --strace) or functions (--ftrace)."""
EPILOG = """The guest's environment is fixed (PATH, HOME=/root, LANG=C, TERM=dumb), so runs are the same
anywhere: --env K=V adds to it (--env LANG=C.UTF-8 for a UTF-8 locale) and --inherit-env passes
your own environment instead. Each subcommand has --help.

Exit status: the program's; 124 a limit was reached, 125 usage or internal error,
126 the program cannot be run, 127 it was not found, 128+N interrupted by signal N (130: SIGINT)."""
SHORT_USAGE = """emutrace: no program given
usage: emutrace [options] PROGRAM [ARGS...]   (emutrace --help: every option)

  emutrace ls -l                  trace a program's library calls, as ltrace
  emutrace --strace -f sh -c 'ls | wc -l'   its system calls, as strace"""


def _label(o: Opt) -> str:
    return ", ".join(o.flags) + ((o.metavar if o.optional else f" {o.metavar}") if o.metavar else "")


def help_text(width: int = 100) -> str:
    """--help, from OPTIONS: the usage, then each group's options with their help wrapped."""
    import textwrap     # deferred: only --help wraps text
    out = [USAGE, "", DESCRIPTION]
    for group in (T, G, D, R, S, I):
        out += ["", f"{group}:"]
        for o in (o for o in OPTIONS if o.group == group):
            label = "  " + _label(o)
            text = (f"(after --{o.mode}) " if o.mode else "") + o.help + (f" ({', '.join(o.choices)})" if o.choices else "")
            lines = textwrap.wrap(text, width - 21)
            if len(label) > 19:
                out.append(label)
                out += [" " * 21 + line for line in lines]
            else:
                out.append(label.ljust(21) + lines[0])
                out += [" " * 21 + line for line in lines[1:]]
    out += ["", EPILOG]
    return "\n".join(out)


def argparse_parser():
    """An argparse parser with the same options (for the man page and the shell completions,
    made by argparse-manpage and shtab: tools/manpage.py). emutrace parses its own command line
    (parse()), as ltrace and strace do: options end at the program, short flags cluster."""
    import argparse     # deferred: only the man page and the completions need argparse
    p = argparse.ArgumentParser(prog="emutrace", usage="emutrace [options] PROGRAM [ARGS...]",
                                description=DESCRIPTION + "\n\n" + USAGE,
                                epilog=EPILOG, add_help=False, formatter_class=argparse.RawDescriptionHelpFormatter)
    groups = {g: p.add_argument_group(g) for g in (T, G, D, R, S, I)}
    seen = set()
    for o in OPTIONS:
        flags = [f for f in o.flags if f not in seen]      # (a spelling with two meanings: listed once,
        if not flags:                                       # its help names both)
            continue
        seen.update(flags)
        others = [m for m in OPTIONS if m is not o and set(m.flags) & set(flags)]
        text = "; ".join((f"after --{m.mode}: " if m.mode else "") + m.help for m in [o] + others)
        kw = {"help": text.replace("%", "%%"), "dest": "opt_" + flags[-1].lstrip("-").replace("-", "_") + o.mode}
        if o.optional:
            kw.update(metavar=o.metavar.strip("[]=").split("|")[0], nargs="?", const="")
        elif o.metavar:
            kw.update(metavar=o.metavar, action="append" if o.repeat else "store")
            if o.choices:
                kw["choices"] = o.choices
        else:
            kw["action"] = "count" if o.repeat else "store_true"
        groups[o.group].add_argument(*flags, **kw)
    p.add_argument("program", metavar="PROGRAM", help="the program to run, looked up on the guest's PATH")
    p.add_argument("args", metavar="ARGS", nargs="*", help="its arguments")
    return p


def parse(argv: List[str]) -> Config:
    if not argv:
        raise InfoRequested(SHORT_USAGE, status=125)     # (a usage error, with help)
    st = _State()
    i = 0

    def next_value(name: str) -> str:
        nonlocal i
        if i + 1 >= len(argv):
            raise UsageError(f"option {name} needs a value")
        i += 1
        return argv[i]

    while i < len(argv):
        a = argv[i]
        if a == "--":
            i += 1
            break
        if not a.startswith("-") or a == "-":
            break
        if a.startswith("--"):
            name, eq, attached = a.partition("=")
            o = find(st, name)
            if o is None:
                raise UsageError(f"unknown option {name} (see emutrace --help)")
            if o.metavar is None and eq:
                raise UsageError(f"option {name} takes no value")
            if o.optional:                      # a value only with `=`, or `-` standing alone
                if not eq and i + 1 < len(argv) and argv[i + 1] == "-":
                    eq, attached = "=", next_value(name)
                o.apply(st, attached if eq else None)
            else:
                o.apply(st, (attached if eq else next_value(name)) if o.metavar else None)
            i += 1
            continue
        # short options, possibly clustered (-tt, -fS) or with an attached value (-s64, -oFILE)
        j = 1
        while j < len(a):
            c = a[j]
            o = find(st, "-" + c)
            if o is None:
                if c in UNSUPPORTED_SHORT:
                    raise UsageError(f"option -{c} is not supported")
                raise UsageError(f"unknown option -{c} (see emutrace --help)")
            if o.metavar and not o.optional:
                o.apply(st, a[j + 1:] if j + 1 < len(a) else next_value("-" + c))
                break
            o.apply(st, None)
            j += 1
        i += 1
    return _finish(st, argv[i:])


def _finish(st: _State, rest: List[str]) -> Config:
    world, opts, tc = st.world, st.opts, st.tc
    if not rest:
        raise UsageError("no program given (usage: emutrace [options] PROGRAM [ARGS...]; see --help)")
    if st.inherit:
        world.env = dict(os.environ)
    for kv in st.env_add:
        k, _, v = kv.partition("=")
        world.env[k] = v
    if opts.cwd is None:
        host_cwd = os.getcwd()
        root = os.path.abspath(opts.root)
        if root == os.sep or root == os.path.abspath(os.sep):
            opts.cwd = host_cwd.replace(os.sep, "/") if os.sep != "/" else host_cwd
        elif host_cwd == root or host_cwd.startswith(root + os.sep):
            opts.cwd = "/" + os.path.relpath(host_cwd, root).replace(os.sep, "/").lstrip("./")
        else:
            opts.cwd = "/"
    if tc.ftrace_args is not None and not tc.ftrace:
        raise UsageError("--args (-a, -A) shows functions' arguments: it needs --ftrace before it")
    if st.report["gdb"] is not None and (st.report["report"] or st.report["dump_dropped"]):
        raise UsageError("--gdb runs the program again to go backwards: --report and --dump-dropped "
                         "are not available with it")
    if st.report["yara"] and not st.report["report"]:
        raise UsageError("--yara puts its matches in the report: give --report FILE too")
    return Config(argv=rest, program=rest[0], world=world, options=opts, trace=tc, quiet=st.quiet, **st.report)
