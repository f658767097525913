"""A plain `go build` hello (statically linked, with symbols, no C library): emutrace says what
it is instead of "has no symbols", and --ftrace's stack column shows `-` for calls on goroutine
stacks instead of a distance to the thread's stack (139'912'854'257'256)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from conftest import STILL_DIR, emutrace

GO = shutil.which("go")


@pytest.fixture(scope="module")
def go_hello(tmp_path_factory):
    if GO is None:
        pytest.skip("no go")
    d = tmp_path_factory.mktemp("goh")
    (d / "main.go").write_text('package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n')
    (d / "go.mod").write_text("module goh\n\ngo 1.19\n")
    env = {**os.environ, "GOCACHE": str(d / "cache"), "GOPATH": str(d / "gopath"), "GOFLAGS": "-mod=mod",
           "CGO_ENABLED": "0"}
    r = subprocess.run([GO, "build", "-o", "hello", "."], cwd=d, env=env, capture_output=True, timeout=600)
    if r.returncode:
        pytest.skip(f"go build failed: {r.stderr.decode()[:200]}")
    return str(d / "hello")


def test_named_as_go(go_hello):
    r = emutrace([go_hello], cwd=STILL_DIR)
    assert r.returncode == 0 and r.stdout == b"hello\n"
    err = r.stderr.decode()
    assert "has no symbols" not in err
    assert f"emutrace: {go_hello} is a statically linked Go program: it calls no C library" in err


@pytest.mark.parametrize("pure", ["", "1"], ids=["compiled", "pure"])
def test_ftrace_stack_column(go_hello, pure, tmp_path):
    r = emutrace(["--ftrace", "-o", str(tmp_path / "ft"), go_hello], cwd=STILL_DIR, env={"EMUTRACE_PURE": pure})
    assert r.returncode == 0
    rows = [line.split()[4] for line in (tmp_path / "ft").read_text().splitlines() if line.startswith("FUN")]
    assert rows and "-" in rows                          # goroutine stacks
    for used in rows:
        assert used == "-" or int(used.replace("'", "")) <= 8 << 20, used
    assert any(re.fullmatch(r"[1-9][\d']*", u) for u in rows)      # the thread's own stack still measured
