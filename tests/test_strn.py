"""ltrace's `stringN` arguments (strncpy's source, write's buffer: a C string of at most argN
characters, the op `strn`) logged by guest code against the hooked path and the pure-Python path.

The call trampoline copies such a string as a C string (up to its NUL, limit + 2 bytes: every
byte the generic renderer's NUL search reads), the length bound is applied when rendering. Plain
C strings, as arguments and returned, are copied limit + 2 bytes too (bins/strn.c has them at a
mapping's end). So
bins/strn.c's calls (lengths of 0, short, around the string limit, huge; NULL; buffers without
a NUL ending at a mapping's end, whose copies fault) print, logged, exactly what
`--hook-returns` prints and what EMUTRACE_PURE=1 prints, byte for byte; and they are logged in
guest code, not hooked.
"""
from __future__ import annotations

import re

import pytest

from conftest import built
from test_guestlog import _fast_sites as fast_sites_of, _run_in_process
from test_retcap import _same_three_ways, _three
from emutrace.guestlog import capture_plan
from emutrace.protos import load_prototypes
from emutrace.renderops import CSTRN
from emutrace.values import CallFormatter

STRN_CALLS = ("strncpy", "stpncpy", "strncat", "write", "pwrite", "send", "sendto")


@pytest.mark.parametrize("variant", ["pie", "nopie", "fnoplt", "znow"])
def test_edges_print_the_hooked_trace(tmp_path, variant):
    exe = built("strn", variant)
    log = _same_three_ways(tmp_path, exe)
    # what the edges look like (the generic interpreter's rendering)
    for want in (r'strncpy\(0x[0-9a-f]+, "", 0\) += 0x[0-9a-f]+', r'strncpy\(0x[0-9a-f]+, nil, 0\) += 0x[0-9a-f]+',
                 r'strncpy\(0x[0-9a-f]+, "hello", 5\) += 0x[0-9a-f]+',
                 r'strncpy\(0x[0-9a-f]+, "hi", 10\) += 0x[0-9a-f]+',
                 r'strncpy\(0x[0-9a-f]+, "0123456789abcdefghijklmnopqrstu", 31\) += 0x[0-9a-f]+',
                 r'strncpy\(0x[0-9a-f]+, "0123456789abcdefghijklmnopqrstuv"\.\.\., 32\) += 0x[0-9a-f]+',
                 r'strncpy\(0x[0-9a-f]+, "0123456789abcdefghijklmnopqrstuv"\.\.\., 200\) += 0x[0-9a-f]+',
                 r'strncpy\(0x[0-9a-f]+, "tab\\there"q\'\\\\\\033\\177\\377\\351\\n", 20\) += 0x[0-9a-f]+',
                 # a buffer read whole up to the unreadable page: the NUL search reads the byte after
                 r'strncpy\(0x[0-9a-f]+, 0x[0-9a-f]+, 5\) += 0x[0-9a-f]+',
                 r'strncpy\(0x[0-9a-f]+, "eeee", 4\) += 0x[0-9a-f]+',
                 r'strncpy\(0x[0-9a-f]+, 0x[0-9a-f]+, 33\) += 0x[0-9a-f]+',
                 r'strncpy\(0x[0-9a-f]+, "e{32}"\.\.\., 34\) += 0x[0-9a-f]+',
                 r'stpncpy\(0x[0-9a-f]+, "stp", 3\) += 0x[0-9a-f]+',
                 r'strncat\("", "ca", 2\) += "ca"', r'strncat\("ca", 0x[0-9a-f]+, 4\) += "caeeee"',
                 r'write\(4, "a", 3\) += 3', r'write\(4, nil, 0\) += 0', r'write\(4, 0x[0-9a-f]+, 6\) += 6',
                 r'write\(4, "eeeeee", 6\) += 6', r'write\(4, "\\377\\351\\n\\t\\\\", 5\) += 5',
                 r'pwrite\(4, "abc", 3, 0\) += -1', r'send\(5, "ping", 4, 0\) += 4',
                 r'send\(5, 0x[0-9a-f]+, 2, 0\) += 2', r'sendto\(5, "po", 2, 0, 0, 0\) += 2',
                 r'sendto\(5, nil, 0, 0, 0, 0\) += 0', r'strncpy\(0x[0-9a-f]+, "w13", 6\) += 0x[0-9a-f]+'):
        assert re.search("^" + want + "$", log, re.M), want
    # plain C strings (copied limit + 2 bytes) of 32, 33 and 34 characters before the unreadable
    # page, as arguments and returned: shown as the live renderer's NUL search has them (it reads
    # up to limit + 2 bytes: unreadable before a NUL, the string is its pointer)
    shown = re.findall(r"^strncmp\((.*), \"eee\", 3\) += 0$", log, re.M)
    assert [re.match(r"0x[0-9a-f]+$", a) is not None for a in shown] == [True, True, False]
    assert shown[2] == '"' + "e" * 32 + '"...'
    returned = re.findall(r"^strchr\(\"xe{31}\"\.\.\., 'e'\) += (.*)$", log, re.M)
    assert returned[0] == '"' + "e" * 32 + '"...' and re.match(r"0x[0-9a-f]+$", returned[1])


@pytest.mark.parametrize("limit", ["0", "1", "5", "40"])
def test_other_string_limits(tmp_path, limit):
    """Other -s: the copy follows the limit (limit + 2 bytes); -s 0 has no compiled renderer
    (the Python ones serve it)."""
    log, hooked, pure = _three(tmp_path, ["-s", limit, built("strn")])
    assert log == hooked == pure


def test_the_calls_are_logged_in_guest_code(tmp_path):
    run = _run_in_process(["-o", str(tmp_path / "t.txt"), built("strn")])
    assert run[1].status == 0
    fast = fast_sites_of(run)
    for name in STRN_CALLS:
        assert name in fast, name
        (i, _, cap, j), = [s for s in fast[name].strings if s[0] == 1]
        assert (cap, j) == (32 + 2, None)           # copied as a C string, up to limit + 2 bytes
        assert dict(fast[name].plan.left_items)[1].capture == CSTRN
    assert (tmp_path / "t.txt").read_text().count("strncpy(") == 116


def test_capture_plans_of_the_database():
    """Every stringN prototype of the database is compiled and loggable."""
    fmt = CallFormatter()
    db = load_prototypes()
    for name in ("strncpy", "__strncpy_chk", "stpncpy", "__stpncpy_chk", "strncat", "__strncat_chk", "write",
                 "pwrite", "pwrite64", "send", "sendto", "mq_send", "mq_timedsend", "gzwrite"):
        plan = fmt.plan(db.get(name))
        assert plan is not None, name
        assert capture_plan(plan, 4 * 33) is not None, name
