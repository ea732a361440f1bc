"""Kernels of the layout and conversion ops: Unsqueeze, Squeeze, Identity, Flatten, Transpose,
Tile, Cast, CastLike, ConstantOfShape, Constant.  Each is the numpy meaning of its op, with
every argument bound by the spec (axes already read from an attribute or an input).

>>> import numpy as np
>>> unsqueeze(np.zeros((2, 3)), axes=(0, -1)).shape, squeeze(np.zeros((1, 3, 1)), axes=None).shape
((1, 2, 3, 1), (3,))
>>> cast(np.array([1.5, -2.0]), to="string").tolist(), cast(np.array([True]), to="string").tolist()
(['1.5', '-2'], ['1'])
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from ..types import numpy_dtype
from . import register


def _axes(axes) -> tuple:
    if axes is None:
        return ()
    return tuple(int(a) for a in np.asarray(axes).reshape(-1))


@register("unsqueeze")
def unsqueeze(data: np.ndarray, *, axes) -> np.ndarray:
    return np.expand_dims(data, _axes(axes)) if _axes(axes) else data.copy()


@register("squeeze")
def squeeze(data: np.ndarray, *, axes) -> np.ndarray:
    ax = tuple(sorted({a % data.ndim for a in _axes(axes)}))   # none or empty: every 1; a repeated axis once
    return np.squeeze(data, axis=ax if ax else None).copy()


@register("identity")
def identity(input: np.ndarray) -> np.ndarray:
    return input.copy()


@register("flatten")
def flatten(input: np.ndarray, *, axis: int) -> np.ndarray:
    a = axis + input.ndim if axis < 0 else axis
    return input.reshape(int(np.prod(input.shape[:a], dtype=np.int64)), int(np.prod(input.shape[a:], dtype=np.int64)))


@register("transpose")
def transpose(data: np.ndarray, *, perm) -> np.ndarray:
    return np.transpose(data, None if perm is None else tuple(int(p) for p in perm)).copy()


@register("tile")
def tile(input: np.ndarray, repeats: np.ndarray) -> np.ndarray:
    return np.tile(input, tuple(int(r) for r in repeats.reshape(-1))) if input.ndim else input.copy()


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
