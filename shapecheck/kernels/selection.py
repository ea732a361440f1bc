"""Kernels of the ops that select or accumulate along an axis: TopK, NonZero, ArgMax/ArgMin,
CumSum, Trilu.  Ties go to the lower index (TopK, ArgMax without select_last_index), as in
onnxruntime.

>>> import numpy as np
>>> [a.tolist() for a in topk(np.array([1, 3, 3, 2]), k=2, axis=0, largest=1, sorted=1)]
[[3, 3], [1, 2]]
>>> cumsum(np.array([1, 2, 3]), axis=0, exclusive=1, reverse=0).tolist()
[0, 1, 3]
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from . import register


def _descending(x: np.ndarray, axis: int) -> np.ndarray:
    """Indices that sort ``x`` from largest to smallest along ``axis``, ties by the lower index."""
    n = x.shape[axis]
    flipped = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return n - 1 - np.flip(flipped, axis)


@register("topk")
def topk(X: np.ndarray, *, k: int, axis: int, largest: int = 1, sorted: int = 1) -> tuple:
    order = _descending(X, axis) if largest else np.argsort(X, axis=axis, kind="stable")
    idx = np.take(order, np.arange(int(k)), axis=axis).astype(np.int64)
    return np.take_along_axis(X, idx, axis=axis), idx


@register("nonzero")
def nonzero(X: np.ndarray) -> np.ndarray:
    if X.ndim == 0:   # onnxruntime: one row, one column if the scalar is nonzero
        return np.zeros((1, int(bool(X))), dtype=np.int64)
    return np.array(np.nonzero(X), dtype=np.int64).reshape(X.ndim, -1)


@register("arg_extreme")
def arg_extreme(data: np.ndarray, *, axis: int, keepdims: int, select_last_index: int, largest: int) -> np.ndarray:
    fn = np.argmax if largest else np.argmin
    if select_last_index:
        out = data.shape[axis] - 1 - fn(np.flip(data, axis), axis=axis)
    else:
        out = fn(data, axis=axis)
    out = out.astype(np.int64)
    return np.expand_dims(out, axis) if keepdims else out


@register("cumsum")
def cumsum(x: np.ndarray, *, axis: int, exclusive: int, reverse: int) -> np.ndarray:
    y = np.flip(x, axis) if reverse else x
    out = np.cumsum(y, axis=axis, dtype=x.dtype)
    if exclusive:
        out = np.concatenate([np.zeros_like(np.take(out, [0], axis=axis)), np.take(out, np.arange(out.shape[axis] - 1), axis=axis)],
                             axis=axis) if out.shape[axis] else out
    return np.flip(out, axis) if reverse else out


@register("trilu")
def trilu(input: np.ndarray, *, k: int, upper: int) -> np.ndarray:
    return (np.triu if upper else np.tril)(input, int(k))
