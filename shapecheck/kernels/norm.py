"""Kernels of the normalization ops: LayerNormalization, BatchNormalization, InstanceNormalization,
GroupNormalization, RMSNormalization.  Statistics are computed in float64 and cast back: the
differential tests compare with onnxruntime within a tolerance, never bit for bit.

>>> import numpy as np
>>> y, m, s = layer_norm(np.array([[1., 3.]], np.float32), np.ones(2, np.float32), None, axis=-1,
...                      epsilon=0.0, stash="float")
>>> y.tolist(), m.tolist(), s.tolist()
([[-1.0, 1.0]], [[2.0]], [[1.0]])
"""
from __future__ import annotations

import numpy as np

from ..types import numpy_dtype
from . import register


def _norm_axes(ndim: int, axis: int) -> tuple[int, ...]:
    a = axis + ndim if axis < 0 else axis
    return tuple(range(a, ndim))


@register("layer_norm")
def layer_norm(X: np.ndarray, Scale: np.ndarray, B: np.ndarray | None, *, axis: int, epsilon: float,
               stash: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Y = (X - mean) / sqrt(var + epsilon) * Scale + B over axes [axis, r); Mean and InvStdDev keep those axes as 1."""
    ax = _norm_axes(X.ndim, int(axis))
    x = X.astype(np.float64)
    mean = x.mean(axis=ax, keepdims=True)
    inv = 1.0 / np.sqrt(((x - mean) ** 2).mean(axis=ax, keepdims=True) + float(epsilon))
    y = (x - mean) * inv * Scale.astype(np.float64)
    if B is not None:
        y = y + B.astype(np.float64)
    return y.astype(X.dtype), mean.astype(numpy_dtype(stash)), inv.astype(numpy_dtype(stash))
