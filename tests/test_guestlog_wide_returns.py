"""Returned wide strings (wcschr, wcsrchr) are logged by guest code: the return trampoline copies a
fixed number of bytes from the returned pointer (GuestLog.wret_cap), as far as they are readable,
and the lines are the ones the hooked path (--hook-returns, the reference) prints: a string whose
copy runs into an unmapped page, an empty one at a page's last bytes, NULL; with the compiled and
the pure-Python path alike, in text and jsonl."""
from __future__ import annotations

import pytest

from conftest import built
from emutrace.guestlog import RET_WSTR
from test_guestlog import _fast_sites, _run_in_process
from test_native_paths import assert_same


def test_wide_returns_are_logged(tmp_path):
    out = tmp_path / "t.txt"
    fast = _fast_sites(_run_in_process(["-o", str(out), built("calllog")]))
    for name in ("wcschr", "wcsrchr"):
        assert fast[name].ret_kind == RET_WSTR, name
    text = out.read_text()
    for line in ("wcschr(L\"xy\", L'y')", "wcschr(L\"xy\", L'\\0')", "wcschr(L\"xy\", L'q')"):
        assert line in text, text[-3000:]


@pytest.mark.parametrize("fmt", [[], ["--format", "jsonl"]], ids=["text", "jsonl"])
def test_same_lines_as_the_hooked_path(fmt, tmp_path):
    logged, hooked = tmp_path / "logged", tmp_path / "hooked"
    _run_in_process(["-o", str(logged), *fmt, built("calllog")])
    _run_in_process(["--hook-returns", "-o", str(hooked), *fmt, built("calllog")])
    want = hooked.read_text()
    assert "wcschr" in want and logged.read_text() == want


@pytest.mark.parametrize("prog", ["calllog", "freshcalls"])
def test_compiled_and_pure_paths_agree(prog, tmp_path):
    args = ["3"] if prog == "freshcalls" else []
    assert_same([built(prog), *args], trace_dir=str(tmp_path))
