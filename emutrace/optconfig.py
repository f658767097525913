"""What the command line's options build: the trace's settings (TraceConfig), the run's (Config),
and the errors parsing raises (UsageError: one `emutrace:` line and status 125; InfoRequested:
--help and --version). The table of options that fills them is emutrace/options.py."""
from __future__ import annotations

from typing import List, Optional

from emutrace.kernel.world import World
from emutrace.record import field, record
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
    always_show_pid: bool = False       # --always-show-pid


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

