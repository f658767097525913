"""Which traced system calls are printed: strace's `-P PATH` and `-z` / `-Z` / `-e status=`.

`-P` is decided at a call's entry, as strace does (pathtrace.c): a call is shown when one of its
path arguments is, byte for byte, a selected path, or when one of its descriptor arguments is
open on a selected file (the descriptor's canonical path). A selected path that resolves, in the
guest's file system, to another name (a symlink, a relative path) selects that name too; one that
does not exist stays selected as written, so it matches only calls that name it so.

`status=` is decided at the call's return: successful (no error), failed (an error return),
unfinished (the call never returned: exit, a thread killed inside it), unavailable and detached
(states of a ptrace tracer that an emulator never reaches: accepted, and match nothing).
"""
from __future__ import annotations

from typing import Callable, Iterable, List, Optional, Set

from emutrace.kernel.table import parse_kind
from emutrace.kernel.vfs import VfsError

STATUSES = ("successful", "failed", "unfinished", "unavailable", "detached")


class StatusError(ValueError):
    pass


def parse_status(text: str) -> Set[str]:
    """strace's status set: names, `all`, `none`, a leading `!` to negate."""
    negate = text.startswith("!")
    body = text[1:] if negate else text
    chosen: Set[str] = set()
    if not body:
        raise StatusError(f"invalid status '{text}'")
    for item in body.split(","):
        if item == "all":
            chosen |= set(STATUSES)
        elif item == "none":
            continue
        elif item in STATUSES:
            chosen.add(item)
        else:
            raise StatusError(f"invalid status '{item}'")
    return set(STATUSES) - chosen if negate else chosen


def status_of(ret) -> str:
    if ret is None:
        return "unfinished"
    return "failed" if -4096 < ret < 0 else "successful"


# path arguments that name no file of the caller's (a symlink's target is stored, never looked
# up): strace's pathtrace.c matches only the link's own path
_NOT_LOOKED_UP = {"symlink": frozenset({0}), "symlinkat": frozenset({0})}


def _path_and_fd_args(kinds: Iterable[str], name: str = ""):
    """Indices of path arguments and of descriptor arguments, from the table's kinds."""
    paths, fds = [], []
    skip = _NOT_LOOKED_UP.get(name, ())
    for i, k in enumerate(kinds):
        base = parse_kind(k)[0]
        if base == "path" and i not in skip:
            paths.append(i)
        elif base in ("fd", "dirfd", "fan_dirfd"):
            fds.append(i)
    return tuple(paths), tuple(fds)


def _select_fds(proc, args):
    """The descriptors in select's three sets (as strace's pathtrace.c reads them)."""
    nfds = args[0] & 0xFFFFFFFF
    if nfds == 0 or nfds >= 1 << 31:        # (an int: the kernel rejects a negative one)
        return
    nfds = min(nfds, 1 << 20)               # (select(2**31 - 1, ...): strace reads 2**20 bits)
    size = ((nfds + 7) // 8 + 7) & ~7
    for addr in args[1:4]:
        if not addr:
            continue
        try:
            bits = int.from_bytes(proc.aspace.read(addr, size), "little")
        except Exception:                  # an unreadable set names no descriptor
            continue
        bits &= (1 << nfds) - 1
        while bits:                         # (each set bit, without a shift per descriptor)
            low = bits & -bits
            yield low.bit_length() - 1
            bits ^= low


def _poll_fds(proc, args):
    """The descriptors of poll's pollfd array, up to the first that cannot be read."""
    for k in range(min(args[1] & 0xFFFFFFFF, 1 << 16)):
        try:
            raw = proc.aspace.read(args[0] + 8 * k, 4)
        except Exception:
            return
        yield int.from_bytes(raw, "little", signed=True)


# calls that name descriptors inside their arguments, not as arguments (strace's pathtrace.c)
_INDIRECT_FDS = {"select": _select_fds, "pselect6": _select_fds, "poll": _poll_fds, "ppoll": _poll_fds}


def _fsconfig_args(args):
    """fsconfig names a path and a descriptor only by some commands, and its first descriptor
    (the filesystem context) never counts (strace's pathtrace.c)."""
    cmd = args[1] & 0xFFFFFFFF
    if cmd in (3, 4):                       # FSCONFIG_SET_PATH, FSCONFIG_SET_PATH_EMPTY
        return (3,), (4,)
    return (), ((4,) if cmd == 5 else ())   # FSCONFIG_SET_FD


# calls whose path and descriptor arguments depend on another argument: args -> (paths, fds)
_ARGS_BY_CALL = {"fsconfig": _fsconfig_args}


def call_fds(proc, sc, args, fd_args):
    """Every descriptor a call names: its descriptor arguments, then those inside its arguments."""
    for i in fd_args:
        if i < len(args):
            fd = args[i] & 0xFFFFFFFF
            yield fd - (1 << 32) if fd >= 1 << 31 else fd
    inside = _INDIRECT_FDS.get(sc.name)
    if inside is not None and proc is not None:
        yield from inside(proc, args)


class PathSelection:
    """The -P paths, and the test of one call against them."""

    def __init__(self, paths: List[str], resolve: Optional[Callable[[str], Optional[str]]] = None,
                 notify: Optional[Callable[[str], None]] = None):
        self.paths: Set[str] = set(paths)
        for p in paths:
            real = resolve(p) if resolve is not None else None
            if real and real != p:
                self.paths.add(real)
                if notify is not None:
                    notify(f'Requested path "{p}" resolved into "{real}"')
        self._kinds = {}

    def _args_of(self, sc):
        got = self._kinds.get(sc.name)
        if got is None:
            got = self._kinds[sc.name] = _path_and_fd_args(sc.args, sc.name)
        return got

    def matches(self, proc, sc, args, read_path, fd_path) -> bool:
        own = _ARGS_BY_CALL.get(sc.name)
        paths, fds = own(args) if own is not None else self._args_of(sc)
        for i in paths:
            if i < len(args) and args[i] and read_path(proc, args[i]) in self.paths:
                return True
        for fd in call_fds(proc, sc, args, fds):
            if fd >= 0 and fd_path(proc, fd) in self.paths:
                return True
        return False


class SyscallGate:
    """The SyscallObserver's gate: enter() says whether a call may be shown (-P), shows() whether
    its result is (status=)."""

    def __init__(self, paths: Optional[PathSelection] = None, statuses: Optional[Set[str]] = None):
        self.paths = paths
        self.statuses = statuses
        self.fds = None         # -e trace-fds=: a set of fds, or ('not', set)

    def enter(self, proc, sc, args) -> bool:
        if self.paths is None and self.fds is None:
            return True
        if self.paths is not None and self.paths.matches(proc, sc, args, _read_path, _fd_path):
            return True
        return self.fds is not None and self._fd_matches(sc, args, proc)

    def _fd_matches(self, sc, args, proc=None) -> bool:
        """strace's -e trace-fds=: a call one of whose descriptors is selected."""
        negated = isinstance(self.fds, tuple)
        chosen = self.fds[1] if negated else self.fds
        for fd in call_fds(proc, sc, args, _path_and_fd_args(sc.args)[1]):
            # (strace's fdmatch: a negative descriptor is in no set, negated or not)
            if fd >= 0 and ((fd not in chosen) if negated else (fd in chosen)):
                return True
        return False

    def shows(self, ret) -> bool:
        return self.statuses is None or status_of(ret) in self.statuses


def _read_path(proc, addr: int) -> Optional[str]:
    try:
        raw = proc.aspace.read_cstr(addr, 4096)
    except Exception:                      # an unreadable path names nothing
        return None
    return raw.decode("utf-8", "surrogateescape")


def _fd_path(proc, fd: int) -> Optional[str]:
    f = proc.fds.fds.get(fd)
    return getattr(f, "path", None) if f is not None else None


def guest_realpath(vfs, path: str, cwd: Optional[str] = None) -> Optional[str]:
    """The canonical guest path of a -P path (relative ones from `cwd`), or None when it does not
    exist."""
    try:
        real, node = vfs.resolve(path, base=cwd or "/")
    except (VfsError, OSError):
        return None
    return real if node is not None else None
