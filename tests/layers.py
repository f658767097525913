"""The installed layout of the source tree, for tools that read a package from the file system.

setuptools installs the design card's folders loader/ and syscalls/ as emutrace.loader and
emutrace.kernel (pyproject.toml's package-dir). An editable install resolves those names through
an import hook, but grimp (and so import-linter) walks a package's folder, where they are absent.
`assemble` copies the tree into the layout `pip install .` produces, so the import graph is the
installed one; `python tests/layers.py` runs lint-imports on it (CI does that).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "emutrace"


def package_dirs(pyproject: Path = ROOT / "pyproject.toml") -> dict:
    """{'emutrace.kernel': 'syscalls', ...} from [tool.setuptools.package-dir] (read by hand: the
    tomllib module is 3.11+)."""
    text = pyproject.read_text()
    m = re.search(r"^\[tool\.setuptools\.package-dir\]\n(.*?)(?=^\[|\Z)", text, re.M | re.S)
    if not m:
        return {}
    return dict(re.findall(r'^"([\w.]+)"\s*=\s*"([^"]+)"', m.group(1), re.M))


def assemble(dest: Path) -> Path:
    """Copy the package into dest as it is installed; returns dest (to put on sys.path)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.so", "*.egg-info")
    shutil.copytree(ROOT / PACKAGE, dest / PACKAGE, ignore=ignore)
    for name, folder in sorted(package_dirs().items()):
        shutil.copytree(ROOT / folder, dest.joinpath(*name.split(".")), ignore=ignore)
    return dest


def lint_imports(dest: Path) -> subprocess.CompletedProcess:
    """Run lint-imports with the checkout's .importlinter on the assembled copy at dest."""
    env = dict(os.environ, PYTHONPATH=str(dest))
    exe = shutil.which("lint-imports", path=os.path.dirname(sys.executable)) or shutil.which("lint-imports")
    cmd = [exe] if exe else [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command as c; sys.exit(c())"]
    return subprocess.run(cmd + [str(ROOT / ".importlinter"), "--no-cache"], cwd=dest, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)


def sibling_cycles(graph, package: str = PACKAGE) -> list:
    """Every pair of sibling modules or packages, at any depth under package, of which each reaches
    the other through some chain of imports (a package counts with everything inside it)."""
    pairs = []
    parents = [package] + sorted(m for m in graph.modules if m.startswith(package + ".") and graph.find_children(m))
    for parent in parents:
        kids = sorted(graph.find_children(parent))
        for i, a in enumerate(kids):
            for b in kids[i + 1:]:
                if (graph.chain_exists(a, b, as_packages=True) and graph.chain_exists(b, a, as_packages=True)):
                    pairs.append((a, b))
    return pairs


def sibling_cycles_of(dest: Path) -> subprocess.CompletedProcess:
    """`python tests/layers.py cycles` on the assembled copy at dest, in a fresh interpreter (this
    one may have imported the checkout's emutrace, which grimp would then find instead)."""
    env = dict(os.environ, PYTHONPATH=str(dest))
    return subprocess.run([sys.executable, __file__, "cycles", "--here"], cwd=dest, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)


def _print_cycles() -> int:
    import grimp                      # (a test dependency: only this command needs it)
    graph = grimp.build_graph(PACKAGE, exclude_type_checking_imports=True)
    pairs = sibling_cycles(graph)
    for a, b in pairs:
        chain = graph.find_shortest_chain(a, b, as_packages=True) or ()
        back = graph.find_shortest_chain(b, a, as_packages=True) or ()
        print(f"{a} <-> {b}: {' -> '.join(chain)} ; {' -> '.join(back)}")
    print(f"{len(graph.modules)} modules, {len(pairs)} sibling pairs that reach each other")
    return 1 if pairs else 0


def main(argv=None) -> int:
    """`layers.py` runs lint-imports and the sibling check on the installed layout; `layers.py
    lint` or `layers.py cycles` runs one of them. Exit status 0 when every check passes."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:2] == ["cycles", "--here"]:
        return _print_cycles()
    what = argv[0] if argv else "all"
    if what not in ("all", "lint", "cycles"):
        sys.stderr.write("usage: python tests/layers.py [lint|cycles]\n")
        return 2
    status = 0
    with tempfile.TemporaryDirectory(prefix="emutrace-layers-") as tmp:
        dest = assemble(Path(tmp))
        checks = {"lint": lint_imports, "cycles": sibling_cycles_of}
        for name, check in checks.items():
            if what in ("all", name):
                proc = check(dest)
                sys.stdout.write(proc.stdout)
                status = status or proc.returncode
    return status


if __name__ == "__main__":
    sys.exit(main())

