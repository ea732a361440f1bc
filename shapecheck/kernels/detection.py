"""Kernels of the detection ops: NonMaxSuppression (its box selection is ``functions/detection.py``'s,
which the specs' count of selected boxes runs too), RoiAlign and MaxRoiPool.

MaxRoiPool is onnxruntime's CPU computation (onnxruntime/core/providers/cpu/nn/roi_pool.cc).

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

from ..functions.detection import select_boxes
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


def _bilinear_terms(img: np.ndarray, y: float, x: float) -> list[tuple[float, np.ndarray]] | None:
    """RoiAlign's bilinear sample of img [C, H, W] at (y, x): the four (weight, values) terms, or None
    outside [-1, H] x [-1, W]."""
    H, W = img.shape[1:]
    if y < -1.0 or y > H or x < -1.0 or x > W:
        return None
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    if y0 >= H - 1:
        y0 = y1 = H - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= W - 1:
        x0 = x1 = W - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    hy, hx = 1 - ly, 1 - lx
    return [(hy * hx, img[:, y0, x0]), (hy * lx, img[:, y0, x1]), (ly * hx, img[:, y1, x0]), (ly * lx, img[:, y1, x1])]


@register("roi_align")
def roi_align(X: np.ndarray, rois: np.ndarray, batch_indices: np.ndarray, *, mode: str, output_height: int,
              output_width: int, sampling_ratio: int, spatial_scale: float, half_pixel: int) -> np.ndarray:
    """[num_rois, C, output_height, output_width]: each bin the average (or, as onnxruntime computes
    max, the largest weighted corner term) of its sampling_ratio^2 bilinear samples (adaptive count
    ceil(roi size / bins) when 0)."""
    x = X.astype(np.float64)
    oh, ow = int(output_height), int(output_width)
    out = np.zeros((rois.shape[0], X.shape[1], oh, ow))
    off = 0.5 if int(half_pixel) else 0.0
    for r in range(rois.shape[0]):
        img = x[int(batch_indices[r])]
        x1, y1, x2, y2 = (float(v) * float(spatial_scale) for v in rois[r])
        sw, sh = x1 - off, y1 - off
        rw, rh = x2 - x1, y2 - y1
        if not int(half_pixel):
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / oh, rw / ow
        gh = int(sampling_ratio) if int(sampling_ratio) > 0 else int(np.ceil(rh / oh))
        gw = int(sampling_ratio) if int(sampling_ratio) > 0 else int(np.ceil(rw / ow))
        count = max(gh * gw, 1)
        for ph in range(oh):
            for pw in range(ow):
                acc = np.zeros(X.shape[1])
                best = np.full(X.shape[1], -np.inf)
                for iy in range(gh):
                    yy = sh + ph * bh + (iy + 0.5) * bh / gh
                    for ix in range(gw):
                        xx = sw + pw * bw + (ix + 0.5) * bw / gw
                        terms = _bilinear_terms(img, yy, xx)
                        if terms is None:
                            best = np.maximum(best, 0.0)
                            continue
                        acc += sum(w * v for w, v in terms)
                        best = np.maximum(best, np.max([w * v for w, v in terms], axis=0))
                out[r, :, ph, pw] = acc / count if mode == "avg" else np.where(np.isfinite(best), best, 0.0)
    return out.astype(X.dtype)


@register("nms")
def nms(boxes: np.ndarray, scores: np.ndarray, max_output_boxes_per_class, iou_threshold, score_threshold, *,
        center_point_box: int) -> np.ndarray:
    """[num_selected, 3] rows (batch, class, box): per batch and class, boxes by descending score
    (above score_threshold), each kept unless its IoU with a kept one exceeds iou_threshold, at most
    max_output_boxes_per_class (default 0: none)."""
    return select_boxes(boxes, scores, max_output_boxes_per_class, iou_threshold, score_threshold,
                        center_point_box=center_point_box)
