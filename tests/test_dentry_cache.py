"""The VFS's dentry cache (Vfs.dentries, see Vfs.name_changed) never answers with what was true
before the namespace changed: a rename, unlink, rmdir, mkdir or symlink between two lookups of
the same path, in the overlay, over the read-only root and under a tmpfs mount, is seen by the
second lookup exactly as by a VFS that had never cached anything."""
import random

import pytest

from conftest import built, same_as_native
from emutrace.kernel import errno as E
from emutrace.kernel.errors import VfsError
from emutrace.kernel.vfs import SynthNode, Vfs
from emutrace.linux.fcntl import S_IFDIR, S_IFLNK, S_IFREG


def _vfs(root) -> Vfs:
    """A VFS over the host directory `root`, with a synthesized /dev holding a tmpfs /dev/shm
    (as procfs.install mounts them)."""
    vfs = Vfs(str(root))
    vfs.add_synth_tree("/dev", lambda rest: SynthNode(S_IFDIR | 0o755, children=lambda: []) if rest == "" else None)
    vfs.add_tmpfs("/dev/shm")
    return vfs


@pytest.fixture
def root(tmp_path):
    """A root tree: /A/f1, /B/f2, /h/sub/g, /hl -> h (a host symlink to a directory)."""
    for d, f in (("A", "f1"), ("B", "f2"), ("h/sub", "g")):
        (tmp_path / d).mkdir(parents=True)
        (tmp_path / d / f).write_text(f)
    (tmp_path / "hl").symlink_to("h")
    return tmp_path


def errno_of(vfs: Vfs, path: str, base: str = "/", follow: bool = True) -> int:
    try:
        vfs.resolve(path, base, follow)
    except VfsError as e:
        return e.errno
    return 0


def test_a_renamed_overlay_directory_is_not_found_at_its_old_name(root):
    vfs = _vfs(root)
    vfs.mkdir("/o", 0o755)
    vfs.mkdir("/o/d", 0o755)
    vfs.create_file("/o/d/f", 0o644)
    assert vfs.resolve("/o/d/f")[0] == "/o/d/f"
    vfs.rename(vfs.lookup("/o/d"), "/o/e")
    assert errno_of(vfs, "/o/d/f") == E.ENOENT
    assert vfs.resolve("/o/e/f")[1].stat.type == S_IFREG
    vfs.rename(vfs.lookup("/o"), "/p")             # the parent of a cached directory moves
    assert errno_of(vfs, "/o/e/f") == E.ENOENT
    assert vfs.resolve("/p/e/f")[0] == "/p/e/f"


def test_a_directory_removed_and_made_a_file_is_not_a_directory(root):
    vfs = _vfs(root)
    vfs.mkdir("/d", 0o755)
    assert vfs.resolve("/d/.")[1].is_dir and errno_of(vfs, "/d/x") == E.ENOENT
    vfs.remove(vfs.lookup("/d"), is_dir=True)
    assert errno_of(vfs, "/d/.") == E.ENOENT
    vfs.create_file("/d", 0o644)
    assert errno_of(vfs, "/d/.") == E.ENOTDIR and errno_of(vfs, "/d/x") == E.ENOTDIR


def test_a_root_directory_emptied_and_removed_is_gone(root):
    vfs = _vfs(root)
    assert vfs.resolve("/h/sub/g")[1].host is not None
    vfs.remove(vfs.lookup("/h/sub/g"), is_dir=False)
    vfs.remove(vfs.lookup("/h/sub"), is_dir=True)        # a whiteout over a cached root directory
    assert errno_of(vfs, "/h/sub/g") == E.ENOENT and errno_of(vfs, "/h/sub/.") == E.ENOENT
    assert errno_of(vfs, "/hl/sub/.") == E.ENOENT
    vfs.mkdir("/h/sub", 0o700)                           # made again, in the overlay, empty
    assert vfs.resolve("/hl/sub/.")[1].ov is not None
    assert errno_of(vfs, "/h/sub/g") == E.ENOENT


def test_mkdir_between_two_lookups(root):
    vfs = _vfs(root)
    assert errno_of(vfs, "/A/new/x") == E.ENOENT
    vfs.mkdir("/A/new", 0o755)
    vfs.create_file("/A/new/x", 0o644)
    assert vfs.resolve("/A/new/x")[0] == "/A/new/x"
    assert vfs.resolve("new/x", base="/A")[0] == "/A/new/x"


def test_a_symlinked_directory_replaced_leads_to_the_new_target(root):
    vfs = _vfs(root)
    vfs.symlink("/A", "/L")
    assert vfs.resolve("/L/f1")[0] == "/A/f1"
    vfs.remove(vfs.lookup("/L", follow=False), is_dir=False)
    vfs.symlink("B", "/L")
    assert vfs.resolve("/L/f2")[0] == "/B/f2"
    assert errno_of(vfs, "/L/f1") == E.ENOENT
    vfs.symlink("/A", "/M")
    assert vfs.resolve("/M/f1")[0] == "/A/f1"
    vfs.rename(vfs.lookup("/L", follow=False), "/M")       # replaced by a rename over it
    assert vfs.resolve("/M/f2")[0] == "/B/f2"
    assert errno_of(vfs, "/L/f2") == E.ENOENT


def test_a_root_symlink_replaced_in_the_overlay(root):
    vfs = _vfs(root)
    assert vfs.resolve("/hl/sub/g")[0] == "/h/sub/g"
    vfs.remove(vfs.lookup("/hl", follow=False), is_dir=False)
    vfs.symlink("/A", "/hl")
    assert vfs.resolve("/hl/f1")[0] == "/A/f1"
    assert errno_of(vfs, "/hl/sub/g") == E.ENOENT


def test_a_symlink_replaced_by_a_directory(root):
    vfs = _vfs(root)
    vfs.symlink("/A", "/L")
    assert vfs.resolve("/L/f1")[0] == "/A/f1"
    vfs.remove(vfs.lookup("/L", follow=False), is_dir=False)
    vfs.mkdir("/L", 0o755)
    assert errno_of(vfs, "/L/f1") == E.ENOENT
    assert vfs.resolve("/L/.")[0] == "/L"


def test_changes_under_the_tmpfs_mount(root):
    vfs = _vfs(root)
    vfs.mkdir("/dev/shm/d", 0o755)
    vfs.create_file("/dev/shm/d/x", 0o644)
    assert vfs.resolve("/dev/shm/d/x")[1].ov is not None
    vfs.rename(vfs.lookup("/dev/shm/d"), "/dev/shm/e")
    assert errno_of(vfs, "/dev/shm/d/x") == E.ENOENT
    assert vfs.resolve("x", base="/dev/shm/e")[0] == "/dev/shm/e/x"
    vfs.symlink("e", "/dev/shm/d")
    assert vfs.resolve("/dev/shm/d/x")[0] == "/dev/shm/e/x"
    vfs.remove(vfs.lookup("/dev/shm/d", follow=False), is_dir=False)
    vfs.mkdir("/dev/shm/d", 0o755)
    assert errno_of(vfs, "/dev/shm/d/x") == E.ENOENT


def test_a_mount_hides_what_was_cached_under_it(root):
    vfs = _vfs(root)
    assert vfs.resolve("/h/sub/g")[1].host is not None
    vfs.add_tmpfs("/h")
    assert errno_of(vfs, "/h/sub/g") == E.ENOENT and errno_of(vfs, "/hl/sub/.") == E.ENOENT
    assert vfs.resolve("/hl/.")[1].ov is not None
    assert vfs.resolve("/B/f2")[0] == "/B/f2"
    vfs.add_synth_tree("/B", lambda rest: SynthNode(S_IFLNK | 0o777, target=lambda: "/A") if rest == "" else None)
    assert vfs.resolve("/B/f1")[0] == "/A/f1" and errno_of(vfs, "/B/f2") == E.ENOENT


def test_the_last_name_keeps_its_own_rules(root):
    """A symlink the cache holds is still not followed as the last name without follow (lstat,
    O_NOFOLLOW, AT_SYMLINK_NOFOLLOW), unless a slash follows it; symlink loops are still ELOOP."""
    vfs = _vfs(root)
    assert vfs.resolve("/hl/sub")[0] == "/h/sub"
    assert vfs.resolve("/hl", follow=False)[1].is_link
    assert vfs.resolve("/hl/", follow=False)[1].is_dir
    vfs.symlink("/loop", "/loop")
    for _ in range(2):
        assert errno_of(vfs, "/loop/x") == E.ELOOP
        assert vfs.resolve("/loop", follow=False)[1].is_link
    for i in range(40):                                 # a chain of 41 links: one too many
        vfs.symlink(f"/c{i + 1}", f"/c{i}")
    vfs.symlink("/A", "/c40")
    for _ in range(2):
        assert errno_of(vfs, "/c0/f1") == E.ELOOP
        assert vfs.resolve("/c1/f1")[0] == "/A/f1"


def test_dotdot_through_a_cached_symlink_is_the_targets_parent(root):
    vfs = _vfs(root)
    for _ in range(2):
        assert vfs.resolve("/hl/sub/../sub/g")[0] == "/h/sub/g"
        assert vfs.resolve("/hl/..")[0] == "/"
        assert vfs.resolve("../../..", base="/h/sub")[0] == "/"


def test_the_returned_node_is_looked_up_afresh(root):
    """A directory walked through from the cache is, when the walk ends on it, the node of now."""
    vfs = _vfs(root)
    vfs.mkdir("/d", 0o755)
    assert vfs.resolve("/d/.")[1].stat.mode & 0o777 == 0o755
    vfs.lookup("/d").stat.mode = S_IFDIR | 0o700          # (what chmod does to an overlay node)
    assert vfs.resolve("/d/.")[1].stat.mode & 0o777 == 0o700
    assert vfs.resolve("/A/f1")[1].stat.size == 2
    (root / "A" / "f1").write_text("longer")             # the last name is the host's of now
    assert vfs.resolve("/A/f1")[1].stat.size == 6


def test_a_grant_seen_through_the_root_too_cannot_lead_outside_it(tmp_path):
    """A --rw grant whose host directory is also under the root: a directory the guest walked
    through under the root, replaced through the grant by a symlink to a host directory outside
    the root, is not walked through as the directory it was (the host would follow the link)."""
    root = tmp_path / "root"
    (root / "a" / "data").mkdir(parents=True)
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "s.txt").write_text("HOST SECRET")
    vfs = Vfs(str(root), rw=((str(root / "a" / "data"), "/data"),))
    vfs.mkdir("/data/d", 0o755)
    assert vfs.resolve("/a/data/d/s.txt", must_exist=False) == ("/a/data/d/s.txt", None)
    vfs.remove(vfs.lookup("/data/d"), is_dir=True)
    vfs.symlink(str(tmp_path / "secret"), "/data/d")
    assert (root / "a" / "data" / "d").is_symlink()
    assert errno_of(vfs, "/a/data/d/s.txt") == E.ENOENT        # the link's target is inside the root
    assert errno_of(vfs, "/data/d/s.txt") == E.ENOENT


# ---------------------------------------------------------------------------------------------
# the cache against no cache: random operations, each lookup made with the cache as it is and
# again with it emptied, both answers the same

NAMES = ["A", "B", "h", "hl", "sub", "f1", "g", "o", "x", "L", "..", ".", "dev", "shm"]
PLACES = ["/o", "/o/x", "/x", "/L", "/A/o", "/A/L", "/h/sub/o", "/h/L", "/hl/x", "/dev/shm/o",
          "/dev/shm/o/x", "/dev/shm/L", "/A/f1", "/h/sub/g", "/hl", "/h", "/h/sub"]
TARGETS = ["/A", "B", "..", "/h/sub", "x", "/dev/shm/o", "o/x", "/hl", "L"]


def _answer(vfs: Vfs, path: str, base: str, follow: bool, must_exist: bool):
    """What resolve gives, comparable between two VFS states: the path and the node, or the errno."""
    try:
        p, node = vfs.resolve(path, base, follow, must_exist)
    except VfsError as e:
        return e.errno
    if node is None:
        return p, None
    return p, node.path, node.stat.mode, node.host, id(node.ov) if node.ov else None, node.synth is not None


def _random_change(vfs: Vfs, rnd: random.Random) -> None:
    """One namespace change, as the system calls make it (errors are part of the game)."""
    place = rnd.choice(PLACES)
    op = rnd.choice(["mkdir", "create", "symlink", "remove", "rename", "link"])
    try:
        if op in ("mkdir", "create", "symlink"):
            path, node = vfs.resolve(place, follow=False, must_exist=False)
            if node is not None:
                return
            if op == "mkdir":
                vfs.mkdir(path, 0o755)
            elif op == "create":
                vfs.create_file(path, 0o644)
            else:
                vfs.symlink(rnd.choice(TARGETS), path)
        elif op == "remove":
            node = vfs.lookup(place, follow=False)
            vfs.remove(node, is_dir=node.is_dir)
        else:
            src = vfs.lookup(place, follow=False)
            dst_path, _ = vfs.resolve(rnd.choice(PLACES), follow=False, must_exist=False)
            if src.path != dst_path:
                (vfs.rename if op == "rename" else vfs.link)(src, dst_path)
    except VfsError:
        pass


@pytest.mark.parametrize("seed", range(12))
def test_cached_lookups_answer_as_uncached_ones(root, seed):
    rnd = random.Random(seed)
    vfs = _vfs(root)
    for _ in range(60):
        _random_change(vfs, rnd)
        for _ in range(25):
            path = "/".join(rnd.choice(NAMES) for _ in range(rnd.randint(1, 5)))
            path = (rnd.choice(["/", ""]) + path + rnd.choice(["", "", "/"]))
            base = rnd.choice(["/", "/A", "/h/sub", "/o", "/dev/shm", "/x"])
            follow, must_exist = rnd.random() < 0.7, rnd.random() < 0.7
            cached = _answer(vfs, path, base, follow, must_exist)
            kept = dict(vfs.dentries)
            vfs.dentries.clear()
            fresh = _answer(vfs, path, base, follow, must_exist)
            vfs.dentries.clear()
            vfs.dentries.update(kept)
            assert cached == fresh, (seed, path, base, follow, must_exist)
        assert vfs.dentries, "the walks cached nothing: the test tests nothing"


def test_names_outside_every_mount_are_looked_up_as_through_the_mounts(root, tmp_path_factory):
    """_lnode's shortcut for names under no grant, tmpfs or synthesized tree (Vfs._plain) answers
    as the full checks do, for names in, beside and outside each mount."""
    grant = tmp_path_factory.mktemp("grant")
    (grant / "w").write_text("w")
    vfs = Vfs(str(root), rw=((str(grant), "/h/g"),))
    vfs.add_synth_tree("/dev", lambda rest: SynthNode(S_IFDIR | 0o755, children=lambda: []) if rest == "" else None)
    vfs.add_tmpfs("/dev/shm")
    vfs.add_tmpfs("/A/t")
    vfs.mkdir("/dev/shm/d", 0o755)
    vfs.mkdir("/o", 0o755)
    paths = ["/", "/A", "/A/f1", "/A/t", "/A/tt", "/B/f2", "/h", "/h/g", "/h/g/w", "/h/gg", "/hl", "/dev",
             "/dev/shm", "/dev/shm/d", "/devx", "/o", "/nothing", "/h/sub/g"]

    def looked_up(path):
        node = vfs._lnode(path)
        return None if node is None else (node.path, node.stat.mode, node.stat.size, node.host,
                                          node.writable_host, id(node.ov) if node.ov else None, node.synth is not None)

    plain = [looked_up(p) for p in paths]
    tops, vfs._mounted_tops = vfs._mounted_tops, None         # every name through the full checks
    assert [looked_up(p) for p in paths] == plain
    assert tops == {"h", "dev", "A"} and vfs._plain("/B/f2") is False
    vfs._mounted_tops = tops
    assert vfs._plain("/B/f2") and vfs._plain("/hl") and not vfs._plain("/h/sub/g")
    assert plain[paths.index("/h/g/w")][4] is True and plain[paths.index("/A/t")][5] is not None


@pytest.mark.parametrize("where", ["root", "tmpfs"])
def test_paths_looked_up_between_changes_as_on_linux(tmp_path, where):
    """bins/pathwalk: a rename, unlink, rmdir, mkdir, symlink replaced (by a symlink, a rename, a
    directory) between two lookups of the same path, `..` after symlinks, open's flags on
    symlinks: the same answers as natively, in a directory of the read-only root (the guest's
    changes in the overlay) and in the tmpfs /dev/shm."""
    same_as_native([built("pathwalk"), str(tmp_path) if where == "root" else "/dev/shm"])
