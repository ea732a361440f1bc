"""Kernels of the resampling ops: Resize (and Upsample) and GridSample.

Resize computes the nearest, linear and cubic modes (every coordinate transformation and nearest
mode, extrapolation for tf_crop_and_resize), one axis at a time, its output shape by the
function the specs' shape rule uses (``functions/resize.py``).  Its antialias filter (Resize-18
and later): when an axis shrinks (scale < 1) in linear or cubic mode with ``antialias = 1``, the
interpolation kernel is stretched by 1/scale: the triangle (linear, support 1) or Keys' cubic
(support 2, with coefficient ``a``) is evaluated at ``scale * (i - x)`` over every input index
``i`` it reaches, and the weights are normalized to sum 1.  As onnx.reference computes it: the
window is ``2 * support / scale`` wide (rounded as there), it starts ``ceil(x) - 1 + start`` with
``start = floor(-support / scale) + 1``; indices outside the axis repeat the edge, or
(``exclude_outside``) weigh 0 before the weights are normalized.  A scale of 1 or more leaves the
plain interpolation.

GridSample: X [N, C, D1..Dr] sampled at the normalized grid [N, O1..Or, r] (x first: the grid's
last axis lists coordinates from the innermost dim out), with linear, nearest or (2-D) cubic
interpolation and zeros, border or reflection padding, as the ONNX page defines them.

>>> import numpy as np
>>> resize(np.array([[1., 2.]]), scales=np.array([1., 2.], np.float32), mode="nearest").tolist()
[[1.0, 1.0, 2.0, 2.0]]
>>> antialias_axis(np.arange(4.), 0, np.array([0.5, 2.5]), 4, 0.5, "linear", -0.75, 0).tolist()
[0.625, 2.375]
>>> antialias_axis(np.arange(4.), 0, np.array([0.5, 2.5]), 4, 0.5, "linear", -0.75, 1).tolist()
[0.7142857142857142, 2.2857142857142856]
>>> X = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
>>> grid = np.array([[[[-1, -1], [1, 1]]]], np.float32)
>>> grid_sample(X, grid, mode="linear", padding_mode="zeros", align_corners=1).tolist()
[[[[0.0, 3.0]]]]
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import itertools
import math

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from ..functions.resize import resize_shape
from . import register


def _ints(x) -> list[int]:
    return [int(v) for v in np.asarray(x).reshape(-1)]


def _source(out_len: int, in_len: int, scale: float, how: str, roi: tuple[float, float],
            length: float) -> np.ndarray:
    """The input coordinate of each output index along one axis (ONNX's coordinate transformations).

    ``length`` is the page's length_resized: ``in * scale`` before the floor when scales are given
    (as onnx.reference computes it; onnxruntime uses the floored output length), the size when sizes
    are given."""
    x = np.arange(out_len, dtype=np.float64)
    if how == "half_pixel":
        return (x + 0.5) / scale - 0.5
    if how == "half_pixel_symmetric":
        adj = out_len / length
        center = in_len / 2
        return center * (1 - adj) + (x + 0.5) / scale - 0.5
    if how == "pytorch_half_pixel":
        return (x + 0.5) / scale - 0.5 if length > 1 else np.zeros(out_len)
    if how == "align_corners":
        return np.zeros(out_len) if length == 1 else x * (in_len - 1) / (length - 1)
    if how == "tf_half_pixel_for_nn":
        return (x + 0.5) / scale
    if how == "asymmetric":
        return x / scale
    if how == "tf_crop_and_resize":
        lo, hi = (np.float32(v) for v in roi)   # in float32, as both runtimes: 0.2 * 3 + 6 * 0.7 * 3 / 9 is 2
        if length == 1:
            return np.full(out_len, 0.5 * (lo + hi) * (in_len - 1), np.float32).astype(np.float64)
        xs = x.astype(np.float32)
        return (lo * np.float32(in_len - 1) + xs * (hi - lo) * np.float32(in_len - 1) / np.float32(length - 1)).astype(np.float64)
    raise ValueError(f"coordinate_transformation_mode {how!r} is not known")


def _nearest(x: np.ndarray, how: str, scale: float) -> np.ndarray:
    if how == "round_prefer_floor":
        return np.ceil(x - 0.5)
    if how == "round_prefer_ceil":
        return np.floor(x + 0.5)
    if how == "floor":
        return np.floor(x)
    if how == "ceil":
        return np.ceil(x)
    if how == "simple":   # Upsample and Resize-10 in onnxruntime: ceil when shrinking, else truncate
        return np.ceil(x) if scale < 1 else np.trunc(x)
    raise ValueError(f"nearest_mode {how!r} is not known")


@register("resize")
def resize(X: np.ndarray, *, scales=None, sizes=None, axes=None, mode: str = "nearest", roi=None,
           coordinate_transformation_mode: str = "half_pixel", nearest_mode: str = "round_prefer_floor",
           cubic_coeff_a: float = -0.75, exclude_outside: int = 0, extrapolation_value: float = 0.0,
           keep_aspect_ratio_policy: str = "stretch", antialias: int = 0) -> np.ndarray:
    if mode not in ("nearest", "linear", "cubic"):
        raise ValueError(f"Resize mode {mode!r} is not nearest, linear or cubic")
    r = X.ndim
    ax = list(range(r)) if axes is None else [a % r for a in _ints(axes)]
    sc = None if scales is None or np.asarray(scales).size == 0 else np.asarray(scales, np.float32).reshape(-1)
    sz = None if sc is not None or sizes is None else tuple(_ints(sizes))
    out = resize_shape(X.shape, None if sc is None else tuple(sc.tolist()), sz, None if axes is None else tuple(ax),
                       keep_aspect_ratio_policy)
    if 0 in out:   # an empty batch: onnxruntime returns an empty Y of that shape (runtime-findings Q30 1c)
        return np.zeros(out, X.dtype)
    rois = np.asarray(roi, np.float64).reshape(-1) if roi is not None and np.asarray(roi).size else None
    y = X.astype(np.float64) if mode != "nearest" else X
    outside = np.zeros(out, dtype=bool)
    for k, a in enumerate(ax):
        n_in, n_out = X.shape[a], out[a]
        if sc is not None:
            s = float(sc[k])
        elif keep_aspect_ratio_policy == "stretch":
            s = n_out / n_in
        else:
            ratios = [z / X.shape[b] for z, b in zip(sz, ax)]
            s = min(ratios) if keep_aspect_ratio_policy == "not_larger" else max(ratios)
        lohi = (0.0, 1.0) if rois is None else (rois[k], rois[k + len(ax)])
        length = float(n_out) if sc is None and keep_aspect_ratio_policy == "stretch" else s * n_in
        src = _source(n_out, n_in, s, coordinate_transformation_mode, lohi, length)
        if coordinate_transformation_mode == "tf_crop_and_resize":
            bad = (src < 0) | (src > n_in - 1)
            shape = [1] * r
            shape[a] = n_out
            outside |= bad.reshape(shape)
        if antialias and mode != "nearest" and s < 1:
            y = antialias_axis(y, a, src, n_in, s, mode, cubic_coeff_a, exclude_outside)
        elif mode == "nearest":
            idx = np.clip(_nearest(src, nearest_mode, s), 0, n_in - 1).astype(np.int64)
            y = np.take(y, idx, axis=a)
        elif mode == "cubic":
            y = _cubic_axis(y, a, src, n_in, cubic_coeff_a, exclude_outside)
        else:
            xc = np.clip(src, 0, n_in - 1)
            i0 = np.floor(xc).astype(np.int64)
            i1 = np.minimum(i0 + 1, n_in - 1)
            w = (xc - i0).reshape([-1 if i == a else 1 for i in range(r)])
            y = np.take(y, i0, axis=a) * (1 - w) + np.take(y, i1, axis=a) * w
    if outside.any():
        y = np.where(outside, extrapolation_value, y)
    if X.dtype.kind in "iu":
        y = np.rint(y)
    return y.astype(X.dtype)


def _cubic_axis(y: np.ndarray, axis: int, src: np.ndarray, n_in: int, a: float, exclude_outside: int) -> np.ndarray:
    """Cubic interpolation along one axis: 4 neighbours, Keys' kernel with coefficient ``a``; the
    neighbours outside the axis repeat the edge, or (exclude_outside) weigh 0 and the rest renormalize."""
    x0 = np.floor(src)
    t = src - x0
    offsets = np.arange(-1, 3)
    idx = x0[:, None].astype(np.int64) + offsets[None, :]
    w = keys_cubic(t[:, None] - offsets[None, :], float(a))
    if exclude_outside:
        w = np.where((idx < 0) | (idx > n_in - 1), 0.0, w)
        w = w / w.sum(axis=1, keepdims=True)
    idx = np.clip(idx, 0, n_in - 1)
    shape = [-1 if i == axis else 1 for i in range(y.ndim)]
    return sum(np.take(y, idx[:, k], axis=axis) * w[:, k].reshape(shape) for k in range(4))


def _triangle(d: np.ndarray, a: float) -> np.ndarray:
    return np.clip(1 - np.abs(d), 0, 1)


def keys_cubic(d: np.ndarray, a: float) -> np.ndarray:
    """Keys' cubic kernel with coefficient ``a`` (support 2); the plain cubic mode uses it too."""
    d = np.abs(d)
    near = ((a + 2) * d - (a + 3)) * d * d + 1
    far = ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    return np.where(d <= 1, near, np.where(d < 2, far, 0.0))


_FILTERS = {"linear": (1, _triangle), "cubic": (2, keys_cubic)}


def antialias_axis(y: np.ndarray, axis: int, src: np.ndarray, n_in: int, scale: float, mode: str,
                   a: float, exclude_outside: int) -> np.ndarray:
    """Resample ``y`` along ``axis`` at the input coordinates ``src`` with the filter of ``mode``
    stretched by 1/``scale`` (``scale`` is clamped to at most 1)."""
    support, kernel = _FILTERS[mode]
    s = min(float(scale), 1.0)
    start = math.floor(-support / s) + 1
    taps = 2 - 2 * start
    base = np.ceil(src) - 1                      # ratio in (0, 1]: an integer coordinate leans left
    ratio = src - base
    offsets = np.arange(start, start + taps)
    w = kernel((offsets[None, :] - ratio[:, None]) * s, float(a))
    idx = base[:, None].astype(np.int64) + offsets[None, :]
    if exclude_outside:
        w = np.where((idx < 0) | (idx > n_in - 1), 0.0, w)
    total = w.sum(axis=1, keepdims=True)
    w = w / np.where(total == 0, 1.0, total)
    idx = np.clip(idx, 0, n_in - 1)
    gathered = np.take(y, idx, axis=axis)        # the axis becomes (out, taps)
    shape = [1] * axis + list(w.shape) + [1] * (y.ndim - axis - 1)
    return (gathered * w.reshape(shape)).sum(axis=axis + 1)


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


@register("affine_grid")
def affine_grid(theta: np.ndarray, size: np.ndarray, *, align_corners: int) -> np.ndarray:
    """The sampling grid [N, D1.., r] of theta ([N, r, r + 1]) applied to the positions evenly spaced in
    [-1, 1] over size's spatial dims (the pixel centers, or with align_corners the corner pixels' centers
    at -1 and 1); each position is (x, y[, z], 1), x along the last dim."""
    spatial = _ints(size)[2:]
    lins = [np.linspace(-1.0, 1.0, s) if int(align_corners) else (2 * np.arange(s) + 1) / s - 1 for s in spatial]
    mesh = np.meshgrid(*lins, indexing="ij") if spatial else []
    homo = np.stack(list(mesh)[::-1] + [np.ones(tuple(spatial))], axis=-1)
    grid = np.einsum("...k,njk->n...j", homo, theta.astype(np.float64))
    return grid.astype(theta.dtype)
