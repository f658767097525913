"""Plain data classes, made cheaply: `@record` for the part of `dataclasses.dataclass` emutrace uses.

Why not dataclasses: it costs ~0.4 ms per class (it compiles __init__, __repr__ and __eq__ from
source and asks `inspect` for a signature to make a docstring) and ~5 ms to import (inspect pulls
in ast, dis and tokenize). emutrace defines some forty such classes, and together that was a sixth
of the start-up of a traced `/bin/true`. Here only __init__ is compiled, because it is on hot
paths (an event per traced call); repr, ==, hash and freezing are functions shared by all
records, reading the class's field names. It is compiled at the first instance (most runs make
instances of only some of the record classes they import), and the compiled code is kept across
runs (emutrace.codecache).

Supported, with dataclasses' meaning: annotated fields in order (a record's record bases first;
`ClassVar` annotations are not fields), defaults, `field(default=, default_factory=, repr=,
compare=)`, `frozen=True` (assignment raises FrozenInstanceError, and instances hash by their
fields), `eq=False` (identity comparison and hash), `__post_init__`, and methods the class defines
itself winning over generated ones. `fields`, `asdict` and `replace` work as dataclasses' do,
except that asdict copies containers but not the leaf values.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Tuple

from emutrace.codecache import compiled

__all__ = ["record", "field", "fields", "asdict", "replace", "Field", "FrozenInstanceError"]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class FrozenInstanceError(AttributeError):
    """Assigning to a field of a frozen record."""


class Field:
    __slots__ = ("name", "default", "default_factory", "repr", "compare")

    def __init__(self, default=MISSING, default_factory=MISSING, repr: bool = True, compare: bool = True):
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.compare = compare

    @property
    def required(self) -> bool:
        return self.default is MISSING and self.default_factory is MISSING

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r}, default_factory={self.default_factory!r})"


def field(*, default=MISSING, default_factory=MISSING, repr: bool = True, compare: bool = True) -> Any:
    return Field(default, default_factory, repr, compare)


def record(cls=None, /, *, frozen: bool = False, eq: bool = True):
    """Make cls a record (as @dataclass, @dataclass(frozen=True), @dataclass(eq=False))."""
    def wrap(c):
        return _make(c, frozen, eq)
    return wrap if cls is None else wrap(cls)


# ---------------------------------------------------------------------------------------------

_FIELDS = "__record_fields__"


def _is_classvar(annotation) -> bool:
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.startswith(("ClassVar", "typing.ClassVar"))


def _collect(cls) -> Tuple[Field, ...]:
    found: Dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for f in base.__dict__.get(_FIELDS, ()):
            found[f.name] = f
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        if _is_classvar(annotation):
            continue
        value = cls.__dict__.get(name, MISSING)
        f = value if isinstance(value, Field) else Field(default=value)
        f.name = name
        if isinstance(value, Field):        # the class attribute is the default, if any (as dataclasses)
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        if f.default is not MISSING and type(f.default) in (list, dict, set):
            raise ValueError(f"mutable default {type(f.default).__name__} for field {name} "
                             "is not allowed: use default_factory")
        found[name] = f
    out = tuple(found.values())
    seen_default = False
    for f in out:
        if f.required and seen_default:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
        seen_default = seen_default or not f.required
    return out


class _Factory:
    """The default of a field with a default_factory: 'make one' (dataclasses' own sentinel)."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


def _init_fn(cls, flds: Tuple[Field, ...], frozen: bool) -> Callable:
    env: Dict[str, Any] = {"_FACTORY": _FACTORY, "_set": object.__setattr__}
    params, body = [], []
    for f in flds:
        n = f.name
        if f.default_factory is not MISSING:
            env[f"_f_{n}"] = f.default_factory
            params.append(f"{n}=_FACTORY")
            value = f"_f_{n}() if {n} is _FACTORY else {n}"
        elif f.default is not MISSING:
            env[f"_d_{n}"] = f.default
            params.append(f"{n}=_d_{n}")
            value = n
        else:
            params.append(n)
            value = n
        body.append(f"  _set(self, {n!r}, {value})" if frozen else f"  self.{n} = {value}")
    if hasattr(cls, "__post_init__"):
        body.append("  self.__post_init__()")
    src = f"def __init__(self, {', '.join(params)}):\n" + ("\n".join(body) or "  pass") + "\n"
    ns: Dict[str, Any] = {}
    exec(compiled(src), env, ns)            # (one small compile per class, kept across runs)
    fn = ns["__init__"]
    fn.__qualname__ = f"{cls.__qualname__}.__init__"
    return fn


def _first_init(cls, flds: Tuple[Field, ...], frozen: bool) -> Callable:
    """cls's __init__ until its first call, which compiles the real one (_init_fn), puts it in its
    place and runs it. Compiling costs ~0.1 ms a class, and a run makes instances of only some of
    the classes it imports (an untraced /bin/true: 14 of 24)."""
    real = None

    def __init__(self, *args, **kwargs):
        nonlocal real
        if real is None:
            real = _init_fn(cls, flds, frozen)
            if cls.__dict__.get("__init__") is __init__:     # (unless something replaced it since)
                cls.__init__ = real
        real(self, *args, **kwargs)
    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _repr(self) -> str:
    cls = type(self)
    parts = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in cls.__record_fields__ if f.repr)
    return f"{cls.__qualname__}({parts})"


def _key(self) -> tuple:
    return tuple(getattr(self, n) for n in type(self).__record_compared__)


def _eq(self, other):
    if other.__class__ is self.__class__:
        return _key(self) == _key(other)
    return NotImplemented


def _hash(self) -> int:
    return hash(_key(self))


def _frozen_setattr(self, name, value):
    if type(self).__record_frozen__ and name in type(self).__record_names__:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")
    object.__setattr__(self, name, value)


def _frozen_delattr(self, name):
    if type(self).__record_frozen__ and name in type(self).__record_names__:
        raise FrozenInstanceError(f"cannot delete field {name!r}")
    object.__delattr__(self, name)


def _make(cls, frozen: bool, eq: bool):
    flds = _collect(cls)
    own = cls.__dict__
    cls.__record_fields__ = flds
    cls.__record_names__ = frozenset(f.name for f in flds)
    cls.__record_compared__ = tuple(f.name for f in flds if f.compare)
    cls.__record_frozen__ = frozen
    cls.__match_args__ = tuple(f.name for f in flds)
    if "__init__" not in own:
        cls.__init__ = _first_init(cls, flds, frozen)
    if "__repr__" not in own:
        cls.__repr__ = _repr
    if eq:
        if "__eq__" not in own:
            cls.__eq__ = _eq
        if "__hash__" not in own or own["__hash__"] is None:
            cls.__hash__ = _hash if frozen else None     # (as dataclasses: mutable and == means unhashable)
    if frozen:
        cls.__setattr__ = _frozen_setattr
        cls.__delattr__ = _frozen_delattr
    return cls


# ---------------------------------------------------------------------------------------------

def is_record(obj) -> bool:
    return hasattr(type(obj) if not isinstance(obj, type) else obj, _FIELDS)


def fields(obj) -> Tuple[Field, ...]:
    cls = obj if isinstance(obj, type) else type(obj)
    try:
        return getattr(cls, _FIELDS)
    except AttributeError:
        raise TypeError("must be called with a record type or instance") from None


def asdict(obj) -> Dict[str, Any]:
    """{field: value}, records inside turned into dicts too; lists, tuples and dicts copied."""
    if not is_record(obj) or isinstance(obj, type):
        raise TypeError("asdict() should be called on record instances")
    return _plain(obj)


def _plain(v):
    if hasattr(type(v), _FIELDS):
        return {f.name: _plain(getattr(v, f.name)) for f in type(v).__record_fields__}
    t = type(v)
    if t is list:
        return [_plain(x) for x in v]
    if t is dict:
        return {_plain(k): _plain(x) for k, x in v.items()}
    if t is tuple:
        return tuple(_plain(x) for x in v)
    if isinstance(v, tuple) and hasattr(v, "_fields"):      # a namedtuple
        return t(*[_plain(x) for x in v])
    if isinstance(v, (list, tuple)):
        return t(_plain(x) for x in v)
    if isinstance(v, dict):
        return t((_plain(k), _plain(x)) for k, x in v.items())
    return v


def replace(obj, **changes):
    """A new record like obj with some fields changed."""
    for f in fields(obj):
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return type(obj)(**changes)
