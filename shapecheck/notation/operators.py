"""Arithmetic, subscripts and the fields ``.value``, ``.rank`` and ``.dtype`` over the notation's values.

>>> arith("+", 2, 3), subscript((4, 5, 6), [slice(1, None)])
(5, (5, 6))
"""
from __future__ import annotations

from typing import TYPE_CHECKING


from ..deferred import is_sympy
from ..dims import LIGHT, expr_str, normalize_dim, is_symbolic
from ..types import TensorType
from .lattice import (NO_VALUE, UNKNOWN, ContainerVal, EvalError, NeedInt, TensorVal, Unknown, UnknownDType, UnknownRank,
                      UnknownShape, as_val)

if TYPE_CHECKING:
    import numpy as np
    import sympy
else:
    from ..deferred import numpy as np
    from ..deferred import sympy

__all__ = ["arith", "need_int", "subscript", "value_of", "values", "show", "is_dim", "element_grid"]


def is_dim(x) -> bool:
    """An int, a numpy integer, a sympy expression or a light check's dim: something a dim can be."""
    return type(x) is int or type(x) in LIGHT or isinstance(x, np.integer) or is_sympy(x)


def arith(op: str, a, b):
    if type(a) is int and type(b) is int:
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if b == 0:
            raise EvalError(f"division by zero in {a} {op} {b}")
        return a // b if op == "//" else a % b
    for x in (a, b):
        if isinstance(x, Unknown):
            return x
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return {"+": np.add, "-": np.subtract, "*": np.multiply, "//": np.floor_divide, "%": np.mod}[op](a, b)
    if not (is_dim(a) and is_dim(b)):
        raise EvalError(f"cannot compute {show(a)} {op} {show(b)}")
    # the identities give what sympy gives (1*N is N), without sympy: a light check's dims stay names
    if (op in ("+", "-") and type(b) is int and b == 0) or (op == "*" and type(b) is int and b == 1):
        return normalize_dim(a)   # a numpy integer becomes an int, as sympy's result would
    if (op == "+" and type(a) is int and a == 0) or (op == "*" and type(a) is int and a == 1):
        return normalize_dim(b)
    if op in _LIGHT_OPS and (type(a) in LIGHT or type(b) in LIGHT):
        return _LIGHT_OPS[op](normalize_dim(a), normalize_dim(b))   # a light check's sums and products (dims/light.py): sympy's, without it
    if op == "+":
        return normalize_dim(sympy.sympify(a) + b)
    if op == "-":
        return normalize_dim(sympy.sympify(a) - b)
    if op == "*":
        return normalize_dim(sympy.sympify(a) * b)
    # floor division and modulo of symbols need integers (ranks, axis values) in practice
    raise NeedInt(a if not isinstance(a, int) else b)


_LIGHT_OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b}


def need_int(x) -> int:
    if type(x) is int:
        return x
    if isinstance(x, (np.integer,)):
        return int(x)
    if is_symbolic(x):
        if x.is_Integer:
            return int(x)
        raise NeedInt(x)
    raise EvalError(f"expected an integer, got {show(x)}")


# ---------------------------------------------------------------- subscripts

def subscript(obj, subs: list):
    if isinstance(obj, ContainerVal):
        return _element(obj, subs)
    if isinstance(obj, Unknown):
        if isinstance(obj, UnknownShape) and len(subs) == 1 and isinstance(subs[0], slice):
            return UnknownShape(None)
        return Unknown(obj.reason)
    if isinstance(obj, TensorVal):
        if obj.value is None:
            if obj.sym is None and obj.bounds is not None:
                # part of a tensor whose elements are known only by their bounds: the part has those bounds,
                # attained only when it is the whole ([..., 0] of a last axis of 1, as GatherND's indices)
                whole = (len(subs) == 2 and subs[0] is Ellipsis and obj.shape is not None and obj.shape
                         and obj.shape[-1] == 1)
                part = TensorType(obj.dtype, obj.shape[:-1] if whole else None,
                                  bounds=obj.bounds[:2] + (bool(obj.bounds[2] and whole),))
                return TensorVal(f"{obj.name}[...]", part)
            if obj.sym is None or len(subs) != 1:
                return NO_VALUE
            obj = obj.sym     # a symbolic vector value: subscripted like a shape
        else:
            obj = obj.value
    if isinstance(obj, tuple):
        if len(subs) != 1:
            raise EvalError("a shape takes one subscript")
        s = subs[0]
        if isinstance(s, Unknown):
            return s if not isinstance(s, slice) else UnknownShape(None)
        if isinstance(s, slice):
            lo = None if s.start is None else need_int(s.start)
            hi = None if s.stop is None else need_int(s.stop)
            return obj[lo:hi]
        i = need_int(s)
        if not -len(obj) <= i < len(obj):
            raise EvalError(f"index {i} is outside a shape of rank {len(obj)}")
        return obj[i]
    if isinstance(obj, np.ndarray):
        idx = []
        for s in subs:
            if isinstance(s, Unknown):
                return s
            if s is Ellipsis or isinstance(s, slice):
                idx.append(s)
            else:
                idx.append(need_int(s))
        try:
            return obj[tuple(idx)]
        except IndexError as exc:
            raise EvalError(str(exc)) from None
    raise EvalError(f"cannot subscript {show(obj)}")


def _element(s: ContainerVal, subs: list):
    """``s[i]``: a sequence's element ``i`` (each element's own type where known, else what every
    element is), an optional's element (``o[0]``)."""
    if len(subs) != 1 or isinstance(subs[0], slice) or subs[0] is Ellipsis:
        raise EvalError(f"{s.name} takes one index")
    if isinstance(subs[0], Unknown):
        return as_val(f"{s.name}[?]", getattr(s.type, "elem"))
    i = need_int(subs[0])
    items = getattr(s.type, "items", None)
    if items is not None:
        if not -len(items) <= i < len(items):
            raise EvalError(f"index {i} is outside a sequence of {len(items)} elements")
        return as_val(f"{s.name}[{i}]", items[i])
    if s.kind == "map":
        raise EvalError(f"{s.name} is a map: it takes no index")
    return as_val(f"{s.name}[{i}]", s.type.elem)


def value_of(t):
    """``x.value``: a scalar's value as one dim, a vector's as a tuple of dims, else the array.

    Integer tensors of rank <= 1 carry symbolic values (``(N, 12)``); other constants
    their arrays; anything else is known only at run time.
    """
    if isinstance(t, Unknown):
        return NO_VALUE if t.reason == "value" else t
    if not isinstance(t, TensorVal):
        raise EvalError(f".value needs a tensor, got {show(t)}")
    if t.sym is not None:
        return t.sym[0] if t.shape == () else t.sym
    v = t.value
    if v is None:
        return NO_VALUE
    if v.ndim <= 1 and v.dtype.kind in "iub" and v.size <= 64:
        elems = tuple(bool(x) for x in v.reshape(-1).tolist()) if v.dtype.kind == "b" else tuple(int(x) for x in v.reshape(-1).tolist())
        return elems[0] if v.ndim == 0 else elems
    return v


def _rank(t):
    """The rank of a tensor (``rank(data)``, also ``data.rank``) or the length of a shape; unknown for a tensor of unknown rank."""
    if isinstance(t, TensorVal):
        return UnknownRank(t.name) if t.shape is None else len(t.shape)
    if isinstance(t, tuple):
        return len(t)
    if isinstance(t, Unknown):
        return UNKNOWN
    raise EvalError(f"rank() takes a tensor, got {show(t)}")


def _dtype(t):
    """The element type of a tensor (``dtype(x) in T``, also ``x.dtype``); unknown when the query leaves it open,
    and of a sequence, optional or map: it has none, and a rule written for tensors leaves it open."""
    if isinstance(t, TensorVal):
        return UnknownDType(t.name) if t.dtype is None else t.dtype
    if isinstance(t, ContainerVal):
        return UnknownDType(None)
    raise EvalError(f"dtype() takes a tensor, got {show(t)}")


def values(t):
    if isinstance(t, TensorVal):
        return NO_VALUE if t.value is None else t.value
    return t


def show(x) -> str:
    if isinstance(x, (TensorVal, ContainerVal)):
        return x.name
    if isinstance(x, tuple):
        return "[" + ", ".join(expr_str(d) for d in x) + "]"
    return repr(x)


def int_like(x) -> bool:
    """A concrete integer: a Python int (not a bool) or a numpy integer."""
    return type(x) is int or isinstance(x, np.integer)


def element_grid(elems: tuple, dims: tuple) -> np.ndarray:
    """A symbolic value's row-major elements as an object array of shape ``dims`` (int dims), so
    that numpy can transpose or slice it and ``.reshape(-1)`` reads the elements back.

    >>> from shapecheck.dims import symbol
    >>> element_grid((symbol("N"), 1, 2, 3), (2, 2)).T.reshape(-1).tolist()
    [N, 2, 1, 3]
    """
    grid = np.empty(len(elems), dtype=object)
    grid[:] = elems
    return grid.reshape(tuple(int(d) for d in dims))
