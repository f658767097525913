"""Function-local imports say why they are there (issue #19: one that dodges an import cycle counts
as the cycle, so the only reason left for one is a cost it defers, and the code says which).

Each run of consecutive imports inside a function must carry a comment on one of its lines or on
the line just above it. The sibling-cycle check (tests/layers.py) counts these imports too, so a
comment cannot hide a cycle; this test keeps the reason written down."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("emutrace", "loader", "syscalls")


def _function_imports(tree):
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    yield node.lineno


def unexplained_imports(root: Path = ROOT):
    """[(path, line number, text)] of function-local import runs with no comment."""
    found = []
    for pkg in PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            lines = path.read_text().split("\n")
            numbers = sorted(set(_function_imports(ast.parse("\n".join(lines)))))
            runs = []
            for n in numbers:
                if runs and n == runs[-1][-1] + 1:
                    runs[-1].append(n)
                else:
                    runs.append([n])
            for run in runs:
                above = lines[run[0] - 2].strip() if run[0] >= 2 else ""
                if above.startswith("#") or any("#" in lines[n - 1] for n in run):
                    continue
                found.append((str(path.relative_to(root)), run[0], lines[run[0] - 1].strip()))
    return found


def test_every_function_local_import_says_why():
    assert unexplained_imports() == []


def test_the_check_finds_an_unexplained_import(tmp_path):
    pkg = tmp_path / "emutrace"
    pkg.mkdir()
    (pkg / "m.py").write_text("def f():\n    import json\n    return json\n\n"
                              "def g():\n    import zlib     # deferred: a reason\n    import bz2\n    return zlib, bz2\n")
    for other in PACKAGES[1:]:
        (tmp_path / other).mkdir()
    assert unexplained_imports(tmp_path) == [("emutrace/m.py", 2, "import json")]
