"""Overlay files are sparse, as tmpfs files are: a hole costs neither the disk quota nor the
host, and reads as zeros (syscalls/filedata.py)."""
import random

from conftest import emutrace, native

from emutrace.kernel.filedata import PAGE, FileData


def test_file_data_behaves_as_the_bytearray_it_replaces():
    """Random writes, truncations and reads, against a bytearray doing the same."""
    rng = random.Random(17)
    for _ in range(40):
        ref, fd = bytearray(), FileData()
        for _ in range(60):
            op = rng.random()
            if op < 0.5:
                off = rng.randrange(0, 5 * PAGE)
                data = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 2 * PAGE)))
                end = off + len(data)
                if end > len(ref):
                    ref.extend(bytes(end - len(ref)))
                    fd.resize(end)
                ref[off:end] = data
                fd[off:end] = data
            elif op < 0.7:
                size = rng.randrange(0, 6 * PAGE)
                if size < len(ref):
                    del ref[size:]
                else:
                    ref.extend(bytes(size - len(ref)))
                fd.resize(size)
            else:
                off = rng.randrange(0, 6 * PAGE)
                n = rng.randrange(0, 3 * PAGE)
                assert fd[off:off + n] == bytes(ref[off:off + n])
            assert len(fd) == len(ref)
        assert bytes(fd) == bytes(ref)
        assert fd.held() <= (len(ref) + PAGE - 1) // PAGE * PAGE


def test_a_hole_holds_nothing():
    fd = FileData()
    fd.resize(1 << 40)
    assert fd.held() == 0 and fd[123456:123460] == bytes(4)
    assert fd.new_pages((1 << 40) - 1, 1 << 40) == 1
    fd[(1 << 40) - 1:1 << 40] = b"x"
    assert fd.held() == PAGE and fd[(1 << 40) - 2:1 << 40] == b"\0x"
    assert fd.image(1 << 30) is None and len(fd.page_digest()) == 64
    fd.resize(10)
    assert fd.held() == 0 and bytes(fd) == bytes(10)


SCRIPT = ("truncate -s 1T {d}/big && stat -c '%s %b' {d}/big && printf x >> {d}/big && "
          "stat -c '%s %b' {d}/big && tail -c 1 {d}/big && dd if={d}/big bs=1 skip=4096 count=3 2>/dev/null "
          "| od -An -tx1 && truncate -s 5000 {d}/big && stat -c '%s %b' {d}/big && rm {d}/big")


def test_a_sparse_terabyte_file_like_tmpfs():
    """truncate -s 1T succeeds under the default 1 GiB quota and holds no pages until one is
    written, as on Linux's tmpfs (/dev/shm, natively)."""
    n = native(["/bin/sh", "-c", SCRIPT.format(d="/dev/shm")])
    # (a fresh directory: the guest sees the host's /tmp through its overlay, and a host /tmp/big
    # must not change the answer)
    e = emutrace(["--no-trace", "/bin/sh", "-c", 'd=$(mktemp -d) && ' + SCRIPT.format(d="$d")])
    assert e.returncode == 0, e.stderr
    assert e.stdout == n.stdout, (e.stdout, n.stdout)
    assert e.stdout.startswith(b"1099511627776 0\n1099511627777 8\nx")


def test_writes_into_holes_are_charged_to_the_quota():
    """Writes scattered over a huge sparse file still stop at --max-disk with ENOSPC."""
    e = emutrace(["--no-trace", "--max-disk", "8M", "/bin/sh", "-c",
                  "d=$(mktemp -d); truncate -s 1T $d/big; i=0; while [ $i -lt 64 ]; do "
                  "dd if=/dev/zero of=$d/big bs=1M count=1 seek=$((i * 1024)) conv=notrunc 2>/dev/null "
                  "|| break; i=$((i + 1)); done; echo $i"])
    assert e.returncode == 0, e.stderr
    assert e.stdout == b"7\n", e.stdout
