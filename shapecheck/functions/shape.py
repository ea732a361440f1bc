"""Shape functions: the output shapes of broadcasting, Reshape and Expand, Range's length, and the
values of Shape and Concat (a shape tensor's value is a tuple of dims).

Each is exact on plain integers, exact on symbols where the algebra allows, and a fresh
unknown dim where it does not (never a guess).

>>> from shapecheck.dims import symbol
>>> N, S = symbol("N"), symbol("S")
>>> broadcast((N, 1, S), (4, S)), reshape_shape((N, 3, 4), (N, -1), 0)
((N, 4, S), (N, 12))
>>> concat([(N,), (-1,)]), range_len(0, S, 1)
((N, -1), S)
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..notation import NO_VALUE, UNKNOWN, EvalError, NeedInt, Unknown, UnknownShape, and_, compare_dims, or_
from ..notation.operators import int_like
from ..dims.rounding import ceiling_of, floor_of, integral
from ..dims.light import quotient
from ..dims.broadcast import broadcast_result
from ..dims import LIGHT, is_unknown, normalize_dim, unknown_dim, is_symbolic
from .core import _elems, fresh

if TYPE_CHECKING:
    import numpy as np
    import sympy
else:
    from ..deferred import numpy as np
    from ..deferred import sympy


def vector(v: Any) -> Any:
    """A scalar value as a one-element vector; a vector, or the row-major elements of a symbolic
    value of higher rank, as is; a small array's elements as a vector."""
    if isinstance(v, Unknown):
        return v
    if isinstance(v, np.ndarray):
        flat = _elems(v)
        return NO_VALUE if flat is None else flat
    return v if isinstance(v, tuple) else (v,)


def concat(parts: Any) -> Any:
    """The values of several tensors joined end to end (Concat on axis 0)."""
    if isinstance(parts, Unknown):
        return NO_VALUE
    out: tuple = ()
    for p in parts:
        e = _elems(p)
        if e is None:
            return NO_VALUE
        out += e
    return out


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
    if not isinstance(x, tuple) or not all(int_like(d) or is_symbolic(d) for d in x):
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
        elif int_like(out) and not int_like(d):
            continue                       # d must equal out (or be 1)
        elif int_like(d) and not int_like(out):
            out = d
        elif int_like(d) and int_like(out):
            raise EvalError(f"dims {out} and {d} do not broadcast")
        else:
            merged = broadcast_result(out, d)
            out = unknown_dim("broadcast") if merged is None else merged
    return normalize_dim(out)


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
        if int_like(t) and t == -1:
            if infer_at is not None:
                raise EvalError("a Reshape target may hold at most one -1")
            infer_at = i
            out.append(None)
        elif int_like(t) and t == 0 and not allowzero:
            if i >= len(shape):
                raise EvalError(f"target dim {i} is 0 (copy), but the input has rank {len(shape)}")
            out.append(shape[i])
        elif int_like(t) and t < -1:
            raise EvalError(f"a Reshape target dim cannot be {t}")
        else:   # a symbolic t that is 0 at run time copies the input dim: the spec states t != 0 as a condition
            out.append(t)
    if infer_at is not None:
        out[infer_at] = _quotient(_product(shape), _product([d for d in out if d is not None]))
    return tuple(normalize_dim(d) for d in out)


def reshape_part(shape: Any, target: Any, allowzero: Any = 0) -> Any:
    """The product of a Reshape target's dims other than its ``-1`` (a ``0`` copying the input dim
    unless allowzero), which the ``-1`` divides the element count by; 1 where there is no ``-1``.
    At run time it must not be 0: the ``-1`` is then ambiguous, and onnxruntime refuses it
    ("Input shape:{0,3}, requested shape:{0,-1}").

    >>> from shapecheck.dims import symbol
    >>> b, n = symbol("batch"), symbol("n")
    >>> reshape_part((b, n), (b, -1)), reshape_part((b, n), (0, 4, -1)), reshape_part((b, n), (b, n))
    (batch, 4*batch, 1)
    """
    if isinstance(shape, Unknown) or isinstance(target, Unknown) or isinstance(allowzero, Unknown):
        return NO_VALUE
    _need_shape(target)
    if not any(int_like(t) and t == -1 for t in target):
        return 1
    part = [shape[i] if int_like(t) and t == 0 and not allowzero and i < len(shape) else t
            for i, t in enumerate(target) if not (int_like(t) and t == -1)]
    return normalize_dim(_product(part))


def _product(dims) -> Any:
    p: Any = 1
    for d in dims:
        p = p * d if int_like(p) and int_like(d) or type(p) in LIGHT or type(d) in LIGHT else sympy.sympify(p) * d
    return p


def _quotient(total, part) -> Any:
    if int_like(total) and int_like(part):
        if part == 0 or total % part:
            raise EvalError(f"-1 in a Reshape target: {total} elements do not split into parts of {part}")
        return total // part
    if type(total) in LIGHT or type(part) in LIGHT:
        return quotient(total, part)   # exact, as the cancelled quotient below is, or NeedsAlgebra
    q = sympy.sympify(total) / part      # a product over a product of the same dims cancels as it is built
    num, den = sympy.fraction(q)
    if den != 1:
        q = sympy.cancel(q)
        num, den = sympy.fraction(q)
    if den == 1 and (integral(q) or q.is_integer is not False):
        return normalize_dim(sympy.expand(q))
    if q.is_Rational:
        # a fixed fraction (48*N / (5*N)): never whole while the part is not 0, and with a part of 0 the
        # -1 is ambiguous, which onnxruntime and onnx.reference refuse too (tests/test_broken.py)
        raise EvalError(f"-1 in a Reshape target: {sympy.sstr(total)} elements do not split into parts of "
                        f"{sympy.sstr(part)} ({sympy.sstr(q)} each)")
    if den.is_Integer and den > 0 and not any(is_unknown(x) for x in q.free_symbols):
        # batch*seq over 16, B*3*H*W over B*3*2*W (pixel_unshuffle): the -1 is the quotient (H/2) wherever
        # the reshape is valid, which the element count rule then states as B*3*H*W == B*3*2*W*floor(H/2),
        # that is H % 2 == 0
        return normalize_dim(floor_of(q))
    if not any(is_unknown(x) for x in q.free_symbols):
        return normalize_dim(floor_of(q))
    return unknown_dim("reshaped")


def range_len(start: Any, limit: Any, delta: Any) -> Any:
    """Range's length ``max(ceil((limit - start) / delta), 0)``; where the values do not give it (one
    known only at run time, a float step), a size known only at run time (``fresh("range")``)."""
    for x in (start, limit, delta):
        if isinstance(x, Unknown):
            return fresh("range")
    # a float Range over a size cast to float (an anchor grid over a feature map's width): integral
    # floats are the integers they hold; ceil of the one rounded quotient of integers below 2**24 is
    # the exact ceil, so the length is exact where the cast is (``constant.cast_value``)
    start, limit, delta = (_integral(x) for x in (start, limit, delta))
    if all(int_like(x) for x in (start, limit, delta)):
        if delta == 0:
            raise EvalError("Range with delta 0")
        return max(-(-(limit - start) // delta), 0)
    if not int_like(delta):
        return fresh("range")
    if type(limit - start) in LIGHT and delta in (1, -1) and compare_dims((limit - start) * delta, ">=", 0) is True:
        return (limit - start) * delta   # a light check's length, as below (a Max with 0 needs algebra)
    if any(is_unknown(s) for s in sympy.sympify(limit - start).free_symbols):
        return fresh("range")
    n = ceiling_of(sympy.sympify(limit - start) / delta)
    return normalize_dim(n if compare_dims(n, ">=", 0) is True else sympy.Max(0, n))


def _integral(x: Any) -> Any:
    """An integral float (a float tensor's scalar 8.0) as the int it holds; anything else as it is.

    >>> _integral(np.array(8.0, np.float32)), _integral(0.5)
    (8, 0.5)
    """
    if isinstance(x, np.ndarray) and x.ndim == 0 and x.dtype.kind == "f":
        x = x[()]
    if isinstance(x, (float, np.floating)) and math.isfinite(x) and float(x).is_integer():
        return int(x)
    return x


def arange(n: Any) -> Any:
    """``(0, 1, ..., n-1)``: the default axes of Slice when its ``axes`` input is absent.

    >>> arange(3)
    (0, 1, 2)
    """
    if isinstance(n, Unknown):
        return n
    if not int_like(n):
        raise NeedInt(n)
    return tuple(range(int(n)))


def crop_pad_shape(shape: Any, target: Any, axes: Any = None) -> Any:
    """CenterCropPad's output: ``shape`` with the dims on ``axes`` (all without them) replaced by ``target``'s
    values; those dims are unknown while the values are.

    >>> from shapecheck.dims import symbol
    >>> crop_pad_shape((symbol("N"), 10, 12), (6, 6), (-2, -1)), crop_pad_shape((3, 4), (5, 2))
    ((N, 6, 6), (5, 2))
    """
    if isinstance(shape, Unknown):
        return UnknownShape(None)
    r = len(shape)
    ax = list(range(r)) if axes is None else [int(a) + r if int(a) < 0 else int(a) for a in axes]
    if any(not 0 <= a < r for a in ax) or len(set(ax)) != len(ax):
        raise EvalError(f"axes {list(axes or ())} of a rank-{r} tensor")
    vals = vector(target)
    if isinstance(vals, Unknown):
        vals = tuple(unknown_dim("crop") for _ in ax)
    if len(vals) != len(ax):
        raise EvalError(f"{len(vals)} target dims for {len(ax)} axes")
    out = list(shape)
    for a, v in zip(ax, vals):
        out[a] = v
    return tuple(out)


NOTATION = (vector, concat, broadcast, broadcastable, unidirectional, reshape_shape, reshape_part, range_len, arange,
            crop_pad_shape)
