"""Kernels of the linear-algebra ops: MatMul, Gemm, Einsum, Det, MatMulInteger and onnxruntime's
FusedMatMul.  Each is the plain numpy meaning of its op, every argument bound by the spec.

>>> import numpy as np
>>> matmul(np.ones((2, 1, 3, 4)), np.ones(4)).shape
(2, 1, 3)
>>> fused_matmul(np.ones((2, 3), np.float32), np.ones((2, 4), np.float32), trans_a=1, trans_b=0,
...              trans_batch_a=0, trans_batch_b=0, alpha=0.5).tolist()
[[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]
>>> float(det(np.array([[2., 1.], [1., 3.]], np.float32)))
5.0
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


@register("gemm")
def gemm(A: np.ndarray, B: np.ndarray, C, *, transA: int, transB: int, alpha: float, beta: float) -> np.ndarray:
    """alpha * A' B' + beta * C (C absent: 0), in A's element type as onnx.reference computes it."""
    a = A.T if transA else A
    b = B.T if transB else B
    y = np.matmul(a, b) * alpha
    if C is not None:
        y = y + C * beta
    return np.asarray(y).astype(A.dtype)


@register("einsum")
def einsum(Inputs: tuple, *, equation: str) -> np.ndarray:
    eq = "".join(equation.split())
    wide = [x.astype(np.float32) if x.dtype.kind == "V" else x for x in Inputs]   # bfloat16: numpy has no einsum
    out = np.einsum(eq, *wide)
    return np.asarray(out).astype(Inputs[0].dtype)


@register("det")
def det(X: np.ndarray) -> np.ndarray:
    """The determinant of each square matrix in the last two axes."""
    return np.asarray(np.linalg.det(X.astype(np.float64))).astype(X.dtype)


@register("matmul_integer")
def matmul_integer(A: np.ndarray, B: np.ndarray, a_zero_point, b_zero_point) -> np.ndarray:
    """(A - a_zero_point) @ (B - b_zero_point) in int32; b_zero_point per column when it has N entries."""
    a = A.astype(np.int32) - (0 if a_zero_point is None else np.asarray(a_zero_point).astype(np.int32).reshape(-1)[0])
    b = B.astype(np.int32)
    if b_zero_point is not None:
        zp = np.asarray(b_zero_point).astype(np.int32).reshape(-1)
        b = b - (zp[0] if zp.size == 1 else zp)
    return np.matmul(a, b).astype(np.int32)


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


@register("qlinear_matmul")
def qlinear_matmul(a: np.ndarray, a_scale, a_zero_point, b: np.ndarray, b_scale, b_zero_point, y_scale,
                   y_zero_point) -> np.ndarray:
    """(a - a_zp) @ (b - b_zp) scaled by a_scale * b_scale / y_scale (b's per column when it has N entries),
    plus y_zero_point: rounded half to even and saturated for an integer y, cast (saturating) for a float8 y.
    The scale is computed in the scales' type and applied in float64, as onnx.reference does."""
    import ml_dtypes
    f64 = np.float64
    A = a.astype(f64) - np.asarray(a_zero_point).astype(f64)
    B = b.astype(f64) - np.asarray(b_zero_point).astype(f64)
    scale = (np.asarray(a_scale) * np.asarray(b_scale) / np.asarray(y_scale)).astype(f64)
    y = np.matmul(A, B) * scale
    dt = np.asarray(y_zero_point).dtype
    zp = np.asarray(y_zero_point).astype(f64)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return np.clip(np.rint(y) + zp, info.min, info.max).astype(dt)
    finfo = ml_dtypes.finfo(dt)
    return np.clip(y + zp, float(finfo.min), float(finfo.max)).astype(dt)
