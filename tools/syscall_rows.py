"""Bind each system call's handler in its row of syscalls/table.py (blink's shape: one row holds
the number, the name, the trace signature and the handler), and drop the `@syscall("name")`
decorators that spelled the name a second time.

A row's last field names its handler: "fs" is fs.sys_<name>, "fs.writev" is fs.sys_writev (one
handler serving several calls, or a function named otherwise). The script reads the sources
(nothing is imported), so it can be run again after a merge brings decorated handlers back or
moves handlers to other modules (a split of fs.py): each row is pointed at the module that
defines its function now.

    python3 tools/syscall_rows.py          # rewrite syscalls/table.py and the handler modules
    python3 tools/syscall_rows.py --check  # exit 1 if anything would change
"""
from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

from rewrite import apply   # (tools/rewrite.py: the script's own folder is on sys.path)

ROOT = Path(__file__).resolve().parent.parent
KERNEL = ROOT / "syscalls"
TABLE = KERNEL / "table.py"
ROW = re.compile(r'^(    _row\((\d+), "([a-z0-9_]+)", "[^"]*", "[^"]*", "[^"]*")(?:, "([a-z0-9_.]+)")?\),(.*)$')
DECORATOR = re.compile(r'^@syscall\(([^)]*)\)\s*\n', re.M)


def scan():
    """(decorated: name -> (module, function), defined: function -> module) over the kernel."""
    decorated, defined = {}, {}
    for path in sorted(KERNEL.glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef) or not node.name.startswith("sys_"):
                continue
            if node.name in defined:
                sys.exit(f"syscall_rows: {node.name} is defined in {defined[node.name]} and {path.stem}")
            defined[node.name] = path.stem
            for dec in node.decorator_list:
                if isinstance(dec, ast.Call) and getattr(dec.func, "id", None) == "syscall":
                    for arg in dec.args:
                        decorated[arg.value] = (path.stem, node.name)
    return decorated, defined


def field(name: str, module: str, function: str) -> str:
    return module if function == f"sys_{name}" else f"{module}.{function[4:]}"


def rows(text: str, decorated: dict, defined: dict) -> str:
    out = []
    for line in text.split("\n"):
        m = ROW.match(line)
        if not m:
            out.append(line)
            continue
        head, name, old, tail = m.group(1), m.group(3), m.group(4), m.group(5)
        if name in decorated:
            function = decorated[name][1]
        elif old:
            function = "sys_" + (old.split(".", 1)[1] if "." in old else name)
        else:
            out.append(line)                # not implemented: -ENOSYS
            continue
        if function not in defined:
            sys.exit(f"syscall_rows: the row of {name} names {function}, which no kernel module defines")
        out.append(f'{head}, "{field(name, defined[function], function)}"),{tail}')
    return "\n".join(out)


DISPATCH = r"from (?:\.|emutrace\.kernel\.)dispatch import "


def undecorate(text: str) -> str:
    text = DECORATOR.sub("", text)
    # `syscall` is no longer imported from dispatch
    text = re.sub(rf"^{DISPATCH}syscall\n", "", text, flags=re.M)
    text = re.sub(rf"^({DISPATCH}[^\n]*?), syscall\b", r"\1", text, flags=re.M)
    text = re.sub(rf"^({DISPATCH})syscall, ", r"\1", text, flags=re.M)
    return text


def main(argv) -> int:
    check = "--check" in argv
    decorated, defined = scan()
    status = apply([TABLE], lambda _path, text: rows(text, decorated, defined), check, ROOT)
    handlers = [p for p in sorted(KERNEL.glob("*.py")) if p.name != "dispatch.py"]
    return apply(handlers, lambda _path, text: undecorate(text), check, ROOT) or status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
