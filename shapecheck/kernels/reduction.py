"""Kernels of the Reduce* ops (sum, prod, max, min, mean) with ONNX's axes rules: no axes reduce
every axis unless noop_with_empty_axes; a repeated axis reduces once (as onnxruntime does).
An integer mean truncates toward zero, as onnxruntime computes it.

The further reductions (ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp, ReduceSumSquare) map
each element (``|x|``, ``x*x``, ``exp(x)``), sum with the same axes rules and map the sum
(``sqrt``, ``log``); float types are computed in float64 and cast back, integer types as
onnxruntime does (the sum in the type, sqrt/log truncated).  ArgMax and ArgMin break ties toward
the lower index unless select_last_index.

>>> import numpy as np
>>> reduce(np.array([[-3, -4, 5], [1, 2, 2]], np.int32), axes=np.array([1]), keepdims=0, noop=0, how="mean").tolist()
[0, 1]
>>> reduce_more(np.array([[3., -4.]], np.float32), axes=None, keepdims=0, noop=0, how="l2").tolist()
5.0
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


# how -> the numpy function applied before and after the sum (None: nothing)
_PRE: dict[str, str | None] = {"l1": "abs", "l2": "square", "sumsquare": "square", "logsum": None, "logsumexp": "exp"}


_POST: dict[str, str | None] = {"l1": None, "sumsquare": None, "l2": "sqrt", "logsum": "log", "logsumexp": "log"}


def _map(table: dict[str, str | None], how: str, x: np.ndarray) -> np.ndarray:
    name = table[how]
    return x if name is None else getattr(np, name)(x)


@register("reduce_more")
def reduce_more(data: np.ndarray, *, axes, keepdims: int, noop: int, how: str) -> np.ndarray:
    """Reduce* with a map before the sum and after it (``how``: l1, l2, sumsquare, logsum, logsumexp)."""
    ax = [] if axes is None else list(np.asarray(axes).reshape(-1))
    kind = data.dtype.kind
    with np.errstate(all="ignore"):
        x = data.astype(np.float64) if kind == "f" or how == "logsumexp" else data
        if not ax and noop:   # no axis reduced: every element is its own group (|x|, x*x, log x), as the runtimes do
            y = _map(_PRE, how, x)
            return np.asarray(_map(_POST, how, np.asarray(y, dtype=np.float64) if _POST[how] else y)).astype(data.dtype)
        if how == "logsumexp" and kind == "f" and x.size:
            # log(sum(exp(x))) = m + log(sum(exp(x - m))), m the max over the reduced axes: no overflow
            m = reduce(x, axes=axes, keepdims=1, noop=noop, how="max")
            m = np.where(np.isfinite(m), m, 0)
            s = reduce(np.exp(x - m), axes=axes, keepdims=1, noop=noop, how="sum")
            out = np.log(s) + m
            if not keepdims:
                out = reduce(out, axes=axes, keepdims=0, noop=noop, how="sum")
            return np.asarray(out).astype(data.dtype)
        s = reduce(_map(_PRE, how, x), axes=axes, keepdims=keepdims, noop=noop, how="sum")
        out = _map(_POST, how, np.asarray(s, dtype=np.float64) if _POST[how] else s)
    return np.asarray(out).astype(data.dtype)


@register("arg_extreme")
def arg_extreme(data: np.ndarray, *, axis: int, keepdims: int, select_last_index: int, largest: int) -> np.ndarray:
    fn = np.argmax if largest else np.argmin
    if select_last_index:
        out = data.shape[axis] - 1 - fn(np.flip(data, axis), axis=axis)
    else:
        out = fn(data, axis=axis)
    out = out.astype(np.int64)
    return np.expand_dims(out, axis) if keepdims else out
