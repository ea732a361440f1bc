"""Every tensor inside a type (``tensors_in``), every dim (``dims_in``), and a type rebuilt with its
tensors and lengths replaced (``rebuilt``: renaming symbols, substituting bindings).

>>> from shapecheck.types import parse_type
>>> s = SequenceType(parse_type("float[N,4]"), 3)
>>> [str(t) for t in tensors_in(s)], str(rebuilt(s, lambda t: TensorType("int64", t.shape)))
(['float[N,4]'], 'seq(int64[N,4], 3)')
"""
from __future__ import annotations

from typing import Any, Callable, Iterator

from ..dims import is_symbolic
from ..types import TensorType
from .kinds import MapType, OptionalType, SequenceType

__all__ = ["tensors_in", "rebuilt", "dims_in"]

def tensors_in(t: Any) -> Iterator[TensorType]:
    """Every tensor type in ``t``: ``t`` itself, or a container's elements, keys' values, items."""
    if isinstance(t, TensorType):
        yield t
    elif isinstance(t, SequenceType):
        yield from tensors_in(t.elem)
        for x in t.items or ():
            yield from tensors_in(x)
    elif isinstance(t, OptionalType):
        yield from tensors_in(t.elem)
    elif isinstance(t, MapType):
        yield from tensors_in(t.value_type)


def rebuilt(t: Any, tensor: Callable[[TensorType], Any], dim: Callable[[Any], Any] | None = None) -> Any:
    """``t`` with every tensor type in it replaced by ``tensor(x)`` and a sequence's length by
    ``dim(length)``: renaming symbols, substituting bindings.  A tensor type is ``tensor(t)``."""
    if isinstance(t, TensorType):
        return tensor(t)
    if isinstance(t, SequenceType):
        items = None if t.items is None else tuple(rebuilt(x, tensor, dim) for x in t.items)
        length = t.length if dim is None or t.length is None or type(t.length) is int else dim(t.length)
        return SequenceType(rebuilt(t.elem, tensor, dim), length, items) if items is None else \
            SequenceType(rebuilt(t.elem, tensor, dim), None, items)
    if isinstance(t, OptionalType):
        return OptionalType(rebuilt(t.elem, tensor, dim), t.present)
    if isinstance(t, MapType):
        return MapType(t.key, rebuilt(t.value_type, tensor, dim))
    return t


def dims_in(t: Any) -> tuple:
    """Every dim of ``t`` that may be symbolic: shapes, values, bounds and lengths."""
    out: tuple = ()
    for x in tensors_in(t):
        out += (x.shape or ()) + (x.sym or ()) + (x.bounds or ())
    if isinstance(t, SequenceType) and is_symbolic(t.length):
        out += (t.length,)
    for inner in _inner(t):
        if isinstance(inner, SequenceType) and is_symbolic(inner.length):
            out += (inner.length,)
    return out


def _inner(t: Any) -> Iterator[Any]:
    if isinstance(t, SequenceType):
        yield t.elem
        yield from (t.items or ())
    elif isinstance(t, OptionalType):
        yield t.elem
    elif isinstance(t, MapType):
        yield t.value_type
