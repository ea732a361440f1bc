"""ONNX TensorScatter (KV-cache update): ``update`` written into ``past_cache`` at each batch's write index.

>>> import numpy as np
>>> tensor_scatter(np.zeros((1, 4)), np.ones((1, 2)), np.array([1]), axis=1, mode="linear").tolist()
[[0.0, 1.0, 1.0, 0.0]]
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from . import register


@register("tensor_scatter")
def tensor_scatter(past_cache: np.ndarray, update: np.ndarray, write_indices: np.ndarray | None, *,
                   axis: int, mode: str) -> np.ndarray:
    """present[b, .., (w[b] + s) (mod M in circular mode), ..] = update[b, .., s, ..]."""
    out = np.array(past_cache, copy=True)
    batch, m, seq = past_cache.shape[0], past_cache.shape[axis], update.shape[axis]
    w = np.zeros(batch, np.int64) if write_indices is None else write_indices.astype(np.int64).reshape(batch)
    pos = w[:, None] + np.arange(seq, dtype=np.int64)[None, :]          # [batch, seq]
    if mode == "circular":
        pos %= m
    src = np.moveaxis(update, axis, 1)          # [batch, seq, ...]
    dst = np.moveaxis(out, axis, 1)             # a view of out: [batch, M, ...]
    dst[np.arange(batch)[:, None], pos] = src
    return out
