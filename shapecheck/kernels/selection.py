"""Kernels of the ops that select or accumulate along an axis: TopK, NonZero, Unique, Compress,
CumSum, Trilu.  Ties go to the lower index (TopK), as in onnxruntime; Unique keeps the order of
first occurrence unless ``sorted``.

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

builtins_sorted = sorted   # unique's argument `sorted` (the ONNX attribute) shadows the builtin


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


@register("cumsum")
def cumsum(x: np.ndarray, *, axis: int, exclusive: int, reverse: int) -> np.ndarray:
    y = np.flip(x, axis) if reverse else x
    out = np.cumsum(y, axis=axis, dtype=x.dtype)
    if exclusive:
        out = np.concatenate([np.zeros_like(np.take(out, [0], axis=axis)), np.take(out, np.arange(out.shape[axis] - 1), axis=axis)],
                             axis=axis) if out.shape[axis] else out
    return np.flip(out, axis) if reverse else out


@register("cumprod")
def cumprod(x: np.ndarray, *, axis: int, exclusive: int, reverse: int) -> np.ndarray:
    """Running products along axis (exclusive: the first is 1; reverse: from the back)."""
    y = np.flip(x, axis) if reverse else x
    wide = np.float32 if x.dtype.kind == "V" else x.dtype   # bfloat16: numpy multiplies it in float32
    with np.errstate(all="ignore"):
        out = np.cumprod(y.astype(wide), axis=axis, dtype=wide)
    if exclusive and out.shape[axis]:
        ones = np.ones_like(np.take(out, [0], axis=axis))
        out = np.concatenate([ones, np.take(out, np.arange(out.shape[axis] - 1), axis=axis)], axis=axis)
    return (np.flip(out, axis) if reverse else out).astype(x.dtype)


@register("trilu")
def trilu(input: np.ndarray, *, k: int, upper: int) -> np.ndarray:
    return (np.triu if upper else np.tril)(input, int(k))


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


@register("tfidf")
def tfidf(X: np.ndarray, *, mode: str, min_gram: int, max_gram: int, max_skip: int, ngram_counts, ngram_indexes,
          pool, weights) -> np.ndarray:
    """TfIdfVectorizer: per row of X (or X itself when 1-D), the count of each pool n-gram (lengths min_gram to
    max_gram, its items max_skip + 1 apart at most; a 1-gram once per position) at ngram_indexes[k]: TF the
    count, IDF its weight where the count is not 0, TFIDF the count times its weight (weights 1 without them)."""
    pool, counts, idx = list(pool), [int(c) for c in ngram_counts], [int(i) for i in ngram_indexes]
    grams: dict = {}
    k = 0
    for n, start in enumerate(counts, start=1):
        end = counts[n] if n < len(counts) else len(pool)
        for s in range(start, end, n):
            grams[tuple(pool[s:s + n])] = k
            k += 1
    size = max(idx) + 1
    rows = X.reshape(1, -1) if X.ndim == 1 else X
    out = np.zeros((rows.shape[0], size), np.float32)
    w = np.ones(len(idx), np.float32) if weights is None else np.asarray(weights, np.float32)
    for r, row in enumerate(rows.tolist()):
        for n in range(int(min_gram), int(max_gram) + 1):
            for skip in range(int(max_skip) + 1 if n > 1 else 1):
                step = skip + 1
                for i in range(len(row) - (n - 1) * step):
                    g = grams.get(tuple(row[i:i + (n - 1) * step + 1:step]))
                    if g is not None:
                        out[r, idx[g]] += 1
    if mode == "IDF":
        out = np.where(out > 0, 1.0, 0.0)
    if mode in ("IDF", "TFIDF"):
        scale = np.zeros(size, np.float32)
        scale[idx] = w
        out = out * scale
    return (out[0] if X.ndim == 1 else out).astype(np.float32)
