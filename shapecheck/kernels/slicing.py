"""Kernels of the ops that cut tensors into pieces: Slice and Split.

Slice follows the ONNX page's arithmetic (onnxruntime's too): a negative start or end counts
from the back, then start is clamped to [0, d] ([0, d-1] for a negative step) and end to [0, d]
([-1, d-1]); this differs from numpy's slicing where start is below -d with a negative step
(docs/runtime-findings.md).

>>> import numpy as np
>>> slice_(np.arange(5), np.array([-9]), np.array([-9]), None, np.array([-1])).tolist()
[0]
>>> [p.tolist() for p in split(np.arange(7), axis=0, split=None, n=3, uneven=1)]
[[0, 1, 2], [3, 4, 5], [6]]
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from . import register


def _bounds(d: int, start: int, end: int, step: int) -> tuple[int, int]:
    start = start + d if start < 0 else start
    end = end + d if end < 0 else end
    if step > 0:
        return min(max(start, 0), d), min(max(end, 0), d)
    return min(max(start, 0), d - 1), min(max(end, -1), d - 1)


@register("slice")
def slice_(data: np.ndarray, starts, ends, axes=None, steps=None) -> np.ndarray:
    starts = [int(s) for s in np.asarray(starts).reshape(-1)]
    ends = [int(e) for e in np.asarray(ends).reshape(-1)]
    axes = list(range(len(starts))) if axes is None else [int(a) for a in np.asarray(axes).reshape(-1)]
    steps = [1] * len(starts) if steps is None else [int(s) for s in np.asarray(steps).reshape(-1)]
    index: list = [slice(None)] * data.ndim
    for a, s, e, st in zip(axes, starts, ends, steps):
        a = a + data.ndim if a < 0 else a
        lo, hi = _bounds(data.shape[a], s, e, st)
        n = max(0, -(-(hi - lo) // st))
        index[a] = lo + st * np.arange(n, dtype=np.int64)
    out = data
    for a, ix in enumerate(index):   # one axis at a time: fancy indexing on several axes would zip them
        if not isinstance(ix, slice):
            out = np.take(out, ix, axis=a)
    return out.copy()


@register("split")
def split(input: np.ndarray, *, axis: int, split, n: int, uneven: int = 0) -> tuple:
    d = input.shape[axis]
    if split is None:
        if uneven:
            c = -(-d // n)
            sizes = [c] * (n - 1) + [d - c * (n - 1)]
        else:
            sizes = [d // n] * n
    else:
        sizes = [int(s) for s in np.asarray(split).reshape(-1)]
    cuts = np.cumsum(sizes)[:-1]
    return tuple(p.copy() for p in np.split(input, cuts, axis=axis))
