"""Scatter functions: are index rows or entries unique (ScatterND, ScatterElements), the region a
SliceScatter covers, and a scatter on a vector value (a shape tensor).

>>> import numpy as np
>>> _unique_rows(np.array([[0], [1]]), (4, 3)), _unique_rows(np.array([[1], [1]]), (4, 3))
(True, False)
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from ..notation import NO_VALUE, UNKNOWN, EvalError, Unknown, UnknownShape
from ..notation.operators import values
from .core import _elems, _is_int
from .elementwise import _one
from .slicing import slice_range


def _unique_rows(t, shape):
    """True when no two index tuples (rows over the last axis) address the same slice."""
    v = values(t)
    if isinstance(v, Unknown):
        return v
    if isinstance(shape, Unknown) or v.ndim == 0 or v.dtype.kind in "OUSc":  # non-integer indices: C-rule's job
        return UNKNOWN
    k = v.shape[-1]
    dims = shape[:k]
    if len(dims) < k:
        return UNKNOWN
    n = int(np.prod(v.shape[:-1], dtype=np.int64))
    if k == 0:  # every row is the empty tuple, which addresses the whole tensor
        return n <= 1
    rows = v.reshape(n, k).astype(np.int64, copy=False)
    if all(type(d) is int for d in dims):
        sizes = np.maximum(np.array(dims, dtype=np.int64), 1)
        if n and rows.min() < 0:
            rows = rows % sizes
        # one linear offset per row: a 1-D unique is much faster than unique(axis=0)
        strides = np.cumprod(np.concatenate([sizes[1:], [1]])[::-1])[::-1]
        lin = rows[:, 0] if k == 1 else rows @ strides
        return _all_distinct(lin, int(np.prod(sizes, dtype=np.int64)))
    if rows.size and rows.min() < 0:
        return UNKNOWN  # -1 and s-1 may be the same row; that depends on the symbolic dim
    return len(np.unique(rows, axis=0)) == n


def _all_distinct(lin: np.ndarray, bound: int) -> bool:
    """No value of ``lin`` (all in [0, bound)) repeats: a count when bound is small, else a sort.

    np.unique hashes: ~30 ms for 200k values, where bincount takes 0.5 ms and sort 3 ms.
    """
    if lin.size <= 1:
        return True
    if bound <= 8 * lin.size:
        return int(np.bincount(lin, minlength=bound).max()) <= 1
    s = np.sort(lin)
    return not bool(np.any(s[1:] == s[:-1]))


def _unique_along(t, axis, size):
    """True when no two entries of an index tensor land on the same element (ScatterElements)."""
    v = values(t)
    for x in (v, axis, size):
        if isinstance(x, Unknown):
            return x
    if type(axis) is not int or v.ndim == 0 or size == 0 or v.dtype.kind in "OUSc":
        return UNKNOWN
    if not -v.ndim <= axis < v.ndim:  # indices of another rank than data: C2 refutes it, W1 says nothing
        return UNKNOWN
    idx = v.astype(np.int64)
    if type(size) is int:
        idx = idx % size
    elif idx.size and idx.min() < 0:
        return UNKNOWN  # -1 and s-1 may be the same element; that depends on the symbolic size
    norm = np.sort(idx, axis=axis)
    return not bool(np.any(np.diff(norm, axis=axis) == 0))


def _slice_region_shape(shape, start, stop, step, axes):
    """The shape of ``data[start:stop:step]`` on ``axes`` (Slice-8 clamping), from constant inputs.

    A symbolic dim is known only for the whole-axis slice (start 0, stop >= 2**31-1, step 1).
    """
    vals = [values(x) for x in (start, stop, step)] + [values(axes) if axes is not None else None]
    for x in (shape, *vals):
        if isinstance(x, Unknown):
            return x if not isinstance(x, UnknownShape) else UNKNOWN
    starts, stops, steps = (np.asarray(v).reshape(-1).tolist() for v in vals[:3])
    ax = list(range(len(starts))) if vals[3] is None else np.asarray(vals[3]).reshape(-1).tolist()
    if not len(starts) == len(stops) == len(steps) == len(ax) or 0 in steps:
        raise EvalError("start, stop, step and axes must have one value per sliced axis and step must not be 0")
    out = list(shape)
    for a, lo, hi, st in zip(ax, starts, stops, steps):
        if not -len(out) <= a < len(out):
            raise EvalError(f"axis {a} is outside a shape of rank {len(out)}")
        d = out[a]
        if type(d) is int:
            out[a] = len(slice_range(d, lo, hi, st))
        elif not (lo == 0 and hi >= 2**31 - 1 and st == 1):
            return UNKNOWN
    return tuple(out)


_REDUCE = {"add": "+", "mul": "*", "max": "max", "min": "min"}


def scatter_value(data: Any, indices: Any, updates: Any, reduction: Any = "none") -> Any:
    """A scatter on a vector value (a shape tensor): ``data`` with ``updates`` written at ``indices``.

    Indices must be concrete (a negative one counts from the end); later updates win under
    ``none``, as in the runtimes; ``add``, ``mul``, ``max``, ``min`` combine.

    >>> from shapecheck.dims import symbol
    >>> B, S = symbol("B"), symbol("S")
    >>> scatter_value((B, 4, 16, 8), (2,), (S,)), scatter_value((B, 2), (-1,), (3,), "add")
    ((B, 4, S, 8), (B, 5))
    """
    vals, upd = _elems(data), _elems(updates)
    if vals is None or upd is None or not isinstance(data, tuple) or isinstance(indices, Unknown):
        return NO_VALUE
    idx = _elems(indices)
    if idx is None or len(idx) != len(upd) or not all(_is_int(i) for i in idx) or (reduction != "none" and reduction not in _REDUCE):
        return NO_VALUE
    out = list(vals)
    for i, u in zip(idx, upd):
        i = int(i)
        if not -len(out) <= i < len(out):
            raise EvalError(f"index {i} is outside a value of {len(out)} elements")
        out[i] = u if reduction == "none" else _one(_REDUCE[reduction], out[i], u)
    return tuple(out)


NOTATION = (_slice_region_shape, _unique_rows, _unique_along, scatter_value)
