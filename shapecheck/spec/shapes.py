"""Notation functions that compute output shapes: broadcasting, Reshape targets, Range
lengths, Slice extents.  Each is exact on plain integers, exact on symbols where the
algebra allows, and a fresh unknown dim where it does not (never a guess).

>>> from shapecheck.types import symbol
>>> N, S = symbol("N"), symbol("S")
>>> broadcast((N, 1, S), (4, S)), range_len(0, S, 1), slice_dim(S, 1, INT64_MAX, 1)
((N, 4, S), S, Max(0, S - 1))
>>> reshape_shape((N, 3, 4), (N, -1), 0), slice_shape((N, S, 8), (0, -1), (INT64_MAX, INT64_MAX), (0, 1))
((N, 12), (N, Min(1, S), 8))
"""
from __future__ import annotations

from typing import Any

import numpy as np
import sympy

from ..types import is_unknown, normalize_dim, unknown_dim
from .compare import compare_dims, make_rel
from .logic import NO_VALUE, UNKNOWN, Cond, EvalError, NeedInt, Unknown, UnknownShape, and_, or_
from .values import INT64_MAX


def _is_int(x: Any) -> bool:
    return type(x) is int or isinstance(x, np.integer)


def _shapes(args: tuple) -> tuple | None:
    """``broadcast(a, b)`` or ``broadcast(x.shape for x in inputs)``: the shapes, or None if one is unknown."""
    if len(args) == 1 and isinstance(args[0], tuple) and all(isinstance(a, (tuple, Unknown)) for a in args[0]):
        args = args[0]
    if any(isinstance(a, Unknown) for a in args):
        return None
    for a in args:
        _need_shape(a)
    return args


def _need_shape(x: Any) -> None:
    """A shape argument must be a tuple of dims (a 1-D value), not an array of another rank."""
    if not isinstance(x, tuple) or not all(_is_int(d) or isinstance(d, sympy.Basic) for d in x):
        raise EvalError(f"expected a shape (a vector of dims), got {type(x).__name__}")


def _aligned(shapes: tuple) -> list[list]:
    rank = max((len(s) for s in shapes), default=0)
    return [[s[i - (rank - len(s))] for s in shapes if i - (rank - len(s)) >= 0] for i in range(rank)]


def _merge(dims: list) -> Any:
    """The broadcast of dims that the broadcastable() rule accepts."""
    out = dims[0]
    for d in dims[1:]:
        if d == out or d == 1:
            continue
        if out == 1:
            out = d
        elif _is_int(out) and not _is_int(d):
            continue                       # d must equal out (or be 1)
        elif _is_int(d) and not _is_int(out):
            out = d
        elif _is_int(d) and _is_int(out):
            raise EvalError(f"dims {out} and {d} do not broadcast")
        else:
            out = _ordered_broadcast(out, d)
    return normalize_dim(out)


def _ordered_broadcast(a: Any, b: Any) -> Any:
    """Two symbolic dims that broadcast: the larger when that is provably the result, else a fresh unknown.

    Valid pairs are equal, or one of them is 1, and the result is the other.  When sympy proves
    ``small <= large``, the result is ``large`` in every valid pair but one: ``large == 1`` with
    ``small == 0`` (the result is then 0).  That pair is ruled out when ``large`` is a symbol and
    ``small`` is known not to be 0 at ``large = 1`` (``Min(64, seq)`` against ``seq``).

    >>> from shapecheck.types import symbol
    >>> S = symbol("S")
    >>> _ordered_broadcast(sympy.Min(64, S), S)
    S
    """
    from ..types import is_unknown as _unknown
    if _unknown(a) or _unknown(b):
        return unknown_dim("broadcast")
    a, b = sympy.sympify(a), sympy.sympify(b)
    top = sympy.Max(a, b)                  # sympy folds Max when it can order the two (Min(64, S) <= S)
    if top == b:
        small, large = a, b
    elif top == a:
        small, large = b, a
    else:
        return unknown_dim("broadcast")     # N vs M: N, M or either, by the condition; not known here
    if isinstance(large, sympy.Symbol):
        at_one = sympy.sympify(small).subs(large, 1)
        if at_one.is_number and at_one != 0:
            return large
    return unknown_dim("broadcast")


def broadcast(*args) -> Any:
    """The multidirectional (numpy) broadcast of shapes."""
    shapes = _shapes(args)
    if shapes is None:
        return UnknownShape(None)
    return tuple(_merge(col) for col in _aligned(shapes))


def broadcastable(*args) -> Any:
    """True when the shapes broadcast: each aligned pair equal or one of them 1 (a condition on symbols)."""
    shapes = _shapes(args)
    if shapes is None:
        return UNKNOWN
    parts = []
    for col in _aligned(shapes):
        for i in range(len(col)):
            for j in range(i + 1, len(col)):
                a, b = col[i], col[j]
                parts.append(or_([compare_dims(a, "==", b), compare_dims(a, "==", 1), compare_dims(b, "==", 1)]))
    return and_(parts)


def unidirectional(target: Any, shape: Any) -> Any:
    """True when ``shape`` broadcasts to ``target`` (Expand's input to its result, Gemm's C)."""
    if isinstance(target, Unknown) or isinstance(shape, Unknown):
        return UNKNOWN
    _need_shape(target)
    _need_shape(shape)
    if len(shape) > len(target):
        return False
    parts = [or_([compare_dims(d, "==", t), compare_dims(d, "==", 1)])
             for d, t in zip(shape, target[len(target) - len(shape):])]
    return and_(parts)


def reshape_shape(shape: Any, target: Any, allowzero: Any = 0) -> Any:
    """Reshape's output shape: ``0`` copies the input dim (unless allowzero), ``-1`` takes the rest.

    A symbolic target dim is taken as is; it is 0 at run time only if the spec's condition
    that it is not (or that it equals the input dim) fails.
    """
    if isinstance(shape, Unknown) or isinstance(target, Unknown) or isinstance(allowzero, Unknown):
        return UnknownShape(None)
    _need_shape(target)
    out: list = []
    infer_at = None
    for i, t in enumerate(target):
        if _is_int(t) and t == -1:
            if infer_at is not None:
                raise EvalError("a Reshape target may hold at most one -1")
            infer_at = i
            out.append(None)
        elif _is_int(t) and t == 0 and not allowzero:
            if i >= len(shape):
                raise EvalError(f"target dim {i} is 0 (copy), but the input has rank {len(shape)}")
            out.append(shape[i])
        elif _is_int(t) and t < -1:
            raise EvalError(f"a Reshape target dim cannot be {t}")
        else:   # a symbolic t that is 0 at run time copies the input dim: the spec states t != 0 as a condition
            out.append(t)
    if infer_at is not None:
        out[infer_at] = _quotient(_product(shape), _product([d for d in out if d is not None]))
    return tuple(normalize_dim(d) for d in out)


def _product(dims) -> Any:
    p: Any = 1
    for d in dims:
        p = p * d if _is_int(p) and _is_int(d) else sympy.sympify(p) * d
    return p


def _quotient(total, part) -> Any:
    if _is_int(total) and _is_int(part):
        if part == 0 or total % part:
            raise EvalError(f"-1 in a Reshape target: {total} elements do not split into parts of {part}")
        return total // part
    q = sympy.cancel(sympy.sympify(total) / part)
    num, den = sympy.fraction(q)
    if den == 1 and q.is_integer is not False:
        return normalize_dim(sympy.expand(q))
    return unknown_dim("reshaped")


def range_len(start: Any, limit: Any, delta: Any) -> Any:
    """Range's length ``max(ceil((limit - start) / delta), 0)``."""
    for x in (start, limit, delta):
        if isinstance(x, Unknown):
            return NO_VALUE
    if all(_is_int(x) for x in (start, limit, delta)):
        if delta == 0:
            raise EvalError("Range with delta 0")
        return max(-(-(limit - start) // delta), 0)
    if not _is_int(delta):
        return unknown_dim("range")
    if any(is_unknown(s) for s in sympy.sympify(limit - start).free_symbols):
        return unknown_dim("range")
    n = sympy.ceiling(sympy.sympify(limit - start) / delta)
    return normalize_dim(n if n.is_nonnegative else sympy.Max(0, n))


def _clamp(x, lo, hi):
    """min(max(x, lo), hi) on ints, or with sympy where symbols are."""
    if all(_is_int(v) for v in (x, lo, hi)):
        return min(max(x, lo), hi)
    return normalize_dim(sympy.Min(sympy.Max(x, lo), hi))


def _sign(x) -> int | None:
    """The sign of a Slice bound; None where unknown.  An unknown element (a fresh dim) may stand for
    any integer when it is a bound, so it has no sign here, though fresh dims are nonnegative."""
    if _is_int(x):
        return (x > 0) - (x < 0)
    e = sympy.sympify(x)
    if any(is_unknown(s) for s in e.free_symbols):
        return None
    return 1 if e.is_positive else (0 if e.is_zero else (-1 if e.is_negative else (0 if e.is_nonnegative else None)))


def _start_end(dim, start, end, step):
    """The effective [start, end) of one axis after ONNX's negative-index and clamping rules."""
    if _is_int(start) and start > INT64_MAX // 2:
        start = dim
    if _is_int(end) and end > INT64_MAX // 2:
        end = dim
    if _is_int(end) and end < -(INT64_MAX // 2):
        end = -1 if step < 0 else 0
        e_fixed = True
    else:
        e_fixed = False
    s_sign, e_sign = _sign(start), _sign(end)
    if s_sign is None or (e_sign is None and not e_fixed):
        return None
    s = start + dim if s_sign < 0 else start
    e = end if e_fixed else (end + dim if e_sign < 0 else end)
    if step > 0:
        e = e if e_fixed or e == dim else _clamp(e, 0, dim)
        # a start past the end gives length 0 either way, so a start known >= 0 needs no upper clamp
        return (s if _sign(s) in (0, 1) else _clamp(s, 0, dim)), e
    return _clamp(s, 0, dim - 1 if _is_int(dim) else sympy.sympify(dim) - 1), (e if e_fixed else _clamp(e, -1, dim - 1))


def slice_dim(dim: Any, start: Any, end: Any, step: Any = 1) -> Any:
    """Length of one axis of a Slice: ``max(0, ceil((end' - start') / step))`` after clamping."""
    for x in (dim, start, end, step):
        if isinstance(x, Unknown):
            return unknown_dim("sliced")
    if not _is_int(step) or step == 0:
        if _is_int(step):
            raise EvalError("Slice with step 0")
        return unknown_dim("sliced")
    if step == 1 and _is_int(start) and start < 0 and not _is_int(dim) and \
            (end == dim or (_is_int(end) and end > INT64_MAX // 2)):
        return normalize_dim(sympy.Min(-start, dim))     # the last -start elements, or all if fewer
    se = _start_end(dim, start, end, step)
    if se is None:
        return unknown_dim("sliced")
    s, e = se
    if all(_is_int(v) for v in (s, e)):
        return max(-(-(e - s) // step), 0)
    n = sympy.ceiling((sympy.sympify(e) - s) / step)   # no simplify(): 100 ms a call, and exact without it
    return normalize_dim(n if n.is_nonnegative else sympy.Max(0, n))


def _axes(rank: int, axes: Any, n: int) -> list[int]:
    if axes is None:
        return list(range(n))
    axes = axes if isinstance(axes, tuple) else (axes,)
    out = []
    for a in axes:
        if not _is_int(a):
            raise NeedInt(a)
        a = int(a)
        if not -rank <= a < rank:
            raise EvalError(f"axis {a} is outside rank {rank}")
        out.append(a + rank if a < 0 else a)
    return out


def slice_shape(shape: Any, starts: Any, ends: Any, axes: Any = None, steps: Any = None) -> Any:
    """Slice's output shape: each sliced axis by ``slice_dim``, the others unchanged."""
    if isinstance(shape, Unknown):
        return UnknownShape(None)
    starts, ends = (v if isinstance(v, (tuple, Unknown)) else (v,) for v in (starts, ends))
    if isinstance(axes, Unknown):
        return tuple(unknown_dim("sliced") for _ in shape)
    if isinstance(starts, Unknown) or isinstance(ends, Unknown) or isinstance(steps, Unknown):
        ax = _axes(len(shape), axes, len(shape)) if axes is not None else range(len(shape))
        return tuple(unknown_dim("sliced") if i in ax else d for i, d in enumerate(shape))
    ax = _axes(len(shape), axes, len(starts))
    steps = steps if isinstance(steps, tuple) else ((1,) * len(ax) if steps is None else (steps,))
    if not len(starts) == len(ends) == len(ax) == len(steps):
        raise EvalError("starts, ends, axes and steps must have the same length")
    out = list(shape)
    for a, s, e, st in zip(ax, starts, ends, steps):
        out[a] = slice_dim(shape[a], s, e, st)
    return tuple(out)


def slice_values(v: Any, starts: Any, ends: Any, axes: Any = None, steps: Any = None) -> Any:
    """Slice of a vector value (a shape tensor), with ONNX's clamping: exact where the bounds are ints.

    >>> slice_values((2, 3, 4, 5), (-1,), (INT64_MAX,)), slice_values((2, 3, 4, 5), (-1,), (-INT64_MAX,), (0,), (-2,))
    ((5,), (5, 3))
    """
    if isinstance(v, Unknown) or not isinstance(v, tuple):
        return NO_VALUE
    if any(isinstance(x, Unknown) for x in (starts, ends, axes, steps)):
        return NO_VALUE
    starts, ends = (x if isinstance(x, tuple) else (x,) for x in (starts, ends))
    if not starts and not ends:
        return v
    steps = (steps if isinstance(steps, tuple) else (steps,)) if steps is not None else (1,) * len(starts)
    if len(starts) != 1 or len(ends) != 1 or len(steps) != 1 or not all(_is_int(x) for x in starts + ends + steps) \
            or steps[0] == 0:
        return NO_VALUE
    s, e = _start_end(len(v), int(starts[0]), int(ends[0]), int(steps[0]))
    return tuple(v[i] for i in range(s, e, int(steps[0])))


def fresh_dims(n: Any, label: str = "dim") -> Any:
    """``n`` fresh unknown dims: a shape whose rank is known but whose dims are not."""
    if isinstance(n, Unknown) or not _is_int(n):
        return UnknownShape(None)
    return tuple(unknown_dim(str(label)) for _ in range(int(n)))


def is_int(x: Any) -> bool:
    """True for a concrete integer dim or value, False for a symbolic one."""
    return _is_int(x) and not isinstance(x, bool)


def otherwise(x: Any, fallback: Any) -> Any:
    """``x``, or ``fallback`` where ``x`` is not known statically (a value known only at run time)."""
    return fallback if isinstance(x, Unknown) else x


def total(xs: Any) -> Any:
    """The sum of dims: ``total(x.shape[a] for x in inputs)``."""
    if isinstance(xs, Unknown):
        return xs
    out: Any = 0
    for x in xs:
        if isinstance(x, Unknown):
            return UNKNOWN
        out = out + x if _is_int(out) and _is_int(x) else normalize_dim(sympy.sympify(out) + x)
    return out


def unknown() -> Any:
    """A value known only at run time (an output value rule with nothing to say)."""
    return NO_VALUE


def fresh(label: str) -> Any:
    """A fresh unknown dim: a size known only at run time (NonZero's count, Unique's length)."""
    return unknown_dim(str(label))


def present(x: Any) -> bool:
    """True when an optional input is given (an absent one is ``None`` in the rules' environment)."""
    return x is not None


def arange(n: Any) -> Any:
    """``(0, 1, ..., n-1)``: the default axes of Slice when its ``axes`` input is absent.

    >>> arange(3)
    (0, 1, 2)
    """
    if isinstance(n, Unknown):
        return n
    if not _is_int(n):
        raise NeedInt(n)
    return tuple(range(int(n)))


def repeat(v: Any, n: Any) -> Any:
    """``(v, v, ..., v)``, n times: the default steps of Slice (all 1).

    >>> repeat(1, 2)
    (1, 1)
    """
    if isinstance(n, Unknown):
        return n
    if not _is_int(n):
        raise NeedInt(n)
    return (v,) * int(n)


def split_sizes(dim: Any, n: Any, uneven: Any = 0) -> Any:
    """The sizes of ``n`` parts of an axis of ``dim``: equal parts (``dim / n``, C-rules check that it
    divides), or with ``uneven`` (Split-18's ``num_outputs``) ``ceil(dim / n)`` each and the rest last.

    >>> from shapecheck.types import symbol
    >>> N = symbol("N")
    >>> split_sizes(6, 3), split_sizes(7, 3, 1), split_sizes(2 * N, 2)
    ((2, 2, 2), (3, 3, 1), (N, N))
    """
    if isinstance(dim, Unknown) or isinstance(n, Unknown):
        return UNKNOWN
    if not _is_int(n) or n < 1:
        raise EvalError(f"cannot split into {n} parts")
    n = int(n)
    if _is_int(dim):
        if uneven:
            c = -(-int(dim) // n)
            return (c,) * (n - 1) + (int(dim) - c * (n - 1),)
        return (int(dim) // n,) * n
    q = sympy.sympify(dim) / n
    if uneven:
        c = normalize_dim(sympy.ceiling(q))
        return (c,) * (n - 1) + (normalize_dim(sympy.sympify(dim) - c * (n - 1)),)
    part = normalize_dim(q) if q.is_integer else unknown_dim("split")
    return (part,) * n


def divisible(a: Any, b: Any) -> Any:
    """True when ``b`` divides ``a``; undecided (a condition on the rule) for symbols sympy cannot settle.

    >>> from shapecheck.types import symbol
    >>> divisible(6, 3), divisible(7, 3), divisible(4 * symbol("N"), 2)
    (True, False, True)
    """
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return UNKNOWN
    if _is_int(a) and _is_int(b):
        return b != 0 and a % b == 0
    q = sympy.sympify(a) / b
    if q.is_integer is not None:
        return bool(q.is_integer)
    if any(is_unknown(s) for s in q.free_symbols):
        return UNKNOWN
    return Cond((make_rel("==", sympy.Mod(a, b), 0),))


def parts(v: Any, sizes: Any, i: Any) -> Any:
    """Part ``i`` of a vector value cut into pieces of ``sizes`` (Split of a shape tensor).

    >>> parts((4, 5, 6), (1, 2), 1)
    (5, 6)
    """
    if isinstance(v, Unknown) or isinstance(sizes, Unknown) or not isinstance(v, tuple) or \
            not all(_is_int(s) for s in sizes) or not _is_int(i) or not 0 <= int(i) < len(sizes):
        return NO_VALUE
    start = sum(int(s) for s in sizes[:int(i)])
    return v[start:start + int(sizes[int(i)])]


def unique_axes(axes: Any, rank: Any) -> Any:
    """True when no two axes name the same dim once negative ones count from the back.

    >>> unique_axes((0, -1), 3), unique_axes((2, -1), 3)
    (True, False)
    """
    if isinstance(axes, Unknown) or isinstance(rank, Unknown):
        return axes if isinstance(axes, Unknown) else rank
    axes = axes if isinstance(axes, tuple) else (axes,)
    if not all(_is_int(a) for a in axes):
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
        if not _is_int(a):
            raise NeedInt(a)
        if not -rank <= a < rank:
            raise EvalError(f"axis {a} is outside rank {rank}")
        out.append(int(a) + rank if a < 0 else int(a))
    return sorted(set(out))


def reduce_shape(shape: Any, axes: Any, keepdims: Any = 1, noop: Any = 0) -> Any:
    """The output shape of a Reduce* op: reduced axes become 1 (keepdims) or go; no axes reduce all,
    unless noop_with_empty_axes.  Axes known only at run time leave the dims (or the rank) unknown.

    >>> from shapecheck.types import symbol
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

    >>> from shapecheck.types import symbol
    >>> N = symbol("N")
    >>> reduce_values("prod", (N, 3, 4), None, 0), reduce_values("sum", (N, 2), (0,), 1)
    (12*N, (N + 2,))
    """
    from .values import _one
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


# the functions this module lends the notation (registered by spec/compile.py)
NOTATION = (broadcast, broadcastable, unidirectional, reshape_shape, range_len, slice_dim, slice_shape, slice_values, fresh, fresh_dims, otherwise, total, unknown, is_int, present, arange, repeat, split_sizes, divisible, parts, unique_axes, reduce_shape, reduce_values,)
