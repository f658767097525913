"""What the gdb server's fixed and checkpoint costs rest on: where checkpoints fall (sparse
without watchpoints, dense with one, one near a replay's destination), that the near
checkpoint gives the answers a replay from the start gives, and the binary escapes gdb's file
reads go through."""
from __future__ import annotations

import random
import re

import pytest

from conftest import built, have
from emutrace.gdb import checkpoints as ckpt
from emutrace.gdb.packets import escape, unescape


def _spacing(monkeypatch, env=None) -> ckpt.Checkpoints:
    monkeypatch.delenv("EMUTRACE_GDB_CHECKPOINTS", raising=False)
    monkeypatch.delenv("EMUTRACE_GDB_CHECKPOINT_INSNS", raising=False)
    for k, v in (env or {}).items():
        monkeypatch.setenv(k, v)
    return ckpt.Checkpoints([])


def test_checkpoints_are_sparse_without_watchpoints_and_dense_with_one(monkeypatch):
    c = _spacing(monkeypatch)
    if not c.on:
        pytest.skip("no fork on this host: no checkpoints")
    unit = ckpt.INTERVAL
    assert c.spacing() == unit * ckpt.SPARSE
    assert c.next_at(1) == unit * ckpt.SPARSE and c.next_at(unit * ckpt.SPARSE + 1) == 2 * unit * ckpt.SPARSE
    assert not c._due(unit) and c._due(unit * ckpt.SPARSE)
    c.watching = True
    assert c.spacing() == unit and c.next_at(1) == unit and c._due(unit)


def test_a_far_replay_gets_a_checkpoint_near_its_destination(monkeypatch):
    c = _spacing(monkeypatch)
    if not c.on:
        pytest.skip("no fork on this host: no checkpoints")
    far = 5 * ckpt.NEAR
    c.aim(0, far)
    assert c.near == far - ckpt.NEAR and c.next_at(1) == far - ckpt.NEAR and c._due(far - ckpt.NEAR)
    c.aim(far - ckpt.NEAR, far)                 # (from that checkpoint: close enough already)
    assert not c.near and c.next_at(1) == ckpt.INTERVAL * ckpt.SPARSE
    c.aim(0, None)                              # a scan: its destination is not known
    assert not c.near


def test_a_fixed_interval_is_every_case(monkeypatch):
    c = _spacing(monkeypatch, {"EMUTRACE_GDB_CHECKPOINT_INSNS": "3000"})
    if not c.on:
        pytest.skip("no fork on this host: no checkpoints")
    assert c.spacing() == 3000
    c.watching = True
    assert c.spacing() == 3000
    c.aim(0, 10 ** 9)
    assert c.near is None and c.next_at(1) == 3000


def test_escapes_round_trip_and_match_the_protocol():
    assert escape(b"a#b$c}d*e") == b"a}\x03b}\x04c}]d}\x0ae"
    assert unescape(b"a}\x03b}\x04c}]d}\x0ae") == b"a#b$c}d*e"
    assert unescape(b"x}") == b"x}"             # (a lone } at the end stays)
    rnd = random.Random(7)
    for _ in range(500):
        data = bytes(rnd.choice(b"#$}*]\x03\x04\x0a\x00a") for _ in range(rnd.randrange(40)))
        e = escape(data)
        assert unescape(e) == data
        assert not re.search(rb"[#$*]", e)
        assert len(e) == len(data) + sum(data.count(b) for b in (b"#", b"$", b"}", b"*"))


@pytest.mark.skipif(not have("gdb"), reason="gdb is not installed")
def test_near_checkpoint_answers_as_a_replay_from_the_start(monkeypatch):
    """With the default spacing: one sparse checkpoint, a reverse-stepi replays from it and parks
    one near its destination, the next ones replay from that; the answers are those of a run
    without checkpoints (every replay from the start)."""
    from test_gdb import NO_CHECKPOINTS, _without_checkpoint_lines, gdb_session
    prog = built("gdbprog")
    n = (ckpt.INTERVAL * ckpt.SPARSE + 4 * ckpt.NEAR) // 12       # (~12 instructions an iteration)
    script = ["break printf", "continue", "reverse-stepi", "monitor when", "monitor checkpoints",
              "reverse-stepi", "reverse-stepi", "monitor when", "info registers rip rsp", "monitor checkpoints",
              "kill"]
    monkeypatch.delenv("EMUTRACE_GDB_CHECKPOINT_INSNS", raising=False)      # (the default spacing)
    forked = gdb_session(prog, ["loop", str(n)], script, env={"EMUTRACE_GDB_CHECKPOINTS": "1"})
    when = [int(p) for p in re.findall(r"position (\d+)", forked)]
    parked = [int(p) for p in re.findall(r"  (\d+) pid \d+", forked)]
    assert len(when) == 2 and ckpt.INTERVAL * ckpt.SPARSE in parked, forked
    assert when[0] - ckpt.NEAR in parked, forked        # the near checkpoint, taken by the first replay
    replayed = gdb_session(prog, ["loop", str(n)], script, env=NO_CHECKPOINTS)
    assert "checkpoints off" in replayed, replayed
    assert _without_checkpoint_lines(forked) == _without_checkpoint_lines(replayed)
