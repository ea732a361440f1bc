"""The text of types of every kind, and the types of values.

Types extend ONNX's text: ``seq(float[N,4])``, ``seq(float[?,4], 2) = [float[2,4], float[3,4]]`` (the
length, then each element), ``optional(int64[N])``, ``optional(float[N]) = none`` (known empty;
``= some``, known to hold one), ``map(string, float)``; ``tensor(float)`` is ``float``.  Values: an
array is a tensor, a list of arrays a sequence, a dict a map, an ``OptionalValue`` an optional.

>>> s = parse_value_type("seq(float[N,4], 2)")
>>> s.kind, str(s.elem), s.length, str(s)
('sequence', 'float[N,4]', 2, 'seq(float[N,4], 2)')
>>> str(parse_value_type("seq(float[?,4], 2) = [float[2,4], float[3,4]]").items[1])
'float[3,4]'
>>> str(parse_value_type("optional(seq(int64[N]))")), str(parse_value_type("map(int64, tensor(float))"))
('optional(seq(int64[N]))', 'map(int64, float)')
"""
from __future__ import annotations

from typing import Any

from ..dims import dim_str, parse_dim, short_text
from ..errors import UsageError
from ..types import TensorType, canonical_dtype, dtype_of_array, parse_type
from .kinds import CONTAINERS, MapType, OptionalType, SequenceType

__all__ = ["parse_value_type", "as_value_type", "OptionalValue", "type_of_value", "value_of_type"]

def _split_top(text: str) -> list[str]:
    """``text`` split at its commas outside brackets and parentheses."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


def _call(text: str) -> tuple[str, str, str] | None:
    """``head(args) rest`` -> (head, args, rest) for a container's text, else None."""
    body = text.strip()
    for head in ("seq", "sequence", "optional", "map", "tensor"):
        if body.startswith(head + "("):
            depth = 0
            for i in range(len(head), len(body)):
                depth += body[i] == "("
                depth -= body[i] == ")"
                if depth == 0:
                    return head, body[len(head) + 1:i], body[i + 1:].strip()
            return None
    return None


def parse_value_type(text: str, name: str = "", light: bool = False) -> Any:
    """A type's text -> a ``TensorType``, ``SequenceType``, ``OptionalType`` or ``MapType``."""
    call = _call(text)
    if call is None:
        return parse_type(text, name, light)
    head, args, rest = call
    parts = _split_top(args)
    try:
        if head == "tensor" and len(parts) == 1 and not rest:
            return parse_type(parts[0], name, light)
        if head in ("seq", "sequence") and len(parts) in (1, 2):
            return _sequence(parts, rest, name, light)
        if head == "optional" and len(parts) == 1:
            present = {"": None, "= some": True, "= none": False}.get(" ".join(rest.split()), "bad")
            if present != "bad":
                return OptionalType(parse_value_type(parts[0], f"{name}.elem", light), present)
        if head == "map" and len(parts) == 2 and not rest:
            return MapType(canonical_dtype(parts[0]), parse_value_type(parts[1], f"{name}.value", light))
    except UsageError as exc:
        raise UsageError(f"bad type {short_text(text)}{' for ' + name if name else ''}: {exc}") from None
    raise UsageError(f"bad type {short_text(text)}{' for ' + name if name else ''}: expected seq(T), seq(T, length), "
                     "optional(T), optional(T) = none | some, or map(K, V)")


def _sequence(parts: list[str], rest: str, name: str, light: bool) -> SequenceType:
    elem = parse_value_type(parts[0], f"{name}.elem", light)
    length = parse_dim(parts[1], f"len({name})", light) if len(parts) == 2 else None
    if not rest:
        return SequenceType(elem, length)
    if not (rest.startswith("=") and rest[1:].strip().startswith("[") and rest.endswith("]")):
        raise UsageError("a sequence's elements are written = [T1, T2, ...]")
    inner = rest[1:].strip()[1:-1]
    items = tuple(parse_value_type(p, f"{name}[{i}]", light) for i, p in enumerate(_split_top(inner)) if p)
    if length is not None and length != len(items):
        raise UsageError(f"length {dim_str(length)} but {len(items)} elements")
    return SequenceType(elem, None, items)


def as_value_type(t: Any, name: str = "") -> Any:
    """A type of any kind from a type, its text, or a value: a numpy array (a tensor), a list of
    arrays (a sequence), a dict (a map)."""
    if isinstance(t, (TensorType, *CONTAINERS)):
        return t
    if isinstance(t, str):
        return parse_value_type(t, name)
    if isinstance(t, list):
        return SequenceType(None, None, tuple(as_value_type(x, f"{name}[{i}]") for i, x in enumerate(t)))
    if isinstance(t, dict):
        return _map_of(t, name)
    from ..types import as_tensor_type
    return as_tensor_type(t, name)


def _map_of(d: dict, name: str) -> MapType:
    """A dict's map type: keys int64 or string; values by their numpy type, a Python float as float
    (onnxruntime takes a map's Python floats as float32), an int as int64, a str as string."""
    from ..deferred import numpy as np
    keys = list(d)
    key = "string" if keys and isinstance(keys[0], str) else "int64"
    values = list(d.values())
    v = values[0] if values else None
    if isinstance(v, np.generic):
        dtype = dtype_of_array(np.asarray(v))
    else:
        dtype = {float: "float", int: "int64", str: "string", bool: "bool"}.get(type(v))
    return MapType(key, TensorType(dtype, None))


class OptionalValue:
    """An optional's value for ``shapecheck.execute``: ``value`` is the element (an array, a list of
    arrays) or None (empty); the type of ``None`` alone is an absent input, not an empty optional."""

    __slots__ = ("value", "type")

    def __init__(self, value: Any = None, elem_type: Any = None):
        self.value, self.type = value, elem_type

    def __repr__(self) -> str:
        return f"OptionalValue({self.value!r})"


def type_of_value(v: Any, name: str = "") -> Any:
    """The type of a value the executor is given or computes: an array (a tensor, with its value), a
    list of arrays (a sequence), a dict (a map), an ``OptionalValue``."""
    if isinstance(v, OptionalValue):
        inner = type_of_value(v.value, name) if v.value is not None else (v.type or TensorType(None, None))
        return OptionalType(_typeless(inner) if v.value is None else inner, v.value is not None)
    if isinstance(v, list):
        return SequenceType(None, None, tuple(type_of_value(x, f"{name}[{i}]") for i, x in enumerate(v)))
    if isinstance(v, dict):
        return _map_of(v, name)
    from ..types import tensor_type_of
    return tensor_type_of(v)


def _typeless(t: Any) -> Any:
    return TensorType(t.dtype, t.shape) if isinstance(t, TensorType) else t


def value_of_type(t: Any) -> Any:
    """The value a type states, as the executor takes it: an array, a list (a sequence whose
    elements' values are known), an ``OptionalValue``; None where some part is not known.

    >>> value_of_type(parse_value_type("seq(int64[1], 2) = [int64[1] = [1], int64[1] = [2]]"))
    [array([1]), array([2])]
    """
    if isinstance(t, TensorType):
        return t.value
    if isinstance(t, SequenceType):
        if t.items is None:
            return None
        values = [value_of_type(x) for x in t.items]
        return None if any(v is None for v in values) else values
    if isinstance(t, OptionalType):
        if t.present is False:
            return OptionalValue(None, t.elem)
        inner = value_of_type(t.elem) if t.present else None
        return None if inner is None else OptionalValue(inner)
    return None
