"""Format system calls the way strace 6.1 prints them (its default, abbreviated style).

    fmt = SyscallFormatter(string_limit=32, fd_paths=False, fd_path=None)
    state = fmt.enter(sc, args, mem)        # decodes what is known at entry (input strings, structs)
    line = fmt.exit(state, ret, mem)        # decodes outputs; 'read(3, "abc", 4096) = 3'
    fmt.unfinished(state)                   # 'read(3,  <unfinished ...>' (strace prints two spaces)
    fmt.resumed(state, ret, mem)            # '<... read resumed>"abc", 4096) = 3'
    fmt.no_return(state)                    # 'exit_group(0) = ?'

`sc` is a table.Syscall, `args` the six raw register values, `ret` the raw return value
(-errno on error). `mem.read(addr, size) -> bytes | None` and
`mem.cstring(addr, limit) -> (bytes, nul_found) | None` read guest memory.
enter() also takes tid= (restart_syscall names the thread's previous call) and sp= (the stack
pointer at rt_sigreturn: its {mask=[...]} is read from the signal frame).

Dates ('time(NULL) = 1700000000 (2023-11-14T22:13:20+0000)', utimensat comments) are printed in
UTC so a trace never depends on the host's time zone; localtime=True gives strace's host-local form.
With align=40 the " = " is padded to column 40 as strace does ('close(3)' + 32 spaces + '= 0');
pass col= to exit()/resumed()/no_return() when the line already has a prefix ('[pid 12] ').
With fd_paths (strace -y) descriptors print as 3</etc/passwd>, using fd_path(fd) -> str | None
(fd_path(-100) is asked for AT_FDCWD's directory).

Also: format_signal(siginfo) '--- SIGSEGV {...} ---', format_exited(status), format_killed(signo,
core), format_summary(rows) (strace -c's table), format_return(ret, kind), format_siginfo(dict),
format_sockaddr(bytes), format_wait_status(int), quote_string(bytes), fmt.struct(name, mem, addr).
Syscalls with their own decoders are in CUSTOM_DECODERS, struct decoders in STRUCT_DECODERS.

The decoders are grouped by subject, as strace's own (src/open.c, src/prctl.c...): clock, creds,
fcntl, fs, futex, ioctl, ipc, keyctl, mm, net, poll, prctl, process, resource, sched, signal,
stat and system each declare the calls they decode by hand (CALLS), their structs (STRUCTS) and
their argument kinds (AT_ENTRY, AT_EXIT, BY_HAND), sharing only common.py (renderings, guest memory
reads), fields.py (structs as layouts) and kinds.py (the argument kinds of every subject).
formatter.py merges the tables; returns.py renders results, notices.py the lines between calls,
summary.py strace -c's table. This module re-exports the public names.
"""
from emutrace.decode.strace.common import PATH_MAX, quote_string
from emutrace.decode.strace.formatter import CUSTOM_DECODERS, NEVER_FAILS, STRUCT_DECODERS, SyscallFormatter
from emutrace.decode.strace.net import format_sockaddr
from emutrace.decode.strace.notices import format_exited, format_killed, format_signal
from emutrace.decode.strace.process import format_wait_status
from emutrace.decode.strace.returns import format_return
from emutrace.decode.strace.signal import format_siginfo, siginfo_from_bytes
from emutrace.decode.strace.summary import format_summary

__all__ = ["SyscallFormatter", "format_signal", "format_exited", "format_killed", "format_summary",
           "quote_string", "format_return", "format_siginfo", "format_sockaddr",
           "format_wait_status", "siginfo_from_bytes", "PATH_MAX", "NEVER_FAILS",
           "CUSTOM_DECODERS", "STRUCT_DECODERS"]
