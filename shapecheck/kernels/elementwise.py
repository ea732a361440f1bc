"""Kernels of the elementwise ops: one binary kernel (Add, Sub, ..., Equal, And), one variadic
(Min, Max, Sum, Mean), one unary (Neg, Abs, Sqrt, Relu, ...), Where and Clip.  Each spec binds
``fn``, the op's symbol, so a family of ops shares one kernel.

The integer rules are onnxruntime's: Div truncates toward zero, Mod with ``fmod = 0`` takes
the divisor's sign (Python's ``%``) and with ``fmod = 1`` the dividend's (C's ``fmod``), Pow
of integers is computed in double and truncated; integer division by zero is an error.

>>> import numpy as np
>>> binary(np.array([-7, 7]), np.array([2, 2]), fn="/").tolist()
[-3, 3]
>>> variadic((np.array([1., 5.]), np.array([3.])), fn="max").tolist()
[3.0, 5.0]
>>> unary(np.array([-1., 4.]), fn="relu").tolist()
[0.0, 4.0]
"""
from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Callable

import math

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from ..errors import UsageError
from . import register


def _int_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if np.any(b == 0):
        raise UsageError("integer division by zero (onnxruntime fails the node)")
    q = np.floor_divide(a, b)
    return q + ((np.remainder(a, b) != 0) & ((a < 0) != (b < 0))).astype(q.dtype)


def _mod(a: np.ndarray, b: np.ndarray, c_fmod: bool) -> np.ndarray:
    if a.dtype.kind in "iu" and np.any(b == 0):
        raise UsageError("integer modulo by zero (onnxruntime fails the node)")
    return np.fmod(a, b) if c_fmod else np.remainder(a, b)


def _shift(a: np.ndarray, b: np.ndarray, left: bool) -> np.ndarray:
    """BitShift as the page of version 28 defines it: a right shift of a signed type is arithmetic; a shift
    by a negative amount or by the width or more gives the fill alone (-1 for a negative signed a shifted
    right, else 0)."""
    width = a.dtype.itemsize * 8
    amount = np.asarray(b).astype(np.int64)
    outside = (amount < 0) | (amount >= width)
    safe = np.where(outside, 0, amount).astype(a.dtype)
    shifted = np.left_shift(a, safe) if left else np.right_shift(a, safe)
    fill = np.where(a < 0, -1, 0).astype(a.dtype) if (not left and a.dtype.kind == "i") else np.zeros((), a.dtype)
    return np.where(outside, fill, shifted).astype(a.dtype)


def _pow(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind in "iu":
        with np.errstate(all="ignore"):
            return np.trunc(np.power(a.astype(np.float64), b.astype(np.float64))).astype(a.dtype)
    return np.power(a, b.astype(a.dtype))


@cache
def _binary() -> dict[str, Callable]:
    """Binary operators by notation name (built on first use: numpy is imported then)."""
    return {
        "+": np.add, "-": np.subtract, "*": np.multiply,
        "/": lambda a, b: _int_div(a, b) if a.dtype.kind in "iu" else np.divide(a, b),
        "%": lambda a, b: _mod(a, b, False), "fmod": lambda a, b: _mod(a, b, True), "pow": _pow,
        "min": np.minimum, "max": np.maximum,
        "==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
        "and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor,
        "&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor, "<<": lambda a, b: _shift(a, b, True), ">>": lambda a, b: _shift(a, b, False),
        "prelu": lambda x, slope: np.where(x < 0, x * slope, x),
    }


@register("binary")
def binary(A: np.ndarray, B: np.ndarray, *, fn: str) -> np.ndarray:
    """``A fn B`` with multidirectional broadcasting; the result keeps A's element type (bool for relations)."""
    with np.errstate(all="ignore"):   # integer wrap-around and float inf/nan, as the runtimes give
        out = np.asarray(_binary()[fn](A, B))
    return out if out.dtype == bool else out.astype(A.dtype, copy=False)


@register("legacy_binary")
def legacy_binary(A: np.ndarray, B: np.ndarray, *, fn: str, broadcast: int, axis) -> np.ndarray:
    """``A fn B`` with the broadcasting of the versions before 7: with ``broadcast`` = 1, B (one element, or
    a contiguous run of A's dims starting at ``axis``, A's last dims without it) is stretched over A.

    >>> legacy_binary(np.ones((2, 3, 4)), np.array([1., 2., 3.]), fn="+", broadcast=1, axis=1)[1, :, 0].tolist()
    [2.0, 3.0, 4.0]
    """
    if int(broadcast) and B.ndim <= A.ndim:
        if B.size == 1:
            B = B.reshape(())
        else:
            start = A.ndim - B.ndim if axis is None else int(axis)
            B = B.reshape(B.shape + (1,) * (A.ndim - start - B.ndim))
    return binary(A, B, fn=fn)


@register("variadic")
def variadic(inputs: tuple, *, fn: str) -> np.ndarray:
    """Min, Max, Sum (``+``) or Mean of one or more tensors, broadcast together."""
    op = "+" if fn == "mean" else fn
    out = inputs[0]
    with np.errstate(all="ignore"):
        for x in inputs[1:]:
            out = _binary()[op](out, x)
        if fn == "mean":
            out = out / np.asarray(len(inputs), dtype=out.dtype)
    return np.asarray(out).astype(inputs[0].dtype, copy=False)


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _gelu(x: np.ndarray, approximate: str) -> np.ndarray:
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + _erf(x / np.sqrt(2)))


@cache
def _unary() -> dict[str, Callable]:
    """Unary functions by notation name (built on first use: numpy is imported then)."""
    return {
        "neg": np.negative, "abs": np.abs, "not": np.logical_not, "sign": np.sign,
        "sqrt": np.sqrt, "exp": np.exp, "log": np.log, "reciprocal": np.reciprocal,
        "floor": np.floor, "ceil": np.ceil, "round": np.round,   # np.round rounds half to even, as ONNX
        "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
        "sinh": np.sinh, "cosh": np.cosh, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
        "tanh": np.tanh, "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "relu": lambda x: np.maximum(x, 0),
        "erf": _erf, "softplus": lambda x: np.log1p(np.exp(x)), "softsign": lambda x: x / (1 + np.abs(x)),
        "isnan": np.isnan, "isinf": np.isinf, "isposinf": np.isposinf, "isneginf": np.isneginf,
        "noinf": lambda x: np.zeros(x.shape, bool), "bitnot": np.invert,
    }


@register("unary")
def unary(X: np.ndarray, *, fn: str, alpha: float = 0.0, beta: float = 0.0, gamma: float = 0.0,
          approximate: str = "none") -> np.ndarray:
    """``fn(X)`` elementwise; ``alpha``/``beta``/``gamma`` for the parametrized activations.  A float of
    two bytes or less (float16, bfloat16, the float8s) is computed in float32 and rounded once, as
    onnx's own expected outputs are (Celu's bfloat16 case is one unit of bfloat16 apart otherwise)."""
    given = X
    if X.dtype.itemsize <= 2 and X.dtype.kind in "fV":
        X = X.astype(np.float32)
    with np.errstate(all="ignore"):
        if fn == "leakyrelu":
            out = np.where(X < 0, alpha * X, X)
        elif fn == "elu":
            out = np.where(X < 0, alpha * (np.exp(X) - 1), X)
        elif fn == "selu":
            out = gamma * np.where(X <= 0, alpha * (np.exp(X) - 1), X)
        elif fn == "celu":
            out = np.maximum(0, X) + np.minimum(0, alpha * (np.exp(X / alpha) - 1))
        elif fn == "hardsigmoid":
            out = np.clip(alpha * X + beta, 0, 1)
        elif fn == "hardswish":
            out = X * np.clip(X / 6 + 0.5, 0, 1)
        elif fn == "thresholdedrelu":
            out = np.where(X > alpha, X, 0)
        elif fn == "mish":
            out = X * np.tanh(np.log1p(np.exp(X)))
        elif fn == "shrink":        # alpha = lambd, beta = bias
            out = np.where(X < -alpha, X + beta, np.where(X > alpha, X - beta, 0))
        elif fn == "swish":
            out = X / (1 + np.exp(-alpha * X))
        elif fn == "gelu":
            out = _gelu(X, approximate)
        else:
            out = _unary()[fn](X)
    out = np.asarray(out)
    return out if out.dtype == bool else out.astype(given.dtype, copy=False)


@register("where")
def where(condition: np.ndarray, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """X where condition holds, else Y, all three broadcast together."""
    return np.where(condition, X, Y).astype(X.dtype, copy=False)


@register("clip")
def clip(input: np.ndarray, *, min=None, max=None) -> np.ndarray:
    y = input
    with np.errstate(over="ignore"):   # the default bounds of Clip-6 are +-FLT_MAX: inf in float16
        lo = None if min is None else np.asarray(min).astype(input.dtype).reshape(())
        hi = None if max is None else np.asarray(max).astype(input.dtype).reshape(())
    if lo is not None:
        y = np.maximum(y, lo)
    if hi is not None:
        y = np.minimum(y, hi)
    return np.asarray(y, dtype=input.dtype).copy()
