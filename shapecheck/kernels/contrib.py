"""Kernels of onnxruntime's contrib ops (com.microsoft, and SimplifiedLayerNormalization, which
onnxruntime registers in the ai.onnx domain): the skip/simplified layer normalizations, FusedMatMul,
the Gelu variants and BiasAdd. Statistics in float64, cast back: compared with onnxruntime within a
tolerance.

>>> import numpy as np
>>> fused_matmul(np.ones((2, 3), np.float32), np.ones((2, 4), np.float32), trans_a=1, trans_b=0,
...              trans_batch_a=0, trans_batch_b=0, alpha=0.5).tolist()
[[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from ..types import numpy_dtype
from . import register
from .elementwise import unary


def _stats(x: np.ndarray, axes: tuple, epsilon: float, simplified: bool) -> tuple[np.ndarray, np.ndarray]:
    mean = np.zeros_like(x.mean(axis=axes, keepdims=True)) if simplified else x.mean(axis=axes, keepdims=True)
    inv = 1.0 / np.sqrt(((x - mean) ** 2).mean(axis=axes, keepdims=True) + float(epsilon))
    return mean, inv


@register("skip_layer_norm")
def skip_layer_norm(input: np.ndarray, skip: np.ndarray, gamma: np.ndarray, beta: np.ndarray | None,
                    bias: np.ndarray | None, *, epsilon: float, simplified: int) -> tuple:
    """(output, mean, inv_std_var, input_skip_bias_sum): s = input + skip (+ bias), normalized over
    the last dim, times gamma (+ beta); mean and inv_std_var float. With ``simplified``
    (SkipSimplifiedLayerNormalization, which has no beta input) the normalization is RMS (mean 0)
    and ``beta`` is not read."""
    s = input.astype(np.float64) + skip.astype(np.float64)
    if bias is not None:
        s = s + bias.astype(np.float64)
    with np.errstate(all="ignore"):
        mean, inv = _stats(s, (-1,), epsilon, bool(int(simplified)))
    y = (s - mean) * inv * gamma.astype(np.float64)
    if beta is not None and not int(simplified):
        y = y + beta.astype(np.float64)
    return y.astype(input.dtype), mean.astype(np.float32), inv.astype(np.float32), s.astype(input.dtype)


@register("simplified_layer_norm")
def simplified_layer_norm(X: np.ndarray, scale: np.ndarray, *, axis: int, epsilon: float, stash: str,
                          out_type: str) -> tuple:
    """(Y, inv_std_var): X / sqrt(mean(X^2) + epsilon) * scale over dims [axis, r); Y in ``out_type``."""
    a = int(axis) + X.ndim if int(axis) < 0 else int(axis)
    with np.errstate(all="ignore"):
        _, inv = _stats(X.astype(np.float64), tuple(range(a, X.ndim)), epsilon, True)
    y = X.astype(np.float64) * inv * scale.astype(np.float64)
    return y.astype(numpy_dtype(out_type)), inv.astype(numpy_dtype(stash))


def _batch_t(x: np.ndarray) -> np.ndarray:
    """FusedMatMul's transBatch: [d0, d1, ..., d(r-2), d(r-1)] -> [d1, ..., d(r-2), d0, d(r-1)]."""
    return np.moveaxis(x, 0, -2)


@register("fused_matmul")
def fused_matmul(A: np.ndarray, B: np.ndarray, *, trans_a: int, trans_b: int, trans_batch_a: int,
                 trans_batch_b: int, alpha: float) -> np.ndarray:
    """alpha * op(A) @ op(B): transBatch moves dim 0 before the last dim, trans swaps the last two
    (a 1-D side is never transposed)."""
    a, b = A.astype(np.float64), B.astype(np.float64)
    if int(trans_batch_a):
        a = _batch_t(a)
    if int(trans_batch_b):
        b = _batch_t(b)
    if int(trans_a) and a.ndim >= 2:
        a = np.swapaxes(a, -1, -2)
    if int(trans_b) and b.ndim >= 2:
        b = np.swapaxes(b, -1, -2)
    return (float(alpha) * np.matmul(a, b)).astype(A.dtype)


@register("contrib_gelu")
def contrib_gelu(X: np.ndarray, bias: np.ndarray | None = None, *, fn: str, alpha: float = 1.702) -> np.ndarray:
    """Gelu (erf), FastGelu (tanh approximation) or QuickGelu (x * sigmoid(alpha * x)) of X + bias."""
    x = X if bias is None else (X.astype(np.float64) + bias.astype(np.float64)).astype(X.dtype)
    if fn == "quick":
        xd = x.astype(np.float64)
        with np.errstate(all="ignore"):
            return (xd / (1.0 + np.exp(-float(alpha) * xd))).astype(X.dtype)
    return unary(x, fn="gelu", approximate="tanh" if fn == "fast" else "none")


@register("bias_add")
def bias_add(X: np.ndarray, bias: np.ndarray, skip: np.ndarray) -> np.ndarray:
    """X + bias + skip (bias along the last dim)."""
    return (X.astype(np.float64) + bias.astype(np.float64) + skip.astype(np.float64)).astype(X.dtype)
