"""Hostile programs stay inside the sandbox: no reads outside --root, no writes to the host,
no network, bounded time and memory."""
import os
import resource
import shutil

import pytest

from conftest import built, emutrace, status_of


@pytest.fixture
def jail(tmp_path):
    """A root directory holding a static hostile program, a secret outside it, and a decoy inside."""
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    (root / "etc" / "hostname").write_text("inside-the-root\n")
    (tmp_path / "secret.txt").write_text("HOST SECRET\n")
    return root, tmp_path


def _install(root, prog):
    src = built(prog, "musl-static")
    dst = root / prog
    shutil.copy2(src, dst)
    return "/" + prog


def test_dotdot_and_proc_self_root_stay_inside(jail):
    root, outside = jail
    prog = _install(root, "escape")
    paths = ["../../../../../secret.txt", "/../secret.txt", "/proc/self/root/../secret.txt",
             "/proc/self/root/etc/hostname", "../../../../etc/hostname", "/proc/self/cwd/../secret.txt",
             str(outside / "secret.txt")]
    e = emutrace(["--no-trace", "--root", str(root), "--cwd", "/", prog, *paths])
    out = e.stdout.decode()
    assert "HOST SECRET" not in out
    assert "/proc/self/root/etc/hostname: inside-the-root" in out
    assert "../../../../etc/hostname: inside-the-root" in out
    assert f"{outside}/secret.txt: ENOENT" in out


def test_symlinks_stay_inside(jail):
    root, outside = jail
    prog = _install(root, "escape_symlink")
    (root / "tmp").mkdir()
    e = emutrace(["--no-trace", "--root", str(root), "--cwd", "/", prog, "/tmp", "etc/hostname"])
    out = e.stdout.decode()
    assert "inside-the-root" in out and "HOST SECRET" not in out
    e = emutrace(["--no-trace", "--root", str(root), "--cwd", "/", prog, "/tmp",
                  os.path.relpath(outside / "secret.txt", "/")])
    assert "HOST SECRET" not in e.stdout.decode()
    assert not list((root / "tmp").iterdir())          # the guest's symlinks never reached the host


def test_writes_go_to_the_overlay_not_the_host(jail):
    root, outside = jail
    prog = _install(root, "writer")
    targets = ["/etc/hostname", "/new.txt", "/etc/newdir/", str(outside / "planted.txt")]
    before = sorted(p.name for p in root.rglob("*"))
    e = emutrace(["--no-trace", "--root", str(root), "--cwd", "/", prog, *targets])
    out = e.stdout.decode()
    assert "write /new.txt: ok" in out and "read /new.txt: written by writer: /new.txt" in out
    assert "read /etc/hostname: written by writer" in out      # the guest sees its own write
    assert (root / "etc" / "hostname").read_text() == "inside-the-root\n"
    assert sorted(p.name for p in root.rglob("*")) == before
    assert not (outside / "planted.txt").exists()


def test_rw_grant_writes_for_real(tmp_path):
    grant = tmp_path / "out"
    grant.mkdir()
    prog = built("writer", "pie")
    e = emutrace(["--no-trace", "--rw", str(grant), prog, str(grant / "a.txt"), "/tmp/not-granted.txt"])
    assert e.returncode == 0, e.stderr
    assert (grant / "a.txt").read_text().startswith("written by writer")
    assert not os.path.exists("/tmp/not-granted.txt")


def test_no_network_without_net():
    prog = built("sock", "pie")
    e = emutrace(["--no-trace", prog, "9", "192.0.2.1"])
    assert b"connect 192.0.2.1:9: ENETUNREACH" in e.stdout
    e = emutrace(["--no-trace", prog, "9"])          # the guest's own loopback: nothing listens
    assert b"connect 127.0.0.1:9: ECONNREFUSED" in e.stdout


def test_endless_loop_timeout():
    e = emutrace(["--no-trace", "--timeout", "1", built("spin", "pie")], timeout=60)
    assert e.returncode == 124 and b"time limit" in e.stderr


def test_endless_loop_max_insns():
    e = emutrace(["--no-trace", "--max-insns", "2000000", built("spin", "pie")], timeout=60)
    assert e.returncode == 124 and b"instruction limit of 2000000" in e.stderr


def test_memory_bomb_is_bounded():
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    e = emutrace(["--no-trace", "--max-mem", "256M", built("membomb", "pie")], timeout=300)
    out = e.stdout.decode()
    assert e.returncode == 0, (out, e.stderr)          # malloc returned NULL: the program saw ENOMEM
    mib = int(out.split("allocated ")[1].split()[0])
    assert 100 <= mib <= 256
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    assert max(before, peak_kib) < 1_200_000          # host RSS stays far below the guest's appetite


def test_proc_and_dev_are_synthesized():
    e = emutrace(["--no-trace", "/bin/cat", "/proc/cpuinfo", "/proc/self/status", "/proc/sys/kernel/hostname"])
    out = e.stdout.decode()
    assert "emutrace virtual x86-64 CPU" in out and "Pid:\t1000" in out and out.endswith("emutrace\n")
    e = emutrace(["--no-trace", "/usr/bin/head", "-c", "8", "/dev/zero"])
    assert e.stdout == b"\0" * 8
