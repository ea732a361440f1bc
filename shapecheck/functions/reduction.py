"""Reduction functions: the axes a reduction removes, its output shape and values.

>>> reduce_shape((2, 3, 4), (1,), 0), reduce_shape((2, 3, 4), (), 1, 1)
((2, 4), (2, 3, 4))
"""
from __future__ import annotations

from typing import Any

from ..notation import NO_VALUE, UNKNOWN, EvalError, NeedInt, Unknown, UnknownShape
from ..notation.operators import int_like
from ..dims import unknown_dim
from .elementwise import _one


def unique_axes(axes: Any, rank: Any) -> Any:
    """True when no two axes name the same dim once negative ones count from the back.

    >>> unique_axes((0, -1), 3), unique_axes((2, -1), 3)
    (True, False)
    """
    if isinstance(axes, Unknown) or isinstance(rank, Unknown):
        return axes if isinstance(axes, Unknown) else rank
    axes = axes if isinstance(axes, tuple) else (axes,)
    if not all(int_like(a) for a in axes):
        return UNKNOWN
    norm = [int(a) + rank if a < 0 else int(a) for a in axes]
    return len(set(norm)) == len(norm)


def _reduced_axes(rank: int, axes: Any, noop: Any) -> list[int] | None:
    """The axes a reduction removes (None: it is the identity); raises EvalError on an axis outside the rank."""
    axes = () if axes is None else (axes if isinstance(axes, tuple) else (axes,))
    if not axes:
        return None if noop else list(range(rank))
    out = []
    for a in axes:
        if not int_like(a):
            raise NeedInt(a)
        if not -rank <= a < rank:
            raise EvalError(f"axis {a} is outside rank {rank}")
        out.append(int(a) + rank if a < 0 else int(a))
    return sorted(set(out))


def reduce_shape(shape: Any, axes: Any, keepdims: Any = 1, noop: Any = 0) -> Any:
    """The output shape of a Reduce* op: reduced axes become 1 (keepdims) or go; no axes reduce all,
    unless noop_with_empty_axes.  Axes known only at run time leave the dims (or the rank) unknown.

    >>> from shapecheck.dims import symbol
    >>> N = symbol("N")
    >>> reduce_shape((N, 3, 4), (-1,), 0), reduce_shape((N, 3, 4), None, 1), reduce_shape((N, 3), (), 0, 1)
    ((N, 3), (1, 1, 1), (N, 3))
    """
    if isinstance(shape, Unknown):
        return UnknownShape(None)
    if isinstance(axes, Unknown):
        return tuple(unknown_dim("reduced") for _ in shape) if keepdims else UnknownShape(None)
    red = _reduced_axes(len(shape), axes, noop)
    if red is None:
        return tuple(shape)
    if keepdims:
        return tuple(1 if i in red else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in red)


def reduce_values(how: str, v: Any, axes: Any, keepdims: Any = 1, noop: Any = 0) -> Any:
    """A Reduce* op over a vector value (a shape tensor): ``sum``, ``prod``, ``max``, ``min`` of its
    dims, as a scalar (keepdims 0) or a one-element vector; exact on symbols.

    >>> from shapecheck.dims import symbol
    >>> N = symbol("N")
    >>> reduce_values("prod", (N, 3, 4), None, 0), reduce_values("sum", (N, 2), (0,), 1)
    (12*N, (N + 2,))
    """
    if isinstance(v, Unknown) or not isinstance(v, tuple) or isinstance(axes, Unknown) or how not in \
            ("sum", "prod", "max", "min"):
        return NO_VALUE
    if _reduced_axes(1, axes, noop) is None:
        return v
    if not v and how in ("max", "min"):
        return NO_VALUE
    op = {"sum": "+", "prod": "*", "max": "max", "min": "min"}[how]
    acc: Any = {"sum": 0, "prod": 1}.get(how, v[0] if v else 0)
    for x in (v if how in ("sum", "prod") else v[1:]):
        acc = _one(op, acc, x)
    return (acc,) if keepdims else acc


NOTATION = (unique_axes, reduce_shape, reduce_values)
