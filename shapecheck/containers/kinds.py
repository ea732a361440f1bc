"""The three kinds of type that are not tensors, and what two types of any kind agree on (``join``).

* ``SequenceType``: what every element is (``elem``, a join of them all: a dim the elements do not
  share is unknown), the length where it is known (an int or a dim), and, where the length is a
  known int, each element's own type (``items``: a SplitToSequence of a known split);
* ``OptionalType``: the type of the element it may hold, and whether it holds one where known;
* ``MapType``: the key's element type and the values' type (ZipMap's ``map(string, float)``).

None of them is a tensor: where code written for tensors reads one, ``dtype``, ``shape`` and the
value fields are None, as for a tensor of which nothing is known.

>>> from shapecheck.types import parse_type
>>> kind_of(parse_type("float")), kind_of(parse_type("?")), kind_of(SequenceType())
('tensor', None, 'sequence')
"""
from __future__ import annotations

from typing import Any, Union

from ..dims import dim_str, normalize_dim, unknown_dim
from ..types import TensorType

__all__ = ["SequenceType", "OptionalType", "MapType", "ValueType", "CONTAINERS", "is_container", "kind_of",
           "type_text", "same_type", "join"]

class _NotATensor:
    """What code written for tensors reads of a sequence, optional or map: nothing known."""

    dtype: Any = None
    shape: Any = None
    value: Any = None
    sym: Any = None
    bounds: Any = None
    rank: Any = None
    is_static = False
    kind = ""

    def signature(self) -> tuple:
        sig = self.__dict__.get("_sig")
        if sig is None:
            sig = self.__dict__["_sig"] = self._signature()
        return sig

    def _signature(self) -> tuple:
        raise NotImplementedError

    def __str__(self) -> str:
        text = self.__dict__.get("_text")
        if text is None:
            text = self.__dict__["_text"] = self._text()
        return text

    def _text(self) -> str:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self})"


class SequenceType(_NotATensor):
    """A sequence: every element is ``elem``; ``length`` (int or dim) where known; ``items``, each
    element's type, where the length is a known int (``elem`` is then their join)."""

    kind = "sequence"
    free: frozenset = frozenset()   # dims of elem that stand for any value (a loop's hypothesis, model.induction)

    def __init__(self, elem: Any = None, length: Any = None, items: tuple | None = None):
        if items is not None:
            items = tuple(items)
            length = len(items)
            if items:
                elem = _join_all(items) if elem is None else elem
        self.elem = elem if elem is not None else TensorType(None, None)
        self.length = normalize_dim(length) if length is not None else None
        self.items = () if items is None and self.length == 0 else items

    def _signature(self) -> tuple:
        return ("seq", self.elem.signature(), self.length,
                None if self.items is None else tuple(x.signature() for x in self.items))

    def _text(self) -> str:
        head = f"seq({type_text(self.elem)}" + ("" if self.length is None else f", {dim_str(self.length)}") + ")"
        if self.items is not None and self.items and any(not same_type(x, self.elem) for x in self.items):
            head += " = [" + ", ".join(str(x) for x in self.items) + "]"
        return head


class OptionalType(_NotATensor):
    """An optional: the type of the element it may hold; ``present`` True (holds one), False (empty)
    or None (not known)."""

    kind = "optional"

    def __init__(self, elem: Any = None, present: bool | None = None):
        self.elem = elem if elem is not None else TensorType(None, None)
        self.present = present

    def _signature(self) -> tuple:
        return ("optional", self.elem.signature(), self.present)

    def _text(self) -> str:
        tail = "" if self.present is None else (" = some" if self.present else " = none")
        return f"optional({type_text(self.elem)}){tail}"


class MapType(_NotATensor):
    """A map: the keys' element type (None: unknown) and the values' type."""

    kind = "map"

    def __init__(self, key: str | None = None, value: Any = None):
        self.key = key
        self.value_type = value if value is not None else TensorType(None, None)

    def _signature(self) -> tuple:
        return ("map", self.key, self.value_type.signature())

    def _text(self) -> str:
        return f"map({self.key or '?'}, {type_text(self.value_type)})"


ValueType = Union[TensorType, SequenceType, OptionalType, MapType]
CONTAINERS = (SequenceType, OptionalType, MapType)


def is_container(t: Any) -> bool:
    """True for a sequence, optional or map type."""
    return isinstance(t, CONTAINERS)


def kind_of(t: Any) -> str | None:
    """``"tensor"``, ``"sequence"``, ``"optional"`` or ``"map"``; None for a type of which nothing is
    known (no element type, no rank: it may be any of them)."""
    if isinstance(t, CONTAINERS):
        return t.kind
    if isinstance(t, TensorType):
        return None if t.dtype is None and t.shape is None else "tensor"
    return None


def type_text(t: Any) -> str:
    """The text of a type inside another: a tensor without its value."""
    if isinstance(t, TensorType):
        return (t.dtype or "?") + t.shape_str()
    return str(t)


def same_type(a: Any, b: Any) -> bool:
    """The same type (element type, shape, length, kind), values aside."""
    if isinstance(a, TensorType) and isinstance(b, TensorType):
        return a.dtype == b.dtype and a.shape == b.shape
    return type(a) is type(b) and type_text(a) == type_text(b) and a.signature()[:2] == b.signature()[:2]


def join(a: Any, b: Any, label: str = "merged") -> Any:
    """The least type both ``a`` and ``b`` are: equal parts stay, others become unknown (a fresh
    dim, an unknown length or element type); types of different kinds join to nothing known.

    >>> from shapecheck.types import parse_type
    >>> str(join(SequenceType(parse_type("float[N,4]"), 2), SequenceType(parse_type("float[N,5]"), 2)))
    'seq(float[N,?], 2)'
    >>> str(join(parse_type("float[3]"), SequenceType()))
    '?'
    """
    if a is None or b is None:
        return TensorType(None, None)
    if isinstance(a, TensorType) and isinstance(b, TensorType):
        dtype = a.dtype if a.dtype == b.dtype else None
        if a.shape is None or b.shape is None or len(a.shape) != len(b.shape):
            return TensorType(dtype, None)
        return TensorType(dtype, tuple(x if x == y else unknown_dim(label) for x, y in zip(a.shape, b.shape)))
    if type(a) is not type(b):
        return TensorType(None, None)
    if isinstance(a, SequenceType):
        items = None
        if a.items is not None and b.items is not None and len(a.items) == len(b.items):
            items = tuple(join(x, y, label) for x, y in zip(a.items, b.items))
        return SequenceType(join(a.elem, b.elem, label), a.length if a.length == b.length else None, items)
    if isinstance(a, OptionalType):
        return OptionalType(join(a.elem, b.elem, label), a.present if a.present == b.present else None)
    return MapType(a.key if a.key == b.key else None, join(a.value_type, b.value_type, label))


def _join_all(types: tuple) -> Any:
    out = types[0]
    for t in types[1:]:
        out = join(out, t, "element")
    if isinstance(out, TensorType) and out.value is not None:
        out = TensorType(out.dtype, out.shape)
    return out
