"""Notation functions of the tensor ops: Pad, Resize/Upsample, OneHot and Clip (Einsum: ``einsum.py``).

Each is exact on ints, exact on symbols where the algebra allows (a padded dim ``N + 2``, an
Einsum output dim), and a fresh unknown dim where a value is known only at run time (a scale
that is not a constant, a float depth).  Malformed arguments (an Einsum equation that does not
parse, pads of the wrong length) are an ``EvalError`` or False, never a guess.

>>> from shapecheck.types import symbol
>>> N, S = symbol("N"), symbol("S")
>>> pad_shape((N, S, 4), (0, 1, 0, 0, 2, -1)), pad_shape((N, S), (1, 1), (-1,))
((N, S + 3, 3), (N, S + 2))
>>> onehot_shape((N, S), 10, -1), clip_value((N, -2, 9), 0, 5)
((N, S, 10), (Min(5, N), 0, 5))
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any


from ..types import normalize_dim, unknown_dim
from ..rounding import floor_of
from .layouts import _is_int, _value
from .logic import NO_VALUE, EvalError, TensorVal, Unknown, UnknownShape, and_
from .values import elementwise

if TYPE_CHECKING:
    import numpy as np
    import sympy
else:
    from ..deferred import numpy as np
    from ..deferred import sympy


def _vec(v: Any) -> tuple | Unknown | None:
    """A value as a flat tuple (of dims or floats), None when absent, an Unknown when not known."""
    v = _value(v)
    if v is None or isinstance(v, Unknown):
        return v
    if isinstance(v, np.ndarray):
        return tuple(v.reshape(-1).tolist())
    return v if isinstance(v, tuple) else (v,)


def _fresh_shape(shape: Any, label: str) -> Any:
    if isinstance(shape, Unknown):
        return UnknownShape(None)
    return tuple(unknown_dim(label) for _ in shape)


def _axes(axes: Any, rank: int) -> list[int] | None:
    """Axes (a value or attribute, None for all) normalized to [0, rank); None when not known."""
    ax = _vec(axes)
    if ax is None:
        return list(range(rank))
    if isinstance(ax, Unknown) or not all(_is_int(a) for a in ax):
        return None
    out = [int(a) + rank if a < 0 else int(a) for a in ax]
    if any(not 0 <= a < rank for a in out) or len(set(out)) != len(out):
        raise EvalError(f"axes {list(ax)} are not distinct axes of a rank-{rank} tensor")
    return out


def _add(*xs: Any) -> Any:
    if all(_is_int(x) for x in xs):
        return sum(int(x) for x in xs)
    return normalize_dim(sympy.Add(*[sympy.sympify(x) for x in xs]))


def pad_shape(shape: Any, pads: Any, axes: Any = None) -> Any:
    """Pad's output: ``shape[a] + pads[k] + pads[k + n]`` for the k-th of the n padded axes.

    ``pads`` is a value (symbolic dims welcome) or an attribute; unknown pads give fresh dims.
    """
    if isinstance(shape, Unknown):
        return UnknownShape(None)
    p = _vec(pads)
    ax = _axes(axes, len(shape))
    if p is None or isinstance(p, Unknown) or ax is None:
        return _fresh_shape(shape, "padded")
    if len(p) != 2 * len(ax):
        raise EvalError(f"pads has {len(p)} values, not 2 x {len(ax)} (one begin and one end per axis)")
    out = list(shape)
    for k, a in enumerate(ax):
        out[a] = _add(shape[a], p[k], p[k + len(ax)])
    return tuple(out)


def pad_fits(shape: Any, pads: Any, mode: Any = "constant", axes: Any = None) -> Any:
    """True when every padded axis can be padded in ``mode``: reflect needs each positive pad
    at most ``d - 1`` (onnxruntime's limit), edge and reflect need ``d >= 1`` where a pad is positive;
    ``d`` is the axis after the negative pads' crop.

    >>> pad_fits((4, 2), (3, 0, -1, 0), "reflect"), pad_fits((4, 2), (3, 0, 0, 0), "reflect")
    (False, True)
    """
    from .compile import compare_dims
    from .logic import UNKNOWN, or_
    if mode not in ("reflect", "edge"):
        return True
    if isinstance(shape, Unknown):
        return UNKNOWN
    p = _vec(pads)
    ax = _axes(axes, len(shape))
    if p is None or isinstance(p, Unknown) or ax is None:
        return UNKNOWN
    if len(p) != 2 * len(ax):
        return False
    parts = []
    for k, a in enumerate(ax):
        pair = (p[k], p[k + len(ax)])
        d = _add(shape[a], *[_crop(q) for q in pair])   # onnxruntime crops first, then pads what is left
        for q in pair:
            limit = compare_dims(q, "<=", _add(d, -1)) if mode == "reflect" else compare_dims(d, ">=", 1)
            parts.append(or_([compare_dims(q, "<=", 0), limit]))
    return and_(parts)


def _crop(q: Any) -> Any:
    """The part of a pad that removes elements: ``min(q, 0)``."""
    return min(int(q), 0) if _is_int(q) else normalize_dim(sympy.Min(sympy.sympify(q), 0))


def all_at_least(values: Any, bound: Any) -> Any:
    """True when every number of a float list (an attribute, or a constant input's value) is at
    least ``bound``; unknown when the values are not known.

    >>> all_at_least((1.0, 2.5), 1), all_at_least((1.0, 0.5), 1)
    (True, False)
    """
    from .logic import UNKNOWN
    v = _vec(values)
    if v is None:
        return True
    if isinstance(v, Unknown) or isinstance(bound, Unknown):
        return UNKNOWN
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
        return UNKNOWN
    return all(float(x) >= float(bound) for x in v)


def _scale_dim(d: Any, s: float) -> Any:
    """``floor(d * s)`` with the float32 product of onnxruntime on ints, exactly on symbols."""
    if _is_int(d):
        return int(math.floor(float(np.float32(d) * np.float32(s))))
    return normalize_dim(floor_of(sympy.sympify(d) * sympy.Rational(float(np.float32(s)))))


def resize_shape(shape: Any, scales: Any = None, sizes: Any = None, axes: Any = None,
                 policy: Any = "stretch") -> Any:
    """Resize's (and Upsample's) output: ``floor(d * scale)`` per axis, or ``sizes``.

    An empty ``scales`` counts as absent (Resize-11 passes sizes beside an empty scales).  With
    ``keep_aspect_ratio_policy`` not_larger / not_smaller one scale (the min / max of
    ``sizes[i] / d``) applies to every axis, rounded half up; on symbols that is a fresh dim.
    """
    if isinstance(shape, Unknown):
        return UnknownShape(None)
    if isinstance(scales, TensorVal) and scales.shape == (0,):
        scales = None   # an empty scales beside sizes: its contents are known from its shape
    sc, sz = _vec(scales), _vec(sizes)
    if sc == ():
        sc = None
    ax = _axes(axes, len(shape))
    if ax is None or isinstance(sc, Unknown) or isinstance(sz, Unknown) and sc is None:
        return _fresh_shape(shape, "resized")
    out = list(shape)
    if sc is not None:
        if len(sc) != len(ax):
            raise EvalError(f"scales has {len(sc)} values for {len(ax)} axes")
        for a, s in zip(ax, sc):
            out[a] = _scale_dim(shape[a], s)
        return tuple(out)
    if sz is None:
        raise EvalError("Resize needs scales or sizes")
    if len(sz) != len(ax):
        raise EvalError(f"sizes has {len(sz)} values for {len(ax)} axes")
    if policy == "stretch":
        for a, s in zip(ax, sz):
            out[a] = s
        return tuple(out)
    if not all(_is_int(x) for x in sz) or not all(_is_int(shape[a]) for a in ax):
        return tuple(unknown_dim("resized") if i in ax else d for i, d in enumerate(shape))
    ratios = [int(s) / int(shape[a]) for a, s in zip(ax, sz)]   # in float64, as onnx.reference and onnxruntime
    r = min(ratios) if policy == "not_larger" else max(ratios)
    for a in ax:
        out[a] = int(math.floor(r * int(shape[a]) + 0.5))
    return tuple(out)


def quotient(a: Any, b: Any) -> Any:
    """``a / b`` for a dim that a rule states ``b`` divides: exact on ints (floor), ``a/b`` on symbols
    when sympy knows it is whole, else ``floor(a/b)`` (equal to ``a/b`` under the rule's condition).

    >>> from shapecheck.types import symbol
    >>> C = symbol("C")
    >>> quotient(12, 4), quotient(4 * C, 2), quotient(C, 4)
    (3, 2*C, floor(C/4))
    """
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return NO_VALUE
    if _is_int(a) and _is_int(b):
        if b == 0:
            raise EvalError("division by 0")
        return int(a) // int(b)
    q = sympy.sympify(a) / b
    return normalize_dim(q if q.is_integer else floor_of(q))


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


def clip_value(v: Any, lo: Any = None, hi: Any = None) -> Any:
    """Clip of an integer value: ``min(max(v, lo), hi)`` element by element, an absent bound skipped."""
    v, lo, hi = _value(v), _value(lo), _value(hi)
    if isinstance(v, (Unknown, np.ndarray)):
        return NO_VALUE
    for bound, op in ((lo, "max"), (hi, "min")):
        if bound is None:
            continue
        if isinstance(bound, (Unknown, np.ndarray)):
            return NO_VALUE
        if isinstance(bound, tuple):
            if len(bound) != 1:
                return NO_VALUE
            bound = bound[0]
        v = elementwise(op, v, bound)
    return v


# the functions this module lends the notation (registered by notation/compile.py)
NOTATION = (pad_shape, pad_fits, quotient, all_at_least, resize_shape, onehot_depth, onehot_shape, clip_value)
