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


@register("cast")
def cast(input: np.ndarray, *, to: str) -> np.ndarray:
    if to == "string":
        return np.array([_to_string(x) for x in input.reshape(-1)], dtype=object).reshape(input.shape)
    if input.dtype.kind in "OUS":
        parse = int if to in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64") else float
        return np.array([parse(x) for x in input.reshape(-1)]).astype(numpy_dtype(to)).reshape(input.shape)
    with np.errstate(all="ignore"):   # out-of-range values wrap as in onnxruntime; NaN to int is undefined
        return input.astype(numpy_dtype(to))


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
