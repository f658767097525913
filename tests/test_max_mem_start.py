"""--max-mem too small to start the program: the limits' status (124), one line in plain words
(no "engine"), and the smallest value with which it starts (issue 36)."""
from __future__ import annotations

import re

import pytest

from conftest import STILL_DIR, emutrace, system_program


@pytest.mark.parametrize("size", ["1", "32M", "40M"])
def test_too_small_names_the_smallest_that_starts(size):
    true = system_program("true")
    r = emutrace(["--no-trace", "--max-mem", size, true], cwd=STILL_DIR)
    err = r.stderr.decode()
    assert r.returncode == 124 and err.count("\n") == 1 and err.startswith("emutrace: --max-mem ")
    assert "is too small to start" in err and "engine" not in err
    m = re.search(r"it starts with --max-mem (\d+)M", err)
    assert m, err
    smallest = int(m.group(1))
    assert emutrace(["--no-trace", "--max-mem", f"{smallest}M", true], cwd=STILL_DIR).returncode == 0
    assert emutrace(["--no-trace", "--max-mem", f"{smallest - 1}M", true], cwd=STILL_DIR).returncode == 124
