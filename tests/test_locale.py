"""The fixed environment's locale is a modern default system's: the root's UTF-8 locale (C.UTF-8 on
Debian), chosen from the root's files. Compared with native runs under the same environment:
setlocale's answer, ls's names, sort's strcoll."""
from __future__ import annotations

import re
import subprocess

import pytest

from conftest import NATIVE_ENV, built, emutrace, have, native, system_program
from emutrace.kernel.guestlocale import default_lang
from emutrace.kernel.vfs import Vfs


def test_default_is_the_roots_utf8_locale():
    assert NATIVE_ENV["LANG"] == default_lang(Vfs("/"))
    r = emutrace(["--no-trace", "/usr/bin/env"])
    assert f"LANG={NATIVE_ENV['LANG']}\n".encode() in r.stdout


def test_setlocale_as_native():
    prog = built("localeinfo")
    mine, theirs = emutrace(["--no-trace", prog]), native([prog])
    assert mine.stdout == theirs.stdout
    assert mine.stdout.startswith(b"setlocale: C.UTF-8\ncodeset: UTF-8\nmblen(\"\\303\\251\"): 2\n")


def test_ls_prints_utf8_names_as_native(tmp_path):
    for name in ("café", "abc", "Zed"):
        (tmp_path / name).write_text("")
    args = [system_program("ls"), "--quoting-style=shell-escape", "-b", str(tmp_path)]
    mine, theirs = emutrace(["--no-trace"] + args), native(args)
    assert mine.stdout == theirs.stdout
    assert "café\n".encode() in mine.stdout
    posix = emutrace(["--no-trace", "--env", "LANG=C"] + args)       # the old default, asked for
    assert b"caf\\303\\251\n" in posix.stdout


@pytest.mark.skipif(not have("ltrace"), reason="no ltrace")
def test_sort_uses_strcoll_as_native(tmp_path):
    data = tmp_path / "words"
    data.write_text("b\nA\né\na\n")
    sort = system_program("sort")
    out = tmp_path / "ltrace.txt"
    subprocess.run(["ltrace", "-e", "strcoll", "-o", str(out), sort, str(data)], env=NATIVE_ENV,
                   capture_output=True, timeout=120, check=True)
    theirs = re.findall(r"strcoll\((.*)\)\s+= (-?\d+)", out.read_text())
    r = emutrace(["-e", "strcoll", sort, str(data)])
    mine = re.findall(r"strcoll\((.*)\)\s+= (-?\d+)", r.stderr.decode())
    assert theirs and mine == theirs
    assert r.stdout == native([sort, str(data)]).stdout


def _root(tmp_path, files):
    for path, text in files.items():
        p = tmp_path / path.lstrip("/")
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return Vfs(str(tmp_path))


@pytest.mark.parametrize("files,lang", [
    ({}, "C"),                                                              # no UTF-8 locale at all
    ({"/usr/lib/locale/C.utf8/LC_CTYPE": ""}, "C.UTF-8"),                   # Debian's glibc files
    ({"/usr/lib/locale/C.utf8/LC_CTYPE": "", "/usr/lib/locale/en_GB.utf8/LC_CTYPE": "",
      "/etc/default/locale": 'LANG="en_GB.UTF-8"\n'}, "en_GB.UTF-8"),       # the root's configured one
    ({"/usr/lib/locale/C.utf8/LC_CTYPE": "", "/etc/default/locale": "LANG=de_DE.UTF-8\n"},
     "C.UTF-8"),                                                            # configured, not compiled
    ({"/usr/lib/locale/sv_SE.utf8/LC_CTYPE": "", "/usr/lib/locale/de_DE.utf8/LC_CTYPE": "",
      "/usr/lib/locale/fr_FR/LC_CTYPE": ""}, "de_DE.utf8"),                 # the first UTF-8 one, by name
    ({"/lib/ld-musl-x86_64.so.1": ""}, "C.UTF-8"),                          # musl: UTF-8 without files
], ids=["bare", "debian", "configured", "configured-missing", "first-by-name", "musl"])
def test_chosen_from_the_roots_files(tmp_path, files, lang):
    assert default_lang(_root(tmp_path, files)) == lang


def test_user_choices_win(tmp_path):
    r = emutrace(["--no-trace", "--env", "LANG=C", "/usr/bin/env"])
    assert b"\nLANG=C\n" in r.stdout
    r = emutrace(["--no-trace", "--inherit-env", "/usr/bin/env"], env={"LANG": "POSIX"})
    assert b"\nLANG=POSIX\n" in r.stdout or r.stdout.startswith(b"LANG=POSIX\n")
    epilog = emutrace(["--help"]).stdout.decode().split("The guest's environment is fixed")[1]
    assert "LANG=C.UTF-8" in epilog and "--inherit-env passes" in epilog    # how to get the user's own
