"""Kernel of GridSample: X [N, C, D1..Dr] sampled at the normalized grid [N, O1..Or, r] (x first:
the grid's last axis lists coordinates from the innermost dim out), with linear, nearest or
(2-D) cubic interpolation and zeros, border or reflection padding, as the ONNX page defines them.

>>> import numpy as np
>>> X = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
>>> grid = np.array([[[[-1, -1], [1, 1]]]], np.float32)
>>> grid_sample(X, grid, mode="linear", padding_mode="zeros", align_corners=1).tolist()
[[[[0.0, 3.0]]]]
"""
from __future__ import annotations

import itertools

import numpy as np

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
