"""The option table's texts: --help, the short usage of a bare `emutrace`, and the argparse parser
that tools/manpage.py gives argparse-manpage and shtab (the man page, the bash/zsh completions).
Each function takes the table (emutrace/options.py's OPTIONS) and its groups, so this module
needs nothing of the parser's."""
from __future__ import annotations

USAGE = """usage: emutrace [options] PROGRAM [ARGS...]
       emutrace diff A.jsonl B.jsonl
       emutrace sysroot PROGRAM OUT.tar
       emutrace report REPORT.json
       emutrace batch [--jobs N] --out DIR MANIFEST|FOLDER [-- OPTIONS...]"""
DESCRIPTION = """Runs an x86-64 Linux program inside the Unicorn emulator (no ptrace, nothing runs on the host CPU)
and traces its library calls (default), system calls (-S, --strace) or functions (--ftrace)."""
EPILOG = """The guest's environment is fixed (PATH, HOME=/root, LANG=C.UTF-8 or the root's own UTF-8 locale,
TERM=dumb), so runs are the same anywhere: --env K=V adds to it (--env LANG=C for the POSIX locale)
and --inherit-env passes your own environment instead (your locale, TERM and the rest).
Each subcommand has --help.

Exit status: the program's; 124 a limit was reached, 125 usage or internal error,
126 the program cannot be run, 127 it was not found, 128+N interrupted by signal N (130: SIGINT)."""
SHORT_USAGE = """emutrace: no program given
usage: emutrace [options] PROGRAM [ARGS...]   (emutrace --help: every option)

  emutrace ls -l                  trace a program's library calls, as ltrace
  emutrace --strace -f sh -c 'ls | wc -l'   its system calls, as strace"""


def _label(o) -> str:
    return ", ".join(o.flags) + ((o.metavar if o.optional else f" {o.metavar}") if o.metavar else "")


def help_text(options, groups, width: int = 100) -> str:
    """--help, from the table: the usage, then each group's options with their help wrapped."""
    import textwrap     # deferred: only --help wraps text
    out = [USAGE, "", DESCRIPTION]
    for group in groups:
        out += ["", f"{group}:"]
        for o in (o for o in options if o.group == group):
            label = "  " + _label(o)
            text = (f"(after --{o.mode}) " if o.mode else "") + o.help + (f" ({', '.join(o.choices)})" if o.choices else "")
            lines = textwrap.wrap(text, width - 21)
            if len(label) > 19:
                out.append(label)
                out += [" " * 21 + line for line in lines]
            else:
                out.append(label.ljust(21) + lines[0])
                out += [" " * 21 + line for line in lines[1:]]
    out += ["", EPILOG]
    return "\n".join(out)


def argparse_parser(options, groups):
    """An argparse parser with the same options (for the man page and the shell completions,
    made by argparse-manpage and shtab: tools/manpage.py). emutrace parses its own command line
    (parse()), as ltrace and strace do: options end at the program, short flags cluster."""
    import argparse     # deferred: only the man page and the completions need argparse
    p = argparse.ArgumentParser(prog="emutrace", usage="emutrace [options] PROGRAM [ARGS...]",
                                description=DESCRIPTION + "\n\n" + USAGE,
                                epilog=EPILOG, add_help=False, formatter_class=argparse.RawDescriptionHelpFormatter)
    by_group = {g: p.add_argument_group(g) for g in groups}
    seen = set()
    for o in options:
        flags = [f for f in o.flags if f not in seen]      # (a spelling with two meanings: listed once,
        if not flags:                                       # its help names both)
            continue
        seen.update(flags)
        others = [m for m in options if m is not o and set(m.flags) & set(flags)]
        text = "; ".join((f"after --{m.mode}: " if m.mode else "") + m.help for m in [o] + others)
        kw = {"help": text.replace("%", "%%"), "dest": "opt_" + flags[-1].lstrip("-").replace("-", "_") + o.mode}
        if o.optional:
            kw.update(metavar=o.metavar.strip("[]=").split("|")[0], nargs="?", const="")
        elif o.metavar:
            kw.update(metavar=o.metavar, action="append" if o.repeat else "store")
            if o.choices:
                kw["choices"] = o.choices
        else:
            kw["action"] = "count" if o.repeat else "store_true"
        by_group[o.group].add_argument(*flags, **kw)
    p.add_argument("program", metavar="PROGRAM", help="the program to run, looked up on the guest's PATH")
    p.add_argument("args", metavar="ARGS", nargs="*", help="its arguments")
    return p

