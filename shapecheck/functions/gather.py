"""Gather functions: Gather on a vector value (``take``), and OneHot's depth and output shape.

>>> from shapecheck.dims import symbol
>>> N, S = symbol("N"), symbol("S")
>>> take((N, 3, 4), 0), take((N, 3, 4), (2, 0)), onehot_shape((N, S), 10, -1)
(N, (4, N), (N, S, 10))
"""
from __future__ import annotations

from typing import Any

from ..notation import NO_VALUE, EvalError, Unknown, UnknownShape
from ..dims import normalize_dim, unknown_dim
from .core import _elems, _fresh, _is_int
from .layout import _vec


def take(v: Any, idx: Any) -> Any:
    """``v[idx]`` on a vector value: one element for a scalar index, a vector for a vector of indices."""
    if isinstance(v, Unknown) or isinstance(idx, Unknown):
        return NO_VALUE
    vals = _elems(v)
    if vals is None:
        return NO_VALUE
    if isinstance(idx, tuple):
        return tuple(take(vals, i) for i in idx)
    if not _is_int(idx):
        return _fresh("gathered")
    i = int(idx)
    if not -len(vals) <= i < len(vals):
        raise EvalError(f"index {i} is outside a value of {len(vals)} elements")
    return vals[i]


def onehot_depth(depth: Any) -> Any:
    """OneHot's depth as a dim: an integer value as is (symbols too), a float truncated, else fresh."""
    v = _vec(depth)
    if v is None or isinstance(v, Unknown):
        return unknown_dim("depth")
    if len(v) != 1:
        raise EvalError(f"depth must hold one value, not {len(v)}")
    d = v[0]
    if isinstance(d, float):
        return int(d)
    return normalize_dim(d)


def onehot_shape(shape: Any, depth: Any, axis: Any) -> Any:
    """OneHot's output: ``depth`` inserted into ``shape`` at ``axis`` (of the output, rank + 1)."""
    if isinstance(shape, Unknown) or not _is_int(axis):
        return UnknownShape(None)
    r = len(shape) + 1
    if not -r <= axis < r:
        raise EvalError(f"axis {axis} is outside [{-r}, {r - 1}]")
    a = axis + r if axis < 0 else axis
    return tuple(shape[:a]) + (depth,) + tuple(shape[a:])


NOTATION = (take, onehot_depth, onehot_shape)
