"""Kernels of ReverseSequence, MeanVarianceNormalization, LRN, Det and the random ops (Bernoulli,
RandomNormalLike, RandomUniformLike).  Float math runs in float64 and is cast back; the random
ops draw from a generator seeded by their ``seed`` attribute (0 without it), so only their shapes
and element types can be compared with a runtime's.

>>> import numpy as np
>>> reverse_sequence(np.arange(6).reshape(3, 2), np.array([3, 1]), batch_axis=1, time_axis=0).tolist()
[[4, 1], [2, 3], [0, 5]]
>>> float(det(np.array([[2., 1.], [1., 3.]], np.float32)))
5.0
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from ..functions.detection import select_boxes
from ..types import numpy_dtype
from . import register


@register("reverse_sequence")
def reverse_sequence(input: np.ndarray, sequence_lens: np.ndarray, *, batch_axis: int, time_axis: int) -> np.ndarray:
    """For each batch entry b, its first sequence_lens[b] steps along time_axis in reverse order."""
    out = input.copy()
    for b, n in enumerate(np.asarray(sequence_lens).reshape(-1).tolist()):
        idx: list = [slice(None)] * input.ndim
        idx[int(batch_axis)] = b
        idx[int(time_axis)] = slice(0, int(n))
        src = input[tuple(idx)]
        t = int(time_axis) - (1 if int(time_axis) > int(batch_axis) else 0)   # time's axis once batch is indexed
        out[tuple(idx)] = np.flip(src, axis=t)
    return out


@register("mvn")
def mvn(X: np.ndarray, *, axes) -> np.ndarray:
    """(X - mean) / (sqrt(mean(X^2) - mean^2) + 1e-9) over axes (the page's function body)."""
    x = X.astype(np.float64)
    ax = tuple(int(a) + X.ndim if int(a) < 0 else int(a) for a in axes)
    with np.errstate(all="ignore"):
        mean = x.mean(axis=ax, keepdims=True)
        std = np.sqrt(np.maximum((x * x).mean(axis=ax, keepdims=True) - mean * mean, 0))
        return ((x - mean) / (std + 1e-9)).astype(X.dtype)


@register("lrn")
def lrn(X: np.ndarray, *, size: int, alpha: float, beta: float, bias: float) -> np.ndarray:
    """X / (bias + alpha / size * square_sum)^beta, square_sum over the channels
    [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)] of axis 1."""
    x = X.astype(np.float64)
    sq = x * x
    c = x.shape[1]
    lo, hi = (int(size) - 1) // 2, -(-(int(size) - 1) // 2)
    ssum = np.zeros_like(x)
    for i in range(c):
        ssum[:, i] = sq[:, max(0, i - lo):min(c, i + hi + 1)].sum(axis=1)
    return (x / (float(bias) + float(alpha) / int(size) * ssum) ** float(beta)).astype(X.dtype)


@register("det")
def det(X: np.ndarray) -> np.ndarray:
    """The determinant of each square matrix in the last two axes."""
    return np.asarray(np.linalg.det(X.astype(np.float64))).astype(X.dtype)


def _rng(seed) -> np.random.Generator:
    return np.random.default_rng(abs(int(float(seed) * 1000)) if seed is not None else 0)


@register("random_like")
def random_like(input: np.ndarray, *, how: str, dtype: str, a: float, b: float, seed) -> np.ndarray:
    """A tensor of input's shape drawn from normal(mean a, scale b), uniform[a, b) or, for
    ``bernoulli``, 1 with input's probability; in ``dtype``."""
    rng = _rng(seed)
    v: np.ndarray
    if how == "normal":
        v = rng.normal(float(a), float(b), size=input.shape)
    elif how == "uniform":
        v = rng.uniform(float(a), float(b), size=input.shape)
    else:
        v = np.asarray(rng.random(input.shape) < input.astype(np.float64))
    return np.asarray(v).astype(numpy_dtype(dtype))


@register("matmul_integer")
def matmul_integer(A: np.ndarray, B: np.ndarray, a_zero_point, b_zero_point) -> np.ndarray:
    """(A - a_zero_point) @ (B - b_zero_point) in int32; b_zero_point per column when it has N entries."""
    a = A.astype(np.int32) - (0 if a_zero_point is None else np.asarray(a_zero_point).astype(np.int32).reshape(-1)[0])
    b = B.astype(np.int32)
    if b_zero_point is not None:
        zp = np.asarray(b_zero_point).astype(np.int32).reshape(-1)
        b = b - (zp[0] if zp.size == 1 else zp)
    return np.matmul(a, b).astype(np.int32)


@register("dynamic_quantize_linear")
def dynamic_quantize_linear(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """uint8 y, float scale and uint8 zero point from the range [min(0, x), max(0, x)] (the page's
    formula in float32, rounding half to even); an empty or all-zero x gives scale 1 and zero point 0 (onnxruntime)."""
    v = x.astype(np.float64)
    lo = min(0.0, float(v.min())) if v.size else 0.0
    hi = max(0.0, float(v.max())) if v.size else 0.0
    scale = np.float32((hi - lo) / 255) if hi > lo else np.float32(1.0)
    # in float32, as the runtimes compute it: 0.5 / (5 / 255) is 25.5 in float32 (rounds to 26), 25.4999 in float64
    zp = np.clip(np.rint(np.float32(0) - np.float32(lo) / scale), 0, 255)
    y = np.clip(np.rint(x.astype(np.float32) / scale) + zp, 0, 255)
    return y.astype(np.uint8), np.asarray(scale, np.float32), np.asarray(zp, np.uint8)


@register("nms")
def nms(boxes: np.ndarray, scores: np.ndarray, max_output_boxes_per_class, iou_threshold, score_threshold, *,
        center_point_box: int) -> np.ndarray:
    """[num_selected, 3] rows (batch, class, box): per batch and class, boxes by descending score
    (above score_threshold), each kept unless its IoU with a kept one exceeds iou_threshold, at most
    max_output_boxes_per_class (default 0: none)."""
    return select_boxes(boxes, scores, max_output_boxes_per_class, iou_threshold, score_threshold,
                        center_point_box=center_point_box)
