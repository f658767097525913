"""Rooms small enough to know: no Python or C source file of the project is over MAX_LINES lines,
except the generated tables named in GENERATED (each written by a generator from a source that
is itself held to the limit). A file that grows past it is split by subject, as
test_strace_format.py was into test_strace_ref_*.py, test_strace_uniform.py and stracemem.py."""
from pathlib import Path

import layers

ROOT = layers.ROOT
MAX_LINES = 800
FOLDERS = ("emutrace", "loader", "syscalls", "tests", "bench", "tools", "bins", "examples")
SUFFIXES = (".py", ".c", ".h")
SKIP_DIRS = {"__pycache__", "out", "build"}      # (bins/out: the built test programs)
# generated from a table written once (machine/abi.py writes _abi.h): their size is the table's
GENERATED = ("emutrace/machine/_abi.h",)


def sources():
    for top in FOLDERS:
        for path in sorted((ROOT / top).rglob("*")):
            if path.suffix in SUFFIXES and path.is_file() and not SKIP_DIRS & set(path.relative_to(ROOT).parts):
                yield path


def oversized(paths, root: Path = ROOT, limit: int = MAX_LINES) -> list:
    """'file: N lines' for each of `paths` (under `root`) over `limit` lines and not a generated
    table."""
    out = []
    for path in paths:
        rel = path.relative_to(root).as_posix()
        if rel in GENERATED:
            continue
        with open(path, "rb") as f:
            n = sum(1 for _ in f)
        if n > limit:
            out.append(f"{rel}: {n} lines")
    return out


def test_no_source_file_is_over_the_limit():
    paths = list(sources())
    assert len(paths) > 300 and any(p.name == "_native.c" for p in paths)      # (the walk sees the tree)
    bad = oversized(paths)
    assert not bad, "split by subject:\n" + "\n".join(bad)


def test_the_generated_tables_exist():
    """A name left in GENERATED after its file is gone (or moved) would exempt nothing, silently."""
    for rel in GENERATED:
        assert (ROOT / rel).is_file(), rel


def test_the_check_finds_a_long_file(tmp_path):
    long, short, table = tmp_path / "long.py", tmp_path / "short.c", tmp_path / "emutrace/machine/_abi.h"
    table.parent.mkdir(parents=True)
    long.write_text("x = 1\n" * (MAX_LINES + 1))
    short.write_text("int x;\n" * MAX_LINES)
    table.write_text("#define X 1\n" * (MAX_LINES + 1))
    assert oversized([long, short, table], root=tmp_path) == [f"long.py: {MAX_LINES + 1} lines"]
