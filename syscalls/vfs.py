"""The virtual file system the guest sees: a read-only root (a host directory, or a tar archive
read in place: syscalls.tarfs), an in-memory overlay, granted host directories, and synthesized
/proc and /dev. Root and granted files are reached only through a tree (hosttree.DirTree, TarTree);
the overlay's inodes and names are in overlay.py.

Paths are resolved component by component inside the root, as under chroot: `..` stops at the
root, absolute symlinks restart at the root, and nothing (symlinks, /proc/self/root, dirfds)
can name a host path outside it. The guest's writes go to the overlay unless a `--rw` grant
covers the path; the host never sees them. Every error is a Linux errno (VfsError.errno).
"""
from __future__ import annotations

import os
import zlib
from typing import Callable, Dict, List, Optional, Tuple

from emutrace.record import record

from emutrace.kernel import errno as E
from emutrace.kernel.errors import VfsError
from emutrace.kernel.hostjournal import HostJournal
from emutrace.kernel.hosttree import DirTree, HostIds, host_error, open_tree
from emutrace.kernel.limits import DENTRY_COST, INODE_COST, KernelLimits, pages
from emutrace.kernel.overlay import OverlayNames, OvNode, Whiteouts
# all of them: handlers take the file types from the VFS, whose nodes carry them
from emutrace.kernel.statinfo import DT_OF_MODE, StatInfo
from emutrace.linux.fcntl import (DT_BLK, DT_CHR, DT_DIR, DT_FIFO, DT_LNK, DT_REG, DT_SOCK, DT_UNKNOWN, S_IFBLK,
                                  S_IFCHR, S_IFDIR, S_IFIFO, S_IFLNK, S_IFMT, S_IFREG, S_IFSOCK)

MAX_SYMLINKS = 40
OVERLAY_DEV = 0x2D
SYNTH_DEV = 0x05


# ---------------------------------------------------------------- nodes

@record
class SynthNode:
    """A synthesized /proc or /dev entry."""
    mode: int
    content: Optional[Callable[[], bytes]] = None          # regular files
    target: Optional[Callable[[], str]] = None             # symlinks
    children: Optional[Callable[[], List[Tuple[str, int]]]] = None   # directories: (name, DT_*)
    device: str = ""                                       # character devices: null zero urandom
    opened: Optional[Callable[[], object]] = None          # magic links (/proc/PID/fd/N): the open file


@record
class Node:
    """What a resolved path names."""
    path: str                       # guest absolute path
    stat: StatInfo
    host: Optional[str] = None      # host path for root/granted files (in `tree`'s terms)
    writable_host: bool = False     # inside a --rw grant
    ov: Optional[OvNode] = None
    synth: Optional[SynthNode] = None
    tree: Optional[object] = None   # the DirTree / TarTree holding `host`
    opened: Optional[object] = None  # a pipe, socket or stream reached through /proc/PID/fd/N

    @property
    def is_dir(self) -> bool:
        return self.stat.type == S_IFDIR

    @property
    def is_link(self) -> bool:
        return self.stat.type == S_IFLNK


def stable_ino(path: str) -> int:
    """An inode number for a synthesized entry that is the same in every run (Python's hash() is not)."""
    return zlib.crc32(path.encode("utf-8", "surrogateescape"))


# resolve()'s stand-in for the node of a directory known from the dentry cache: looked up only
# if the walk ends on it (never returned)
_DIR = Node("", StatInfo(mode=S_IFDIR))
_UNSEEN = object()            # a name the dentry cache does not hold


def _split(path: str) -> List[str]:
    return [c for c in path.split("/") if c]


def _join(parent: str, name: str) -> str:
    return parent.rstrip("/") + "/" + name if parent != "/" else "/" + name


def _parent(path: str) -> str:
    if path == "/":
        return "/"
    head = path.rsplit("/", 1)[0]
    return head or "/"


# Linux's numbers of the memory devices (drivers/char/mem.c: major 1), as makedev(1, minor)
_DEVICE_RDEV = {"null": 0x103, "zero": 0x105, "full": 0x107, "random": 0x108, "urandom": 0x109}


class Vfs:
    def __init__(self, root: str = "/", rw: Tuple[Tuple[str, str], ...] = (), clock_ns=None,
                 uid: int = 0, gid: int = 0, limits: Optional[KernelLimits] = None):
        self.root = os.path.abspath(root)
        self.host_ids = HostIds(uid, gid)
        self.tree = open_tree(self.root, self.host_ids)   # OSError if neither a directory nor a tar archive
        # (guest prefix, host dir) grants, longest prefix first
        self.rw = sorted(((g.rstrip("/") or "/", os.path.abspath(h)) for h, g in rw),
                         key=lambda t: -len(t[0]))
        self._grant_tree = DirTree("/", self.host_ids)
        self.limits = limits or KernelLimits()   # the kernel's: the overlay counts "disk" and "inodes"
        # the dentry cache (see name_changed): guest path -> None for a directory, or a
        # symlink's target; only names this run alone can change (the root's and the overlay's)
        self.dentries: Dict[str, Optional[str]] = {}
        self.overlay: Dict[str, OvNode] = OverlayNames(self.limits, self.name_changed)
        self.whiteouts: set = Whiteouts(self.name_changed)
        self.synth: Dict[str, SynthNode] = {}
        self.synth_dirs: List[Tuple[str, Callable[[str], Optional[SynthNode]]]] = []
        self.tmpfs: List[str] = []          # overlay-only directories, even inside a synthesized tree
        self._mounted_tops: Optional[set] = set()     # see _mounts_changed
        self._mounts_changed()
        self.clock_ns = clock_ns or (lambda: 0)
        self.uid, self.gid = uid, gid
        self._next_ino = 0x100000
        # host paths opened for reading (for audits and tests), each once in first-read order (a dict:
        # a shell loop reads the same few files thousands of times, which a list kept every time)
        self.reads: Dict[str, None] = {}
        self.host_journal = HostJournal()   # what --rw grants' host files were before the run changed them

    # -- the dentry cache ------------------------------------------------------
    # resolve() walks a path one name at a time; `dentries` remembers, for each guest path it has
    # looked up, what _lnode(path) was when it was a directory (None) or a symlink (its target), so
    # the next walk through that name costs one dict lookup instead of a host lstat and the
    # overlay/whiteout/mount checks. An entry mirrors _lnode of its own path only (each walk still
    # consults the entry of every name on the way, so a removed parent is seen at the parent), and
    # what _lnode answers for a path changes only when
    #  - the overlay sets or takes out that very name, or a whiteout is added or removed for it:
    #    OverlayNames and Whiteouts report each such name to name_changed, the one place that
    #    drops an entry, whatever operation (create, mkdir, symlink, link, rename, unlink, rmdir,
    #    copy-up) caused it;
    #  - the guest changes a name in a --rw grant: every entry goes, for the granted host
    #    directory may also be under the root, seen read-only under another name (name_changed);
    #  - a mount (synthesized tree, tmpfs) is added: every entry goes (_mounts_changed);
    #  - the host changes the file: never the guest, for the root is read-only to it. What a
    #    host process does to the root under a running guest is seen at the final name of every
    #    path (its lstat is always fresh), but a directory or symlink on the way is taken as it
    #    was first seen: a snapshot at first look (docs/sandbox.md).
    # So only the root's and the overlay's names are kept: not synthesized ones (/proc/self leads
    # somewhere else in every process), not --rw grants' (host files the host may change too), not
    # magic links. Final names are never answered from the cache: their node is always fresh.

    def name_changed(self, path: str) -> None:
        """The namespace changed at `path` (a name set, taken out or hidden): forget its entry.
        In a --rw grant (whose names are never cached) every entry goes: the granted host
        directory may also be under the root, where the guest sees it read-only under another
        name, and a symlink the guest makes there must not be walked through as the directory
        it replaced (a host lstat of a path follows the host's symlinks)."""
        if self.rw and self.host_path(path)[1]:
            self.dentries.clear()
        else:
            self.dentries.pop(path, None)

    @staticmethod
    def _cacheable(node: Node) -> bool:
        """Whether only this run can change the node's name: the overlay's, or the read-only
        root's (see the dentry cache above)."""
        return node.ov is not None or (node.host is not None and not node.writable_host
                                       and node.synth is None and node.opened is None)

    def _mounts_changed(self) -> None:
        """What is mounted where changed: forget every entry, and make again the table of first
        names under which something is mounted (a path outside them is plainly the root's)."""
        self.dentries.clear()
        prefixes = [p for p, _ in self.rw] + list(self.synth) + [p for p, _ in self.synth_dirs] + self.tmpfs
        if any(p.rstrip("/") == "" for p in prefixes):
            self._mounted_tops = None                 # something is mounted on /: no path is plain
        else:
            self._mounted_tops = {p.lstrip("/").split("/", 1)[0] for p in prefixes}

    def _plain(self, path: str) -> bool:
        """Whether the (absolute, resolved) path is the read-only root's, with no grant, tmpfs or
        synthesized tree under its first name: the check every other name on a walk skips."""
        tops = self._mounted_tops
        if tops is None:
            return False
        i = path.find("/", 1)
        return (path[1:i] if i > 0 else path[1:]) not in tops

    # -- synthesized trees -------------------------------------------------
    def add_synth(self, path: str, node: SynthNode) -> None:
        self.synth[path] = node
        self._mounts_changed()

    def add_synth_tree(self, prefix: str, resolver: Callable[[str], Optional[SynthNode]]) -> None:
        """Every path under `prefix` (and prefix itself) is answered by resolver(rest)."""
        self.synth_dirs.append((prefix, resolver))
        self._mounts_changed()

    def add_tmpfs(self, path: str, mode: int = 0o1777) -> None:
        """A writable, initially empty directory at `path` (e.g. /dev/shm inside the synthesized
        /dev) whose whole content lives in the overlay: nothing under it is looked up on the host."""
        now = self.clock_ns()
        st = StatInfo(mode=S_IFDIR | (mode & 0o7777), ino=(stable_ino(path) & 0xFFFFFF) | 0x1000000,
                      dev=OVERLAY_DEV, nlink=2, uid=self.uid, gid=self.gid, atime_ns=now, mtime_ns=now,
                      ctime_ns=now)
        self.overlay[path] = self.new_ov(st)
        self.tmpfs.append(path)
        self._mounts_changed()

    def _in_tmpfs(self, path: str) -> bool:
        return any(path == t or path.startswith(t + "/") for t in self.tmpfs)

    def _synth_node(self, path: str) -> Optional[SynthNode]:
        n = self.synth.get(path)
        if n is not None:
            return n
        for prefix, resolver in self.synth_dirs:
            if path == prefix or path.startswith(prefix + "/"):
                return resolver(path[len(prefix):].lstrip("/"))
        return None

    def _synth_owned(self, path: str) -> bool:
        if self.tmpfs and self._in_tmpfs(path):
            return False
        for prefix, _ in self.synth_dirs:
            if path == prefix or path.startswith(prefix + "/"):
                return True
        return False

    def new_ino(self) -> int:
        self._next_ino += 1
        return self._next_ino

    # -- the overlay's quota -------------------------------------------------
    def new_ov(self, stat: StatInfo, data: bytes = b"", target: str = "") -> OvNode:
        """A new overlay inode, counted against the inode and disk bounds (ENOSPC past them)."""
        limits = self.limits
        if limits.room("disk") < INODE_COST + pages(len(data)) + len(target):
            raise VfsError(E.ENOSPC)
        ov = OvNode(stat, target=target)
        limits.hold(ov, "inodes", 1)
        ov.held = limits.hold(ov, "disk", INODE_COST + len(target))
        if data:
            ov.write(0, data)
        return ov

    def _need_name(self, path: str) -> None:
        """ENOSPC unless the quota has room for one more name."""
        if self.limits.room("disk") < DENTRY_COST + len(path):
            raise VfsError(E.ENOSPC)

    # -- host mapping --------------------------------------------------------
    def host_path(self, path: str) -> Tuple[str, bool]:
        """(host path, writable) for a guest path that lives on the host."""
        for gprefix, hdir in self.rw:
            if path == gprefix or path.startswith(gprefix.rstrip("/") + "/"):
                rest = path[len(gprefix):].lstrip("/")
                return (os.path.join(hdir, *rest.split("/")) if rest else hdir), True
        return self.tree.join(path), False

    def tree_of(self, writable: bool):
        return self._grant_tree if writable else self.tree

    def read_host(self, node: Node) -> bytes:
        """The whole content of a root or granted file (OSError on failure)."""
        return (node.tree or self.tree_of(node.writable_host)).read(node.host)

    def read_host_versioned(self, node: Node):
        """(content, version or None) of a root or granted file: see DirTree.read_versioned."""
        return (node.tree or self.tree_of(node.writable_host)).read_versioned(node.host)

    def _lnode(self, path: str) -> Optional[Node]:
        """The node at an already-resolved parent + name, without following a final symlink."""
        ov = self.overlay.get(path)
        if ov is not None:
            return Node(path, ov.stat, ov=ov)
        if path in self.whiteouts:
            return None
        if self._plain(path):             # the root's: no mount to look for
            tree = self.tree
            host = tree.join(path)
            try:
                st = tree.lstat(host)
            except OSError:
                return None
            return Node(path, st, host=host, tree=tree)
        if self.tmpfs and self._in_tmpfs(path):
            return None
        sn = self._synth_node(path)
        if sn is not None:
            return Node(path, self._synth_stat(path, sn), synth=sn)
        if self._synth_owned(path):
            return None
        host, writable = self.host_path(path)
        tree = self.tree_of(writable)
        try:
            st = tree.lstat(host)
        except OSError:
            return None
        return Node(path, st, host=host, writable_host=writable, tree=tree)

    def _synth_stat(self, path: str, sn: SynthNode) -> StatInfo:
        size = 0
        return StatInfo(mode=sn.mode, size=size, ino=(stable_ino(path) & 0xFFFFFF) | 0x1000000, dev=SYNTH_DEV,
                        blksize=1024 if sn.mode & S_IFMT == S_IFREG else 4096,      # as procfs reports
                        nlink=2 if sn.mode & S_IFMT == S_IFDIR else 1, uid=self.uid, gid=self.gid,
                        rdev=_DEVICE_RDEV.get(sn.device, 0x103) if sn.device else 0, mtime_ns=self.clock_ns(), atime_ns=self.clock_ns(),
                        ctime_ns=self.clock_ns())

    def readlink_node(self, node: Node) -> str:
        if node.ov is not None:
            return node.ov.target
        if node.synth is not None:
            return node.synth.target() if node.synth.target else ""
        try:
            return (node.tree or self.tree_of(node.writable_host)).readlink(node.host)
        except OSError as e:
            raise host_error(e) from None

    # -- resolution ----------------------------------------------------------
    def resolve(self, path: str, base: str = "/", follow: bool = True, must_exist: bool = True) -> Tuple[str, Optional[Node]]:
        """Resolve a guest path (relative to `base`) inside the root.

        Returns (canonical guest path, node or None if the last component does not exist and
        must_exist is False). Raises VfsError(ENOENT/ENOTDIR/ELOOP/ENAMETOOLONG).

        Every name but the last is taken from the dentry cache when it is there (a directory or a
        symlink's target: see name_changed); the node returned is always looked up afresh."""
        if not path:
            raise VfsError(E.ENOENT)
        if len(path) >= 4096:
            raise VfsError(E.ENAMETOOLONG)
        todo = [c for c in reversed(path.split("/")) if c]     # the names, the next one last
        cur = "/" if path[0] == "/" else (base or "/")
        dentries = self.dentries
        unseen = _UNSEEN
        links = 0
        node: Optional[Node] = _DIR if cur == "/" or dentries.get(cur, unseen) is None else self._looked_up(cur)
        trailing_slash = path[-1] == "/"
        while todo:
            comp = todo.pop()
            if len(comp) > 255:
                raise VfsError(E.ENAMETOOLONG)
            if node is not _DIR and node is not None and not node.is_dir:
                raise VfsError(E.ENOTDIR)
            if comp == ".":
                continue
            if comp == "..":
                cur = _parent(cur)
                node = _DIR if cur == "/" or dentries.get(cur, unseen) is None else self._looked_up(cur)
                continue
            cand = cur + "/" + comp if cur[-1] != "/" else cur.rstrip("/") + "/" + comp     # (_join)
            last = not todo
            if not last:
                known = dentries.get(cand, unseen)
                if known is None:           # a directory
                    cur, node = cand, _DIR
                    continue
                if known is not unseen:     # a symlink, to `known`
                    links += 1
                    if links > MAX_SYMLINKS:
                        raise VfsError(E.ELOOP)
                    if self._follow(known, todo):
                        cur, node = "/", _DIR
                    continue
            nxt = self._looked_up(cand)
            if nxt is None:
                if last and not must_exist:
                    return cand, None
                raise VfsError(E.ENOENT)
            if nxt.is_link and (not last or follow or trailing_slash):
                links += 1
                if links > MAX_SYMLINKS:
                    raise VfsError(E.ELOOP)
                if nxt.synth is not None and nxt.synth.opened is not None:
                    cur, node = self._magic_target(nxt.synth.opened(), last)
                    continue
                target = self.readlink_node(nxt)
                if self._cacheable(nxt):
                    dentries[cand] = target
                if self._follow(target, todo):
                    cur, node = "/", _DIR
                continue
            cur, node = cand, nxt
        if node is _DIR:                    # a directory known from the cache: its node now
            node = self._root_node() if cur == "/" else self._lnode(cur)
            if node is None:                # (gone from the host under the guest: see name_changed)
                raise VfsError(E.ENOENT)
        if trailing_slash and node is not None and not node.is_dir:
            raise VfsError(E.ENOTDIR)
        return cur, node

    def _looked_up(self, path: str) -> Optional[Node]:
        """_lnode(path), remembered in the dentry cache when it is a directory (a symlink is
        remembered when it is followed: its target is read then)."""
        node = self._lnode(path)
        if node is not None and node.stat.mode & S_IFMT == S_IFDIR and self._cacheable(node):
            self.dentries[path] = None
        return node

    @staticmethod
    def _follow(target: str, todo: List[str]) -> bool:
        """Put a symlink's target before the names still to walk (`todo`, next name last); whether
        the walk restarts at the root (an absolute target). An empty target names nothing."""
        if not target:
            raise VfsError(E.ENOENT)
        more = _split(target)
        more.reverse()
        todo.extend(more)
        return target[0] == "/"

    @staticmethod
    def _magic_target(f, last: bool) -> Tuple[str, Node]:
        """Where a magic link (/proc/PID/fd/N) leads: not to the path it reads as, but to the
        open file itself, as on Linux: its node, or for a pipe, socket or stream (which have
        no path) a node of its own that only stat and open can use."""
        if f is None:
            raise VfsError(E.ENOENT)
        if f.node is not None:
            return f.node.path, f.node
        if not last:
            raise VfsError(E.ENOTDIR)
        return f.path, Node(f.path, f.stat(), opened=f)

    def unlinked(self, node: Node) -> bool:
        """Whether the name a node was opened by no longer leads to it (removed, or replaced):
        Linux's d_unlinked, which makes /proc/PID/fd/N read 'PATH (deleted)'."""
        if node.synth is not None or node.opened is not None or node.writable_host:
            return False
        if node.ov is not None:
            return self.overlay.get(node.path) is not node.ov
        return node.host is not None and (node.path in self.whiteouts or node.path in self.overlay)

    def fd_link(self, f) -> str:
        """What the link /proc/PID/fd/N reads for the open file f."""
        node = f.node
        if node is not None and self.unlinked(node):
            return f.path + " (deleted)"
        return f.path

    def _root_node(self) -> Node:
        host, writable = self.host_path("/")
        ov = self.overlay.get("/")
        if ov is not None:
            return Node("/", ov.stat, ov=ov)
        tree = self.tree_of(writable)
        try:
            st = tree.stat(host)
        except OSError:
            st = StatInfo(mode=S_IFDIR | 0o755)
        return Node("/", st, host=host, writable_host=writable, tree=tree)

    def lookup(self, path: str, base: str = "/", follow: bool = True) -> Node:
        _, node = self.resolve(path, base, follow)
        return node

    # -- directory listing -----------------------------------------------------
    def listdir(self, node: Node) -> List[Tuple[str, int, int]]:
        """(name, d_type, d_ino) of a directory, '.' and '..' first."""
        if not node.is_dir:
            raise VfsError(E.ENOTDIR)
        entries: Dict[str, Tuple[int, int]] = {}
        if node.synth is not None and node.synth.children:
            for name, dtype in node.synth.children():
                entries[name] = (dtype, (stable_ino(_join(node.path, name)) & 0xFFFFFF) | 0x1000000)
        elif node.host is not None and node.ov is None:
            try:
                for name, dtype, ino in (node.tree or self.tree_of(node.writable_host)).listdir(node.host):
                    entries[name] = (dtype, ino)
            except OSError as e:
                raise host_error(e) from None
        prefix = node.path.rstrip("/") + "/"
        for p, ov in self.overlay.items():
            if p.startswith(prefix) and "/" not in p[len(prefix):] and p != node.path:
                entries[p[len(prefix):]] = (DT_OF_MODE.get(ov.stat.type, DT_UNKNOWN), ov.stat.ino)
        for p in self.whiteouts:
            if p.startswith(prefix) and "/" not in p[len(prefix):]:
                entries.pop(p[len(prefix):], None)
        for name, (dtype, ino) in list(self._synth_children(node.path).items()):
            entries.setdefault(name, (dtype, ino))
        parent = self._lnode(_parent(node.path)) if node.path != "/" else node
        ino = lambda n: self.host_ids.shown(n.stat).ino                                  # noqa: E731
        dots = {".": (DT_DIR, ino(node)), "..": (DT_DIR, ino(parent) if parent else ino(node))}
        if "." in entries and ".." in entries:
            entries.update(dots)            # the host's order, with the guest's own inode numbers
            return [(n, t, i) for n, (t, i) in entries.items()]
        return [(n, t, i) for n, (t, i) in dots.items()] + [(n, t, i) for n, (t, i) in entries.items()]

    def _synth_children(self, path: str) -> Dict[str, Tuple[int, int]]:
        """Synthesized entries that live directly in a real directory (e.g. /proc, /dev/null)."""
        out = {}
        prefix = path.rstrip("/") + "/"
        names = list(self.synth) + [p for p, _ in self.synth_dirs]
        for p in names:
            if p.startswith(prefix) and "/" not in p[len(prefix):]:
                sn = self._synth_node(p)
                if sn is not None:
                    out[p[len(prefix):]] = (DT_OF_MODE.get(sn.mode & S_IFMT, DT_UNKNOWN), (stable_ino(p) & 0xFFFFFF) | 0x1000000)
        return out

    # -- overlay writes ----------------------------------------------------------
    def _new_stat(self, mode: int) -> StatInfo:
        now = self.clock_ns()
        return StatInfo(mode=mode, ino=self.new_ino(), dev=OVERLAY_DEV, nlink=2 if mode & S_IFMT == S_IFDIR else 1,
                        uid=self.uid, gid=self.gid, atime_ns=now, mtime_ns=now, ctime_ns=now)

    def _parent_dir(self, path: str) -> Node:
        parent = self._lnode(_parent(path)) if _parent(path) != "/" else self._root_node()
        if parent is None:
            raise VfsError(E.ENOENT)
        if not parent.is_dir:
            raise VfsError(E.ENOTDIR)
        if parent.synth is not None or self._synth_owned(path):
            raise VfsError(E.EACCES)
        return parent

    def create_file(self, path: str, mode: int) -> Node:
        parent = self._parent_dir(path)
        if parent.writable_host:
            self.name_changed(path)
            host, _ = self.host_path(path)
            self.host_journal.changing(path, host)
            try:
                fd = os.open(host, os.O_CREAT | os.O_WRONLY | getattr(os, "O_BINARY", 0), mode & 0o7777)
                os.close(fd)
            except OSError as e:
                raise host_error(e) from None
            self._stamp_host(host, os.path.dirname(host))
            return self._lnode(path)
        self._need_name(path)
        ov = self.new_ov(self._new_stat(S_IFREG | (mode & 0o7777)))
        self.overlay[path] = ov
        self.whiteouts.discard(path)
        return Node(path, ov.stat, ov=ov)

    def _host_create(self, path: str, make: Callable[[str], None], link: bool = False) -> None:
        """mkdir, symlink or link in a --rw grant: make(the host path) there, a host error as the
        guest's errno; the name's cache entry goes, and the new entry (a symlink without following
        it) and its directory carry the virtual clock's time."""
        self.name_changed(path)
        made = self.host_path(path)[0]
        try:
            make(made)
        except OSError as e:
            raise host_error(e) from None
        self._stamp_host(made, os.path.dirname(made), link=made if link else "")

    def _stamp_host(self, *hosts: str, link: str = "") -> None:
        """What the guest made or changed in a --rw grant (a file, the directory it changed)
        carries the virtual clock's time, not the host's, which the guest would be shown.
        `link`: a symlink among them, stamped without following it."""
        now = self.clock_ns()
        for target in hosts:
            try:
                if target != link:
                    os.utime(target, ns=(now, now))
                elif os.utime in os.supports_follow_symlinks:
                    os.utime(target, ns=(now, now), follow_symlinks=False)
            except (OSError, NotImplementedError):
                pass          # a host that refuses: the clock steps to the host's time when shown

    def copy_up(self, node: Node, keep_data: bool = True) -> Node:
        """Give a root file an overlay copy so the guest can write it (without its data when it
        is about to be truncated: a huge host file opened with O_TRUNC needs no quota)."""
        if node.ov is not None or node.writable_host or node.synth is not None:
            return node
        self._need_name(node.path)
        keep_data = keep_data and node.stat.type == S_IFREG
        if keep_data and self.limits.room("disk") < pages(node.stat.size) + INODE_COST:
            raise VfsError(E.ENOSPC)            # before reading it: the host file may be huge
        data = b""
        if keep_data:
            try:
                data = self.read_host(node)
            except OSError as e:
                raise host_error(e) from None
        st = StatInfo(**{**self.host_ids.shown(node.stat).__dict__})   # the number its original shows
        st.dev = OVERLAY_DEV
        if not keep_data and st.type == S_IFREG:
            st.size = st.blocks = 0
        ov = self.new_ov(st, data, target=self.readlink_node(node) if node.is_link else "")
        self.overlay[node.path] = ov
        return Node(node.path, ov.stat, ov=ov)

    def mkdir(self, path: str, mode: int) -> None:
        if self._lnode(path) is not None:
            raise VfsError(E.EEXIST)
        parent = self._parent_dir(path)
        if parent.writable_host:
            self._host_create(path, lambda made: os.mkdir(made, mode & 0o7777))
            return
        self._need_name(path)
        self.overlay[path] = self.new_ov(self._new_stat(S_IFDIR | (mode & 0o7777)))
        self.whiteouts.discard(path)

    def symlink(self, target: str, path: str) -> None:
        if self._lnode(path) is not None:
            raise VfsError(E.EEXIST)
        parent = self._parent_dir(path)
        if parent.writable_host:
            self._host_create(path, lambda made: os.symlink(target, made), link=True)
            return
        self._need_name(path)
        st = self._new_stat(S_IFLNK | 0o777)
        st.size = len(target.encode())
        self.overlay[path] = self.new_ov(st, target=target)
        self.whiteouts.discard(path)

    def remove(self, node: Node, is_dir: bool) -> None:
        if is_dir and not node.is_dir:
            raise VfsError(E.ENOTDIR)
        if not is_dir and node.is_dir:
            raise VfsError(E.EISDIR)
        if node.synth is not None or self._synth_owned(node.path):
            raise VfsError(E.EACCES)
        if is_dir and len(self.listdir(node)) > 2:
            raise VfsError(E.ENOTEMPTY)
        if node.writable_host:
            self.name_changed(node.path)
            if not is_dir:
                self.host_journal.removing(node.path, node.host)
            try:
                (os.rmdir if is_dir else os.unlink)(node.host)
            except OSError as e:
                raise host_error(e) from None
            self._stamp_host(os.path.dirname(node.host))
            return
        self._parent_dir(node.path)
        self.overlay.pop(node.path, None)
        if node.host is not None:
            self.whiteouts.add(node.path)

    def rename(self, src: Node, dst_path: str) -> None:
        dst = self._lnode(dst_path)
        self._parent_dir(dst_path)
        if src.writable_host and (dst is None or dst.writable_host) and self.host_path(dst_path)[1]:
            self.name_changed(src.path)
            self.name_changed(dst_path)
            self.host_journal.removing(src.path, src.host)
            self.host_journal.removing(dst_path, self.host_path(dst_path)[0])
            try:
                os.replace(src.host, self.host_path(dst_path)[0])
            except OSError as e:
                raise host_error(e) from None
            dst = self.host_path(dst_path)[0]
            self._stamp_host(os.path.dirname(src.host), os.path.dirname(dst))
            return
        if src.is_dir and src.ov is None:
            raise VfsError(E.EXDEV)       # a root directory would need a deep copy: let mv fall back
        if dst is not None:
            if dst.is_dir and not src.is_dir:
                raise VfsError(E.EISDIR)
            if dst.is_dir and len(self.listdir(dst)) > 2:
                raise VfsError(E.ENOTEMPTY)
        self._need_name(dst_path)
        self.copy_up(src)                 # the overlay holds what moves
        ov = self.overlay.pop(src.path)
        if src.host is not None:
            self.whiteouts.add(src.path)
        if dst is not None and dst.writable_host:
            raise VfsError(E.EXDEV)
        self.overlay[dst_path] = ov
        self.whiteouts.discard(dst_path)
        # children of an overlay directory move with it
        prefix = src.path.rstrip("/") + "/"
        for p in [p for p in self.overlay if p.startswith(prefix)]:
            self.overlay[dst_path.rstrip("/") + "/" + p[len(prefix):]] = self.overlay.pop(p)

    def link(self, src: Node, dst_path: str) -> None:
        if self._lnode(dst_path) is not None:
            raise VfsError(E.EEXIST)
        if src.is_dir:
            raise VfsError(E.EPERM)
        parent = self._parent_dir(dst_path)
        if src.writable_host and parent.writable_host:
            self.host_journal.changing(dst_path, self.host_path(dst_path)[0])
            self._host_create(dst_path, lambda made: os.link(src.host, made))
            return
        self._need_name(dst_path)
        up = self.copy_up(src)
        up.stat.nlink += 1
        self.overlay[dst_path] = up.ov
        self.whiteouts.discard(dst_path)

    def writable(self, node: Node, keep_data: bool = True) -> Node:
        """The node to write through: the overlay copy, or the host file in a grant."""
        if node.synth is not None:
            return node
        return self.copy_up(node, keep_data)
