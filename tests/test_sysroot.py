"""Sysroots that travel: `--root` reads a tar archive in place, and `emutrace sysroot` packs a
program with everything it needs, so the run reads nothing outside the archive."""
import io
import os
import shutil
import sys
import tarfile

import pytest

import emutrace
from emutrace.kernel.tarfs import TarRootError, TarTree, is_tar_archive
from emutrace.kernel.vfs import Vfs
from emutrace.linux.fcntl import S_IFDIR, S_IFLNK, S_IFREG

from conftest import built, emutrace as cli, native, system_program

_AUDIT = {"on": False, "seen": []}


def _audit(event, args):
    if _AUDIT["on"] and event in ("open", "os.listdir", "os.scandir") and args and \
            isinstance(args[0], (str, bytes)):
        _AUDIT["seen"].append(os.fsdecode(args[0]))


sys.addaudithook(_audit)


def _python_file(path: str) -> bool:
    """Files Python itself opens (imports of modules not loaded yet), and emutrace's own cache of
    parsed metadata: none of them is the guest's."""
    p = os.path.abspath(path)
    roots = [os.path.abspath(x) for x in sys.path if x] + [sys.prefix, sys.base_prefix]
    try:
        from emutrace.machine.cache import cache_dir
        if cache_dir():
            roots.append(os.path.abspath(cache_dir()))
    except ImportError:
        pass
    return p.endswith((".py", ".pyc")) or "__pycache__" in p or any(p == r or p.startswith(r + os.sep) for r in roots)


def host_opens(fn):
    """Host paths opened or listed while fn() runs (Python's own module files left out)."""
    _AUDIT["seen"] = []
    _AUDIT["on"] = True
    try:
        out = fn()
    finally:
        _AUDIT["on"] = False
    return out, [p for p in _AUDIT["seen"] if not _python_file(p)]


def pack(*args):
    r = cli(["sysroot", *map(str, args)])
    assert r.returncode == 0, r.stderr
    return r


# ---------------------------------------------------------------- programs on a packed sysroot

def test_qsort_runs_from_its_sysroot_reading_nothing_else(tmp_path):
    prog = tmp_path / "prog"
    prog.mkdir()
    exe = prog / "qsort"
    shutil.copy2(built("qsort", "pie"), exe)
    tar = tmp_path / "qsort.tar"
    pack(exe, tar)
    expected = native([str(exe)])
    assert expected.returncode == 0

    def run():
        s = emutrace.Session([str(exe)], root=str(tar), cwd="/", capture_output=True, trace_calls=False)
        return s, s.run()
    (s, r), opened = host_opens(run)
    assert r.status == 0 and r.stdout == expected.stdout and r.stderr == b""
    # the archive is the only host file opened, and every file the guest read came from it
    assert set(opened) == {str(tar)}
    assert s.reads and all(p.startswith(str(tar) + "!/") for p in s.reads)
    assert f"{tar}!{exe}" in s.reads
    assert any(p.endswith("/libc.so.6") for p in s.reads)


def test_ls_from_a_compressed_sysroot_matches_native(tmp_path):
    ls = system_program("ls")
    if ls is None or open(os.path.realpath(ls), "rb").read(4) != b"\x7fELF":
        pytest.skip("no ELF ls on this host")
    prog = tmp_path / "prog"
    prog.mkdir()
    shutil.copy2(os.path.realpath(ls), prog / "ls")
    data = tmp_path / "data"
    data.mkdir()
    for name in ("zeta", "alpha", "Beta.txt", ".hidden"):
        (data / name).write_text(name)
    (data / "sub").mkdir()
    os.symlink("alpha", data / "link")
    tar = tmp_path / "ls.tar.gz"
    pack("--add", data, prog / "ls", tar, "--", data)
    for args in ([str(data)], ["-a", "-F", str(data)]):
        want = native([str(prog / "ls"), *args])
        assert want.returncode == 0
        got = cli(["--no-trace", "--root", str(tar), "--cwd", "/", str(prog / "ls"), *args])
        assert got.returncode == 0, got.stderr
        assert got.stdout == want.stdout and got.stderr == b""

    def run():
        s = emutrace.Session([str(prog / "ls"), str(data)], root=str(tar), cwd="/", capture_output=True)
        return s, s.run()
    (s, r), opened = host_opens(run)
    assert r.stdout == native([str(prog / "ls"), str(data)]).stdout
    assert set(opened) == {str(tar)}
    assert all(p.startswith(str(tar) + "!/") for p in s.reads)


def test_pack_from_another_root_directory(tmp_path):
    """--from DIR: a rootfs directory (here: an extracted sysroot, whose absolute symlinks must
    resolve inside DIR, not on the host)."""
    exe = tmp_path / "qsort"
    shutil.copy2(built("qsort", "pie"), exe)
    first = tmp_path / "first.tar"
    pack("--no-run", exe, first)
    rootfs = tmp_path / "rootfs"
    with tarfile.open(first) as tf:
        tf.extractall(rootfs, **({"filter": "tar"} if hasattr(tarfile, "tar_filter") else {}))
    again = tmp_path / "again.tar"
    pack("--from", rootfs, exe, again)          # the program's guest path, inside rootfs
    assert sorted(tarfile.open(again).getnames()) == sorted(tarfile.open(first).getnames())
    got = cli(["--no-trace", "--root", str(again), "--cwd", "/", str(exe)])
    assert got.returncode == 0 and got.stdout == native([str(exe)]).stdout


def test_symlinks_on_the_way_are_kept(tmp_path):
    exe = tmp_path / "qsort"
    shutil.copy2(built("qsort", "pie"), exe)
    tar = tmp_path / "q.tar"
    pack("--no-run", exe, tar)
    from emutrace.loader.elf import parse_elf
    interp = parse_elf(str(exe), exe.read_bytes()).interp
    with tarfile.open(tar) as tf:
        members = {m.name: m for m in tf.getmembers()}
    # every symlink the host has on the way to the interpreter is a symlink in the archive
    path, checked = "", 0
    todo = [c for c in interp.split("/") if c]
    while todo:
        path = path + "/" + todo.pop(0)
        if os.path.islink(path):
            m = members[path.lstrip("/")]
            assert m.issym() and m.linkname == os.readlink(path)
            target = os.readlink(path)
            todo = [c for c in target.split("/") if c] + todo
            path = "" if target.startswith("/") else os.path.dirname(path)
            checked += 1
        else:
            assert path.lstrip("/") in members
    assert members[path.lstrip("/")].isreg()
    assert "etc/ld.so.cache" in members or not os.path.exists("/etc/ld.so.cache")
    r = cli(["--no-trace", "--root", str(tar), "--cwd", "/", str(exe)])
    assert r.returncode == 0 and r.stdout == native([str(exe)]).stdout


def test_runpath_origin_libraries_are_packed(tmp_path):
    app = tmp_path / "app"
    app.mkdir()
    shutil.copy2(built("demo", "pie"), app / "demo")
    shutil.copy2(built("libdemo", "pie"), app / "libdemo.so")      # found through RUNPATH $ORIGIN
    tar = tmp_path / "demo.tar"
    pack("--no-run", app / "demo", tar)
    assert str(app / "libdemo.so").lstrip("/") in tarfile.open(tar).getnames()
    want = native([str(app / "demo")])
    got = cli(["--no-trace", "--root", str(tar), "--cwd", "/", str(app / "demo")])
    assert got.returncode == want.returncode == 0 and got.stdout == want.stdout


def test_discovery_run_adds_files_the_program_opens(tmp_path):
    cat = system_program("cat")
    if cat is None:
        pytest.skip("no cat on this host")
    note = tmp_path / "note.txt"
    note.write_text("packed by discovery\n")
    with_run, without = tmp_path / "run.tar", tmp_path / "norun.tar"
    pack(cat, with_run, "--", note)
    pack("--no-run", cat, without)
    names = lambda t: set(tarfile.open(t).getnames())
    assert str(note).lstrip("/") in names(with_run)
    assert str(note).lstrip("/") not in names(without)
    got = cli(["--no-trace", "--root", str(with_run), "--cwd", "/", cat, str(note)])
    assert got.returncode == 0 and got.stdout == b"packed by discovery\n"
    missing = cli(["--no-trace", "--root", str(without), "--cwd", "/", cat, str(note)])
    assert missing.returncode == 1 and b"No such file or directory" in missing.stderr


def test_sysroot_errors(tmp_path):
    (tmp_path / "script").write_text("#!/bin/sh\necho hi\n")
    os.chmod(tmp_path / "script", 0o755)
    for args, status in ((["sysroot", str(tmp_path / "nope"), str(tmp_path / "o.tar")], 127),
                         (["sysroot", str(tmp_path / "script"), str(tmp_path / "o.tar")], 126),
                         (["sysroot", "only-one-arg"], 125),
                         (["sysroot", "--bogus", "a", "b"], 125)):
        r = cli(args)
        err = r.stderr.decode()
        assert r.returncode == status, (args, err)
        assert err.startswith("emutrace: ") and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "o.tar").exists() and not (tmp_path / "o.tar.part").exists()


def test_root_option_takes_tar_but_not_other_files(tmp_path):
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\0\1\2" * 400)
    r = cli(["--root", str(junk), "/bin/true"])
    assert r.returncode == 125
    assert r.stderr.decode() == f"emutrace: --root {junk}: not a directory or a tar archive\n"
    with pytest.raises(emutrace.ApiError):
        emutrace.Session(["/bin/true"], root=str(junk))


# ---------------------------------------------------------------- the tar tree itself

def _tar_bytes(compress=""):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:" + compress) as tf:
        def add(name, kind=tarfile.REGTYPE, data=b"", mode=0o644, link="", mtime=1_600_000_000):
            ti = tarfile.TarInfo(name)
            ti.type, ti.mode, ti.linkname, ti.mtime, ti.uid, ti.gid = kind, mode, link, mtime, 1000, 100
            ti.size = len(data) if kind == tarfile.REGTYPE else 0
            tf.addfile(ti, io.BytesIO(data) if data else None)
        add("./", tarfile.DIRTYPE, mode=0o755)
        add("./etc/", tarfile.DIRTYPE, mode=0o750)
        add("./etc/a", data=b"hello tar\n")
        add("./etc/b", tarfile.SYMTYPE, link="a")
        add("./etc/c", tarfile.LNKTYPE, link="./etc/a")
        add("usr/bin/x", data=b"\x7fELF...", mode=0o755)      # no members for usr/ and usr/bin/
        add("lib", tarfile.SYMTYPE, link="/usr/bin")
        add("../../escape", data=b"stays inside")
    return buf.getvalue()


@pytest.mark.parametrize("compress", ["", "gz", "xz"])
def test_tar_tree_through_the_vfs(tmp_path, compress):
    path = tmp_path / f"root.tar{'.' + compress if compress else ''}"
    path.write_bytes(_tar_bytes(compress))
    assert is_tar_archive(str(path))
    vfs = Vfs(str(path))
    canon, node = vfs.resolve("/lib/x")
    assert canon == "/usr/bin/x" and node.stat.type == S_IFREG and node.stat.mode & 0o777 == 0o755
    assert vfs.read_host(node) == b"\x7fELF..."
    _, a = vfs.resolve("/etc/b")
    assert vfs.read_host(a) == b"hello tar\n"
    assert a.stat.nlink == 2 and a.stat.uid == 1000 and a.stat.gid == 100
    assert a.stat.mtime_ns == 1_600_000_000 * 10**9
    _, c = vfs.resolve("/etc/c")
    assert c.stat.ino == a.stat.ino
    link = vfs.lookup("/etc/b", follow=False)
    assert link.stat.type == S_IFLNK and vfs.readlink_node(link) == "a"
    etc = vfs.lookup("/etc")
    assert etc.stat.type == S_IFDIR and etc.stat.mode & 0o777 == 0o750
    assert sorted(n for n, _, _ in vfs.listdir(etc)) == [".", "..", "a", "b", "c"]
    assert {"etc", "usr", "lib", "escape"} <= {n for n, _, _ in vfs.listdir(vfs.lookup("/"))}
    assert vfs.lookup("/usr").stat.type == S_IFDIR
    assert vfs.read_host(vfs.lookup("/escape")) == b"stays inside"
    # a guest write goes to the overlay; the archive is never changed
    before = path.read_bytes()
    vfs.writable(vfs.lookup("/etc/a")).ov.data[:5] = b"HELLO"
    assert bytes(vfs.lookup("/etc/a").ov.data) == b"HELLO tar\n" and path.read_bytes() == before


def test_tar_tree_rejects_broken_archives(tmp_path):
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(b"\x1f\x8b" + b"not really gzip")
    with pytest.raises(TarRootError) as e:
        TarTree(str(bad))
    assert isinstance(e.value, OSError) and e.value.filename == str(bad)
    r = cli(["--root", str(bad), "/bin/true"])
    assert r.returncode == 125 and r.stderr.decode().startswith("emutrace: ")
    assert r.stderr.count(b"\n") == 1 and b"Traceback" not in r.stderr
