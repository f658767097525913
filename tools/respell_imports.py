"""Spell every import of emutrace's own modules one way: absolute, by the installed name.

The design card's folders syscalls/ and loader/ are installed as emutrace.kernel and
emutrace.loader (pyproject's package-dir); a module there was imported as `emutrace.kernel.x`,
as `.x` from its neighbours, and the machine as `..machine` from inside syscalls/. One module,
one spelling: `from emutrace.kernel.files import OpenFile` wherever it is imported, so a reader
(and grep) finds every user of a module by its one name. tests/test_import_spelling.py fails on
any other spelling.

The script also carries the moves and renames of issue 33 (modules that left emutrace.machine,
the core Session that became Run), so that it can be run again after merging branches written
before them:

    python3 tools/respell_imports.py            # rewrite the files
    python3 tools/respell_imports.py --check    # list what would change; exit 1 if anything would

It reads and writes text only (nothing is imported), keeps each statement's place, comments and
line breaks where it can, and changes only import statements (and, for a rename, the names a
file imported under the old name).
"""
from __future__ import annotations

import ast
import re
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from rewrite import apply   # (tools/rewrite.py: the script's own folder is on sys.path)

ROOT = Path(__file__).resolve().parent.parent
# source folder -> the package it is installed as
PACKAGE_DIRS = {"emutrace": "emutrace", "syscalls": "emutrace.kernel", "loader": "emutrace.loader"}
# folders whose .py files import emutrace (each file rewritten; tests/ and tools/ are not packages)
SCANNED = ("emutrace", "syscalls", "loader", "tests", "tools", "bench", "examples", "bins")

# modules that moved: old dotted name -> new
MOVES: Dict[str, str] = {
    "emutrace.machine.errors": "emutrace.errors",
    "emutrace.machine.version": "emutrace.version",
    "emutrace.machine.record": "emutrace.record",
    "emutrace.machine.codecache": "emutrace.codecache",
    "emutrace.unwind": "emutrace.dwarf.unwind",
    "emutrace.dwarfline": "emutrace.dwarf.lines",
}
# names that moved to another module: (old module, name) -> new module (filled as modules split)
NAME_MOVES: Dict[Tuple[str, str], str] = {
    **{("emutrace.machine.memory", n): "emutrace.machine.pages"
       for n in ("PAGE", "PIE_BASE", "MMAP_TOP", "STACK_TOP", "STACK_SIZE", "LOW_LIMIT", "ADDRESS_TOP",
                 "page_up", "page_down")},
    **{("emutrace.machine.memory", n): "emutrace.machine.budget" for n in ("OutOfMemory", "MemoryBudget")},
    ("emutrace.machine.memory", "SharedMemory"): "emutrace.machine.shm",
    **{("emutrace.machine.memory", n): "emutrace.machine.vma" for n in ("Vma", "Backing")},
    **{("emutrace.machine.memory", n): "emutrace.machine.guestaccess" for n in ("GuestFault", "GuestAccess", "MemView")},
    **{(m, n): "emutrace.dwarf.leb" for m in ("emutrace.funcs", "emutrace.dwarf.info") for n in ("uleb", "sleb")},
    **{("emutrace.funcs", n): "emutrace.dwarf.ehframe"
       for n in ("eh_frame_image", "parse_eh_frame", "read_encoded", "EhFrameError", "PT_GNU_EH_FRAME", "PE_ABSPTR",
                 "PE_ULEB128", "PE_UDATA2", "PE_UDATA4", "PE_UDATA8", "PE_SLEB128", "PE_SDATA2", "PE_SDATA4",
                 "PE_SDATA8", "PE_PCREL", "PE_TEXTREL", "PE_DATAREL", "PE_FUNCREL", "PE_ALIGNED", "PE_INDIRECT",
                 "PE_OMIT")},
}


def linux_homes() -> Dict[str, str]:
    """Each name emutrace/linux/ declares -> its module there: a Linux constant imported from
    another module (which only imports it itself) is imported from its home."""
    homes = {}
    for path in sorted((ROOT / "emutrace" / "linux").glob("*.py")):
        if path.name == "__init__.py":
            continue
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        homes[t.id] = f"emutrace.linux.{path.stem}"
    return homes


LINUX_HOMES = linux_homes()
# names that changed: (module, old name) -> new name
RENAMES: Dict[Tuple[str, str], str] = {
    ("emutrace.session", "Session"): "Run",
}


def module_of(path: Path) -> Optional[str]:
    """The dotted name a file is imported as (None outside the packages)."""
    rel = path.relative_to(ROOT)
    top = rel.parts[0]
    if top not in PACKAGE_DIRS:
        return None
    parts = PACKAGE_DIRS[top].split(".") + list(rel.with_suffix("").parts[1:])
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def absolute(path: Path, node: ast.ImportFrom) -> Optional[str]:
    """The absolute module an ImportFrom names (None: a relative import outside the packages)."""
    if node.level == 0:
        return node.module
    mod = module_of(path)
    if mod is None:
        return None
    base = mod.split(".")
    if path.name != "__init__.py":
        base = base[:-1]
    if node.level - 1 > len(base):
        return None
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def moved(name: str) -> str:
    for old, new in MOVES.items():
        if name == old or name.startswith(old + "."):
            return new + name[len(old):]
    return name


def ours(name: Optional[str]) -> bool:
    return name is not None and (name == "emutrace" or name.startswith("emutrace."))


MOVES_ONLY = False     # --moves-only: apply MOVES and RENAMES, leave relative imports relative


def respell_from(path: Path, node: ast.ImportFrom, renames: Dict[str, str]) -> Optional[str]:
    """The new text of a `from X import ...` statement, or None to leave it."""
    target = absolute(path, node)
    if not ours(target):
        return None
    if MOVES_ONLY and (node.level or not _touched(target, node)):
        if not _touched(target, node):
            return None
    # `from emutrace.machine import record` names a moved module as an attribute of its package
    names = []
    others: Dict[str, list] = {}           # a module names moved to -> their aliases
    split: List[str] = []
    for alias in node.names:
        full = f"{target}.{alias.name}"
        if full in MOVES:
            new_full = MOVES[full]
            pkg, _, leaf = new_full.rpartition(".")
            asname = alias.asname or (alias.name if leaf != alias.name else None)
            split.append(f"from {pkg} import {leaf}" + (f" as {asname}" if asname and asname != leaf else ""))
            continue
        home = NAME_MOVES.get((moved(target), alias.name))
        if home is None and alias.name in LINUX_HOMES and not moved(target).startswith("emutrace.linux"):
            home = LINUX_HOMES[alias.name]
        if home is not None:
            others.setdefault(home, []).append((alias.name, alias.asname))
            continue
        new_name = RENAMES.get((moved(target), alias.name))
        if new_name is not None:
            if alias.asname is None:
                renames[alias.name] = new_name
            names.append((new_name, alias.asname))
        else:
            names.append((alias.name, alias.asname))
    module = moved(target)
    lines = []
    for mod, group in [(module, names)] + sorted(others.items()):
        if group:
            body = ", ".join(n + (f" as {a}" if a else "") for n, a in group)
            lines.append(f"from {mod} import {body}")
    lines += split
    return "\n".join(lines)


def _touched(target: str, node: ast.ImportFrom) -> bool:
    """Whether a move or a rename applies to this statement."""
    return moved(target) != target or any(f"{target}.{a.name}" in MOVES or (moved(target), a.name) in RENAMES
                                          or (moved(target), a.name) in NAME_MOVES
                                          or (a.name in LINUX_HOMES and not target.startswith("emutrace.linux"))
                                          for a in node.names)


def respell_import(node: ast.Import) -> Optional[str]:
    """`import emutrace.machine.record as r`: the moved name."""
    out, changed = [], False
    for alias in node.names:
        new = moved(alias.name)
        changed |= new != alias.name
        out.append(new + (f" as {alias.asname}" if alias.asname else ""))
    return "import " + ", ".join(out) if changed else None


def _wrap(text: str, indent: str, limit: int = 120) -> str:
    """Indent a statement's lines; a `from X import a, b, ...` longer than limit is wrapped in
    parentheses (as the tree writes them)."""
    out = []
    for line in text.split("\n"):
        line = indent + line
        if len(line) > limit and " import " in line and "(" not in line:
            head, _, body = line.partition(" import ")
            head += " import ("
            pad = " " * len(head)
            parts, cur = [], ""
            for name in body.split(", "):
                if cur and len(head if not parts else pad) + len(cur) + len(name) + 2 > limit - 1:
                    parts.append(cur)
                    cur = name
                else:
                    cur = f"{cur}, {name}" if cur else name
            parts.append(cur)
            line = head + (",\n" + pad).join(parts) + ")"
        out.append(line)
    return "\n".join(out)


def rewrite(path: Path, source: str) -> str:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    lines = source.split("\n")
    edits = []
    renames: Dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            new = respell_from(path, node, renames)
        elif isinstance(node, ast.Import):
            new = respell_import(node)
        else:
            continue
        if new is None:
            continue
        first, last = node.lineno - 1, node.end_lineno - 1
        indent = lines[first][:node.col_offset]
        tail = lines[last][node.end_col_offset:]
        old = ast.get_source_segment(source, node)
        if _normal(old) == _normal(new):
            continue
        edits.append((first, last, _wrap(new, indent) + tail))
    for first, last, text in sorted(edits, reverse=True):
        lines[first:last + 1] = text.split("\n")
    out = "\n".join(lines)
    for old, new in renames.items():
        out = _rename_uses(out, old, new)
    return out


def _normal(text: str) -> str:
    """An import statement without its layout (parentheses, line breaks, spaces, comments)."""
    text = re.sub(r"#[^\n]*", "", text)
    return re.sub(r"[\s()\\]+", "", text).rstrip(",")


def _rename_uses(source: str, old: str, new: str) -> str:
    """Rename the uses of a name a file imported (code only: strings and comments are kept)."""
    tree = ast.parse(source)
    spots = sorted({(n.lineno, n.col_offset) for n in ast.walk(tree)
                    if isinstance(n, ast.Name) and n.id == old}, reverse=True)
    lines = source.split("\n")
    for line, col in spots:
        text = lines[line - 1]
        if text[col:col + len(old)] == old:
            lines[line - 1] = text[:col] + new + text[col + len(old):]
    return "\n".join(lines)


def files():
    for top in SCANNED:
        base = ROOT / top
        if base.is_dir():
            for path in sorted(base.rglob("*.py")):
                if "/build/" not in str(path) and "/out/" not in str(path):
                    yield path


def main(argv) -> int:
    global MOVES_ONLY
    check = "--check" in argv
    MOVES_ONLY = "--moves-only" in argv
    return apply(files(), rewrite, check, ROOT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
