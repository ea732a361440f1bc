"""Kernels of GridSample and RoiAlign (the bilinear samplers).  GridSample: X [N, C, D1..Dr] sampled at the normalized grid [N, O1..Or, r] (x first:
the grid's last axis lists coordinates from the innermost dim out), with linear, nearest or
(2-D) cubic interpolation and zeros, border or reflection padding, as the ONNX page defines them.

>>> import numpy as np
>>> X = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
>>> grid = np.array([[[[-1, -1], [1, 1]]]], np.float32)
>>> grid_sample(X, grid, mode="linear", padding_mode="zeros", align_corners=1).tolist()
[[[[0.0, 3.0]]]]
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import itertools

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from . import register


def _unnormalize(g: np.ndarray, size: int, align: int) -> np.ndarray:
    return (g + 1) / 2 * (size - 1) if align else ((g + 1) * size - 1) / 2


def _reflect(x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """x reflected into [lo, hi] (as many times as it takes)."""
    span = hi - lo
    if span <= 0:
        return np.zeros_like(x)
    d = np.abs(x - lo) % (2 * span)
    return lo + np.where(d > span, 2 * span - d, d)


def _pad_coord(x: np.ndarray, size: int, padding: str, align: int) -> np.ndarray:
    if padding == "border":
        return np.clip(x, 0, size - 1)
    if padding == "reflection":
        x = _reflect(x, 0, size - 1) if align else _reflect(x, -0.5, size - 0.5)
        return np.clip(x, 0, size - 1)
    return x


def _fetch(X: np.ndarray, n: int, idx: list[np.ndarray], padding: str, sizes: list[int]) -> np.ndarray:
    """X[n, :, idx...] with out-of-range taps 0 (zeros) or clamped (border, reflection); [C, *out]."""
    inside = np.ones(idx[0].shape, bool)
    safe = []
    for i, s in zip(idx, sizes):
        inside &= (i >= 0) & (i < s)
        safe.append(np.clip(i, 0, s - 1))
    v = X[n][tuple([slice(None)] + safe)]
    return np.where(inside, v, 0) if padding == "zeros" else v


def _cubic_weights(t: np.ndarray) -> list[np.ndarray]:
    a = -0.75
    def w(d):
        d = np.abs(d)
        return np.where(d <= 1, ((a + 2) * d - (a + 3)) * d * d + 1,
                        np.where(d < 2, ((a * d - 5 * a) * d + 8 * a) * d - 4 * a, 0.0))
    return [w(t + 1), w(t), w(1 - t), w(2 - t)]


@register("grid_sample")
def grid_sample(X: np.ndarray, grid: np.ndarray, *, mode: str, padding_mode: str, align_corners: int) -> np.ndarray:
    mode = {"bilinear": "linear", "bicubic": "cubic"}.get(mode, mode)
    x = X.astype(np.float64)
    g = grid.astype(np.float64)
    r = X.ndim - 2
    sizes = list(X.shape[2:])
    out = np.zeros((X.shape[0], X.shape[1]) + grid.shape[1:-1])
    for n in range(X.shape[0]):
        # grid[..., 0] addresses the innermost dim (width), grid[..., r-1] the outermost
        coords = [_unnormalize(g[n, ..., r - 1 - k], sizes[k], align_corners) for k in range(r)]
        if mode != "cubic":
            coords = [_pad_coord(c, s, padding_mode, align_corners) for c, s in zip(coords, sizes)]
        if mode == "nearest":
            out[n] = _fetch(x, n, [np.rint(c).astype(np.int64) for c in coords], padding_mode, sizes)
        elif mode == "linear":
            base = [np.floor(c).astype(np.int64) for c in coords]
            frac = [c - b for c, b in zip(coords, base)]
            for corner in itertools.product((0, 1), repeat=r):
                wgt = np.prod([f if o else 1 - f for f, o in zip(frac, corner)], axis=0)
                out[n] += wgt * _fetch(x, n, [b + o for b, o in zip(base, corner)], padding_mode, sizes)
        else:
            base = [np.floor(c).astype(np.int64) for c in coords]
            ws = [_cubic_weights(c - b) for c, b in zip(coords, base)]
            for taps in itertools.product(range(4), repeat=r):
                idx = [b + t - 1 for b, t in zip(base, taps)]
                if padding_mode != "zeros":
                    idx = [np.rint(_pad_coord(i.astype(np.float64), s, padding_mode, align_corners)).astype(np.int64)
                           for i, s in zip(idx, sizes)]
                wgt = np.prod([w[t] for w, t in zip(ws, taps)], axis=0)
                out[n] += wgt * _fetch(x, n, idx, padding_mode, sizes)
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
