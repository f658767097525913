"""Command-line options: ltrace's and strace's flags where they have them, plus emutrace's own.

Options end at the first word that is not an option (the program) or at `--`; short flags
cluster (-fS, -tt) and take attached values (-s64, -oFILE); long ones take `--name=value` or
`--name value`. Subcommands (`diff`, `sysroot`, `report`, `batch`) are recognized only as a bare
first word (emutrace/cmds/).

OPTIONS, the table below, is the one source of the options: parse() dispatches through it,
help_text() is `--help`, argparse_parser() is what tools/manpage.py gives argparse-manpage and
shtab for the man page and the bash/zsh completions, and tests/test_option_audit.py fails for an
option of the table it has no case for. To add an option:

The module is the table and its parser; what the options fill (TraceConfig, Config) and the
errors are in optconfig.py, strace's qualifiers (-e trace=, inject=...) in straceopts.py, and
--help's texts and the argparse parser in optshelp.py.

1. a field for it in TraceConfig (optconfig.py), Options or World (or Config) if it needs one;
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
from emutrace.record import record
from emutrace.version import __version__
from emutrace.kernel.limits import LimitError, parse_limit
from emutrace.session import Options
from emutrace import optshelp
from emutrace.optconfig import Config, InfoRequested, TraceConfig, UsageError, _int, parse_size
from emutrace.straceopts import (STRACE_QUALIFIERS, _abbrev, _columns, _coverage_format, _decode_fds, _decode_pids,
                                 _fds, _hex_strings, _inject, _inject_call, _namespace, _no_effect, _raw, _signals,
                                 _status, _strace_q, _strace_version, _strace_y, _tc, _trace, _verbose, _xlat_style)

def _unsupported(what: str, why: str):
    """An option strace has that emutrace cannot honour yet: refused with one line (status 125),
    never accepted and ignored."""
    def refuse(st, v) -> None:
        raise UsageError(f"{what} is not supported: {why}")
    return refuse


__all__ = ["Config", "InfoRequested", "TraceConfig", "UsageError", "parse_size", "OPTIONS", "BY_FLAG",
           "help_text", "argparse_parser", "parse"]

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
    Opt(("--strings-in-hex",), "[=none|non-ascii|non-ascii-chars|all]", "strings in hex (-x, -xx)", G, _tc(_hex_strings),
        optional=True),
    Opt(("-n", "--syscall-number"), None, "each call's number before it: [ 1] write(...)", G,
        _set("tc", "syscall_numbers", True), mode="strace"),
    Opt(("-N", "--arg-names"), None, "arguments' names: refused (the syscall rows name no arguments yet)", G,
        _unsupported("-N (--arg-names)", "the syscall table names no arguments yet"), mode="strace"),
    Opt(("-q", "--quiet", "--silent", "--silence"), "[=SET]", "no notes (attach, personality; -qq: exit too)", G,
        _strace_q, optional=True, repeat=True, mode="strace"),
    Opt(("-v", "--no-abbrev"), None, "structures in full (accepted; most decoders print them in full)", G,
        _set("tc", "verbose", True), mode="strace"),
    Opt(("-V",), None, "strace's version line, then emutrace's", G, _strace_version, mode="strace"),
    Opt(("-Y", "--decode-pids"), "[=comm|pidns]", "process ids with command names: refused (no decoder marks pids yet)", G,
        lambda st, v: _decode_pids(st.tc, v), optional=True, mode="strace"),
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

GROUPS = (T, G, D, R, S, I)


def help_text(width: int = 100) -> str:
    """--help (optshelp.help_text over the table)."""
    return optshelp.help_text(OPTIONS, GROUPS, width)


def argparse_parser():
    """The argparse parser tools/manpage.py gives argparse-manpage and shtab (optshelp)."""
    return optshelp.argparse_parser(OPTIONS, GROUPS)


def parse(argv: List[str]) -> Config:
    if not argv:
        raise InfoRequested(optshelp.SHORT_USAGE, status=125)     # (a usage error, with help)
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
    world.auto_locale = not st.inherit and not any(kv.partition("=")[0] == "LANG" for kv in st.env_add)
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
