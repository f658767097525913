"""Each system call's name is spelled once, in its row of syscalls/table.py (blink's shape): the
row binds the number, the name, the trace signature and the handler; the handler map and the
deferred modules' lists are derived from the rows."""
import ast
import subprocess
import sys

import layers

from emutrace.kernel import handlers, table
from emutrace.kernel.dispatch import HANDLERS

ROOT = layers.ROOT
NAMES = frozenset(table.BY_NAME)


def test_every_row_with_a_handler_is_bound_to_it():
    for row in table.ROWS:
        if not row.handler:
            continue
        fn = HANDLERS[row.name]
        if getattr(fn, "lazy_module", None):
            assert fn.lazy_module == row.handler_module and row.handler_module in handlers.LAZY_MODULES
            continue
        assert fn.__module__ == f"emutrace.kernel.{row.handler_module}", row
        assert fn.__name__ == row.handler_function, row
    assert set(HANDLERS) == {r.name for r in table.ROWS if r.handler}


def test_the_lazy_lists_are_the_rows_of_the_deferred_modules():
    assert set(handlers.LAZY) == handlers.LAZY_MODULES
    for module, names in handlers.LAZY.items():
        assert names and set(names) == {r.name for r in table.ROWS if r.handler_module == module}


MODULES = frozenset(r.handler_module for r in table.ROWS if r.handler)


def spelled_names(source: str, registry: bool) -> list:
    """(line, name) of each call's name spelled in a registration: the strings of a
    `syscall(...)` decorator anywhere, and in the handler registry (registry=True) any string
    that names a call and not a handler module (LAZY lists)."""
    found = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "syscall":
            found += [(node.lineno, a.value) for a in node.args if isinstance(a, ast.Constant)]
        elif (registry and isinstance(node, ast.Constant) and node.value in NAMES
              and node.value not in MODULES):
            found.append((node.lineno, node.value))
    return sorted(set(found))


def test_no_kernel_module_spells_a_syscall_name_to_register_it():
    """(Other tables keyed by calls, such as inotify's events per call, use the names; they
    do not declare handlers.)"""
    bad = []
    for path in sorted((ROOT / "syscalls").glob("*.py")):
        if path.name == "table.py":
            continue
        found = spelled_names(path.read_text(), registry=path.name == "handlers.py")
        bad += [f"{path.name}:{line}: {name!r}" for line, name in found]
    assert not bad, "spelled outside the table's rows:\n" + "\n".join(bad)


def test_the_check_finds_a_decorator_and_a_list():
    planted = ('@syscall("read", "pread64")\ndef sys_read(proc, fd, buf, n):\n    return 0\n'
               'LAZY = {"net": ("socket", "bind")}\nOTHER = ("not a call",)\n')
    assert spelled_names(planted, registry=True) == [(1, "pread64"), (1, "read"), (4, "bind"), (4, "socket")]
    assert spelled_names(planted, registry=False) == [(1, "pread64"), (1, "read")]


def test_the_rows_are_current():
    """tools/syscall_rows.py (run after a merge moves handlers) would change nothing."""
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "syscall_rows.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
