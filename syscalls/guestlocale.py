"""The fixed environment's locale: the one a modern default system of the guest's root would use.

`LANG=C` made `ls` print `'caf'$'\\303\\251'` for `café`, `sort` compare with memcmp and
`setlocale(LC_ALL, "")` return "C", where the user's shell (Debian's default, containers) gives
C.UTF-8. The choice is made from the root's own files only, so the same root always gives the
same LANG (no host environment reaches the guest):

1. the root's configured system locale (`LANG=` in /etc/default/locale, Debian's, or in
   /etc/locale.conf, systemd's), when it is a UTF-8 locale the root has compiled;
2. C.UTF-8, when the root has it (glibc's own files on Debian: /usr/lib/locale/C.utf8);
3. the first UTF-8 locale directory of /usr/lib/locale, by name;
4. C.UTF-8 on a musl root (musl's locale is UTF-8 and needs no files);
5. C otherwise (a root without any UTF-8 locale: glibc would fall back to C anyway).

Locales held only in glibc's locale-archive (what `locale-gen` writes) are not parsed: a
configured locale found only there is skipped for C.UTF-8, whose files Debian always ships.
"""
from __future__ import annotations

import re
from typing import Iterable, Optional

from emutrace.kernel.vfs import VfsError

LOCALE_DIR = "/usr/lib/locale"                      # glibc's compiled locales, one directory each
SYSTEM_CONFIGS = ("/etc/default/locale", "/etc/locale.conf")
MUSL_LOADER = "/lib/ld-musl-x86_64.so.1"
FALLBACK = "C"
_LANG_LINE = re.compile(rb'^\s*LANG\s*=\s*"?([A-Za-z0-9_.@-]+)"?\s*$', re.M)


def _normalized(name: str) -> str:
    """glibc's second spelling of a locale name: the codeset lower-cased, only letters and digits
    ("C.UTF-8" -> "C.utf8"), which is how Debian names the directories."""
    lang, dot, rest = name.partition(".")
    if not dot:
        return name
    codeset, at, modifier = rest.partition("@")
    return lang + "." + re.sub(r"[^a-z0-9]", "", codeset.lower()) + at + modifier


def is_utf8(name: str) -> bool:
    return _normalized(name).partition(".")[2].partition("@")[0] == "utf8"


def _exists(vfs, path: str) -> bool:
    try:
        vfs.lookup(path)
        return True
    except VfsError:
        return False


def has_locale(vfs, name: str) -> bool:
    """The root holds glibc's compiled files of this locale (as setlocale looks for them)."""
    return any(_exists(vfs, f"{LOCALE_DIR}/{n}/LC_CTYPE") for n in dict.fromkeys((name, _normalized(name))))


def _configured(vfs) -> Iterable[str]:
    for path in SYSTEM_CONFIGS:
        try:
            node = vfs.lookup(path)
            data = vfs.read_host(node) if node.host is not None else None
        except (VfsError, OSError):
            continue
        if data is None:
            continue
        m = _LANG_LINE.search(bytes(data))
        if m:
            yield m.group(1).decode("ascii")


def _first_utf8_dir(vfs) -> Optional[str]:
    try:
        names = sorted(name for name, _, _ in vfs.listdir(vfs.lookup(LOCALE_DIR)) if name not in (".", ".."))
    except VfsError:
        return None
    return next((n for n in names if is_utf8(n) and has_locale(vfs, n)), None)


def default_lang(vfs) -> str:
    """LANG for the fixed environment, chosen from the root's files (the order above)."""
    for name in _configured(vfs):
        if is_utf8(name) and has_locale(vfs, name):
            return name
    if has_locale(vfs, "C.UTF-8"):
        return "C.UTF-8"
    found = _first_utf8_dir(vfs)
    if found:
        return found
    if _exists(vfs, MUSL_LOADER):
        return "C.UTF-8"
    return FALLBACK
