"""The text after ' = ': a number, an address, an error with its name and message, or a value
with its meaning ('10 (SIGUSR1)'), by the return kind of the syscall table's row."""
from __future__ import annotations

from emutrace.kernel import errno as _errno
from emutrace.machine.words import s64
from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import hexval, is_error
from emutrace.decode.strace.process import personality_text

_ERESTART = {512: ("ERESTARTSYS", "To be restarted if SA_RESTART is set"),
             513: ("ERESTARTNOINTR", "To be restarted"),
             514: ("ERESTARTNOHAND", "To be restarted if no handler"),
             516: ("ERESTART_RESTARTBLOCK", "Interrupted by signal")}


# errno values strace knows that syscalls/errno.py does not list
_EXTRA_ERRNO = {133: ("EHWPOISON", "Memory page has hardware error")}

_PLAIN_RETURNS = frozenset(("int", "long", "ssize", "size", "ulong", "uint"))   # printed as a number


def format_return(ret: int, kind: str = "int", fmt=None,
                  never_fails: bool = False) -> str:
    """The text after '= ': '3', '0x7f...', '-1 ENOENT (No such file or directory)',
    '? ERESTARTSYS (To be restarted if SA_RESTART is set)', '10 (SIGUSR1)'. never_fails: the
    value is never an error (getpid, umask: strace's NF flag)."""
    ret = s64(ret)
    if ret >= 0 and kind in _PLAIN_RETURNS:
        return str(ret)
    if is_error(ret) and not never_fails:
        err = -ret
        if err in _ERESTART:
            name, msg = _ERESTART[err]
            return f"? {name} ({msg})"
        name = _errno.NAME.get(err)
        if name is None:
            if err in _EXTRA_ERRNO:
                return "-1 %s (%s)" % _EXTRA_ERRNO[err]
            return f"-1 (errno {err})"
        return f"-1 {name} ({_errno.MESSAGE[err]})"
    if kind in ("hex", "ptr"):
        return hexval(ret)
    if is_error(ret):
        return str(ret)
    if kind == "fd":
        return fmt.fd(ret) if fmt is not None and ret >= 0 else str(ret)
    if kind == "octal":
        return _x.octal(ret)
    if kind == "signo":
        return f"{ret} ({_x.signal_name(ret)})" if 0 < ret <= 64 else str(ret)
    if kind == "personality":
        return f"{hexval(ret)} ({personality_text(ret)})"
    if kind.startswith("enum:"):
        name = _x.lookup(kind[5:], ret)
        return f"{ret} ({name})" if name else str(ret)
    return str(ret)
