"""Kernels of the linear-algebra ops real exports are made of: MatMul, Gemm, Softmax,
LogSoftmax, Dropout.  Each is the plain numpy meaning of its op, every argument bound by the spec.

>>> import numpy as np
>>> matmul(np.ones((2, 1, 3, 4)), np.ones(4)).shape
(2, 1, 3)
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from . import register


@register("matmul")
def matmul(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    return np.matmul(A, B).astype(A.dtype)


@register("softmax")
def softmax(input: np.ndarray, *, axis: int, coerce: int, fn: str) -> np.ndarray:
    """Softmax or LogSoftmax over ``axis``; with ``coerce`` (versions 1 and 11) over every dim from axis on."""
    a = axis + input.ndim if axis < 0 else axis
    x = input.astype(np.float64)
    axes = tuple(range(a, input.ndim)) if coerce else (a,)
    shifted = x - np.max(x, axis=axes, keepdims=True) if x.size else x
    log_sum = np.log(np.sum(np.exp(shifted), axis=axes, keepdims=True))
    out = shifted - log_sum if fn == "log_softmax" else np.exp(shifted - log_sum)
    return out.astype(input.dtype)


@register("dropout")
def dropout(data: np.ndarray, ratio, training_mode, *, mask_dtype: str, mask_fill: int) -> tuple[np.ndarray, np.ndarray]:
    """(output, mask): a copy of data out of training mode (mask all ``mask_fill``, as onnxruntime gives);
    in training mode a seeded random mask (the runtime's random values are its own)."""
    from ..types import numpy_dtype
    r = 0.5 if ratio is None else float(np.asarray(ratio))
    training = training_mode is not None and bool(np.asarray(training_mode))
    if not training or r == 0:
        return data.copy(), np.full(data.shape, bool(mask_fill) if training else mask_fill, dtype=numpy_dtype(mask_dtype))
    keep = np.random.default_rng(0).random(data.shape) >= r
    return (data * keep / (1 - r)).astype(data.dtype), keep.astype(numpy_dtype(mask_dtype))


@register("gemm")
def gemm(A: np.ndarray, B: np.ndarray, C, *, transA: int, transB: int, alpha: float, beta: float) -> np.ndarray:
    """alpha * A' B' + beta * C (C absent: 0), in A's element type as onnx.reference computes it."""
    a = A.T if transA else A
    b = B.T if transB else B
    y = np.matmul(a, b) * alpha
    if C is not None:
        y = y + C * beta
    return np.asarray(y).astype(A.dtype)
