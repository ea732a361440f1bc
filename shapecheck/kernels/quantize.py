"""Kernels of QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear.  QuantizeLinear and DequantizeLinear: per-tensor (a scalar scale), per-axis (a 1-D
scale along ``axis``) and blocked (from version 21: a scale of x's rank whose ``axis`` dim is
ceil(x.shape[axis] / block_size)) quantization.  Rounding is half to even and the result saturates
to the output type's range, computed in float32 as the runtimes do.

>>> import numpy as np
>>> quantize(np.array([0.5, 1.5, 300.], np.float32), np.float32(1), None, axis=1, block_size=0, out="uint8").tolist()
[0, 2, 255]
>>> dequantize(np.array([[1, 2], [3, 4]], np.int8), np.array([2., 3.], np.float32), None, axis=1, block_size=0, out="float").tolist()
[[2.0, 6.0], [6.0, 12.0]]
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from ..types import numpy_dtype
from . import register


def expand_param(p, shape: tuple, axis: int, block_size: int) -> np.ndarray:
    """A scale or zero point broadcast to x's shape: as is (one value), along axis (1-D), or each
    entry repeated over its block of block_size along axis (blocked)."""
    p = np.asarray(p)
    if p.size == 1 and p.ndim <= 1:
        return p.reshape(())
    a = int(axis) + len(shape) if int(axis) < 0 else int(axis)
    if p.ndim == 1 and not int(block_size):
        return p.reshape([-1 if i == a else 1 for i in range(len(shape))])
    return np.repeat(p, int(block_size), axis=a).take(range(shape[a]), axis=a)


_NARROW_INTS = ("int4", "uint4", "int2", "uint2")


@register("quantize")
def quantize(x: np.ndarray, y_scale, y_zero_point, *, axis, block_size, out: str, precision: str = "float",
             saturate=1) -> np.ndarray:
    """y = saturate(round(x / y_scale) + y_zero_point) in the output type ``out``; the division in
    ``precision`` (float before version 23; from 23 the precision attribute, else y_scale's type).  A
    float output (float8, float4, float6) is x / y_scale + y_zero_point cast to it, clipped to its range
    when ``saturate``."""
    import ml_dtypes
    dt = np.dtype(numpy_dtype(out))
    pt = np.dtype(numpy_dtype(precision))
    pt = pt if pt.kind == "f" else np.dtype(np.float32)
    scale = expand_param(y_scale, x.shape, axis, block_size).astype(pt)
    zp = 0 if y_zero_point is None else expand_param(y_zero_point, x.shape, axis, block_size).astype(np.float32)
    integer = dt.kind in "iu" or out in _NARROW_INTS
    with np.errstate(all="ignore"):      # a 0 scale gives inf or NaN (0 / 0), which the cast maps silently
        q = x.astype(pt) / scale
        y = (np.rint(q) if integer else q).astype(np.float32) + zp
        if integer:
            info = ml_dtypes.iinfo(dt)
            return np.clip(y, info.min, info.max).astype(dt)
        if int(saturate):
            finfo = ml_dtypes.finfo(dt)
            y = np.clip(y, float(finfo.min), float(finfo.max))
        return y.astype(dt)


@register("dequantize")
def dequantize(x: np.ndarray, x_scale, x_zero_point, *, axis, block_size, out: str) -> np.ndarray:
    """y = (x - x_zero_point) * x_scale in the output type ``out``."""
    scale = expand_param(x_scale, x.shape, axis, block_size).astype(np.float32)
    wide = np.int64 if x.dtype.kind in "iu" or x.dtype.name in _NARROW_INTS else np.float32
    zp = 0 if x_zero_point is None else expand_param(x_zero_point, x.shape, axis, block_size).astype(wide)
    return ((x.astype(wide) - zp).astype(np.float32) * scale).astype(numpy_dtype(out))


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
