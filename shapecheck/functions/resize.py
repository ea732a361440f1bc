"""Resize functions: the output shape of Resize and Upsample (``floor(d * scale)`` per axis, or the
sizes), and the checks their rules make of scales and divisors.

Exact on ints, exact on symbols where the algebra allows, and a fresh unknown dim where a value
is known only at run time (a scale that is not a constant).

>>> from shapecheck.dims import symbol
>>> N, S = symbol("N"), symbol("S")
>>> resize_shape((N, 3, S, 4), (1.0, 1.0, 2.0, 0.5)), quotient(4 * S, 2)
((N, 3, 2*S, 2), 2*S)
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..notation import NO_VALUE, UNKNOWN, EvalError, TensorVal, Unknown, UnknownShape
from ..dims.rounding import floor_of
from ..dims import normalize_dim, unknown_dim
from .layout import _axes, _fresh_shape, _is_int, _vec

if TYPE_CHECKING:
    import numpy as np
    import sympy
else:
    from ..deferred import numpy as np
    from ..deferred import sympy


def _scale_dim(d: Any, s: float) -> Any:
    """``floor(d * s)`` with the float32 product of onnxruntime: on ints, as it computes it; on
    symbols, ``floor(d * s)`` where that product is exact, a fresh dim where float32 rounds it.

    The product is exact when the scale is a power of two, for every size float32 holds (below 2**24;
    a larger one onnxruntime rounds to float32 before it multiplies, as its own inference warns: OS1).
    Any other scale has more significant bits than the size leaves room for, and the rounded product
    can reach the next integer: ``10 * 0.7`` is 7 in float32
    (onnxruntime, torch) and ``floor(10 * 0.699999988)`` = 6 in double (onnx.reference); no one
    floor of the symbol is right at every size (docs/runtime-findings.md OS1).

    >>> from shapecheck.dims import symbol, is_unknown
    >>> H = symbol("H")
    >>> _scale_dim(H, 2.0), _scale_dim(H, 0.25), _scale_dim(10, 0.7), is_unknown(_scale_dim(H, 0.7))
    (2*H, floor(H/4), 7, True)
    """
    s32 = np.float32(s)
    if _is_int(d):
        return int(math.floor(float(np.float32(d) * s32)))
    exact = sympy.Rational(float(s32))
    if exact.p & (exact.p - 1):   # the numerator is not a power of two: the product rounds
        return unknown_dim("resized")
    return normalize_dim(floor_of(sympy.sympify(d) * exact))


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

    >>> from shapecheck.dims import symbol
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


def all_at_least(values: Any, bound: Any) -> Any:
    """True when every number of a float list (an attribute, or a constant input's value) is at
    least ``bound``; unknown when the values are not known.

    >>> all_at_least((1.0, 2.5), 1), all_at_least((1.0, 0.5), 1)
    (True, False)
    """
    v = _vec(values)
    if v is None:
        return True
    if isinstance(v, Unknown) or isinstance(bound, Unknown):
        return UNKNOWN
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
        return UNKNOWN
    return all(float(x) >= float(bound) for x in v)


NOTATION = (resize_shape, quotient, all_at_least)
