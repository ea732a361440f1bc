"""Kernels of the tensor ops: Pad, Resize (and Upsample), DepthToSpace, SpaceToDepth, Einsum,
OneHot, Clip.  Each is the plain numpy meaning of its op, every argument bound by the spec.

Resize computes the nearest, linear and cubic modes (every coordinate transformation and nearest
mode, extrapolation for tf_crop_and_resize), one axis at a time; antialias (linear and cubic, on an
axis that shrinks) stretches the kernel by 1/scale (kernels/resize_antialias.py).

>>> import numpy as np
>>> pad(np.arange(3), pads=(1, 2), mode="reflect").tolist(), depth_to_space(np.arange(8).reshape(1, 8, 1, 1), blocksize=2).shape
([1, 0, 1, 2, 1, 0], (1, 2, 2, 2))
>>> resize(np.array([[1., 2.]]), scales=np.array([1., 2.], np.float32), mode="nearest").tolist()
[[1.0, 1.0, 2.0, 2.0]]
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import math

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from . import register
from .resize_antialias import antialias_axis, keys_cubic as _cubic_weight

_NP_PAD = {"constant": "constant", "reflect": "reflect", "edge": "edge", "wrap": "wrap"}


def _ints(x) -> list[int]:
    return [int(v) for v in np.asarray(x).reshape(-1)]


@register("pad")
def pad(data: np.ndarray, *, pads, mode: str = "constant", value=None, axes=None) -> np.ndarray:
    r = data.ndim
    p = _ints(pads)
    ax = list(range(r)) if axes is None else [a % r for a in _ints(axes)]
    n = len(ax)
    if mode not in _NP_PAD:
        raise ValueError(f"Pad mode {mode!r} is not constant, reflect, edge or wrap")
    begin, end = [0] * r, [0] * r
    for k, a in enumerate(ax):
        begin[a], end[a] = p[k], p[k + n]
    crop = tuple(slice(max(-b, 0), data.shape[i] - max(-e, 0)) for i, (b, e) in enumerate(zip(begin, end)))
    x = data[crop]
    widths = [(max(b, 0), max(e, 0)) for b, e in zip(begin, end)]
    if mode == "constant":
        zero = "" if data.dtype.kind == "O" else 0   # a string tensor pads with empty strings
        v = zero if value is None else np.asarray(value).reshape(-1)
        fill = v if np.isscalar(v) else (v[0] if v.size else zero)
        return np.pad(x, widths, mode="constant", constant_values=np.array(fill).astype(data.dtype))
    return np.pad(x, widths, mode=_NP_PAD[mode])


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
    from ..functions.resize import resize_shape
    if mode not in ("nearest", "linear", "cubic"):
        raise ValueError(f"Resize mode {mode!r} is not nearest, linear or cubic")
    r = X.ndim
    ax = list(range(r)) if axes is None else [a % r for a in _ints(axes)]
    sc = None if scales is None or np.asarray(scales).size == 0 else np.asarray(scales, np.float32).reshape(-1)
    sz = None if sc is not None or sizes is None else tuple(_ints(sizes))
    out = resize_shape(X.shape, None if sc is None else tuple(sc.tolist()), sz, None if axes is None else tuple(ax),
                       keep_aspect_ratio_policy)
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
    w = _cubic_weight(t[:, None] - offsets[None, :], float(a))
    if exclude_outside:
        w = np.where((idx < 0) | (idx > n_in - 1), 0.0, w)
        w = w / w.sum(axis=1, keepdims=True)
    idx = np.clip(idx, 0, n_in - 1)
    shape = [-1 if i == axis else 1 for i in range(y.ndim)]
    return sum(np.take(y, idx[:, k], axis=axis) * w[:, k].reshape(shape) for k in range(4))


@register("depth_to_space")
def depth_to_space(input: np.ndarray, *, blocksize: int, mode: str = "DCR") -> np.ndarray:
    n, c, h, w = input.shape
    b = blocksize
    if mode == "DCR":
        t = input.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        t = input.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return t.reshape(n, c // (b * b), h * b, w * b).copy()


@register("space_to_depth")
def space_to_depth(input: np.ndarray, *, blocksize: int) -> np.ndarray:
    n, c, h, w = input.shape
    b = blocksize
    t = input.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return t.reshape(n, c * b * b, h // b, w // b).copy()


@register("einsum")
def einsum(Inputs: tuple, *, equation: str) -> np.ndarray:
    eq = "".join(equation.split())
    out = np.einsum(eq, *Inputs)
    return np.asarray(out).astype(Inputs[0].dtype)


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


@register("clip")
def clip(input: np.ndarray, *, min=None, max=None) -> np.ndarray:
    y = input
    with np.errstate(over="ignore"):   # the default bounds of Clip-6 are +-FLT_MAX: inf in float16
        lo = None if min is None else np.asarray(min).astype(input.dtype).reshape(())
        hi = None if max is None else np.asarray(max).astype(input.dtype).reshape(())
    if lo is not None:
        y = np.maximum(y, lo)
    if hi is not None:
        y = np.minimum(y, hi)
    return np.asarray(y, dtype=input.dtype).copy()
