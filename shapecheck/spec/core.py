"""The notation's core functions: ``rank``, ``dtype``, ``item``, ``len``, ``range``, ``min``, ``max``, ``prod``.

A function's notation name is its Python name without the leading underscore (``_len`` is
``len()``), so these never shadow Python's builtins here.

>>> _prod((2, 3, 4)), _len((1, 2)), _max(3, 5)
(24, 2, 5)
"""
from __future__ import annotations

import numpy as np
import sympy

from ..types import normalize_dim
from .logic import NO_VALUE, UNKNOWN, EvalError, TensorVal, Unknown, UnknownDType, UnknownRank
from .operators import arith, need_int, show

def _rank(t):
    if isinstance(t, TensorVal):
        return UnknownRank(t.name) if t.shape is None else len(t.shape)
    if isinstance(t, tuple):
        return len(t)
    if isinstance(t, Unknown):
        return UNKNOWN
    raise EvalError(f"rank() takes a tensor, got {show(t)}")


def _dtype(t):
    if isinstance(t, TensorVal):
        return UnknownDType(t.name) if t.dtype is None else t.dtype
    raise EvalError(f"dtype() takes a tensor, got {show(t)}")


def _item(t):
    """The single value of a scalar or one-element tensor (OpenVINO's axis input)."""
    if isinstance(t, TensorVal):
        if t.value is None:
            return NO_VALUE
        t = t.value
    if isinstance(t, np.ndarray):
        if t.size != 1:
            raise EvalError(f"expected one value, got {t.size}")
        return int(t.reshape(-1)[0])
    return t


def _len(x):
    if isinstance(x, Unknown):
        return UNKNOWN
    if not isinstance(x, (tuple, list, frozenset, range, np.ndarray, str)):
        raise EvalError(f"len() takes a shape, a value or a list of tensors, got {show(x)}")
    return len(x)


def _range(*args):
    for a in args:
        if isinstance(a, Unknown):
            return a
    return range(*(need_int(a) for a in args))


def _minmax(fn, name: str):
    def f(*args):
        if len(args) == 1 and isinstance(args[0], TensorVal):
            v = args[0].value
            return NO_VALUE if v is None else (fn(v) if v.size else UNKNOWN)
        if len(args) == 1 and isinstance(args[0], np.ndarray):
            return fn(args[0]) if args[0].size else UNKNOWN
        if all(type(a) is int for a in args):
            return (max if fn is np.max else min)(args)
        for a in args:
            if isinstance(a, Unknown):
                return a
        return normalize_dim((sympy.Max if fn is np.max else sympy.Min)(*args))
    f.__name__ = name
    f.__doc__ = f"The {name[1:]}imum of dims (sympy's {name[1:].title()} of symbols), or of one tensor's values."
    return f


_min = _minmax(np.min, "_min")
_max = _minmax(np.max, "_max")


def _prod(shape):
    if isinstance(shape, Unknown):
        return shape
    out = 1
    for d in shape:
        out = arith("*", out, d)
    return out



NOTATION = (_rank, _dtype, _item, _len, _range, _min, _max, _prod)
