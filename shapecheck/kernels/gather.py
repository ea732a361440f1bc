"""Kernels of the gather ops: Gather, GatherElements and GatherND (the inverses of ScatterElements
and ScatterND), and OneHot.

>>> import numpy as np
>>> gather_nd(np.array([[0, 1], [2, 3]]), np.array([[0, 0], [1, 1]]), batch_dims=0).tolist()
[0, 3]
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from . import register
from .scatter import elements_extent


def _nd_extent(data_shape, indices_shape, *, batch_dims: int = 0, **_) -> np.ndarray:
    k = indices_shape[-1]
    return np.broadcast_to(np.asarray(data_shape[batch_dims:batch_dims + k], dtype=np.int64), indices_shape)


@register("gather_nd", extent=_nd_extent)
def gather_nd(data: np.ndarray, indices: np.ndarray, *, batch_dims: int = 0) -> np.ndarray:
    """output[b.., i..] = data[b.., indices[b.., i..]] (a slice when k < rank - batch_dims)."""
    b = batch_dims
    k = indices.shape[-1]
    batch = data.shape[:b]
    nb = int(np.prod(batch, dtype=np.int64))
    rows = int(np.prod(indices.shape[b:-1], dtype=np.int64))
    tail = data.shape[b + k:]
    flat = data.reshape((nb,) + data.shape[b:])
    idx = indices.reshape(nb, rows, k).astype(np.int64)
    dims = np.asarray(data.shape[b:b + k], dtype=np.int64)
    idx = np.where(idx < 0, idx + dims, idx)
    picked = flat[(np.arange(nb)[:, None],) + tuple(idx[..., j] for j in range(k))]
    return picked.reshape(indices.shape[:-1] + tail)


@register("gather_elements", extent=lambda data, indices, *, axis, **_: elements_extent(data, indices, axis=axis))
def gather_elements(data: np.ndarray, indices: np.ndarray, *, axis: int) -> np.ndarray:
    """output[i, j, ..] = data[.., indices[i, j, ..], ..] (the index replaces the position on axis)."""
    idx = indices.astype(np.int64)
    idx = np.where(idx < 0, idx + data.shape[axis], idx)
    view = data[tuple(slice(None) if d == axis else slice(0, n) for d, n in enumerate(indices.shape))]
    return np.take_along_axis(view, idx, axis=axis)


@register("gather", extent=lambda data, indices, *, axis, **_: np.full(indices, data[axis], dtype=np.int64))
def gather(data: np.ndarray, indices: np.ndarray, *, axis: int) -> np.ndarray:
    return np.take(data, indices.astype(np.int64), axis=axis)


@register("onehot")
def onehot(indices: np.ndarray, depth: np.ndarray, values: np.ndarray, *, axis: int = -1) -> np.ndarray:
    d = int(math.trunc(float(np.asarray(depth).reshape(-1)[0])))
    idx = np.trunc(indices).astype(np.int64) if indices.dtype.kind == "f" else indices.astype(np.int64)
    idx = np.where(idx < 0, idx + d, idx)
    r = indices.ndim + 1
    a = axis + r if axis < 0 else axis
    hot = np.expand_dims(idx, a) == np.arange(d).reshape([-1 if i == a else 1 for i in range(r)])
    v = np.asarray(values).reshape(-1)
    return np.where(hot, v[1], v[0]).astype(values.dtype)
