"""Kernels of the further reductions (ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp,
ReduceSumSquare), Hardmax, Unique, Compress and EyeLike.

A reduction maps each element (``|x|``, ``x*x``, ``exp(x)``), sums with the Reduce* axes rules
(kernels/reduce.py) and maps the sum (``sqrt``, ``log``); float types are computed in float64
and cast back, integer types as onnxruntime does (the sum in the type, sqrt/log truncated).

>>> import numpy as np
>>> reduce_more(np.array([[3., -4.]], np.float32), axes=None, keepdims=0, noop=0, how="l2").tolist()
5.0
>>> hardmax(np.array([[1, 3, 3], [2, 0, 1]], np.float32), axis=1, coerce=0).tolist()
[[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from . import register
from .reduce import reduce

builtins_sorted = sorted   # unique's argument `sorted` (the ONNX attribute) shadows the builtin

# how -> the numpy function applied before and after the sum (None: nothing)
_PRE: dict[str, str | None] = {"l1": "abs", "l2": "square", "sumsquare": "square", "logsum": None, "logsumexp": "exp"}
_POST: dict[str, str | None] = {"l1": None, "sumsquare": None, "l2": "sqrt", "logsum": "log", "logsumexp": "log"}


def _map(table: dict[str, str | None], how: str, x: np.ndarray) -> np.ndarray:
    name = table[how]
    return x if name is None else getattr(np, name)(x)


@register("reduce_more")
def reduce_more(data: np.ndarray, *, axes, keepdims: int, noop: int, how: str) -> np.ndarray:
    """Reduce* with a map before the sum and after it (``how``: l1, l2, sumsquare, logsum, logsumexp)."""
    ax = [] if axes is None else list(np.asarray(axes).reshape(-1))
    kind = data.dtype.kind
    with np.errstate(all="ignore"):
        x = data.astype(np.float64) if kind == "f" or how == "logsumexp" else data
        if not ax and noop:   # no axis reduced: every element is its own group (|x|, x*x, log x), as the runtimes do
            y = _map(_PRE, how, x)
            return np.asarray(_map(_POST, how, np.asarray(y, dtype=np.float64) if _POST[how] else y)).astype(data.dtype)
        if how == "logsumexp" and kind == "f" and x.size:
            # log(sum(exp(x))) = m + log(sum(exp(x - m))), m the max over the reduced axes: no overflow
            m = reduce(x, axes=axes, keepdims=1, noop=noop, how="max")
            m = np.where(np.isfinite(m), m, 0)
            s = reduce(np.exp(x - m), axes=axes, keepdims=1, noop=noop, how="sum")
            out = np.log(s) + m
            if not keepdims:
                out = reduce(out, axes=axes, keepdims=0, noop=noop, how="sum")
            return np.asarray(out).astype(data.dtype)
        s = reduce(_map(_PRE, how, x), axes=axes, keepdims=keepdims, noop=noop, how="sum")
        out = _map(_POST, how, np.asarray(s, dtype=np.float64) if _POST[how] else s)
    return np.asarray(out).astype(data.dtype)


@register("hardmax")
def hardmax(input: np.ndarray, *, axis: int, coerce: int, fn: str = "hardmax") -> np.ndarray:
    """1 at the first maximum along ``axis``, 0 elsewhere; with ``coerce`` (versions 1 and 11) the
    input is read as a 2-D matrix [prod(shape[:axis]), prod(shape[axis:])] and each row is one group."""
    x = input
    a = int(axis) + x.ndim if int(axis) < 0 else int(axis)
    if int(coerce):
        rows = int(np.prod(x.shape[:a], dtype=np.int64))
        x = x.reshape(rows, -1)
        a = 1
    out = np.zeros(x.shape, dtype=input.dtype)
    if x.size:
        idx = np.expand_dims(np.argmax(x, axis=a), a)
        np.put_along_axis(out, idx, 1, axis=a)
    return out.reshape(input.shape)


@register("unique")
def unique(X: np.ndarray, *, axis, sorted: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Y, indices (first occurrences), inverse_indices, counts: of the flattened X (axis None) or of its
    slices along axis; ``sorted`` 0 keeps the order of first occurrence."""
    flat = axis is None
    a = 0 if flat else (int(axis) + X.ndim if int(axis) < 0 else int(axis))
    x = X.reshape(-1) if flat else X
    n = x.shape[a]
    rows = [x[i] if flat else np.take(x, i, axis=a) for i in range(n)]
    keys = [r if flat else tuple(np.asarray(r).reshape(-1).tolist()) for r in rows]
    first: dict = {}
    for i, key in enumerate(keys):
        first.setdefault(key, i)
    order = list(first)                                   # first-occurrence order
    if int(sorted):
        order = builtins_sorted(order)
    pos = {key: j for j, key in enumerate(order)}
    idx = np.array([first[key] for key in order], dtype=np.int64)
    inverse = np.array([pos[key] for key in keys], dtype=np.int64)
    counts = np.bincount(inverse, minlength=len(order)).astype(np.int64) if n else np.zeros(0, np.int64)
    Y = np.take(x, idx, axis=a)
    return Y, idx, inverse, counts



@register("compress")
def compress(input: np.ndarray, condition: np.ndarray, *, axis) -> np.ndarray:
    """The slices of input along axis (or the elements of the flattened input) whose condition entry is
    true; entries past the axis are not read, missing ones count as false (onnxruntime)."""
    x = input.reshape(-1) if axis is None else input
    a = 0 if axis is None else (int(axis) + input.ndim if int(axis) < 0 else int(axis))
    cond = np.asarray(condition, dtype=bool).reshape(-1)[:x.shape[a]]
    return np.compress(cond, x, axis=a)


@register("eye_like")
def eye_like(input: np.ndarray, *, k: int, dtype: str) -> np.ndarray:
    """Ones on the k-th diagonal of a matrix of input's shape, zeros elsewhere, in ``dtype``."""
    from ..types import numpy_dtype
    return np.eye(input.shape[0], input.shape[1], int(k), dtype=numpy_dtype(dtype))
