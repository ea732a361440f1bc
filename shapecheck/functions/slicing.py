"""Slicing functions: Slice extents and values, Split sizes and parts, and the positions Slice reads
(``slice_range``, which the kernels use too).

>>> from shapecheck.dims import symbol
>>> S = symbol("S")
>>> slice_dim(S, 1, INT64_MAX, 1), slice_shape((S, 8), (0, -1), (INT64_MAX, INT64_MAX), (0, 1))
(Max(0, S - 1), (S, 1))
"""
from __future__ import annotations

from functools import lru_cache

from typing import TYPE_CHECKING, Any

from ..notation import NO_VALUE, UNKNOWN, Cond, EvalError, NeedInt, Unknown, UnknownShape, compare_dims, make_rel
from ..notation.operators import element_grid, int_like
from ..dims import LIGHT, is_unknown, normalize_dim, unknown_dim
from ..dims.light_order import sign as light_sign
from ..dims.rounding import ceiling_of, provably_nonnegative

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy


INT64_MAX = (1 << 63) - 1


def _clamp(x, lo, hi):
    """min(max(x, lo), hi) on ints, or with sympy where symbols are."""
    if all(int_like(v) for v in (x, lo, hi)):
        return min(max(x, lo), hi)
    return _clamp_symbolic(x, lo, hi)


@lru_cache(maxsize=1 << 12, typed=True)
def _clamp_symbolic(x, lo, hi):
    # keyed by the three dims with their types: the result depends on nothing else
    # remembered: sympy's Min/Max cost milliseconds, and solves over canonical dims repeat them;
    # a bound the dims are known to respect is no Min/Max at all (compare decides sums of dims cheaply)
    # (where the comparison is open, sympy's own evaluation of Min/Max, which asks the same
    # question through its assumptions at far greater cost, could not drop an argument either)
    above = compare_dims(x, ">=", lo)
    y = x if above is True else lo if above is False else sympy.Max(x, lo, evaluate=False)
    below = compare_dims(y, "<=", hi)
    return normalize_dim(y if below is True else hi if below is False else sympy.Min(y, hi, evaluate=False))


def _sign(x) -> int | None:
    """The sign of a Slice bound; None where unknown.  An unknown element (a fresh dim) may stand for
    any integer when it is a bound, so it has no sign here, though fresh dims are nonnegative."""
    if int_like(x):
        return (x > 0) - (x < 0)
    if type(x) in LIGHT:
        return light_sign(x)   # what the assumptions below give, or NeedsAlgebra (dims/light_order.py)
    e = sympy.sympify(x)
    if any(is_unknown(s) for s in e.free_symbols):
        return None
    known = 1 if e.is_positive else (0 if e.is_zero else (-1 if e.is_negative else (0 if e.is_nonnegative else None)))
    if known is None and e.has(sympy.floor) and (provably_nonnegative(e) or compare_dims(e, ">=", 0) is True):
        # not negative: a length a convolution computes, floor((frames - 1)/2) + 1, or a product of
        # them plus one (a patch grid and its class token, (floor(h/16 - 3/16) + 1)*(floor(w/16 - 3/16) + 1) + 1)
        return 0
    return known


def _just_short_of(dim, end) -> bool:
    """Whether ``end`` is ``dim - 1`` or ``dim - 2`` (a dim, not a number)."""
    if int_like(dim) or int_like(end):
        return False
    if type(dim) in LIGHT or type(end) in LIGHT:
        gap = dim - end   # a light check's difference (dims/light.py): an int where sympy's is an Integer
        return type(gap) is int and 1 <= gap <= 2
    gap = sympy.sympify(dim) - sympy.sympify(end)
    return gap.is_Integer and 1 <= int(gap) <= 2


def _start_end(dim, start, end, step):
    """The effective [start, end) of one axis after ONNX's negative-index and clamping rules."""
    # a bound past every int64 dim is the dim itself, whatever expression the dim is (a dim is a size, so
    # never negative): floor(S/2 - 3/2) + 1 sliced [0:INT64_MAX] is itself
    s_dim = int_like(start) and start > INT64_MAX // 2
    if s_dim:
        start = dim
    e_dim = int_like(end) and end > INT64_MAX // 2
    if e_dim:
        end = dim
    if int_like(end) and end < -(INT64_MAX // 2):
        end = -1 if step < 0 else 0
        e_fixed = True
    else:
        e_fixed = False
    s_sign = 0 if s_dim and not int_like(start) else _sign(start)
    e_sign = 0 if e_dim and not int_like(end) else _sign(end)
    if e_sign is None and not e_fixed and step > 0 and s_sign is not None and _just_short_of(dim, end):
        # end = dim - 1 or dim - 2 (``x[:, :x.shape[1] - 1]``): negative only where dim < k, and there
        # the runtime's end (end + dim, clamped) is 0 as max(0, end) is (k = 3 at dim 2 gives 1: not so)
        end, e_sign, e_fixed = sympy.Max(0, end), 0, True
    if s_sign is None or (e_sign is None and not e_fixed):
        return None
    s = start + dim if s_sign < 0 else start
    e = end if e_fixed else (end + dim if e_sign < 0 else end)
    if step > 0:
        e = e if e_fixed or e == dim else _clamp(e, 0, dim)
        # a start past the end gives length 0 either way, so a start known >= 0 needs no upper clamp
        return (s if _sign(s) in (0, 1) else _clamp(s, 0, dim)), e
    return _clamp(s, 0, dim - 1 if int_like(dim) else sympy.sympify(dim) - 1), (e if e_fixed else _clamp(e, -1, dim - 1))


def slice_dim(dim: Any, start: Any, end: Any, step: Any = 1) -> Any:
    """Length of one axis of a Slice: ``max(0, ceil((end' - start') / step))`` after clamping."""
    for x in (dim, start, end, step):
        if isinstance(x, Unknown):
            return unknown_dim("sliced")
    if not int_like(step) or step == 0:
        if int_like(step):
            raise EvalError("Slice with step 0")
        return unknown_dim("sliced")
    if step == 1 and int_like(start) and start < 0 and not int_like(dim) and \
            (end == dim or (int_like(end) and end > INT64_MAX // 2)):
        return normalize_dim(sympy.Min(-start, dim))     # the last -start elements, or all if fewer
    se = _start_end(dim, start, end, step)
    if se is None:
        return unknown_dim("sliced")
    s, e = se
    if all(int_like(v) for v in (s, e)):
        return max(-(-(e - s) // step), 0)
    n = ceiling_of((sympy.sympify(e) - s) / step)   # no simplify(): 100 ms a call, and exact without it
    return normalize_dim(n if n.is_nonnegative else sympy.Max(0, n))


def _axes(rank: int, axes: Any, n: int) -> list[int]:
    if axes is None:
        return list(range(n))
    axes = axes if isinstance(axes, tuple) else (axes,)
    out = []
    for a in axes:
        if not int_like(a):
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


def slice_values(v: Any, starts: Any, ends: Any, axes: Any = None, steps: Any = None, shape: Any = None) -> Any:
    """Slice of a value with ONNX's clamping, exact where the bounds are ints: a vector's (a shape
    tensor), or the row-major elements of a tensor of ``shape`` (a ``[4, 2]`` table of pads).

    >>> slice_values((2, 3, 4, 5), (-1,), (INT64_MAX,)), slice_values((2, 3, 4, 5), (-1,), (-INT64_MAX,), (0,), (-2,))
    ((5,), (5, 3))
    >>> slice_values((1, 2, 3, 4, 5, 6), (-1,), (-INT64_MAX,), (0,), (-1,), (3, 2))
    (5, 6, 3, 4, 1, 2)
    """
    if isinstance(v, Unknown) or not isinstance(v, tuple):
        return NO_VALUE
    if any(isinstance(x, Unknown) for x in (starts, ends, axes, steps, shape)):
        return NO_VALUE
    starts, ends = (x if isinstance(x, tuple) else (x,) for x in (starts, ends))
    if not starts and not ends:
        return v
    steps = (steps if isinstance(steps, tuple) else (steps,)) if steps is not None else (1,) * len(starts)
    dims = (len(v),) if shape is None or len(shape) <= 1 else tuple(shape)
    axes = tuple(axes) if isinstance(axes, tuple) else (0,) if axes is None else (axes,)
    if not (len(starts) == len(ends) == len(steps) == len(axes)) or \
            not all(int_like(x) for x in starts + ends + steps + axes + dims) or 0 in steps:
        return NO_VALUE
    cut = [slice(None)] * len(dims)
    for a, b, e, st in zip(axes, starts, ends, steps):
        a = int(a) + len(dims) if int(a) < 0 else int(a)
        if not 0 <= a < len(dims):
            return NO_VALUE
        lo, hi = _start_end(int(dims[a]), int(b), int(e), int(st))
        cut[a] = slice(lo, hi if hi >= 0 else None, int(st))
    return tuple(element_grid(v, dims)[tuple(cut)].reshape(-1))


def repeat(v: Any, n: Any) -> Any:
    """``(v, v, ..., v)``, n times: the default steps of Slice (all 1).

    >>> repeat(1, 2)
    (1, 1)
    """
    if isinstance(n, Unknown):
        return n
    if not int_like(n):
        raise NeedInt(n)
    return (v,) * int(n)


def split_sizes(dim: Any, n: Any, uneven: Any = 0) -> Any:
    """The sizes of ``n`` parts of an axis of ``dim``: equal parts (``dim / n``, C-rules check that it
    divides), or with ``uneven`` (Split-18's ``num_outputs``) ``ceil(dim / n)`` each and the rest last.

    >>> from shapecheck.dims import symbol
    >>> N = symbol("N")
    >>> split_sizes(6, 3), split_sizes(7, 3, 1), split_sizes(2 * N, 2)
    ((2, 2, 2), (3, 3, 1), (N, N))
    """
    if isinstance(dim, Unknown) or isinstance(n, Unknown):
        return UNKNOWN
    if not int_like(n) or n < 1:
        raise EvalError(f"cannot split into {n} parts")
    n = int(n)
    if int_like(dim):
        if uneven:
            c = -(-int(dim) // n)
            return (c,) * (n - 1) + (int(dim) - c * (n - 1),)
        return (int(dim) // n,) * n
    q = sympy.sympify(dim) / n
    if uneven:
        c = normalize_dim(ceiling_of(q))
        return (c,) * (n - 1) + (normalize_dim(sympy.sympify(dim) - c * (n - 1)),)
    part = normalize_dim(q) if q.is_integer else unknown_dim("split")
    return (part,) * n


def divisible(a: Any, b: Any) -> Any:
    """True when ``b`` divides ``a``; undecided (a condition on the rule) for symbols sympy cannot settle.

    >>> from shapecheck.dims import symbol
    >>> divisible(6, 3), divisible(7, 3), divisible(4 * symbol("N"), 2)
    (True, False, True)
    """
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return UNKNOWN
    if int_like(a) and int_like(b):
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
            not all(int_like(s) for s in sizes) or not int_like(i) or not 0 <= int(i) < len(sizes):
        return NO_VALUE
    start = sum(int(s) for s in sizes[:int(i)])
    return v[start:start + int(sizes[int(i)])]


def slice_range(d: int, start: int, stop: int, step: int) -> range:
    """Positions Slice-8 reads on a dim of size ``d``: negatives count from the end, then start is
    clamped to [0, d] ([0, d-1] for a negative step) and stop to [0, d] ([-1, d-1]).

    This is not Python's ``slice.indices``: with a negative step a start below -d becomes 0 (one
    element), where Python gives nothing; the CPU plugin follows Slice-8.

    >>> list(slice_range(1, -3, -6, -3)), list(slice_range(5, -1, -100, -2))
    ([0], [4, 2, 0])
    """
    if d <= 0:
        return range(0)
    start, stop = start + d if start < 0 else start, stop + d if stop < 0 else stop
    if step > 0:
        return range(min(max(start, 0), d), min(max(stop, 0), d), step)
    return range(min(max(start, 0), d - 1), min(max(stop, -1), d - 1), step)


NOTATION = (slice_dim, slice_shape, slice_values, repeat, split_sizes, divisible, parts)
