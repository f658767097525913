"""Command-line options: ltrace's and strace's flags where they have them, plus emutrace's own.

Options end at the first word that is not an option (the program) or at `--`. Subcommands
(`diff`, `sysroot`) are recognized only as a bare first word.
"""
from __future__ import annotations

import os
from typing import List, Optional

from .kernel.world import World
from .machine.record import field, record
from .machine.version import __version__
from emutrace.kernel.limits import LimitError, parse_limit
from .session import Options

HELP = """usage: emutrace [options] PROGRAM [ARGS...]
       emutrace diff A.jsonl B.jsonl
       emutrace sysroot PROGRAM OUT.tar
       emutrace report REPORT.json
       emutrace batch [--jobs N] --out DIR MANIFEST|FOLDER [-- OPTIONS...]

Runs an x86-64 Linux program inside the Unicorn emulator (no ptrace, nothing runs on the host CPU)
and traces its library calls (default), system calls (-S, --strace) or functions (--ftrace).

Tracing:
  -o FILE            write the trace to FILE (default: stderr)
  -S                 also show system calls, interleaved with library calls (ltrace -S)
  --strace           system calls only, in strace's format
  -L                 no library calls
  -e EXPR            ltrace filter (malloc+free, -strlen, *@libc.so*, /regex/) or, with --strace,
                     strace's -e trace=SET (names, numbers, %class, /regex, ?NAME, all; !SET)
  -x FILTER          also trace program-internal functions matching FILTER
  -l LIB             only calls into libraries matching LIB
  -F FILE            extra prototypes in ltrace.conf syntax
  -s N               string length limit (default 32)
  -n N               indent nested calls by N spaces
  -C                 demangle C++ names
  -i                 show the instruction pointer of each call
  -T                 show the (virtual) time spent in each call
  -t, -tt, -ttt, -r  timestamps on the virtual clock
  -c                 summary table instead of a trace
  -y                 show paths beside file descriptors (--strace)
  -f                 follow forks and threads
  -k, -kk            a backtrace after each system call (-kk: with source file:line)
  -w N               a backtrace of N frames after each library call (ltrace -w)
  -P PATH            only system calls naming PATH or an fd open on it (repeatable)
  -z, -Z             only successful / only failed system calls (-e status=SET for more)
  -e inject=SET:error=E|retval=N|signal=S|delay_enter=T|delay_exit=T[:when=EXPR]
                     strace's fault injection (also -e fault=SET[:error=E][:when=EXPR])
  --inject-call NAME:retval=V[:when=EXPR]
                     make library function NAME return V without running (when= as inject)
  --coverage FILE    write the basic blocks executed; --coverage-format drcov (default), lcov, text
  --format FMT       text (default) or jsonl
  --ftrace           trace every function of the program; --ftrace-libs adds the libraries'
  --ftrace-depth N   report calls nested at most N deep (functions and library calls)
  --chrome FILE      write a Chrome trace-event JSON timeline
  --folded FILE      write folded stacks for flame graphs
  --no-trace         run without tracing
  --hook-returns     catch every return with a Python hook instead of logging library calls in
                     guest code (slower; leaves every return address on the stack untouched)

Behaviour report:
  --report FILE      write a JSON behaviour report (processes, files, dropped files, network,
                     findings, strings) at the end of the run, also when a limit ends it
  --dump-dropped DIR write every file the program created or changed to DIR/<sha256>

Sandbox and determinism:
  --root DIR|TAR     the guest's file system (default /), read-only; writes go to a throw-away overlay;
                     a .tar/.tar.gz archive (docker export, rootfs tarball, `emutrace sysroot`) is read in place
  --rw HOST[:GUEST]  grant real writes to a host directory
  --cwd DIR          the guest's working directory (default: the host's, when inside the root)
  --env K=V          add to the fixed default environment; --inherit-env passes the host's
  --seed N           seed for AT_RANDOM, getrandom, /dev/urandom (default 0)
  --clock T          start of the virtual clock, in seconds since the epoch
  --uid N, --gid N   the guest's user and group ids (default 0: root of the sandbox)
  --net              let Internet sockets reach non-loopback hosts (default: ENETUNREACH; the
                     guest's 127.0.0.0/8 and ::1 are its own either way)
  --timeout S        stop after S seconds of wall time (exit status 124)
  --max-insns N      stop after about N guest instructions (exit status 124)
  --max-mem BYTES    guest memory limit of the whole run, all processes together (default 4G;
                     suffixes K M G)
  --max-procs N      process limit (default: --max-mem / 8 MiB of host memory per process,
                     at least 64; 512 with the default --max-mem)
  --max-disk BYTES   what the overlay may hold, data and metadata (default 1G); past it ENOSPC
  --limit NAME=N     another bound on what the guest makes the host hold (repeatable): inodes,
                     files, buffers, pipe_size, epoll_watches, unix_backlog, threads, timers, kobjects
  --loader MODE      auto (default), interp (run the program's ld.so) or builtin (emutrace links)

Exit status: the program's; 124 a limit was reached, 125 usage or internal error,
126 the program cannot be run, 127 it was not found.
"""


class UsageError(Exception):
    pass


class InfoRequested(Exception):
    """--help or --version: print the text on stdout and exit 0."""


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
    show_ip: bool = False
    show_time_spent: bool = False
    timestamps: int = 0                 # 1 -t, 2 -tt, 3 -ttt
    relative: bool = False
    summary: bool = False
    fd_paths: bool = False
    follow: bool = False
    format: str = "text"
    ftrace: bool = False
    ftrace_libs: bool = False
    ftrace_depth: int = 0               # 0: no limit
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
    # -- strace's options (issue 39; parsed in the block "strace's options" below) --
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
        from .inject import InjectError, parse_inject     # deferred: only -e inject= and --inject-call need the parser
        try:
            parse_inject(text, fault)
        except InjectError as e:
            raise UsageError(str(e)) from None
        tc.inject.append((text, fault))
    return add


def _status(tc, text: str) -> None:
    from .sysgate import StatusError, parse_status     # deferred: only -e status= needs the parser
    try:
        tc.status = parse_status(text)
    except StatusError as e:
        raise UsageError(str(e)) from None


def _inject_call(tc, text: str) -> None:
    from .inject import InjectError, parse_inject_call     # deferred: only -e inject= and --inject-call need the parser
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
POWER_LONG = {
    "--inject": lambda tc, val: _inject(False)(tc, val()),
    "--fault": lambda tc, val: _inject(True)(tc, val()),
    "--status": lambda tc, val: _status(tc, val()),
    "--inject-call": lambda tc, val: _inject_call(tc, val()),
    "--trace-path": lambda tc, val: tc.trace_paths.append(val()),
    "--successful-only": lambda tc, val: setattr(tc, "status", {"successful"}),
    "--failed-only": lambda tc, val: setattr(tc, "status", {"failed"}),
    "--stack-traces": lambda tc, val: setattr(tc, "stack_trace", max(tc.stack_trace, 1)),
    "--coverage": lambda tc, val: setattr(tc, "coverage", val()),
    "--coverage-format": lambda tc, val: _coverage_format(tc, val()),
}


# == strace's options (issue 39) ===============================================================
# Every option strace 7.2 has that emutrace --strace takes, in one place: the short flags, the
# -e qualifiers and the long forms. -x, -n and -V are strace's only under --strace (given before
# them); elsewhere -x is ltrace's -x FILTER and -n ltrace's indent. -a N is the column of ' = '
# in every mode (ltrace's -a too).

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

# --NAME[=VALUE]: (takes a value, optional value, setter(tc, text))
STRACE_LONG = {
    "--columns": ("value", _columns),
    "--trace": ("value", _trace),
    "--signal": ("value", _signals), "--signals": ("value", _signals),
    "--read": ("value", _fds("read_fds")), "--write": ("value", _fds("write_fds")),
    "--trace-fds": ("value", _fds("trace_fds")),
    "--decode-fds": ("optional", _decode_fds),
    "--quiet": ("optional", _quiet), "--silent": ("optional", _quiet), "--silence": ("optional", _quiet),
    "--const-print-style": ("value", _xlat_style),
    "--strings-in-hex": ("optional", _hex_strings),
    "--no-abbrev": ("flag", lambda tc, _: setattr(tc, "verbose", True)),
    "--verbose": ("value", _verbose), "--abbrev": ("value", _abbrev), "--raw": ("value", _raw),
    "--decode-pids": ("value", _decode_pids),
    "--namespace": ("optional", _namespace),
    "--arg-names": ("flag", lambda tc, _: setattr(tc, "arg_names", True)),
    "--always-show-pid": ("flag", lambda tc, _: setattr(tc, "always_show_pid", True)),
    "--syscall-number": ("flag", lambda tc, _: setattr(tc, "syscall_numbers", True)),
    "--follow-forks": ("flag", lambda tc, _: setattr(tc, "follow", True)),
    "--no-abbrev-signals": ("flag", lambda tc, _: None),
    "--secontext": ("optional", lambda tc, _: None),
    "--kvm": ("value", lambda tc, _: None),
    "--string-limit": ("value", lambda tc, text: setattr(tc, "string_limit", _int(text, "-s"))),
    "--syscall-times": ("optional", lambda tc, _: setattr(tc, "show_time_spent", True)),
    "--summary-only": ("flag", lambda tc, _: setattr(tc, "summary", True)),
    "--instruction-pointer": ("flag", lambda tc, _: setattr(tc, "show_ip", True)),
}
# (emutrace's own, beside them: the shell's extra descriptors are passed unless this is given)
NO_HOST_FDS = "--no-host-fds"


def strace_long(tc, name: str, attached: Optional[str], val) -> bool:
    """A strace long option; False when name is not one."""
    got = STRACE_LONG.get(name)
    if got is None:
        return False
    kind, setter = got
    if kind == "flag":
        if attached is not None:
            raise UsageError(f"option {name} takes no value")
        setter(tc, None)
    elif kind == "optional":
        setter(tc, attached)
    else:
        setter(tc, attached if attached is not None else val())
    return True


# short flags: strace's everywhere (a: a value), and those strace has only under --strace
STRACE_SHORT_ANY = "aX"
STRACE_SHORT_ONLY = "xnNqvVY"


def strace_short(tc, c: str, sval) -> bool:
    """One strace short option; True when it took a value (the rest of the cluster)."""
    if c == "a":
        _columns(tc, sval())
        return True
    if c == "X":
        _xlat_style(tc, sval())
        return True
    if c == "x":
        tc.hex_strings = min(tc.hex_strings + 1, 2)
    elif c == "n":
        tc.syscall_numbers = True
    elif c == "N":
        tc.arg_names = True
    elif c == "q":
        tc.quiet = set(_QUIET_KINDS) if len(tc.quiet) >= 3 else \
            ({"attach", "personality", "exit"} if tc.quiet else {"attach", "personality"})
    elif c == "v":
        tc.verbose = True
    elif c == "Y":
        tc.decode_pids = set(tc.decode_pids) | {"comm"}
    elif c == "V":
        from .machine.version import __version__ as v     # (strace -V's first line, then emutrace's)
        raise InfoRequested(f"strace -- version 7.2 (emutrace {v})")
    return False
# == end of strace's options ===================================================================


# options that take a value: name → (setter)
def parse(argv: List[str]) -> Config:
    world = World()
    opts = Options()
    opts.host_fds = None                # (the CLI passes what it inherited, unless --no-host-fds)
    tc = TraceConfig()
    report = {"report": None, "dump_dropped": None}
    env_add: List[str] = []
    inherit = False
    i = 0

    def value(name: str) -> str:
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
        name, eq, attached = a.partition("=") if a.startswith("--") else (a, "", "")
        if a.startswith("--"):
            val = (lambda n=name: attached) if eq else (lambda n=name: value(n))
            if name in ("--help",):
                raise InfoRequested(HELP.rstrip())
            elif name == "--version":
                from .machine.native import PATH as event_path     # deferred: only --version asks which event path runs (it loads the compiled module)
                raise InfoRequested(f"emutrace {__version__}\nevent path: {event_path}")
            elif name == "--strace":
                tc.strace, tc.libcalls = True, False
            elif name == "--ftrace":
                tc.ftrace = True
            elif name == "--ftrace-libs":
                tc.ftrace = tc.ftrace_libs = True
            elif name == "--ftrace-depth":
                tc.ftrace_depth = _int(val(), "--ftrace-depth", 1)
            elif name == "--format":
                tc.format = val()
                if tc.format not in ("text", "jsonl"):
                    raise UsageError("--format is text or jsonl")
            elif name == "--chrome":
                tc.chrome = val()
            elif name == "--folded":
                tc.folded = val()
            elif name == "--no-trace":
                tc.enabled = False
            elif name == "--hook-returns":
                tc.guest_log = False
            elif name == "--root":
                opts.root = val()
                if not os.path.isdir(opts.root):
                    from emutrace.kernel.tarfs import is_tar_archive     # deferred: tarfile, gzip, lzma and bz2 load only for a tar root
                    if not is_tar_archive(opts.root):
                        raise UsageError(f"--root {opts.root}: not a directory or a tar archive")
            elif name == "--rw":
                spec = val()
                host, _, guest = spec.partition(":")
                if not os.path.isdir(host):
                    raise UsageError(f"--rw {host}: not a directory")
                opts.rw += ((host, guest or os.path.abspath(host)),)
            elif name == "--cwd":
                opts.cwd = val()
            elif name == "--env":
                kv = val()
                if "=" not in kv:
                    raise UsageError("--env takes NAME=VALUE")
                env_add.append(kv)
            elif name == "--inherit-env":
                inherit = True
            elif name == "--seed":
                world.seed = _int(val(), "--seed", -(1 << 63))
            elif name == "--clock":
                world.clock_start = _int(val(), "--clock")
            elif name == "--uid":
                world.uid = _int(val(), "--uid")
            elif name == "--gid":
                world.gid = _int(val(), "--gid")
            elif name == "--net":
                opts.net = True
            elif name == "--timeout":
                try:
                    opts.timeout = float(val())
                except ValueError:
                    raise UsageError("--timeout takes seconds") from None
            elif name == "--max-insns":
                opts.max_insns = _int(val(), "--max-insns", 1)
            elif name == "--max-mem":
                opts.max_mem = parse_size(val())
            elif name == "--max-procs":
                opts.max_procs = _int(val(), "--max-procs", 1)
            elif name == "--max-disk":
                opts.max_disk = parse_size(val())
            elif name == "--limit":
                try:
                    opts.limits = opts.limits + (parse_limit(val()),)
                except LimitError as e:
                    raise UsageError(str(e)) from None
            elif name == "--loader":
                opts.loader = val()
                if opts.loader not in ("auto", "interp", "builtin"):
                    raise UsageError("--loader is auto, interp or builtin")
            elif name == "--output":
                tc.output = val()
            elif name in POWER_LONG:
                POWER_LONG[name](tc, val)
            elif strace_long(tc, name, attached if eq else None, val):      # strace's options
                pass
            elif name == NO_HOST_FDS:
                opts.host_fds = ()
            elif name == "--report":
                report["report"] = val()
            elif name == "--dump-dropped":
                report["dump_dropped"] = val()
            else:
                raise UsageError(f"unknown option {name} (see emutrace --help)")
            i += 1
            continue
        # short options, possibly clustered (-tt, -fS) or with an attached value (-s64, -oFILE)
        j = 1
        while j < len(a):
            c = a[j]
            rest = a[j + 1:]

            def sval(flag=c):
                nonlocal i
                if rest:
                    return rest
                if i + 1 >= len(argv):
                    raise UsageError(f"option -{flag} needs a value")
                i += 1
                return argv[i]

            if c == "h":
                raise InfoRequested(HELP.rstrip())
            if c in STRACE_SHORT_ANY or (tc.strace and c in STRACE_SHORT_ONLY):     # strace's options
                if strace_short(tc, c, sval):
                    break
                j += 1
                continue
            if c == "y" and tc.strace and tc.fd_paths:          # -yy: every kind of fd decoded
                tc.decode_fds = set(_DECODE_FD_KINDS)
            if c in "oesnFlxuEIAaPDpw":
                v = sval()
                if c == "o":
                    tc.output = v
                elif c == "e" and v.split("=", 1)[0] in STRACE_QUALIFIERS:
                    STRACE_QUALIFIERS[v.split("=", 1)[0]](tc, v.split("=", 1)[1])
                elif c == "e":
                    tc.filters.append(v)
                elif c == "P":
                    tc.trace_paths.append(v)
                elif c == "w":
                    tc.call_stack = _int(v, "-w", 1)
                elif c == "s":
                    tc.string_limit = _int(v, "-s")
                elif c == "n":
                    tc.indent = _int(v, "-n")
                elif c == "F":
                    tc.proto_files.append(v)
                elif c == "l":
                    tc.libs.append(v)
                elif c == "x":
                    tc.internal.append(v)
                else:
                    raise UsageError(f"option -{c} is not supported")
                break
            elif c == "S":
                tc.syscalls = True
            elif c == "L":
                tc.libcalls = False
            elif c == "C":
                tc.demangle = True
            elif c == "i":
                tc.show_ip = True
            elif c == "T":
                tc.show_time_spent = True
            elif c == "t":
                tc.timestamps += 1
            elif c == "r":
                tc.relative = True
            elif c == "c":
                tc.summary = True
            elif c == "y":
                tc.fd_paths = True
                tc.decode_fds = set(tc.decode_fds) | {"path"}
            elif c == "f":
                tc.follow = True
            elif c == "k":
                tc.stack_trace = min(tc.stack_trace + 1, 2)
            elif c in "zZ":
                tc.status = {"successful"} if c == "z" else {"failed"}
            else:
                raise UsageError(f"unknown option -{c} (see emutrace --help)")
            j += 1
        i += 1

    rest = argv[i:]
    if not rest:
        raise UsageError("no program given (usage: emutrace [options] PROGRAM [ARGS...]; see --help)")
    if inherit:
        world.env = dict(os.environ)
    for kv in env_add:
        k, _, v = kv.partition("=")
        world.env[k] = v
    tc.timestamps = min(tc.timestamps, 3)
    if opts.cwd is None:
        host_cwd = os.getcwd()
        root = os.path.abspath(opts.root)
        if root == os.sep or root == os.path.abspath(os.sep):
            opts.cwd = host_cwd.replace(os.sep, "/") if os.sep != "/" else host_cwd
        elif host_cwd == root or host_cwd.startswith(root + os.sep):
            opts.cwd = "/" + os.path.relpath(host_cwd, root).replace(os.sep, "/").lstrip("./")
        else:
            opts.cwd = "/"
    return Config(argv=rest, program=rest[0], world=world, options=opts, trace=tc, **report)
