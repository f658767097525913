"""Files the program writes into the sandbox's overlay vanish with it: emutrace says so at exit,
in one line with the count, the bytes, the first paths and how to keep them; -q silences it,
--dump-dropped keeps them (and so says nothing), --rw writes them for real."""
from __future__ import annotations

from conftest import STILL_DIR, emutrace, system_program


def _write_two(d):
    return ["sh", "-c", f"echo hi > {d}/a; printf 12345 > {d}/b; cat {d}/a"]


def test_one_line_at_exit(tmp_path):
    r = emutrace(["--no-trace", *_write_two(tmp_path)], cwd=STILL_DIR)
    assert r.returncode == 0 and r.stdout == b"hi\n"
    assert r.stderr.decode() == (f"emutrace: the sandbox dropped 2 files (8 bytes) the program wrote: "
                                 f"{tmp_path}/a, {tmp_path}/b; keep them with --rw DIR or --dump-dropped DIR "
                                 f"(-q: no note)\n")
    assert not (tmp_path / "a").exists()


def test_quiet_and_kept(tmp_path):
    assert emutrace(["-q", "--no-trace", *_write_two(tmp_path)], cwd=STILL_DIR).stderr == b""
    r = emutrace(["--no-trace", "--dump-dropped", str(tmp_path / "dd"), *_write_two(tmp_path)], cwd=STILL_DIR)
    assert r.stderr == b"" and (tmp_path / "dd" / "index.json").exists()
    r = emutrace(["--no-trace", "--rw", str(tmp_path), *_write_two(tmp_path)], cwd=STILL_DIR)
    assert r.stderr == b"" and (tmp_path / "a").read_text() == "hi\n"


def test_nothing_written_nothing_said():
    r = emutrace(["--no-trace", system_program("true")], cwd=STILL_DIR)
    assert r.returncode == 0 and r.stderr == b""
