"""The MaxRoiPool kernel: onnxruntime's CPU computation (onnxruntime/core/providers/cpu/nn/roi_pool.cc).

Each roi ``[batch_index, x1, y1, x2, y2]`` is scaled by ``spatial_scale`` and rounded half away from
zero (C's ``round``) in float32; its batch index is truncated toward zero.  A roi covers
``max(end - start + 1, 1)`` cells per axis, split into bins ``[floor(p * b), ceil((p + 1) * b))``
(``b`` the float32 bin size roi_size / pooled), offset by the roi's start and clipped to the
image.  An empty bin gives 0; a full one the running ``max`` from float32's lowest value, folded as
C++'s ``std::max(x, acc)`` in row-major order (a NaN resets the running value: the result is the
maximum of the cells after the bin's last NaN, NaN when that NaN is the last cell).

>>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
>>> max_roi_pool(x, np.array([[0, 0, 0, 3, 3]], np.float32), pooled_shape=[2, 2], spatial_scale=1.0)[0, 0]
array([[ 5.,  7.],
       [13., 15.]], dtype=float32)
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from . import register

def _round_half_away(v: np.float32) -> int:
    """C's ``round`` of a float32 value, as an int."""
    f = float(v)
    return int(np.sign(f) * np.floor(abs(f) + 0.5))


def _fold_max(cells: np.ndarray) -> np.ndarray:
    """``acc = lowest; for x in cells: acc = acc if x < acc else x`` per channel (cells: [C, k])."""
    acc = np.full(cells.shape[0], np.finfo(np.float32).min, dtype=cells.dtype)
    for k in range(cells.shape[1]):
        x = cells[:, k]
        acc = np.where(x < acc, acc, x)
    return acc


def _bins(start: int, size: int, pooled: int, limit: int) -> list[tuple[int, int]]:
    """The clipped [begin, end) cell range of each of ``pooled`` bins over ``size`` cells from ``start``."""
    b = np.float32(size) / np.float32(pooled)
    out = []
    for p in range(pooled):
        lo = int(np.floor(np.float32(p) * b)) + start
        hi = int(np.ceil(np.float32(p + 1) * b)) + start
        out.append((min(max(lo, 0), limit), min(max(hi, 0), limit)))
    return out


@register("max_roi_pool")
def max_roi_pool(X: np.ndarray, rois: np.ndarray, *, pooled_shape, spatial_scale: float) -> np.ndarray:
    """[num_rois, C, pooled_shape[0], pooled_shape[1]]: the maximum of each bin of each roi (0 when empty).

    float, float16 and bfloat16 are computed in float32 (onnxruntime runs float16 through its float
    kernel), double in double with the same float32 roi and bin arithmetic."""
    work = np.float64 if X.dtype == np.float64 else np.float32
    x = X.astype(work)
    ph, pw = (int(v) for v in pooled_shape)
    n, c, h, w = X.shape
    scale = np.float32(spatial_scale)
    out = np.zeros((rois.shape[0], c, ph, pw), dtype=work)
    for r, roi in enumerate(rois.astype(np.float32)):
        b = int(roi[0])   # truncation toward zero, as static_cast<int>
        if not 0 <= b < n:
            raise ValueError(f"roi {r}: batch index {float(roi[0])} truncates to {b}, outside [0, {n})")
        x1, y1, x2, y2 = (_round_half_away(np.float32(v) * scale) for v in roi[1:])
        rows = _bins(y1, max(y2 - y1 + 1, 1), ph, h)
        cols = _bins(x1, max(x2 - x1 + 1, 1), pw, w)
        img = x[b]
        for i, (h0, h1) in enumerate(rows):
            for j, (w0, w1) in enumerate(cols):
                if h1 > h0 and w1 > w0:
                    out[r, :, i, j] = _fold_max(img[:, h0:h1, w0:w1].reshape(c, -1))
    with np.errstate(over="ignore"):   # float32's lowest is -inf in float16, as onnxruntime's cast back
        return out.astype(X.dtype)
