"""Kernels of the further reductions (ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp,
ReduceSumSquare) and of Hardmax.

A reduction maps each element (``|x|``, ``x*x``, ``exp(x)``), sums with the Reduce* axes rules
(kernels/reduce.py) and maps the sum (``sqrt``, ``log``); float types are computed in float64
and cast back, integer types as onnxruntime does (the sum in the type, sqrt/log truncated).

>>> import numpy as np
>>> reduce_more(np.array([[3., -4.]], np.float32), axes=None, keepdims=0, noop=0, how="l2").tolist()
5.0
>>> hardmax(np.array([[1, 3, 3], [2, 0, 1]], np.float32), axis=1, coerce=0).tolist()
[[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
"""
from __future__ import annotations

import numpy as np

from . import register
from .reduce import reduce

_PRE = {"l1": np.abs, "l2": np.square, "sumsquare": np.square, "logsum": lambda x: x, "logsumexp": np.exp}
_POST = {"l1": None, "sumsquare": None, "l2": np.sqrt, "logsum": np.log, "logsumexp": np.log}


@register("reduce_more")
def reduce_more(data: np.ndarray, *, axes, keepdims: int, noop: int, how: str) -> np.ndarray:
    """Reduce* with a map before the sum and after it (``how``: l1, l2, sumsquare, logsum, logsumexp)."""
    ax = [] if axes is None else list(np.asarray(axes).reshape(-1))
    kind = data.dtype.kind
    with np.errstate(all="ignore"):
        x = data.astype(np.float64) if kind == "f" or how == "logsumexp" else data
        if not ax and noop:   # no axis reduced: every element is its own group (|x|, x*x, log x), as the runtimes do
            post = _POST[how]
            y = _PRE[how](x)
            return np.asarray(y if post is None else post(np.asarray(y, dtype=np.float64))).astype(data.dtype)
        if how == "logsumexp" and kind == "f" and x.size:
            # log(sum(exp(x))) = m + log(sum(exp(x - m))), m the max over the reduced axes: no overflow
            m = reduce(x, axes=axes, keepdims=1, noop=noop, how="max")
            m = np.where(np.isfinite(m), m, 0)
            s = reduce(np.exp(x - m), axes=axes, keepdims=1, noop=noop, how="sum")
            out = np.log(s) + m
            if not keepdims:
                out = reduce(out, axes=axes, keepdims=0, noop=noop, how="sum")
            return np.asarray(out).astype(data.dtype)
        s = reduce(_PRE[how](x), axes=axes, keepdims=keepdims, noop=noop, how="sum")
        post = _POST[how]
        out = s if post is None else post(np.asarray(s, dtype=np.float64))
    return np.asarray(out).astype(data.dtype)


@register("hardmax")
def hardmax(input: np.ndarray, *, axis: int, coerce: int, fn: str = "hardmax") -> np.ndarray:
    """1 at the first maximum along ``axis``, 0 elsewhere; with ``coerce`` (versions 1 and 11) the
    input is read as a 2-D matrix [prod(shape[:axis]), prod(shape[axis:])] and each row is one group."""
    x = input
    a = int(axis) + x.ndim if int(axis) < 0 else int(axis)
    if int(coerce):
        rows = int(np.prod(x.shape[:a], dtype=np.int64))
        x = x.reshape(rows, -1)
        a = 1
    out = np.zeros(x.shape, dtype=input.dtype)
    if x.size:
        idx = np.expand_dims(np.argmax(x, axis=a), a)
        np.put_along_axis(out, idx, 1, axis=a)
    return out.reshape(input.shape)
