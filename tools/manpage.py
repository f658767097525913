#!/usr/bin/env python3
"""Make emutrace's man page and its bash and zsh completions from the option table.

    python3 tools/manpage.py [--out DIR]      # DIR/emutrace.1, DIR/emutrace.bash, DIR/_emutrace

Nothing here is written by hand: emutrace.options.argparse_parser() is built from OPTIONS (the
table the command line is parsed with), argparse-manpage renders the man page and shtab the
completions (`pip install 'emutrace[shell]'`). Install them with, for example:

    install -D -m644 DIR/emutrace.1 /usr/local/share/man/man1/emutrace.1
    install -D -m644 DIR/emutrace.bash /usr/local/share/bash-completion/completions/emutrace
    install -D -m644 DIR/_emutrace /usr/local/share/zsh/site-functions/_emutrace
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from emutrace.options import argparse_parser  # noqa: E402  (after the path: run from a clone)


def man_page(parser) -> str:
    from build_manpages.manpage import Manpage
    return str(Manpage(parser, format="single-commands-section", _data={
        "project_name": "emutrace", "description": "ltrace, strace and ftrace for x86-64 Linux programs, "
        "run inside the Unicorn emulator", "authors": ["the emutrace authors"]}))


def completions(parser, shell: str) -> str:
    import shtab
    return shtab.complete(parser, shell=shell)


def write_all(out: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    parser = argparse_parser()
    files = {"emutrace.1": man_page(parser), "emutrace.bash": completions(parser, "bash"),
             "_emutrace": completions(parser, "zsh")}
    for name, text in files.items():
        (out / name).write_text(text)
    return {name: out / name for name in files}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="build/share", help="where to write them (default build/share)")
    a = ap.parse_args()
    for path in write_all(Path(a.out)).values():
        print(os.fspath(path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
