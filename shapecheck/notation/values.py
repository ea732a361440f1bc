"""Notation functions over the *values* of shape tensors: dims as elements.

A shape tensor's value is a tuple of dims (``(N, 12)``), a scalar's is one dim.  These
functions move such values through the ops that compute shapes in real graphs (Gather,
Concat, Reshape, Range, Slice, elementwise arithmetic), exactly where they can and with a
fresh unknown dim where they cannot: they never guess.

>>> from shapecheck.types import symbol
>>> N = symbol("N")
>>> take((N, 3, 4), 0), concat([(N,), (-1,)]), elementwise("*", (N, 3), 2)
(N, (N, -1), (2*N, 6))
>>> where((True, False), (N, 1), (2, 3)), unary("neg", (N, -1))
((N, 3), (-N, 1))
"""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any


from ..types import is_unknown, normalize_dim, unknown_dim
from .integer_ops import div as _div, fmod as _fmod, mod as _mod, power as _pow
from .logic import NO_VALUE, EvalError, Unknown
from .operators import value_of

if TYPE_CHECKING:
    import numpy as np
    import sympy
else:
    from ..deferred import numpy as np
    from ..deferred import sympy

INT64_MAX = (1 << 63) - 1


def _is_int(x: Any) -> bool:
    return type(x) is int or isinstance(x, np.integer)


def _fresh(label: str) -> sympy.Dummy:
    return unknown_dim(label)


def _elems(v: Any) -> tuple | None:
    """A value as a flat tuple, or None when it is not known."""
    if isinstance(v, Unknown):
        return None
    if isinstance(v, tuple):
        return v
    if isinstance(v, np.ndarray):
        return tuple(v.reshape(-1).tolist()) if v.size <= 64 else None
    return (v,)


def vector(v: Any) -> Any:
    """A scalar value as a one-element vector; a vector, or the row-major elements of a symbolic
    value of higher rank, as is; a small array's elements as a vector."""
    if isinstance(v, Unknown):
        return v
    if isinstance(v, np.ndarray):
        flat = _elems(v)
        return NO_VALUE if flat is None else flat
    return v if isinstance(v, tuple) else (v,)


def take(v: Any, idx: Any) -> Any:
    """``v[idx]`` on a vector value: one element for a scalar index, a vector for a vector of indices."""
    if isinstance(v, Unknown) or isinstance(idx, Unknown):
        return NO_VALUE
    vals = _elems(v)
    if vals is None:
        return NO_VALUE
    if isinstance(idx, tuple):
        return tuple(take(vals, i) for i in idx)
    if not _is_int(idx):
        return _fresh("gathered")
    i = int(idx)
    if not -len(vals) <= i < len(vals):
        raise EvalError(f"index {i} is outside a value of {len(vals)} elements")
    return vals[i]


def concat(parts: Any) -> Any:
    """The values of several tensors joined end to end (Concat on axis 0)."""
    if isinstance(parts, Unknown):
        return NO_VALUE
    out: tuple = ()
    for p in parts:
        e = _elems(p)
        if e is None:
            return NO_VALUE
        out += e
    return out


def _minmax(name: str, pyfn):
    def f(a, b):
        if _is_int(a) and _is_int(b):
            return pyfn(a, b)
        return normalize_dim(getattr(sympy, name)(a, b))
    return f


def _rel(op):
    def f(a, b):
        if isinstance(a, bool) or isinstance(b, bool):
            return op(a, b) if isinstance(a, bool) and isinstance(b, bool) else _fresh("truth")
        d = sympy.expand(sympy.sympify(a) - sympy.sympify(b))
        if d.is_number:
            return bool(op(d, 0))
        known = {operator.eq: d.is_zero, operator.ne: None if d.is_zero is None else not d.is_zero,
                 operator.lt: d.is_negative, operator.le: d.is_nonpositive,
                 operator.gt: d.is_positive, operator.ge: d.is_nonnegative}[op]
        return _fresh("truth") if known is None else bool(known)
    return f


def _logic(op):
    def f(a, b):
        if isinstance(a, bool) and isinstance(b, bool):
            return op(a, b)
        return _fresh("truth")
    return f


def _bits(op):
    def f(a, b):
        return op(a, b) if _is_int(a) and _is_int(b) else _fresh("bits")
    return f


_BINARY = {
    "+": lambda a, b: a + b if _is_int(a) and _is_int(b) else normalize_dim(sympy.sympify(a) + b),
    "-": lambda a, b: a - b if _is_int(a) and _is_int(b) else normalize_dim(sympy.sympify(a) - b),
    "*": lambda a, b: a * b if _is_int(a) and _is_int(b) else normalize_dim(sympy.sympify(a) * b),
    "/": _div, "%": _mod, "fmod": _fmod, "pow": _pow,
    "min": _minmax("Min", min), "max": _minmax("Max", max),
    "==": _rel(operator.eq), "!=": _rel(operator.ne), "<": _rel(operator.lt), "<=": _rel(operator.le),
    ">": _rel(operator.gt), ">=": _rel(operator.ge),
    "and": _logic(operator.and_), "or": _logic(operator.or_), "xor": _logic(operator.xor),
    "&": _bits(operator.and_), "|": _bits(operator.or_), "^": _bits(operator.xor),
}


def _one(op: str, a, b):
    if is_unknown(a) or is_unknown(b):
        return _fresh("element")
    if isinstance(a, bool) and op in "+-*/%" or isinstance(b, bool) and op in "+-*/%":
        a, b = int(a), int(b)
    return _BINARY[op](a, b)


def broadcast_values(a: Any, b: Any) -> tuple[tuple, tuple, bool] | None:
    """Two values aligned elementwise (scalar, length 1 or equal lengths); None when they cannot be."""
    ea, eb = _elems(a), _elems(b)
    if ea is None or eb is None:
        return None
    vector_out = isinstance(a, tuple) or isinstance(b, tuple)
    if len(ea) == len(eb):
        return ea, eb, vector_out
    if len(ea) == 1:
        return ea * len(eb), eb, vector_out
    if len(eb) == 1:
        return ea, eb * len(ea), vector_out
    raise EvalError(f"values of {len(ea)} and {len(eb)} elements do not broadcast")


def elementwise(op: str, a: Any, b: Any) -> Any:
    """``a op b`` element by element with broadcasting (``+ - * / % fmod pow min max == != < <= > >= and or xor``).

    >>> elementwise("fmod", (-7, 7), -2), elementwise("%", (-7, 7), -2), elementwise("pow", (2, 3), (3, -1))
    ((-1, 1), (-1, -1), (8, 0))
    """
    if op not in _BINARY:
        raise EvalError(f"elementwise() knows {', '.join(_BINARY)}, not {op!r}")
    pair = broadcast_values(a, b)
    if pair is None:
        return NO_VALUE
    ea, eb, vec = pair
    out = tuple(_one(op, x, y) for x, y in zip(ea, eb))
    if any(x is None for x in out):
        return NO_VALUE
    return out if vec else out[0]


def fold(op: str, tensors: Any) -> Any:
    """``elementwise(op, ...)`` over the values of several tensors (Min, Max of shape tensors).

    >>> from shapecheck.notation.logic import TensorVal
    >>> from shapecheck.types import symbol, valued
    >>> N = symbol("N")
    >>> fold("max", (TensorVal("a", valued("int64", (2,), (N, 3))), TensorVal("b", valued("int64", (), (5,)))))
    (Max(5, N), 5)
    """
    if isinstance(tensors, Unknown):
        return NO_VALUE
    vals = [value_of(t) for t in tensors]
    if not vals or any(isinstance(v, Unknown) for v in vals):
        return NO_VALUE
    out = vals[0]
    for v in vals[1:]:
        out = elementwise(op, out, v)
        if isinstance(out, Unknown):
            return out
    return out


def unary(op: str, a: Any) -> Any:
    """``neg``, ``abs``, ``not``, ``sign`` of a value, element by element."""
    e = _elems(a)
    if e is None:
        return NO_VALUE

    def one(x):
        if is_unknown(x):
            return _fresh("element")
        if op == "not":
            return (not x) if isinstance(x, bool) else _fresh("truth")
        if op == "neg":
            return -x if _is_int(x) else normalize_dim(-sympy.sympify(x))
        if op == "abs":
            return abs(x) if _is_int(x) else normalize_dim(sympy.Abs(x))
        if op == "sign":
            return (x > 0) - (x < 0) if _is_int(x) else normalize_dim(sympy.sign(x))
        raise EvalError(f"unary() knows neg, abs, not, sign, not {op!r}")
    out = tuple(one(x) for x in e)
    return out if isinstance(a, tuple) else out[0]


def where(c: Any, x: Any, y: Any) -> Any:
    """``x`` where ``c`` holds, else ``y``, element by element with broadcasting.

    Where ``c`` is not known, an element is known where ``x`` and ``y`` agree (a result of
    another length than the output's is dropped by the caller).

    >>> from shapecheck.types import symbol
    >>> N = symbol("N")
    >>> where(NO_VALUE, (N, 1), (N, 4))[0]
    N
    """
    ec, ex, ey = _elems(c), _elems(x), _elems(y)
    if ec is None and ex is not None and ey is not None:
        ec = (_fresh("truth"),)
    if ec is None or ex is None or ey is None:
        return NO_VALUE
    n = max(len(ec), len(ex), len(ey))
    if any(len(e) not in (1, n) for e in (ec, ex, ey)):
        raise EvalError("where(): values do not broadcast")
    out = []
    for i in range(n):
        ci, xi, yi = ec[i % len(ec)], ex[i % len(ex)], ey[i % len(ey)]
        if isinstance(ci, (bool, np.bool_)) or _is_int(ci):
            out.append(xi if ci else yi)
        else:
            out.append(xi if xi == yi else _fresh("selected"))
    vec = any(isinstance(v, tuple) for v in (c, x, y))
    return tuple(out) if vec else out[0]


def cumulative(v: Any, exclusive: Any = 0, reverse: Any = 0) -> Any:
    """Running sums of a vector value (CumSum of a shape tensor), exact on symbols.

    >>> from shapecheck.types import symbol
    >>> N = symbol("N")
    >>> cumulative((N, 3, 4)), cumulative((N, 3, 4), 1, 1)
    ((N, N + 3, N + 7), (7, 4, 0))
    """
    e = _elems(v)
    if e is None or isinstance(exclusive, Unknown) or isinstance(reverse, Unknown) or not isinstance(v, tuple):
        return NO_VALUE
    seq = list(reversed(e)) if reverse else list(e)
    out, acc = [], 0
    for x in seq:
        if exclusive:
            out.append(acc)
        acc = _one("+", acc, x)
        if not exclusive:
            out.append(acc)
    return tuple(reversed(out)) if reverse else tuple(out)


def count_nonzero(v: Any) -> Any:
    """How many elements of a known value are not zero (NonZero's column count); unknown otherwise.

    >>> count_nonzero((0, 3, 5)), count_nonzero(np.array([[True, False], [True, True]]))
    (2, 3)
    """
    if isinstance(v, np.ndarray):
        return int(np.count_nonzero(v)) if v.dtype.kind in "biufc" else NO_VALUE
    e = _elems(v)
    if e is None or not all(_is_int(x) or isinstance(x, (bool, np.bool_)) for x in e):
        return NO_VALUE
    return sum(1 for x in e if x)


_REDUCE = {"add": "+", "mul": "*", "max": "max", "min": "min"}


def scatter_value(data: Any, indices: Any, updates: Any, reduction: Any = "none") -> Any:
    """A scatter on a vector value (a shape tensor): ``data`` with ``updates`` written at ``indices``.

    Indices must be concrete (a negative one counts from the end); later updates win under
    ``none``, as in the runtimes; ``add``, ``mul``, ``max``, ``min`` combine.

    >>> from shapecheck.types import symbol
    >>> B, S = symbol("B"), symbol("S")
    >>> scatter_value((B, 4, 16, 8), (2,), (S,)), scatter_value((B, 2), (-1,), (3,), "add")
    ((B, 4, S, 8), (B, 5))
    """
    vals, upd = _elems(data), _elems(updates)
    if vals is None or upd is None or not isinstance(data, tuple) or isinstance(indices, Unknown):
        return NO_VALUE
    idx = _elems(indices)
    if idx is None or len(idx) != len(upd) or not all(_is_int(i) for i in idx) or (reduction != "none" and reduction not in _REDUCE):
        return NO_VALUE
    out = list(vals)
    for i, u in zip(idx, upd):
        i = int(i)
        if not -len(out) <= i < len(out):
            raise EvalError(f"index {i} is outside a value of {len(out)} elements")
        out[i] = u if reduction == "none" else _one(_REDUCE[reduction], out[i], u)
    return tuple(out)


# the functions this module lends the notation (registered by notation/compile.py)
NOTATION = (cumulative, count_nonzero, vector, take, concat, elementwise, fold, unary, where, scatter_value,)
