"""Notation functions for the bounds of a tensor's elements when the elements are not known.

Positions computed from sizes (``Range(0, seq)``, ``arange(s) - 8``) are indices whose values are
known only at run time, yet they lie between two dims: ``[0, seq - 1]``.  An output's ``bounds``
rule states them as ``(lo, hi, exact)``, and an index rule (``-s <= indices <= s - 1``) is then a
condition over the input dims (``seq <= 64``) instead of a check left to the runtime.

``exact`` says that a non-empty tensor attains both bounds (a Range, a Concat of Ranges, the same
elements moved or repeated, shifted by a constant): a comparison is then a condition, necessary
and sufficient.  Bounds that only contain the elements (a Gather or Slice of them, one column
``[..., j]``) are ``loose``: they can prove an index in range, never make it a condition.

>>> from shapecheck.dims import symbol
>>> from shapecheck.types import TensorType
>>> from shapecheck.notation import TensorVal
>>> s = symbol("seq")
>>> range_bounds(0, s, 1), hull((0, s - 1, True), (2, 3, True)), shifted((0, s - 1, True), -8, "+")
((0, seq - 1, True), (0, Max(3, seq - 1), True), (-8, seq - 9, True))
>>> bounds(TensorVal("x", TensorType("int64", (3,), None, (1, 7, 2)))), loose((0, s - 1, True))
((1, 7, True), (0, seq - 1, False))
"""
from __future__ import annotations

from functools import reduce
from typing import TYPE_CHECKING, Any

from ..dims import LIGHT, is_symbolic, is_unknown, normalize_dim
from ..dims.light_order import least
from ..notation import NO_VALUE, TensorVal, Unknown
from ..notation.operators import int_like

from ..tensor_data import holds_integers
from ..types import numpy_dtype

if TYPE_CHECKING:
    import numpy as np
    import sympy
else:
    from ..deferred import numpy as np, sympy


def bounds(x: Any) -> Any:
    """``(lo, hi)`` of a tensor's elements: from its value (a tensor attribute's too: ConstantOfShape's
    elements are its value), its symbolic elements or its bounds."""
    if not isinstance(x, TensorVal):
        return NO_VALUE
    if x.value is not None:
        if x.value.size == 0 or not holds_integers(x.value):
            return NO_VALUE
        return int(x.value.min()), int(x.value.max()), True
    if x.sym is not None:
        elems = [e for e in x.sym if not isinstance(e, bool)]
        if not elems or any(not (int_like(e) or is_symbolic(e)) or (is_symbolic(e) and _has_unknown(e)) for e in elems):
            return NO_VALUE
        if all(int_like(e) for e in elems):
            return int(min(elems)), int(max(elems)), True
        return (normalize_dim(sympy.Min(*elems)), normalize_dim(sympy.Max(*elems)), True) if len(elems) > 1 else \
            (elems[0], elems[0], True)
    if x.bounds is not None:
        return x.bounds
    return (0, 1, False) if x.dtype == "bool" else NO_VALUE   # a bool is 0 or 1 (a mask cast to int)


def _has_unknown(e: Any) -> bool:
    return any(is_unknown(s) for s in e.free_symbols)


def range_bounds(start: Any, limit: Any, delta: Any) -> Any:
    """The bounds of ``Range(start, limit, delta)`` for an integer ``delta``: ``[start, limit - 1]``
    upwards, ``[limit + 1, start]`` downwards (the last element is at most one short of ``limit``)."""
    if any(isinstance(v, Unknown) or not (int_like(v) or is_symbolic(v)) for v in (start, limit, delta)):
        return NO_VALUE
    if not int_like(delta) or delta == 0:
        return NO_VALUE
    if delta > 0:   # the last element is limit - 1 only for a step of 1; with a larger step, at most that
        return normalize_dim(start), normalize_dim(limit - 1), delta == 1
    return normalize_dim(limit + 1), normalize_dim(start), delta == -1


def hull(*parts: Any) -> Any:
    """The bounds that hold every part's elements (a Concat of bounded tensors): exact when every
    part's are (each part is non-empty, or the smaller bound comes from another part)."""
    if len(parts) == 1 and isinstance(parts[0], tuple) and parts[0] and isinstance(parts[0][0], tuple):
        parts = parts[0]
    if not parts or any(not isinstance(p, tuple) or len(p) != 3 for p in parts):
        return NO_VALUE
    los, his = [p[0] for p in parts], [p[1] for p in parts]
    exact = all(p[2] for p in parts)
    if all(int_like(v) for v in los + his):
        return min(los), max(his), exact
    if any(type(v) in LIGHT for v in los + his):   # the one bound below (above) all others, or NeedsAlgebra
        return (reduce(lambda x, y: least(x, y, "<="), map(normalize_dim, los)),
                reduce(lambda x, y: least(x, y, ">="), map(normalize_dim, his)), exact)
    return normalize_dim(sympy.Min(*los)), normalize_dim(sympy.Max(*his)), exact


def loose(b: Any) -> Any:
    """Bounds that still hold the elements but may not be attained (a Gather or a Slice of them)."""
    if not isinstance(b, tuple) or len(b) != 3:
        return NO_VALUE
    return b[0], b[1], False


def shifted(b: Any, c: Any, op: str) -> Any:
    """The bounds of ``x op c`` for ``x`` within ``b`` and ``c`` a scalar dim (``+``, ``-``, or ``*``
    by a non-negative number)."""
    if not isinstance(b, tuple) or len(b) != 3 or isinstance(c, Unknown):
        return NO_VALUE
    if isinstance(c, tuple):
        if len(c) != 1:
            return NO_VALUE
        c = c[0]
    if not (int_like(c) or (is_symbolic(c) and not _has_unknown(c))):
        return NO_VALUE
    lo, hi, exact = b
    if op == "+":
        return normalize_dim(lo + c), normalize_dim(hi + c), exact
    if op == "-":
        return normalize_dim(lo - c), normalize_dim(hi - c), exact
    if op == "*" and (int_like(c) and c >= 0 or not int_like(c) and _nonneg(c)):   # a row stride: i * total
        return normalize_dim(lo * c), normalize_dim(hi * c), exact
    return NO_VALUE


def with_bounds(a: Any, b: Any, op: str) -> Any:
    """The bounds of ``a op b`` (``+``, ``-``, ``*``) where one side is bounded and the other a
    known scalar (an Add or Sub of a constant to positions), or both are bounded and not negative
    (a running count times a mask): then loose, as the two extremes need not meet in one element.

    >>> from shapecheck.dims import symbol
    >>> from shapecheck.types import TensorType
    >>> s = symbol("seq")
    >>> count = TensorVal("c", TensorType("int32", (2, s), bounds=(0, s, False)))
    >>> with_bounds(count, TensorVal("m", TensorType("bool", (2, s))), "*")
    (0, seq, False)
    """
    ba, bb = bounds(a), bounds(b)
    if isinstance(ba, tuple) and _constant(b, bb) is not None and op in ("+", "-", "*"):
        return shifted(ba, _constant(b, bb), op)
    if isinstance(bb, tuple) and _constant(a, ba) is not None and op in ("+", "*"):
        return shifted(bb, _constant(a, ba), op)
    if isinstance(ba, tuple) and isinstance(bb, tuple) and op in ("+", "*") and _nonneg(ba[0]) and _nonneg(bb[0]):
        combine = (lambda x, y: x + y) if op == "+" else (lambda x, y: x * y)
        return normalize_dim(combine(ba[0], bb[0])), normalize_dim(combine(ba[1], bb[1])), False
    return NO_VALUE


def _nonneg(v: Any) -> bool:
    return (int_like(v) and v >= 0) or (is_symbolic(v) and not _has_unknown(v) and v.is_nonnegative is True)


def value_range(dtype: Any) -> tuple[int, int] | None:
    """The values of an integer element type (numpy's ``iinfo``; a bool is 0 or 1), None for others.

    >>> value_range("int8"), value_range("bool"), value_range("float")
    ((-128, 127), (0, 1), None)
    """
    if dtype == "bool":
        return 0, 1
    if dtype not in INTEGER_TYPES:
        return None
    info = np.iinfo(numpy_dtype(dtype))
    return int(info.min), int(info.max)


INTEGER_TYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")


def cast_bounds(x: Any, target: Any) -> Any:
    """The bounds of ``Cast(x, to=target)``: ``x``'s, when every value of ``x``'s element type is
    one of the target's (a bool mask to int32, int32 to int64), or when the bounds themselves fit
    the target: concrete ones checked, symbolic ones sizes (counts of elements), which fit a
    32-bit integer, as ``cast_value`` takes them through integer casts.  A float's bounds are
    integers (a float tensor has bounds only where it holds sizes: ``bounds``, ``running_bounds``),
    cast to an integer type as they are when they fit it; a cast to a float is not tracked.

    >>> from shapecheck.dims import symbol
    >>> from shapecheck.types import TensorType
    >>> s = symbol("seq")
    >>> mask = TensorVal("m", TensorType("bool", (4,)))
    >>> count = TensorVal("c", TensorType("int64", (s,), bounds=(0, s, False)))
    >>> cast_bounds(mask, "int32"), cast_bounds(count, "int32"), cast_bounds(count, "int16")
    ((0, 1, False), (0, seq, False), Unknown(value))
    """
    if type(x) is not TensorVal or not isinstance(target, str):
        return NO_VALUE
    have, want = value_range(x.dtype), value_range(target)
    b = bounds(x)
    held = x.dtype in ("float", "double")   # a float's bounds hold integers (sizes held in float): if they fit
    if (have is None and not held) or want is None or not isinstance(b, tuple):
        return NO_VALUE
    if have is not None and want[0] <= have[0] and have[1] <= want[1]:
        return b

    def fits(v: Any) -> bool:
        if int_like(v):
            return want[0] <= v <= want[1]
        return want[1] >= _INT32_MAX and (_nonneg(v) or want[0] <= -_INT32_MAX - 1)
    return b if fits(b[0]) and fits(b[1]) else NO_VALUE


_INT32_MAX = (1 << 31) - 1


def running_bounds(x: Any, axis: Any, exclusive: Any) -> Any:
    """The bounds of ``CumSum(x, axis)`` for ``x`` within integer bounds ``[lo, hi]``: with ``n``
    elements along the axis, a running sum of ``k <= n`` of them lies in ``[min(lo, n*lo), max(hi,
    n*hi)]`` (``k <= n - 1`` and 0 included when ``exclusive``).  Loose: a sum reaches ``n*hi`` only
    when every element is ``hi`` (RoBERTa's positions, a running count of a mask, reach ``seq``
    only without padding).

    >>> from shapecheck.dims import symbol
    >>> from shapecheck.types import TensorType
    >>> s = symbol("seq")
    >>> mask = TensorVal("m", TensorType("int32", (2, s), bounds=(0, 1, False)))
    >>> running_bounds(mask, 1, 0), running_bounds(mask, -1, 1), running_bounds(mask, 0, 0)
    ((0, seq, False), (0, seq - 1, False), (0, 2, False))
    """
    b = bounds(x)
    if not isinstance(b, tuple) or type(x) is not TensorVal or x.shape is None or isinstance(exclusive, Unknown):
        return NO_VALUE
    if not isinstance(axis, int):
        axis = getattr(axis, "size", 0) == 1 and axis.dtype.kind in "iu" and int(axis.reshape(-1)[0])
        if axis is False:
            return NO_VALUE
    rank = len(x.shape)
    if not -rank <= axis < rank:
        return NO_VALUE
    n = x.shape[axis] - (1 if exclusive else 0)
    lo, hi = b[0], b[1]
    if not (int_like(lo) and int_like(hi)) or (is_symbolic(n) and _has_unknown(n)):
        return NO_VALUE
    low = lo if lo >= 0 else lo * n
    high = hi * n if hi >= 0 else hi
    if exclusive:
        low, high = (0 if lo >= 0 else low), (high if hi >= 0 else 0)
    # every element the same c >= 0 (a ConstantOfShape of ones): the sums are c, 2c, ..., n*c, each attained
    return normalize_dim(low), normalize_dim(high), lo == hi and lo >= 0


def _constant(x: Any, b: Any) -> Any:
    """The one number every element of ``x`` is (``b``: its bounds), when it is one: a known scalar,
    or bounds that meet (a ConstantOfShape of ones, a mask that masks nothing); None otherwise.  An
    elementwise op with it moves the other side's elements by that number, each one, so exact bounds
    stay exact wherever the output broadcasts them."""
    one = _scalar(x)
    if one is not None:
        return one
    if isinstance(b, tuple) and int_like(b[0]) and int_like(b[1]) and b[0] == b[1]:
        return int(b[0])
    return None


def _scalar(x: Any) -> Any:
    """A tensor's one element, when it has exactly one and it is known."""
    if type(x) is not TensorVal:
        return None
    if x.value is not None and x.value.size == 1 and x.value.dtype.kind != "b" and holds_integers(x.value):
        return int(x.value.reshape(-1)[0])
    if x.sym is not None and len(x.sym) == 1 and not isinstance(x.sym[0], bool):
        return x.sym[0]
    return None


NOTATION = (bounds, range_bounds, hull, loose, shifted, with_bounds, cast_bounds, running_bounds)
