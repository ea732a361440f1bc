"""Kernels of the ops that compute shapes in real graphs: Shape, Size, Concat, Reshape, Range,
Expand (Gather's is ``gather.py``'s).  Each is the numpy one-liner of its op, with every argument bound
by the spec, so the executor confirms what the solver infers about the same node.

>>> import numpy as np
>>> reshape(np.zeros((2, 3, 4)), np.array([2, -1]), allowzero=0).shape
(2, 12)
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from . import register


@register("shape")
def shape(data: np.ndarray, *, start: int = 0, end: int | None = None) -> np.ndarray:
    return np.array(data.shape[start:end], dtype=np.int64)


@register("size")
def size(data: np.ndarray) -> np.ndarray:
    return np.array(data.size, dtype=np.int64)


@register("concat")
def concat(inputs: tuple, *, axis: int) -> np.ndarray:
    return np.concatenate(inputs, axis=axis)


@register("reshape")
def reshape(data: np.ndarray, shape: Any, *, allowzero: int) -> np.ndarray:
    """``shape``: the input's array, or Reshape-1's attribute (a tuple of ints)."""
    target = [int(t) for t in np.asarray(shape).reshape(-1)]
    if not allowzero:
        target = [data.shape[i] if t == 0 else t for i, t in enumerate(target)]
    return data.reshape(target)


@register("range")
def range_(start: np.ndarray, limit: np.ndarray, delta: np.ndarray, stash: str = "float") -> np.ndarray:
    """start + delta * k for k below max(ceil((limit - start) / delta), 0); float16 and bfloat16 computed in
    ``stash`` (float or double, Range-27's stash_type) and cast back."""
    s, lim, d = start.item(), limit.item(), delta.item()
    n = max(int(np.ceil((lim - s) / d)), 0)
    if start.dtype.itemsize == 2 and start.dtype.kind in "fV":
        wide = np.float64 if stash == "double" else np.float32
        return (wide(s) + wide(d) * np.arange(n, dtype=wide)).astype(start.dtype)
    return (s + d * np.arange(n)).astype(start.dtype)


@register("expand")
def expand(input: np.ndarray, shape: np.ndarray) -> np.ndarray:
    out = np.broadcast_shapes(input.shape, tuple(int(d) for d in shape.reshape(-1)))
    return np.broadcast_to(input, out).copy()
