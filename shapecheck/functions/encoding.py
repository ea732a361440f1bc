"""Functions of the ai.onnx.ml specs (the encoding family and the estimators and trees, which share
them): ``count`` (the entries of a list or tensor attribute), ``same_counts`` (parallel attribute arrays of
one length), ``map_of`` (a map type), ``key_type`` and ``value_type`` (a map's), ``rows`` (an estimator's
batch: a 1-D input is one row), ``in_range`` (every integer of an attribute in ``[lo, hi)``).

>>> count((1, 2, 3)), count(None), same_counts([(1, 2), (3, 4), None])
(3, 0, True)
>>> str(map_of("string", "float")), in_range((0, 2), 0, 3), in_range((0, 3), 0, 3)
('map(string, float[])', True, False)
"""
from __future__ import annotations

from typing import Any

from ..containers import MapType
from ..notation import UNKNOWN, ContainerVal, EvalError, TensorVal, Unknown, UnknownDType
from ..notation.operators import int_like
from ..types import TensorType
from .core import _prod


def count(x: Any) -> Any:
    """The number of entries of a list attribute (0 when absent) or of a tensor attribute."""
    if x is None:
        return 0
    if isinstance(x, TensorVal):
        return UNKNOWN if x.shape is None else _prod(x.shape)
    if isinstance(x, Unknown):
        return x
    if isinstance(x, (tuple, list, str)):
        return len(x)
    raise EvalError(f"count() takes a list or tensor attribute, got {x!r}")


def same_counts(xs: Any) -> Any:
    """True when the given (not absent) attributes of ``xs`` all have the same number of entries."""
    counts = [count(x) for x in xs if x is not None]
    if any(isinstance(c, Unknown) for c in counts):
        return UNKNOWN
    return len(set(counts)) <= 1


def in_range(xs: Any, lo: Any, hi: Any) -> Any:
    """True when every integer of the list attribute ``xs`` lies in ``[lo, hi)`` (absent: True)."""
    if xs is None:
        return True
    if isinstance(hi, Unknown) or isinstance(lo, Unknown):
        return UNKNOWN
    if not (int_like(lo) and int_like(hi)):
        return UNKNOWN
    return all(int(lo) <= int(x) < int(hi) for x in xs)


def map_of(key: Any, value: Any) -> MapType:
    """A map type of keys of element type ``key`` and values of element type ``value``, scalars (ZipMap's
    values are floats, as skl2onnx declares them: float[])."""
    k = key if isinstance(key, str) else None
    v = TensorType(value if isinstance(value, str) else None, ())
    return MapType(k, v)


def key_type(m: Any) -> Any:
    """The element type of a map's keys; unknown where not known (a value of unknown kind)."""
    if isinstance(m, ContainerVal) and m.kind == "map":
        return m.type.key if m.type.key else UnknownDType(None)
    if isinstance(m, TensorVal) and m.dtype is None and m.shape is None:
        return UnknownDType(None)
    raise EvalError(f"{getattr(m, 'name', m)} is not a map")


def value_type(m: Any) -> Any:
    """The element type of a map's values; unknown where not known."""
    if isinstance(m, ContainerVal) and m.kind == "map":
        v = m.type.value_type
        return v.dtype if isinstance(v, TensorType) and v.dtype else UnknownDType(None)
    if isinstance(m, TensorVal) and m.dtype is None and m.shape is None:
        return UnknownDType(None)
    raise EvalError(f"{getattr(m, 'name', m)} is not a map")


def rows(x: Any) -> Any:
    """An estimator's batch: ``X.shape[0]`` of a 2-D input, 1 of a 1-D input (onnxruntime's reading)."""
    if not isinstance(x, TensorVal) or x.shape is None:
        return UNKNOWN
    return 1 if len(x.shape) <= 1 else x.shape[0]


NOTATION = (count, same_counts, in_range, map_of, key_type, value_type, rows)

for _f in NOTATION:
    _f.type_only = True   # type: ignore[attr-defined]  # attributes and types, never a tensor's contents
