"""Kernels of the constant ops: Cast (and CastLike), Constant, ConstantOfShape and EyeLike.

Cast converts as onnxruntime does: a number to text as its shortest round-trip form (no
trailing ``.0``; NaN, INF), text to numbers by parsing, and out-of-range values wrap.

>>> import numpy as np
>>> cast(np.array([1.5, np.inf], np.float32), to="string").tolist(), cast(np.array(["7", "-2"], object), to="int8").tolist()
(['1.5', 'INF'], [7, -2])
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from ..types import numpy_dtype
from . import register


def _to_string(x) -> str:
    """onnxruntime's text of a number: shortest round-trip, no trailing .0, NaN/INF; bools as 1/0."""
    if isinstance(x, (bool, np.bool_)):
        return "1" if x else "0"
    if isinstance(x, np.floating):
        if np.isnan(x):
            return "NaN"
        if np.isinf(x):
            return "INF" if x > 0 else "-INF"
        text = str(x)
        return text.removesuffix(".0")
    return str(x)


FLOAT8 = ("float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz")


@register("cast")
def cast(input: np.ndarray, *, to: str, saturate=1, round_mode="up") -> np.ndarray:
    """``input`` in the element type ``to``.  A float8 target saturates (``saturate`` = 1: out-of-range
    values and infinities become the largest finite value) and rounds to nearest even; a float8e8m0
    target rounds its exponent by ``round_mode``; every other cast is numpy's (ml_dtypes')."""
    if to == "string":
        return np.array([_to_string(x) for x in input.reshape(-1)], dtype=object).reshape(input.shape)
    if input.dtype.kind in "OUS":
        parse = int if to in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64") else float
        input = np.array([parse(x) for x in input.reshape(-1)]).reshape(input.shape)
    with np.errstate(all="ignore"):   # out-of-range values wrap as in onnxruntime; NaN to int is undefined
        if to in FLOAT8 and int(saturate):
            import ml_dtypes
            info = ml_dtypes.finfo(numpy_dtype(to))
            wide = input.astype(np.float64) if input.dtype.itemsize > 4 else input.astype(np.float32)
            return np.clip(wide, float(info.min), float(info.max)).astype(numpy_dtype(to))
        if to == "float8e8m0":
            return to_e8m0(input, bool(int(saturate)), str(round_mode))
        return input.astype(numpy_dtype(to))


def to_e8m0(x: np.ndarray, saturate: bool, round_mode: str) -> np.ndarray:
    """float8e8m0 (an exponent only) of x's float32 value: the exponent rounded up when any fraction bit
    is set (up), on the guard bit (nearest) or never (down); NaN and infinities give NaN; with
    ``saturate`` the largest exponent does not round up into NaN (onnx.numpy_helper.to_float8e8m0).

    >>> to_e8m0(np.array([1.0, 3.0, 0.75], np.float32), True, "up").astype(np.float32).tolist()
    [1.0, 4.0, 1.0]
    """
    import ml_dtypes
    bits = np.asarray(x, np.float32).view(np.uint32)
    exp = ((bits >> 23) & 0xFF).astype(np.uint16)
    special = exp == 0xFF
    if round_mode == "nearest":
        up = ((bits & 0x400000) > 0) & (((bits & 0x200000) > 0) | ((bits & 0x1FFFFF) > 0) | (exp > 0))
    elif round_mode == "up":
        up = (bits & 0x7FFFFF) > 0
    else:
        up = np.zeros(bits.shape, bool)
    up &= ~special
    if saturate:
        up &= exp != 0xFE
    out = np.where(special, 0xFF, exp + up).astype(np.uint8)
    return out.view(ml_dtypes.float8_e8m0fnu)


@register("bitcast")
def bitcast(input: np.ndarray, *, to: str) -> np.ndarray:
    """The same bits read as ``to`` (of the same bit width; ml_dtypes keeps 4- and 2-bit values in the low bits
    of a byte, so a view reinterprets them too)."""
    return input.view(numpy_dtype(to)).copy()


@register("constant_of_shape")
def constant_of_shape(input: np.ndarray, *, value: np.ndarray) -> np.ndarray:
    return np.full(tuple(int(d) for d in input.reshape(-1)), value.reshape(-1)[0], dtype=value.dtype)


@register("constant")
def constant(*, value: np.ndarray) -> np.ndarray:
    return np.array(value, copy=True)


@register("eye_like")
def eye_like(input: np.ndarray, *, k: int, dtype: str) -> np.ndarray:
    """Ones on the k-th diagonal of a matrix of input's shape, zeros elsewhere, in ``dtype``."""
    from ..types import numpy_dtype
    return np.eye(input.shape[0], input.shape[1], int(k), dtype=numpy_dtype(dtype))
