"""Structures whose shown fields are integers or such structures (stat's, timespec's) render
through CallFormatter's flat path (values.py `_flat_fields`, `_fmt_flat`): the same text as the
generic interpreter's field-by-field path, for every struct of the prototype database and of
the test confs, from whole, short and empty bytes."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from emutrace.protos import load_prototypes, parse_conf
from emutrace.protos.types import Pointer, Struct
from emutrace.values import CallFormatter, _Ctx
from test_values import MORE_CONF, TEST_CONF


def _structs():
    """Every struct reachable from a prototype's parameters and return types, and the typedefs."""
    found, seen = [], set()

    def walk(t, depth=0):
        if t is None or depth > 6:
            return
        if isinstance(t, Struct) and t._id not in seen:
            seen.add(t._id)
            found.append(t)
            for f in t.fields:
                walk(f, depth + 1)
        elif isinstance(t, Pointer):
            walk(t.target, depth + 1)
        else:
            walk(getattr(t, "elem", None), depth + 1)
            walk(getattr(t, "target", None), depth + 1)
    db = load_prototypes()
    for t in db.typedefs.values():
        walk(t)
    protos = [db.get(name) for name in db.names()]
    protos += list(parse_conf(TEST_CONF, "test.conf").values()) + list(parse_conf(MORE_CONF, "more.conf").values())
    for p in protos:
        for t in list(p.params) + [p.ret]:
            walk(t)
    return found


STRUCTS = _structs()
FLAT = [t for t in STRUCTS if CallFormatter()._flat_fields(t) is not None]


def test_the_flat_path_is_taken():
    """Not a vacuous comparison: stat's and timespec's structs are flat, and not every struct is."""
    db = load_prototypes()
    f = CallFormatter()
    assert f._flat_fields(db.typedefs["stat"]) is not None
    assert f._flat_fields(db.typedefs["timespec"]) is not None
    assert 5 <= len(FLAT) < len(STRUCTS)


class _NoMem:
    def read(self, addr, size):
        return None

    def cstring(self, addr, limit):
        return None


@pytest.mark.parametrize("index", range(len(FLAT)))
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_flat_structs_print_as_the_generic_path(index, data):
    t = FLAT[index]
    size = CallFormatter()._struct_size(t)
    raw = data.draw(st.one_of(st.binary(min_size=size, max_size=size), st.binary(max_size=size)))
    flat, generic = CallFormatter(), CallFormatter()
    generic._flat_fields = lambda t: None
    ctx_a, ctx_b = _Ctx(flat, _NoMem(), None), _Ctx(generic, _NoMem(), None)
    assert flat._fmt_struct(t, raw, 0x1000, ctx_a) == generic._fmt_struct(t, raw, 0x1000, ctx_b)
