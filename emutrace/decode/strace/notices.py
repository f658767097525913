"""The lines strace prints between calls: a signal delivered, the process gone."""
from __future__ import annotations

from emutrace.decode import xlat as _x
from emutrace.decode.strace.signal import format_siginfo, siginfo_from_bytes


def format_signal(siginfo) -> str:
    """'--- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=NULL} ---'. siginfo is a
    dict (layouts.SIGINFO keys) or the raw 128 bytes."""
    if isinstance(siginfo, (bytes, bytearray)):
        siginfo = siginfo_from_bytes(bytes(siginfo))
    return f"--- {_x.signal_name(siginfo.get('si_signo', 0))} {format_siginfo(siginfo)} ---"


def format_exited(status: int) -> str:
    return f"+++ exited with {status & 0xff} +++"


def format_killed(signo: int, core: bool = False) -> str:
    return f"+++ killed by {_x.signal_name(signo)}{' (core dumped)' if core else ''} +++"
