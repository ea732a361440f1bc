"""Layout functions: the output shapes (and values) of Unsqueeze, Squeeze, Flatten, Transpose, Tile,
Identity and Pad.

Axes come as an attribute (a tuple of ints, or None when absent), as an input's value, or as
an optional input that is absent (None).  Each function is exact on ints, keeps symbolic dims
where the op only moves them, and says "not known" (an ``Unknown``) where a symbolic dim
decides the result: Squeeze without axes on ``[N, 3]`` removes N only if N is 1 at run time,
so its rank is not known statically.  A padded dim is exact over symbols (``N + 2``); pads of
the wrong length are an ``EvalError`` or False, never a guess.

>>> from shapecheck.dims import symbol
>>> N, S = symbol("N"), symbol("S")
>>> unsqueeze_shape((N, 3), (0, -1)), squeeze_shape((1, N, 1), (0,)), flatten_shape((N, 3, 4), 1)
((1, N, 3, 1), (N, 1), (N, 12))
>>> transpose_shape((N, 3, 4), None), tile_shape((N, 3), (2, 1)), relayout(N, (1,))
((4, 3, N), (2*N, 3), (N,))
>>> pad_shape((N, S, 4), (0, 1, 0, 0, 2, -1)), pad_shape((N, S), (1, 1), (-1,))
((N, S + 3, 3), (N, S + 2))
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..notation import NO_VALUE, UNKNOWN, EvalError, Unknown, UnknownShape, and_, compare_dims, or_
from ..notation.operators import element_grid
from ..dims import normalize_dim, unknown_dim
from .core import _prod, _value

if TYPE_CHECKING:
    import numpy as np
    import sympy
else:
    from ..deferred import numpy as np
    from ..deferred import sympy


def _is_int(x: Any) -> bool:
    return (type(x) is int or isinstance(x, np.integer)) and not isinstance(x, (bool, np.bool_))


def _int_axes(axes: Any) -> tuple | Unknown | None:
    """Axes as a tuple of ints, None when absent, or an Unknown when not known statically."""
    v = _value(axes)
    if v is None or isinstance(v, Unknown):
        return v
    if isinstance(v, np.ndarray):
        v = tuple(v.reshape(-1).tolist())
    v = v if isinstance(v, tuple) else (v,)
    if not all(_is_int(a) for a in v):
        return NO_VALUE   # a symbolic axis: known only at run time
    return tuple(int(a) for a in v)


def _normalized(axes: tuple, rank: int, repeats: bool = False) -> tuple:
    out = []
    for a in axes:
        if not -rank <= a < rank:
            raise EvalError(f"axis {a} is outside [{-rank}, {rank - 1}]")
        out.append(a + rank if a < 0 else a)
    if len(set(out)) != len(out):
        if not repeats:
            raise EvalError(f"axes {list(axes)} name an axis twice")
        out = sorted(set(out))
    return tuple(out)


def valid_axes(axes: Any, rank: Any, repeats: Any = 0) -> Any:
    """True when every axis lies in [-rank, rank-1] and (unless ``repeats``) none repeats after adding rank to negatives."""
    ax = _int_axes(axes)
    if ax is None:
        return True
    if isinstance(ax, Unknown):
        return ax
    if isinstance(rank, Unknown):
        return UNKNOWN
    try:
        _normalized(ax, int(rank), bool(repeats))
    except EvalError:
        return False
    return True


def unsqueeze_shape(shape: Any, axes: Any) -> Any:
    """Unsqueeze's output: a 1 inserted at each axis of the output (of rank ``len(shape) + len(axes)``)."""
    ax = _int_axes(axes)
    if isinstance(shape, Unknown) or ax is None or isinstance(ax, Unknown):
        return UnknownShape(None)
    rank = len(shape) + len(ax)
    where = set(_normalized(ax, rank))
    it = iter(shape)
    return tuple(1 if i in where else next(it) for i in range(rank))


def _is_one(d: Any) -> Any:
    return compare_dims(d, "==", 1)


def squeeze_shape(shape: Any, axes: Any = None) -> Any:
    """Squeeze's output: the given axes removed, or (no axes, or an empty list) every dim that is 1.

    Without axes a symbolic dim that may or may not be 1 makes the rank unknown: never a guess.
    """
    ax = _int_axes(axes)
    if isinstance(shape, Unknown) or isinstance(ax, Unknown):
        return UnknownShape(None)
    if not ax:   # absent, or empty: onnxruntime squeezes every 1 (runtime-findings)
        ones = [_is_one(d) for d in shape]
        if any(not isinstance(o, bool) for o in ones):
            return UnknownShape(None)
        return tuple(d for d, o in zip(shape, ones) if not o)
    gone = set(_normalized(ax, len(shape), True))
    if any(_is_int(shape[i]) and shape[i] != 1 for i in gone):
        raise EvalError("a squeezed dim is not 1")
    return tuple(d for i, d in enumerate(shape) if i not in gone)


def squeezable(shape: Any, axes: Any) -> Any:
    """True when every dim named by ``axes`` is 1 (a condition ``N == 1`` on a symbolic dim)."""
    ax = _int_axes(axes)
    if ax is None or ax == ():
        return True
    if isinstance(ax, Unknown):
        return ax
    if isinstance(shape, Unknown):
        return UNKNOWN
    try:
        idx = _normalized(ax, len(shape), True)
    except EvalError:
        return UNKNOWN   # the axes rule reports it
    return and_([_is_one(shape[i]) for i in idx])


def flatten_shape(shape: Any, axis: Any) -> Any:
    """Flatten's 2-D output: ``[prod(shape[:axis]), prod(shape[axis:])]`` (negative axis + rank)."""
    if isinstance(shape, Unknown) or isinstance(axis, Unknown):
        return UnknownShape(None)
    r = len(shape)
    a = int(axis) + r if axis < 0 else int(axis)
    if not 0 <= a <= r:
        raise EvalError(f"axis {axis} is outside [{-r}, {r}]")
    return (_prod(shape[:a]), _prod(shape[a:]))


def _perm(perm: Any, rank: int) -> tuple:
    return tuple(range(rank - 1, -1, -1)) if perm is None else tuple(int(p) for p in perm)


def is_permutation(perm: Any, rank: Any) -> Any:
    """True when ``perm`` (absent: the reversed axes) is a permutation of 0..rank-1."""
    if perm is None:
        return True
    if isinstance(rank, Unknown):
        return UNKNOWN
    return sorted(int(p) for p in perm) == list(range(int(rank)))


def transpose_shape(shape: Any, perm: Any) -> Any:
    """Transpose's output: ``shape[perm[i]]`` for each i; no perm reverses the dims."""
    if isinstance(shape, Unknown):
        return UnknownShape(None)
    p = _perm(perm, len(shape))
    if sorted(p) != list(range(len(shape))):
        raise EvalError(f"perm {list(p)} is not a permutation of the {len(shape)} axes")
    return tuple(shape[i] for i in p)


def tile_shape(shape: Any, repeats: Any) -> Any:
    """Tile's output: each dim times its repeat count (``repeats`` a vector value of dims)."""
    if isinstance(shape, Unknown):
        return UnknownShape(None)
    if isinstance(repeats, Unknown):
        return tuple(unknown_dim("tiled") for _ in shape)
    reps = repeats if isinstance(repeats, tuple) else (repeats,)
    if len(reps) != len(shape):
        raise EvalError(f"{len(reps)} repeats for a tensor of rank {len(shape)}")
    return tuple(d * k if _is_int(d) and _is_int(k) else normalize_dim(sympy.sympify(d) * k)
                 for d, k in zip(shape, reps))


def axis_repeats(r: Any, tiles: Any, axis: Any) -> Any:
    """Tile-1's ``tiles`` and ``axis`` (one-element tensors, of a float type at that version) as Tile-6's
    repeats: ``tiles`` copies along ``axis``, 1 elsewhere; not known while either value is not, an
    ``EvalError`` for an axis outside [0, r-1] or a count that is no integer >= 0.

    >>> import numpy as np
    >>> axis_repeats(3, np.array([2.0], np.float32), np.array([1.0], np.float32))
    (1, 2, 1)
    """
    if isinstance(tiles, Unknown) or isinstance(axis, Unknown) or not _is_int(r):
        return UNKNOWN
    t, a = (np.asarray(x, dtype=np.float64).reshape(-1) if isinstance(x, np.ndarray) else None for x in (tiles, axis))
    if t is None or a is None:
        return UNKNOWN
    if t.size != 1 or a.size != 1 or t[0] != int(t[0]) or a[0] != int(a[0]) or not 0 <= a[0] < int(r) or t[0] < 0:
        raise EvalError(f"tiles {t.tolist()} along axis {a.tolist()} of a rank-{r} tensor")
    return tuple(int(t[0]) if i == int(a[0]) else 1 for i in range(int(r)))


def relayout(v: Any, shape: Any) -> Any:
    """The same elements in row-major order under ``shape`` (Unsqueeze, Squeeze, Flatten, Identity).

    Symbolic elements are kept where the result is a scalar or a vector (a shape tensor).
    """
    if isinstance(v, Unknown) or isinstance(shape, Unknown):
        return NO_VALUE
    if not all(_is_int(d) for d in shape):
        return NO_VALUE
    if isinstance(v, np.ndarray):
        dims = tuple(int(d) for d in shape)
        return v.reshape(dims) if v.size == int(np.prod(dims, dtype=np.int64)) else NO_VALUE
    elems = v if isinstance(v, tuple) else (v,)
    if len(shape) == 0:
        return elems[0] if len(elems) == 1 else NO_VALUE
    if len(shape) == 1:
        return tuple(elems)
    if all(_is_int(e) or isinstance(e, (bool, np.bool_)) for e in elems):
        return np.array(elems).reshape(tuple(int(d) for d in shape))
    return NO_VALUE


def transpose_value(v: Any, perm: Any, shape: Any = None) -> Any:
    """Transpose of a value: a constant array by ``perm``; a symbolic value (its elements in
    row-major order) of a tensor of ``shape`` reordered likewise; a scalar or a vector as is.

    >>> from shapecheck.dims import symbol
    >>> transpose_value((symbol("N"), 1, 2, symbol("M")), None, (2, 2))
    (N, 2, 1, M)
    """
    if isinstance(v, Unknown):
        return NO_VALUE
    if isinstance(v, np.ndarray):
        if perm is not None and sorted(int(p) for p in perm) != list(range(v.ndim)):
            return NO_VALUE   # C2 refutes it
        return np.transpose(v, None if perm is None else tuple(int(p) for p in perm))
    if isinstance(v, tuple) and shape is not None and not isinstance(shape, Unknown) and len(shape) >= 2:
        if not all(_is_int(d) for d in shape) or (perm is not None and
                                                   sorted(int(p) for p in perm) != list(range(len(shape)))):
            return NO_VALUE
        order = None if perm is None else tuple(int(p) for p in perm)
        return tuple(element_grid(v, shape).transpose(order).reshape(-1))
    return v


def tile_value(v: Any, repeats: Any) -> Any:
    """Tile of a value: a vector's elements repeated, a constant array by ``np.tile``, a scalar as is."""
    if isinstance(v, Unknown) or isinstance(repeats, Unknown):
        return NO_VALUE
    reps = repeats if isinstance(repeats, tuple) else (repeats,)
    if not all(_is_int(k) for k in reps):
        return NO_VALUE
    if isinstance(v, np.ndarray):
        return np.tile(v, tuple(int(k) for k in reps)) if v.ndim == len(reps) and v.ndim else NO_VALUE
    if isinstance(v, tuple):
        return v * int(reps[0]) if len(reps) == 1 else NO_VALUE
    return v if reps == () else NO_VALUE


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


NOTATION = (valid_axes, unsqueeze_shape, squeeze_shape, squeezable, flatten_shape, is_permutation, transpose_shape,
            tile_shape, relayout, transpose_value, tile_value, pad_shape, pad_fits, axis_repeats)
