"""One module, one spelling: every import of emutrace's own modules is absolute and by the
installed name (`from emutrace.kernel.files import OpenFile`, never `.files`, `..machine` or
`syscalls.files`), no module is loaded under two names, and a bare clone (no install, the
source tree on the path) imports emutrace.kernel and emutrace.loader from syscalls/ and loader/.

tools/respell_imports.py rewrites a tree to that spelling (and is re-run after merges)."""
import ast
import os
import subprocess
import sys
import sysconfig

import layers

ROOT = layers.ROOT
SOURCES = ("emutrace", "syscalls", "loader")
# the design card's folders: never importable by their folder names
FOLDER_NAMES = ("syscalls", "loader")


def spellings(source: str) -> list:
    """(line, text) of each import that spells one of emutrace's modules otherwise than
    absolutely by its installed name."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                out.append((node.lineno, "from " + "." * node.level + (node.module or "") + " import ..."))
            elif node.module and node.module.split(".")[0] in FOLDER_NAMES:
                out.append((node.lineno, f"from {node.module} import ..."))
        elif isinstance(node, ast.Import):
            out += [(node.lineno, f"import {a.name}") for a in node.names if a.name.split(".")[0] in FOLDER_NAMES]
    return out


def test_every_import_spells_the_installed_name():
    bad = []
    for top in SOURCES + ("tests", "tools", "bench"):
        for path in sorted((ROOT / top).rglob("*.py")):
            if "out" in path.relative_to(ROOT).parts:
                continue
            bad += [f"{path.relative_to(ROOT)}:{line}: {text}" for line, text in spellings(path.read_text())]
    assert not bad, "spelt otherwise (tools/respell_imports.py respells them):\n" + "\n".join(bad)


def test_the_check_finds_each_other_spelling():
    planted = ("from .files import OpenFile\nfrom ..machine import cpu\nfrom syscalls.table import ROWS\n"
               "import loader.elf\nfrom emutrace.kernel.files import OpenFile\nimport emutrace.loader.elf\n")
    assert [line for line, _ in spellings(planted)] == [1, 2, 3, 4]


def test_the_respelling_script_would_change_nothing():
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "respell_imports.py"), "--check"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr


def _fresh(code: str, cwd, isolated: bool = False) -> str:
    """Run code in a fresh interpreter; isolated: without site (no editable install's finder),
    the source tree and the installed dependencies (unicorn, capstone) on the path."""
    if isolated:
        deps = sysconfig.get_paths()["purelib"]
        code = f"import sys; sys.path[:0] = [{str(cwd)!r}]; sys.path.append({deps!r})\n" + code
        argv = [sys.executable, "-S", "-c", code]
    else:
        argv = [sys.executable, "-c", code]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    return r.stdout


LOAD_ALL = (
    "import importlib, pkgutil\n"
    "import emutrace, emutrace.kernel, emutrace.loader\n"
    "for pkg in (emutrace, emutrace.kernel, emutrace.loader):\n"
    "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
    "        if not m.name.endswith('__main__'):\n"
    "            importlib.import_module(m.name)\n"
    "files = {}\n"
    "for name, mod in list(sys.modules.items()):\n"
    "    f = getattr(mod, '__file__', None)\n"
    "    if f and (name.startswith('emutrace') or name.split('.')[0] in ('syscalls', 'loader')):\n"
    "        files.setdefault(os.path.realpath(f), []).append(name)\n"
    "twice = {f: n for f, n in files.items() if len(n) > 1}\n"
    "print(repr(twice) if twice else 'once', emutrace.kernel.__path__[0])\n")


def test_no_module_is_loaded_under_two_names():
    out = _fresh("import os, sys\n" + LOAD_ALL, ROOT)
    assert out.startswith("once"), out


def test_a_bare_clone_imports_the_kernel_and_the_loader_from_their_folders(tmp_path):
    """A copy of the tree, never installed, with nothing but the copy and the dependencies on
    the path: emutrace.kernel is its syscalls/ and emutrace.loader its loader/, each loaded once."""
    clone = tmp_path / "clone"
    files = subprocess.run(["git", "ls-files", *SOURCES], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    for rel in files:                       # (the sources and their data: no built extension)
        if not rel.endswith((".c", ".h")):
            dest = clone / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes((ROOT / rel).read_bytes())
    out = _fresh("import os, sys\n" + LOAD_ALL, clone, isolated=True)
    assert out.startswith("once"), out
    assert os.path.realpath(out.split()[1]) == os.path.realpath(clone / "syscalls")
