"""The layers hold: machine < kernel < loader < session < tracer < face (.importlinter), no two
sibling modules or packages reach each other, nothing imports the folders by their own names,
and an installed copy holds only `emutrace`."""
import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import layers

ROOT = layers.ROOT
SOURCE_FOLDERS = ("emutrace", "syscalls", "loader", "tests", "bench", "bins", "examples")


@pytest.fixture(scope="module")
def installed_layout(tmp_path_factory):
    return layers.assemble(tmp_path_factory.mktemp("layout"))


def test_lint_imports_keeps_every_contract(installed_layout):
    pytest.importorskip("importlinter")
    proc = layers.lint_imports(installed_layout)
    assert proc.returncode == 0, proc.stdout
    assert "0 broken" in proc.stdout


def test_no_two_siblings_reach_each_other(installed_layout):
    pytest.importorskip("grimp")
    proc = layers.sibling_cycles_of(installed_layout)
    assert proc.returncode == 0, proc.stdout
    assert " 0 sibling pairs" in proc.stdout


def test_sibling_check_finds_a_cycle(tmp_path):
    """The check itself: a package whose two modules import each other (one of them inside a
    function, as cycles used to be dodged) is reported."""
    pytest.importorskip("grimp")
    pkg = tmp_path / "emutrace"
    (pkg / "inner").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "inner" / "__init__.py").write_text("")
    (pkg / "inner" / "a.py").write_text("from . import b\n")
    (pkg / "inner" / "b.py").write_text("def f():\n    from . import a\n")
    (pkg / "c.py").write_text("from .inner import a\n")
    proc = layers.sibling_cycles_of(tmp_path)
    assert proc.returncode == 1
    assert "emutrace.inner.a <-> emutrace.inner.b" in proc.stdout


def _imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and not node.level:
            yield node.lineno, node.module


def test_nothing_imports_the_folders_by_their_own_names():
    """syscalls/ and loader/ are emutrace.kernel and emutrace.loader: importing `syscalls.x` from
    a checkout would load a second copy of every module (and only work from the checkout)."""
    folders = set(layers.package_dirs().values())
    assert folders == {"syscalls", "loader"}
    bad = []
    for top in SOURCE_FOLDERS:
        for path in sorted((ROOT / top).rglob("*.py")):
            if "out" in path.relative_to(ROOT).parts:
                continue
            for line, name in _imports(path):
                if name.split(".")[0] in folders:
                    bad.append(f"{path.relative_to(ROOT)}:{line}: {name}")
    assert not bad, "\n".join(bad)


@pytest.mark.slow
def test_fresh_install_has_only_emutrace(tmp_path):
    """`pip install .` into a new virtual environment puts only emutrace* names into its
    site-packages, and the installed copy runs a program."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1")
    proc = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps",
                           "--no-cache-dir", str(ROOT)], cwd=str(tmp_path), env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    assert proc.returncode == 0, proc.stdout
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          stdout=subprocess.PIPE, universal_newlines=True, check=True).stdout.strip()
    names = sorted(n for n in os.listdir(site) if n != "__pycache__")
    assert names and all(n.startswith("emutrace") for n in names), names
    pkg = Path(site) / "emutrace"
    for sub in ("machine", "kernel", "loader", "decode", "cmds", "protos"):
        assert (pkg / sub / "__init__.py").is_file(), sub
    assert list((pkg / "protos").glob("*.conf"))
    # the installed copy runs: its dependencies come from this environment, emutrace from there
    deps = os.path.dirname(os.path.dirname(__import__("unicorn").__file__))
    run = subprocess.run([str(py), "-m", "emutrace", "--strace", "/bin/true"], cwd=str(tmp_path),
                         env=dict(env, PYTHONPATH=deps), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         universal_newlines=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "exit_group(0)" in run.stderr
    where = subprocess.run([str(py), "-c", "import emutrace.kernel as k; print(k.__file__)"],
                           cwd=str(tmp_path), env=dict(env, PYTHONPATH=deps), stdout=subprocess.PIPE, universal_newlines=True,
                           check=True).stdout
    assert where.startswith(site), where
