"""Large host files are read as views of the file, not copies (emutrace.machine.hostmem's
file_view): the loader and the tracer read them as they read bytes, and a program's segments
leave the host's resident set once they are copied into guest memory."""
import os
import shutil
import subprocess
import sys

import pytest
from conftest import system_program


from emutrace.kernel.hosttree import DirTree
from emutrace.machine.hostmem import FILE_VIEW_MIN, file_view, forget_resident


def test_a_large_file_is_a_view_and_a_small_one_a_copy(tmp_path):
    big, small = tmp_path / "big", tmp_path / "small"
    body = bytes(range(256)) * (FILE_VIEW_MIN // 256 + 17)
    big.write_bytes(body)
    small.write_bytes(b"\x7fELF" + bytes(100))
    tree = DirTree(str(tmp_path))
    view, version = tree.read_versioned(tree.join("/big"))
    assert not isinstance(view, bytes) and len(view) == len(body) and version[3] == len(body)
    assert view[:4] == body[:4] and view[-3:] == body[-3:] and view.find(b"\xff\x00", 10) == 255
    forget_resident(view, 4096, 8192)            # (pages read again come back from the file)
    assert view[4096:4100] == body[4096:4100]
    copy, _ = tree.read_versioned(tree.join("/small"))
    assert isinstance(copy, bytes) and copy.startswith(b"\x7fELF")
    assert file_view(open(small, "rb"), len(copy)) is None


def _peak_rss(cmd):
    """Peak RSS in MiB of `cmd` (GNU time's %M), or None without GNU time."""
    if not os.path.exists("/usr/bin/time"):
        return None
    r = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], capture_output=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    return int(r.stderr.decode().strip().splitlines()[-1]) // 1024


@pytest.mark.skipif(shutil.which("node") is None or shutil.which("qemu-x86_64") is None,
                    reason="needs node and qemu-x86_64")
def test_node_holds_no_copy_of_its_100_mb_binary():
    """#16's memory target on node: peak RSS <= 2 x qemu-user's + 64 MiB (it was 355 MiB against
    a bound of 282 while node's 99 MB binary was held as Python bytes for the whole run)."""
    script = os.path.join(os.path.dirname(__file__), "..", "bench", "progs", "nodework.js")
    node = system_program("node")
    qemu = _peak_rss(["qemu-x86_64", node, script])
    ours = _peak_rss([sys.executable, "-m", "emutrace", "--no-trace", node, script])
    if qemu is None or ours is None:
        pytest.skip("no GNU time")
    assert ours <= 2 * qemu + 64, (ours, qemu)
