"""Elementwise functions over the *values* of shape tensors, dims as elements: the arithmetic, the
comparisons and logic, Min and Max, Neg, Abs, Sign, Not, Where and Clip.

A shape tensor's value is a tuple of dims (``(N, 12)``), a scalar's is one dim.  These functions
compute such values exactly where they can and with a fresh unknown dim where they cannot: they
never guess.  The integer arithmetic is ONNX's: Div truncates toward zero, Mod takes the divisor's
sign (or the dividend's, with fmod), Pow truncates; on symbols it is exact where the sign allows
it (a length known to be >= 0 divides as floor), else a fresh unknown dim.

>>> from shapecheck.dims import symbol
>>> N, w = symbol("N"), symbol("w")
>>> elementwise("*", (N, 3), 2), where((True, False), (N, 1), (2, 3)), unary("neg", (N, -1))
((2*N, 6), (N, 3), (-N, 1))
>>> div(-7, 2), mod(-7, 2), fmod(-7, 2), div(w, 2), div(6 * w, 3 * w)
(-3, 1, -1, floor(w/2), 2)
>>> div(w - 400, 160)
Max(floor(w/160 - 5/2), Min(0, ceiling(w/160 - 5/2)))
>>> clip_value((N, -2, 9), 0, 5)
(Min(5, N), 0, 5)
"""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

from ..notation import NO_VALUE, EvalError, Unknown, compare_dims, value_of
from ..notation.operators import arith, int_like
from ..dims.rounding import floor_div, provably_nonnegative
from ..dims import LIGHT, has_unknown, is_unknown, normalize_dim, unknown_dim
from ..dims.light_order import decide, least
from .core import _elems, _fresh, _is_int, _value

if TYPE_CHECKING:
    import numpy as np
    import sympy
else:
    from ..deferred import numpy as np
    from ..deferred import sympy


def div(a, b):
    """Integer ``a / b`` as ONNX computes it: truncated toward zero."""
    if int_like(a) and int_like(b):
        if b == 0:
            raise EvalError("integer division by zero")
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b > 0) else -q   # ONNX Div on integers truncates toward zero
    if int_like(b) and b > 0:
        a = sympy.sympify(a)
        if any(is_unknown(s) for s in a.free_symbols):
            return unknown_dim("quotient")
        if provably_nonnegative(a):
            return floor_div(a, b)
        if provably_nonnegative(a + b - 1):   # -b < a < 0 truncates to 0, where floor gives -1
            q = floor_div(a, b)
            # built unevaluated: sympy's own Max looks for the larger argument through its assumptions
            # (30 ms for (h - 1) // 32); compare_dims decides the cases that matter at a fraction of it
            return normalize_dim(q if compare_dims(q, ">=", 0) is True else sympy.Max(0, q, evaluate=False))
        # a length that may be negative (frames - 400): truncation is floor where a >= 0 and ceiling where
        # a < 0, which is Max(floor(a/b), Min(0, ceiling(a/b))) for b > 0 (brute-force tested)
        return normalize_dim(sympy.Max(floor_div(a, b), sympy.Min(0, sympy.ceiling(a / b))))
    elif not int_like(b):
        # a multiple of a symbolic divisor (27*B*H*W by 9*B): exact wherever the divisor is not 0,
        # and at 0 the division fails at run time, so no value is ever other than the quotient
        q = _exact_quotient(a, b)
        if q is not None:
            return q
    return unknown_dim("quotient")


def _exact_quotient(a, b):
    """``a / b`` when it is a polynomial with integer coefficients in the dims and their integer
    parts (floor, Min, Max of dims), so that it is an integer wherever ``b`` is not 0; else None."""
    num, den = sympy.fraction(sympy.cancel(sympy.sympify(a) / b))
    if den != 1:
        return None
    num = sympy.expand(num)
    if num.is_Integer:
        return int(num)
    try:
        poly = sympy.Poly(num)
    except sympy.PolynomialError:
        return None
    whole = all(g.is_Symbol or isinstance(g, (sympy.floor, sympy.ceiling, sympy.Min, sympy.Max)) for g in poly.gens)
    return normalize_dim(num) if whole and all(c.is_Integer for c in poly.coeffs()) else None


def mod(a, b):
    """Integer ``Mod`` with fmod=0: the remainder takes the divisor's sign.

    Symbolic, where one formula holds at every size the node runs at (a divisor of 0 fails it):
    a dim ``a`` by a positive int ``b`` is ``a - b*floor(a/b)``; an int ``a`` by a dim ``b`` is ``a``
    or ``a + b`` where ``b`` is provably past ``a`` (``-1 % seq == seq - 1``: dynamo's
    ``torch.roll(x, 1)``), else unknown.

    >>> from shapecheck.dims import symbol
    >>> s = symbol("seq")
    >>> mod(-1, s), mod(s + 3, 4), is_unknown(mod(5, s))
    (seq - 1, seq - 4*floor(seq/4 + 3/4) + 3, True)
    """
    if int_like(a) and int_like(b):
        if b == 0:
            raise EvalError("integer modulo by zero")
        return a % b   # Mod with fmod=0 takes the divisor's sign, as Python does
    if has_unknown(a) or has_unknown(b):
        return unknown_dim("remainder")
    if int_like(b) and b > 0:
        return normalize_dim(sympy.sympify(a) - b * floor_div(a, b))
    if int_like(a) and provably_nonnegative(b):   # b >= 1 wherever the node runs
        if a == 0:
            return 0
        if a < 0 and (a == -1 or compare_dims(b, ">=", -a) is True):
            return normalize_dim(b + a)
        if a > 0 and compare_dims(b, ">", a) is True:
            return a
    return unknown_dim("remainder")


def fmod(a, b):
    """Integer ``Mod`` with fmod=1: the remainder takes the dividend's sign."""
    if int_like(a) and int_like(b):
        if b == 0:
            raise EvalError("integer modulo by zero")
        return a - b * div(a, b)   # Mod with fmod=1 takes the dividend's sign, as C's fmod does
    return unknown_dim("remainder")


def power(a, b):
    """Integer ``Pow``: a negative exponent truncates toward zero, as onnxruntime does."""
    if int_like(b) and b >= 0:
        return a ** b if int_like(a) else normalize_dim(sympy.sympify(a) ** b)
    if int_like(a) and int_like(b) and a in (0, 1, -1):   # a negative power of 0 is inf, then an undefined cast
        return None if a == 0 else (1 if a == 1 or b % 2 == 0 else -1)
    if int_like(a) and int_like(b):
        return 0   # |a| > 1: onnxruntime truncates a ** b (in (-1, 1)) toward zero
    return unknown_dim("power")


def _minmax(name: str, pyfn):
    def f(a, b):
        if _is_int(a) and _is_int(b):
            return pyfn(a, b)
        if _light(a, b):   # as sympy's Min or Max finds it, or NeedsAlgebra
            return least(normalize_dim(a), normalize_dim(b), "<=" if name == "Min" else ">=")
        return normalize_dim(getattr(sympy, name)(a, b))
    return f


def _rel(op):
    def f(a, b):
        if isinstance(a, bool) or isinstance(b, bool):
            return op(a, b) if isinstance(a, bool) and isinstance(b, bool) else _fresh("truth")
        if _is_int(a) and _is_int(b):
            return bool(op(int(a), int(b)))   # exactly, as sympy compares them
        if _light(a, b):   # as sympy's assumptions find it, or NeedsAlgebra
            return decide(normalize_dim(a) - normalize_dim(b), _OPS[op])
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


def _light(a, b) -> bool:
    """Whether a side is a light check's dim (``dims/light.py``): its arithmetic is its own."""
    return type(a) in LIGHT or type(b) in LIGHT


_OPS = {operator.eq: "==", operator.ne: "!=", operator.lt: "<", operator.le: "<=", operator.gt: ">", operator.ge: ">="}


def _ring(op: str, pyop):
    """``+``, ``-`` or ``*``: a light dim's by its own algebra (``operators.arith``), ints as Python's,
    anything else as sympy's."""
    def f(a, b):
        if _light(a, b):
            return arith(op, a, b)
        if _is_int(a) and _is_int(b):
            return pyop(a, b)
        return normalize_dim(pyop(sympy.sympify(a), b))
    return f


_BINARY = {
    "+": _ring("+", operator.add), "-": _ring("-", operator.sub), "*": _ring("*", operator.mul),
    "/": div, "%": mod, "fmod": fmod, "pow": power,
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

    >>> from shapecheck.notation import TensorVal
    >>> from shapecheck.dims import symbol
    >>> from shapecheck.types import valued
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

    >>> from shapecheck.dims import symbol
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


def clip_value(v: Any, lo: Any = None, hi: Any = None) -> Any:
    """Clip of an integer value: ``min(max(v, lo), hi)`` element by element, an absent bound skipped."""
    v, lo, hi = _value(v), _value(lo), _value(hi)
    if isinstance(v, (Unknown, np.ndarray)):
        return NO_VALUE
    for bound, op in ((lo, "max"), (hi, "min")):
        if bound is None:
            continue
        if isinstance(bound, (Unknown, np.ndarray)):
            return NO_VALUE
        if isinstance(bound, tuple):
            if len(bound) != 1:
                return NO_VALUE
            bound = bound[0]
        v = elementwise(op, v, bound)
    return v


NOTATION = (elementwise, fold, unary, where, clip_value)
