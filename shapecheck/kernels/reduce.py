"""Kernels of the Reduce* ops (sum, prod, max, min, mean) with ONNX's axes rules: no axes reduce
every axis unless noop_with_empty_axes; a repeated axis reduces once (as onnxruntime does).
An integer mean truncates toward zero, as onnxruntime computes it.

>>> import numpy as np
>>> reduce(np.array([[-3, -4, 5], [1, 2, 2]], np.int32), axes=np.array([1]), keepdims=0, noop=0, how="mean").tolist()
[0, 1]
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from . import register


@register("reduce")
def reduce(data: np.ndarray, *, axes, keepdims: int, noop: int, how: str) -> np.ndarray:
    ax = [] if axes is None else [int(a) for a in np.asarray(axes).reshape(-1)]
    if not ax:
        if noop:
            return data.copy()
        ax = list(range(data.ndim))
    ax = tuple(sorted({a + data.ndim if a < 0 else a for a in ax}))
    kd = bool(keepdims)
    if how == "mean":
        if data.dtype.kind in "iu":
            s = np.sum(data, axis=ax, keepdims=kd, dtype=np.int64)
            n = int(np.prod([data.shape[a] for a in ax])) or 1
            return (np.sign(s) * (np.abs(s) // n)).astype(data.dtype)
        n = int(np.prod([data.shape[a] for a in ax]))
        s = np.sum(data, axis=ax, keepdims=kd, dtype=data.dtype)
        return (s / n).astype(data.dtype) if n else np.zeros_like(s)
    if how in ("max", "min") and any(data.shape[a] == 0 for a in ax):
        lim = (np.finfo if data.dtype.kind == "f" else np.iinfo)(data.dtype) if data.dtype.kind in "fiu" else None
        init = (-np.inf if how == "max" else np.inf) if data.dtype.kind == "f" else \
            ((lim.min if how == "max" else lim.max) if lim is not None else (how == "min"))
        fn = np.max if how == "max" else np.min
        return fn(data, axis=ax, keepdims=kd, initial=init).astype(data.dtype)
    fn = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}[how]
    if how in ("sum", "prod"):
        return fn(data, axis=ax, keepdims=kd, dtype=data.dtype)
    return fn(data, axis=ax, keepdims=kd)
