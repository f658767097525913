"""A compiled event path built from older C sources is found and not used (sourcedigest.py).

An editable install keeps its first build across a `git pull`; ABI_VERSION alone let an old
module load and leave its new parts unused, so a run fell back to the pure counter silently.
"""
import shutil
import subprocess
import sys

import pytest

from emutrace.machine import native, sourcedigest


def _copy_sources(tmp_path):
    for path in sourcedigest._sources(sourcedigest.HERE):
        shutil.copy(path, tmp_path / path.name)
    shutil.copy(sourcedigest.HERE / "_abi.h", tmp_path / "_abi.h")
    return tmp_path


def test_digest_follows_the_c_sources_and_the_header_generator(tmp_path):
    folder = _copy_sources(tmp_path)
    first = sourcedigest.digest(folder)
    assert first == sourcedigest.digest(sourcedigest.HERE)
    (folder / "_abi.h").write_text((folder / "_abi.h").read_text() + "/* regenerated */\n")
    assert sourcedigest.digest(folder) == first            # a generated header follows abi.py
    c = folder / "_insncount.c"
    c.write_bytes(c.read_bytes() + b"\n")
    changed = sourcedigest.digest(folder)
    assert changed != first
    (folder / "abi.py").write_text((folder / "abi.py").read_text() + "\n")
    assert sourcedigest.digest(folder) not in (first, changed)
    for path in folder.glob("*.c"):
        path.unlink()
    assert sourcedigest.digest(folder) is None              # an installed wheel: nothing to compare


def test_the_build_in_use_is_current():
    if native.native is None:
        pytest.skip(f"the compiled event path is not in use ({native.PATH})")
    assert native.native.SOURCE_DIGEST == sourcedigest.digest(), \
        "the compiled module is older than emutrace/machine's C sources: rebuild it"


def test_a_build_older_than_its_sources_falls_back_with_one_line():
    if native.native is None:
        pytest.skip(f"the compiled event path is not in use ({native.PATH})")
    code = ("import emutrace.machine.sourcedigest as d; d.digest = lambda folder=None: 'other'\n"
            "from emutrace.machine import native; print(native.PATH)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "pure Python (the compiled event path is older than its sources)"
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("emutrace: the compiled event path was built from other C sources")
